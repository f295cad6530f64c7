//! Data streams: where a running configuration sends its live data.

use netcfg_model::{body::DataStreamBody, default_streams};
use netcfg_service::StreamDeletion;

use super::count;
use crate::{
    context::Ctx,
    path::{IdPath, NetPath, NoPath},
    payload::keys,
    reply::{ApiError, Reply},
    version::ApiVersion,
};

pub(crate) async fn create(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let body: DataStreamBody = context.body()?;
    let write = context.write();
    let stream = context
        .service()
        .create_stream(&path.net_name, body, write)
        .await?;
    Reply::created(format!("Data stream {} created", stream.name)).with::<keys::Stream>(&stream)
}

pub(crate) async fn get(context: Ctx, path: IdPath) -> Result<Reply, ApiError> {
    let stream = context.service().stream(&path.net_name, path.id).await?;
    Reply::ok(format!("Data stream {}", stream.name)).with::<keys::Stream>(&stream)
}

pub(crate) async fn list(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let streams = context.service().streams(&path.net_name).await?;
    Reply::ok(count(streams.len(), "data stream")).with::<keys::Streams>(&streams)
}

pub(crate) async fn defaults(_context: Ctx, _: NoPath) -> Result<Reply, ApiError> {
    let streams = default_streams();
    Reply::ok(count(streams.len(), "default data stream")).with::<keys::Streams>(&streams)
}

pub(crate) async fn update(context: Ctx, path: IdPath) -> Result<Reply, ApiError> {
    let id = path.id;
    let body: DataStreamBody = context.body()?;
    let write = context.write();
    let stream = context
        .service()
        .replace_stream(&path.net_name, id, body, write)
        .await?;
    Reply::ok(format!("Data stream {} updated", stream.name)).with::<keys::Stream>(&stream)
}

pub(crate) async fn delete(context: Ctx, path: IdPath) -> Result<Reply, ApiError> {
    let IdPath { net_name, id } = path;
    // 5.0 deletes a default stream outright; 5.1 resets it (the seed's
    // Versioning, item 4). Config, Anchor and User stay in both.
    let write = context.write();
    let service = context.service();
    if context.version() == ApiVersion::V5_0 {
        service.delete_stream_outright(&net_name, id, write).await?;
        return Ok(Reply::ok("Item Deleted"));
    }
    let message = match service.delete_stream(&net_name, id, write).await? {
        StreamDeletion::Deleted => format!("Data stream {id} deleted"),
        StreamDeletion::Reset(stream) => format!(
            "Data stream {} is a default stream: reset to its default values",
            stream.name
        ),
    };
    Ok(Reply::ok(message))
}
