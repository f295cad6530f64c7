//! Logs: the latest lines the engine keeps of a configuration, its log
//! files, and one log file's text.

use std::io::{Read as _, Seek as _, SeekFrom};

use netcfg_model::{ConfigName, LogFileName};
use netcfg_store::StoreError;

use crate::{Service, ServiceError};

/// The largest log file read, in bytes; a longer one is cut to its end.
pub const LOG_FILE_LIMIT: u64 = 16 << 20;

impl Service {
    /// The latest log lines of the configuration (which must exist).
    pub async fn log_messages(&self, name: &ConfigName) -> Result<Vec<String>, ServiceError> {
        self.require_net(name).await?;
        Ok(self.engine().log_messages(name))
    }

    /// The configuration's log files.
    pub async fn log_files(&self, name: &ConfigName) -> Result<Vec<LogFileName>, ServiceError> {
        let name = name.clone();
        self.blocking(move |store| {
            store.get(&name)?;
            store.log_files(&name)
        })
        .await
    }

    /// One log file's bytes: its last [`LOG_FILE_LIMIT`] bytes when it is
    /// longer.
    pub async fn log_file(
        &self,
        name: &ConfigName,
        file: LogFileName,
    ) -> Result<Vec<u8>, ServiceError> {
        let name = name.clone();
        self.blocking(move |store| {
            let mut opened = store.open_log(&name, &file)?;
            let length = opened
                .metadata()
                .map(|metadata| metadata.len())
                .unwrap_or(0);
            if length > LOG_FILE_LIMIT {
                let _ = opened.seek(SeekFrom::Start(length - LOG_FILE_LIMIT));
            }
            let mut bytes = Vec::new();
            opened
                .take(LOG_FILE_LIMIT)
                .read_to_end(&mut bytes)
                .map_err(|error| StoreError::file(format!("reading log {file}"), error))?;
            Ok(bytes)
        })
        .await
    }

    /// Whether the data directory takes writes now (for readiness): the
    /// store's error when it does not.
    pub async fn probe_writable(&self) -> Result<(), ServiceError> {
        self.blocking(|store| store.probe_writable()).await
    }
}
