//! Position limits (bounding boxes): by id in 5.1, by name in 5.0. Each row
//! names the path type it extracts; the handlers take either.

use netcfg_model::body::{PositionLimitsPatchBody, PositionLimitsPostBody};

use super::count;
use crate::{
    context::Ctx,
    path::{LimitPath, NetPath},
    payload::keys,
    reply::{ApiError, Reply},
};

pub(crate) async fn create(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let body: PositionLimitsPostBody = context.body()?;
    let write = context.write();
    let limit = context
        .service()
        .create_position_limit(&path.net_name, body, write)
        .await?;
    Reply::ok(format!("Position limit {} created", limit.name)).with::<keys::PositionLimit>(&limit)
}

pub(crate) async fn get<P: LimitPath>(context: Ctx, path: P) -> Result<Reply, ApiError> {
    let key = path.limit();
    let limit = context
        .service()
        .position_limit(path.net_name(), key)
        .await?;
    Reply::ok(format!("Position limit {}", limit.name)).with::<keys::PositionLimit>(&limit)
}

pub(crate) async fn list(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let limits = context.service().position_limits(&path.net_name).await?;
    Reply::ok(count(limits.len(), "position limit")).with::<keys::PositionLimits>(&limits)
}

pub(crate) async fn update<P: LimitPath>(context: Ctx, path: P) -> Result<Reply, ApiError> {
    let key = path.limit();
    let body: PositionLimitsPatchBody = context.body()?;
    let write = context.write();
    let limit = context
        .service()
        .patch_position_limit(path.net_name(), key, body, write)
        .await?;
    Reply::ok(format!("Position limit {} updated", limit.name)).with::<keys::PositionLimit>(&limit)
}

pub(crate) async fn delete<P: LimitPath>(context: Ctx, path: P) -> Result<Reply, ApiError> {
    let key = path.limit();
    let message = format!("Position limit {key} deleted");
    let write = context.write();
    context
        .service()
        .delete_position_limit(path.net_name(), key, write)
        .await?;
    Ok(Reply::ok(message))
}
