//! Roles of a configuration.

use actix_web::http::StatusCode;
use netcfg_model::body::{RolePatchBody, RolePostBody};

use super::{change, count, net};
use crate::{
    context::Ctx,
    path::{NetPath, RolePath},
    reply::{ApiError, Reply},
};

pub(crate) async fn create(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let body: RolePostBody = context.body()?;
    let role = change(&context, &path.net_name, move |net| net.create_role(body)).await?;
    Reply::created(format!("Role {} ({}) created", role.id, role.name)).with(&role)
}

pub(crate) async fn get(context: Ctx, path: RolePath) -> Result<Reply, ApiError> {
    let id = path.role();
    let role = net(&context, &path.net_name, move |net| net.role(id)).await?;
    Reply::ok(format!("Role {} ({})", role.id, role.name)).with(&role)
}

pub(crate) async fn list(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let roles = net(&context, &path.net_name, |net| net.roles()).await?;
    Reply::ok(count(roles.len(), "role")).with(&roles)
}

pub(crate) async fn update(context: Ctx, path: RolePath) -> Result<Reply, ApiError> {
    let id = path.role();
    let body: RolePatchBody = context.body()?;
    let role = change(&context, &path.net_name, move |net| {
        net.patch_role(id, body)
    })
    .await?;
    Reply::ok(format!("Role {} ({}) updated", role.id, role.name)).with(&role)
}

pub(crate) async fn delete(context: Ctx, path: RolePath) -> Result<Reply, ApiError> {
    let id = path.role();
    change(&context, &path.net_name, move |net| net.delete_role(id)).await?;
    Ok(Reply::new(
        StatusCode::NO_CONTENT,
        format!("Role {id} deleted"),
    ))
}
