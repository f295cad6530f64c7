//! Logs: the latest lines of a configuration, its log files, one log file.

use std::io::Read as _;

use netcfg_model::LogFileName;

use super::{net_name, store};
use crate::{
    context::Ctx,
    reply::{ApiError, Reply},
};

/// The largest log file served, in bytes; a longer one is cut to its end.
const LOG_FILE_LIMIT: u64 = 16 << 20;

pub(crate) async fn messages(context: Ctx) -> Result<Reply, ApiError> {
    let name = net_name(&context)?;
    let checked = name.clone();
    store(&context, move |store| store.get(&checked)).await?;
    let lines = context.state().engine().log_messages(&name);
    Reply::ok(format!("{} log lines", lines.len())).with("log_messages", &lines)
}

pub(crate) async fn list(context: Ctx) -> Result<Reply, ApiError> {
    let name = net_name(&context)?;
    let files = store(&context, move |store| {
        store.get(&name)?;
        store.log_files(&name)
    })
    .await?;
    Reply::ok(format!("{} log files", files.len())).with("logs", &files)
}

pub(crate) async fn file(context: Ctx) -> Result<Reply, ApiError> {
    let name = net_name(&context)?;
    let file: LogFileName = context.param("log_file_name")?;
    let file_name = file.to_string();
    let bytes = store(&context, move |store| {
        let mut opened = store.open_log(&name, &file)?;
        let length = opened
            .metadata()
            .map(|metadata| metadata.len())
            .unwrap_or(0);
        if length > LOG_FILE_LIMIT {
            use std::io::Seek as _;
            let _ = opened.seek(std::io::SeekFrom::Start(length - LOG_FILE_LIMIT));
        }
        let mut bytes = Vec::new();
        opened
            .take(LOG_FILE_LIMIT)
            .read_to_end(&mut bytes)
            .map_err(|error| netcfg_store::StoreError::Io {
                context: format!("reading log {file}"),
                source: std::sync::Arc::new(error),
            })?;
        Ok(bytes)
    })
    .await
    .map_err(|error: ApiError| error)?;
    Ok(Reply::file(bytes, "text/plain; charset=utf-8", file_name))
}
