//! Data streams: where a running configuration sends its live data.

use netcfg_model::{body::DataStreamBody, default_streams};
use netcfg_store::StreamDeletion;

use super::{change, count, net};
use crate::{
    context::Ctx,
    path::{IdPath, NetPath, NoPath},
    reply::{ApiError, Reply},
    version::ApiVersion,
};

pub(crate) async fn create(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let body: DataStreamBody = context.body()?;
    let stream = change(&context, &path.net_name, move |net| net.create_stream(body)).await?;
    Reply::created(format!("Data stream {} created", stream.name)).with(&stream)
}

pub(crate) async fn get(context: Ctx, path: IdPath) -> Result<Reply, ApiError> {
    let id = path.id;
    let stream = net(&context, &path.net_name, move |net| net.stream(id)).await?;
    Reply::ok(format!("Data stream {}", stream.name)).with(&stream)
}

pub(crate) async fn list(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let streams = net(&context, &path.net_name, |net| net.streams()).await?;
    Reply::ok(count(streams.len(), "data stream")).with(&streams)
}

pub(crate) async fn defaults(_context: Ctx, _: NoPath) -> Result<Reply, ApiError> {
    let streams = default_streams();
    Reply::ok(count(streams.len(), "default data stream")).with(&streams)
}

pub(crate) async fn update(context: Ctx, path: IdPath) -> Result<Reply, ApiError> {
    let id = path.id;
    let body: DataStreamBody = context.body()?;
    let stream = change(&context, &path.net_name, move |net| {
        net.replace_stream(id, body)
    })
    .await?;
    Reply::ok(format!("Data stream {} updated", stream.name)).with(&stream)
}

pub(crate) async fn delete(context: Ctx, path: IdPath) -> Result<Reply, ApiError> {
    let IdPath { net_name, id } = path;
    // 5.0 deletes a default stream outright; 5.1 resets it (the seed's
    // Versioning, item 4). Config, Anchor and User stay in both.
    if context.version() == ApiVersion::V5_0 {
        change(&context, &net_name, move |net| {
            net.delete_stream_outright(id)
        })
        .await?;
        return Ok(Reply::ok("Item Deleted"));
    }
    let message = match change(&context, &net_name, move |net| net.delete_stream(id)).await? {
        StreamDeletion::Deleted => format!("Data stream {id} deleted"),
        StreamDeletion::Reset(stream) => format!(
            "Data stream {} is a default stream: reset to its default values",
            stream.name
        ),
    };
    Ok(Reply::ok(message))
}
