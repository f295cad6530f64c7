//! Position limits (bounding boxes): by id in 5.1, by name in 5.0. The row
//! says which; the handler reads whichever parameter its path has.

use netcfg_model::body::{PositionLimitsPatchBody, PositionLimitsPostBody};
use netcfg_store::PositionLimitKey;

use super::{count, net};
use crate::{
    context::Ctx,
    reply::{ApiError, Reply},
};

fn key(context: &Ctx) -> Result<PositionLimitKey, ApiError> {
    if context.request().match_info().get("id").is_some() {
        Ok(PositionLimitKey::Id(context.param("id")?))
    } else {
        Ok(PositionLimitKey::Name(context.param("name")?))
    }
}

pub(crate) async fn create(context: Ctx) -> Result<Reply, ApiError> {
    let body: PositionLimitsPostBody = context.body()?;
    let limit = net(&context, move |net| net.create_position_limit(body)).await?;
    Reply::ok(format!("Position limit {} created", limit.name)).with("position_limit", &limit)
}

pub(crate) async fn get(context: Ctx) -> Result<Reply, ApiError> {
    let key = key(&context)?;
    let limit = net(&context, move |net| net.position_limit(key)).await?;
    Reply::ok(format!("Position limit {}", limit.name)).with("position_limit", &limit)
}

pub(crate) async fn list(context: Ctx) -> Result<Reply, ApiError> {
    let limits = net(&context, |net| net.position_limits()).await?;
    Reply::ok(count(limits.len(), "position limit")).with("position_limits", &limits)
}

pub(crate) async fn update(context: Ctx) -> Result<Reply, ApiError> {
    let key = key(&context)?;
    let body: PositionLimitsPatchBody = context.body()?;
    let limit = net(&context, move |net| net.patch_position_limit(key, body)).await?;
    Reply::ok(format!("Position limit {} updated", limit.name)).with("position_limit", &limit)
}

pub(crate) async fn delete(context: Ctx) -> Result<Reply, ApiError> {
    let key = key(&context)?;
    let message = format!("Position limit {key} deleted");
    net(&context, move |net| net.delete_position_limit(key)).await?;
    Ok(Reply::ok(message))
}
