//! Roles of a configuration.

use actix_web::http::StatusCode;
use netcfg_model::body::{RolePatchBody, RolePostBody};

use super::count;
use crate::{
    context::Ctx,
    path::{NetPath, RolePath},
    payload::keys,
    reply::{ApiError, Reply},
};

pub(crate) async fn create(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let body: RolePostBody = context.body()?;
    let write = context.write();
    let role = context
        .service()
        .create_role(&path.net_name, body, write)
        .await?;
    Reply::created(format!("Role {} ({}) created", role.id, role.name)).with::<keys::Role>(&role)
}

pub(crate) async fn get(context: Ctx, path: RolePath) -> Result<Reply, ApiError> {
    let role = context.service().role(&path.net_name, path.role()).await?;
    Reply::ok(format!("Role {} ({})", role.id, role.name)).with::<keys::Role>(&role)
}

pub(crate) async fn list(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let roles = context.service().roles(&path.net_name).await?;
    Reply::ok(count(roles.len(), "role")).with::<keys::Roles>(&roles)
}

pub(crate) async fn update(context: Ctx, path: RolePath) -> Result<Reply, ApiError> {
    let id = path.role();
    let body: RolePatchBody = context.body()?;
    let write = context.write();
    let role = context
        .service()
        .patch_role(&path.net_name, id, body, write)
        .await?;
    Reply::ok(format!("Role {} ({}) updated", role.id, role.name)).with::<keys::Role>(&role)
}

pub(crate) async fn delete(context: Ctx, path: RolePath) -> Result<Reply, ApiError> {
    let id = path.role();
    let write = context.write();
    context
        .service()
        .delete_role(&path.net_name, id, write)
        .await?;
    Ok(Reply::new(
        StatusCode::NO_CONTENT,
        format!("Role {id} deleted"),
    ))
}
