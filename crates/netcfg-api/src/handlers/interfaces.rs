//! The radio interfaces of a device (and, in 5.0, an interface's role).

use actix_web::http::StatusCode;

use crate::{
    context::Ctx,
    error_code::ErrorCode,
    path::{DevicePath, InterfacePath, InterfaceRolePath},
    payload::keys,
    reply::{ApiError, Reply},
};

pub(crate) async fn get(context: Ctx, path: InterfacePath) -> Result<Reply, ApiError> {
    let (key, identifier) = (path.device_key, path.interface_identifier);
    let interface = context
        .service()
        .interface(&path.net_name, key, identifier)
        .await?;
    Reply::ok(format!("Interface {key}-{identifier}")).with::<keys::Interface>(&interface)
}

pub(crate) async fn list(context: Ctx, path: DevicePath) -> Result<Reply, ApiError> {
    let key = path.device_key;
    let interfaces = context.service().interfaces(&path.net_name, key).await?;
    Reply::ok(format!("Interfaces of device {key}")).with::<keys::Interfaces>(&interfaces)
}

pub(crate) async fn delete(context: Ctx, path: InterfacePath) -> Result<Reply, ApiError> {
    let (key, identifier) = (path.device_key, path.interface_identifier);
    let write = context.write();
    context
        .service()
        .delete_interface(&path.net_name, key, identifier, write)
        .await?;
    Ok(Reply::ok(format!("Interface {key}-{identifier} deleted")))
}

pub(crate) async fn roles(context: Ctx, path: InterfacePath) -> Result<Reply, ApiError> {
    let (key, identifier) = (path.device_key, path.interface_identifier);
    let role = context
        .service()
        .interface_role(&path.net_name, key, identifier)
        .await?;
    Reply::ok(format!("Role of interface {key}-{identifier}")).with::<keys::Roles>(&vec![role])
}

pub(crate) async fn role(context: Ctx, path: InterfaceRolePath) -> Result<Reply, ApiError> {
    let (key, identifier, wanted) = (path.device_key, path.interface_identifier, path.role());
    let role = context
        .service()
        .interface_role(&path.net_name, key, identifier)
        .await?;
    if role.id != wanted {
        return Err(ApiError::new(
            ErrorCode::RoleNotFound,
            format!(
                "interface {key}-{identifier} has role {} ({}), not role {wanted}",
                role.id, role.name
            ),
        ));
    }
    Reply::ok(format!("Role of interface {key}-{identifier}")).with::<keys::Roles>(&vec![role])
}

pub(crate) async fn delete_role(context: Ctx, path: InterfaceRolePath) -> Result<Reply, ApiError> {
    let (key, identifier, role) = (path.device_key, path.interface_identifier, path.role());
    let write = context.write();
    context
        .service()
        .clear_interface_role(&path.net_name, key, identifier, role, write)
        .await?;
    Ok(Reply::new(
        StatusCode::NO_CONTENT,
        format!("Role {role} taken off interface {key}-{identifier}"),
    ))
}
