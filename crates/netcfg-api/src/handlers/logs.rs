//! Logs: the latest lines of a configuration, its log files, one log file.

use std::io::Read as _;

use super::{require_net, store};
use crate::{
    context::Ctx,
    path::{LogFilePath, NetPath},
    reply::{ApiError, Reply},
};

/// The largest log file served, in bytes; a longer one is cut to its end.
const LOG_FILE_LIMIT: u64 = 16 << 20;

pub(crate) async fn messages(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    require_net(&context, &path.net_name).await?;
    let lines = context.state().engine().log_messages(&path.net_name);
    Reply::ok(format!("{} log lines", lines.len())).with(&lines)
}

pub(crate) async fn list(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let name = path.net_name;
    let files = store(&context, move |store| {
        store.get(&name)?;
        store.log_files(&name)
    })
    .await?;
    Reply::ok(format!("{} log files", files.len())).with(&files)
}

pub(crate) async fn file(context: Ctx, path: LogFilePath) -> Result<Reply, ApiError> {
    let LogFilePath {
        net_name: name,
        log_file_name: file,
    } = path;
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
            .map_err(|error| {
                netcfg_store::StoreError::file(format!("reading log {file}"), error)
            })?;
        Ok(bytes)
    })
    .await?;
    Ok(Reply::file(bytes, "text/plain; charset=utf-8", file_name))
}
