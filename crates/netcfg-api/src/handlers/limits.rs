//! Position limits (bounding boxes): by id in 5.1, by name in 5.0. Each row
//! names the path type it extracts; the handlers take either.

use netcfg_model::body::{PositionLimitsPatchBody, PositionLimitsPostBody};

use super::{change, count, net};
use crate::{
    context::Ctx,
    path::{LimitPath, NetPath},
    reply::{ApiError, Reply},
};

pub(crate) async fn create(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let body: PositionLimitsPostBody = context.body()?;
    let limit = change(&context, &path.net_name, move |net| {
        net.create_position_limit(body)
    })
    .await?;
    Reply::ok(format!("Position limit {} created", limit.name)).with(&limit)
}

pub(crate) async fn get<P: LimitPath>(context: Ctx, path: P) -> Result<Reply, ApiError> {
    let key = path.limit();
    let limit = net(&context, path.net_name(), move |net| {
        net.position_limit(key)
    })
    .await?;
    Reply::ok(format!("Position limit {}", limit.name)).with(&limit)
}

pub(crate) async fn list(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let limits = net(&context, &path.net_name, |net| net.position_limits()).await?;
    Reply::ok(count(limits.len(), "position limit")).with(&limits)
}

pub(crate) async fn update<P: LimitPath>(context: Ctx, path: P) -> Result<Reply, ApiError> {
    let key = path.limit();
    let body: PositionLimitsPatchBody = context.body()?;
    let limit = change(&context, path.net_name(), move |net| {
        net.patch_position_limit(key, body)
    })
    .await?;
    Reply::ok(format!("Position limit {} updated", limit.name)).with(&limit)
}

pub(crate) async fn delete<P: LimitPath>(context: Ctx, path: P) -> Result<Reply, ApiError> {
    let key = path.limit();
    let message = format!("Position limit {key} deleted");
    change(&context, path.net_name(), move |net| {
        net.delete_position_limit(key)
    })
    .await?;
    Ok(Reply::ok(message))
}
