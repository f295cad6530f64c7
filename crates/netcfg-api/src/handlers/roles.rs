//! Roles of a configuration.

use actix_web::http::StatusCode;
use netcfg_model::{
    RoleId,
    body::{RolePatchBody, RolePostBody},
};

use super::{count, net};
use crate::{
    context::Ctx,
    reply::{ApiError, Reply},
};

fn role_id(context: &Ctx) -> Result<RoleId, ApiError> {
    Ok(RoleId(context.param("role_id")?))
}

pub(crate) async fn create(context: Ctx) -> Result<Reply, ApiError> {
    let body: RolePostBody = context.body()?;
    let role = net(&context, move |net| net.create_role(body)).await?;
    Reply::created(format!("Role {} ({}) created", role.id, role.name)).with("role", &role)
}

pub(crate) async fn get(context: Ctx) -> Result<Reply, ApiError> {
    let id = role_id(&context)?;
    let role = net(&context, move |net| net.role(id)).await?;
    Reply::ok(format!("Role {} ({})", role.id, role.name)).with("role", &role)
}

pub(crate) async fn list(context: Ctx) -> Result<Reply, ApiError> {
    let roles = net(&context, |net| net.roles()).await?;
    Reply::ok(count(roles.len(), "role")).with("roles", &roles)
}

pub(crate) async fn update(context: Ctx) -> Result<Reply, ApiError> {
    let id = role_id(&context)?;
    let body: RolePatchBody = context.body()?;
    let role = net(&context, move |net| net.patch_role(id, body)).await?;
    Reply::ok(format!("Role {} ({}) updated", role.id, role.name)).with("role", &role)
}

pub(crate) async fn delete(context: Ctx) -> Result<Reply, ApiError> {
    let id = role_id(&context)?;
    net(&context, move |net| net.delete_role(id)).await?;
    Ok(Reply::new(
        StatusCode::NO_CONTENT,
        format!("Role {id} deleted"),
    ))
}
