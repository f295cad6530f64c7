//! Logs: the latest lines of a configuration, its log files, one log file.

use crate::{
    context::Ctx,
    path::{LogFilePath, NetPath},
    payload::keys,
    reply::{ApiError, Reply},
};

pub(crate) async fn messages(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let lines = context.service().log_messages(&path.net_name).await?;
    Reply::ok(format!("{} log lines", lines.len())).with::<keys::LogMessages>(&lines)
}

pub(crate) async fn list(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let files = context.service().log_files(&path.net_name).await?;
    Reply::ok(format!("{} log files", files.len())).with::<keys::Logs>(&files)
}

pub(crate) async fn file(context: Ctx, path: LogFilePath) -> Result<Reply, ApiError> {
    let LogFilePath {
        net_name: name,
        log_file_name: file,
    } = path;
    let file_name = file.to_string();
    let bytes = context.service().log_file(&name, file).await?;
    Ok(Reply::file(bytes, "text/plain; charset=utf-8", file_name))
}
