//! The radio interfaces of a device (and, in 5.0, an interface's role).

use netcfg_model::RoleId;

use super::{device_key, net};
use crate::{
    context::Ctx,
    reply::{ApiError, Reply},
};

fn identifier(context: &Ctx) -> Result<u8, ApiError> {
    context.param("interface_identifier")
}

pub(crate) async fn get(context: Ctx) -> Result<Reply, ApiError> {
    let (key, identifier) = (device_key(&context)?, identifier(&context)?);
    let interface = net(&context, move |net| net.interface(key, identifier)).await?;
    Reply::ok(format!("Interface {key}-{identifier}")).with("interface", &interface)
}

pub(crate) async fn list(context: Ctx) -> Result<Reply, ApiError> {
    let key = device_key(&context)?;
    let interfaces = net(&context, move |net| net.interfaces(key)).await?;
    Reply::ok(format!("Interfaces of device {key}")).with("interfaces", &interfaces)
}

pub(crate) async fn delete(context: Ctx) -> Result<Reply, ApiError> {
    let (key, identifier) = (device_key(&context)?, identifier(&context)?);
    net(&context, move |net| net.delete_interface(key, identifier)).await?;
    Ok(Reply::ok(format!("Interface {key}-{identifier} deleted")))
}

pub(crate) async fn roles(context: Ctx) -> Result<Reply, ApiError> {
    let (key, identifier) = (device_key(&context)?, identifier(&context)?);
    let role = net(&context, move |net| net.interface_role(key, identifier)).await?;
    Reply::ok(format!("Role of interface {key}-{identifier}")).with("roles", &[role])
}

pub(crate) async fn role(context: Ctx) -> Result<Reply, ApiError> {
    let (key, identifier) = (device_key(&context)?, identifier(&context)?);
    let wanted = RoleId(context.param("role_id")?);
    let role = net(&context, move |net| net.interface_role(key, identifier)).await?;
    if role.id != wanted {
        return Err(ApiError::not_found(format!(
            "interface {key}-{identifier} has role {} ({}), not role {wanted}",
            role.id, role.name
        )));
    }
    Reply::ok(format!("Role of interface {key}-{identifier}")).with("roles", &[role])
}

pub(crate) async fn delete_role(context: Ctx) -> Result<Reply, ApiError> {
    let (key, identifier) = (device_key(&context)?, identifier(&context)?);
    let role = RoleId(context.param("role_id")?);
    net(&context, move |net| {
        net.clear_interface_role(key, identifier, role)
    })
    .await?;
    Ok(Reply::new(
        actix_web::http::StatusCode::NO_CONTENT,
        format!("Role {role} taken off interface {key}-{identifier}"),
    ))
}
