//! Notifications raised by a configuration's network (stored by the event
//! pump), with their read flags.

use netcfg_model::body::NotificationPatchBody;

use crate::{
    context::Ctx,
    path::{NetPath, NotificationPath},
    payload::keys,
    reply::{ApiError, Reply},
};

pub(crate) async fn get(context: Ctx, path: NotificationPath) -> Result<Reply, ApiError> {
    let identifier = path.identifier;
    let notification = context
        .service()
        .notification(&path.net_name, identifier)
        .await?;
    Reply::ok(format!("Notification {identifier}")).with::<keys::Notification>(&notification)
}

pub(crate) async fn list(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let notifications = context.service().notifications(&path.net_name).await?;
    Reply::ok(super::count(notifications.len(), "notification"))
        .with::<keys::Notifications>(&notifications)
}

/// The list under 5.0's key, `notification` (the seed's Versioning, item 3).
pub(crate) async fn list_5_0(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let notifications = context.service().notifications(&path.net_name).await?;
    Reply::ok(super::count(notifications.len(), "notification"))
        .with::<keys::NotificationList>(&notifications)
}

pub(crate) async fn unread(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let unread = context
        .service()
        .unread_notifications(&path.net_name)
        .await?;
    Reply::ok(format!("{unread} unread")).with::<keys::Count>(&unread)
}

pub(crate) async fn update(context: Ctx, path: NotificationPath) -> Result<Reply, ApiError> {
    let identifier = path.identifier;
    let NotificationPatchBody { read } = context.body()?;
    let write = context.write();
    let notification = context
        .service()
        .set_notification_read(&path.net_name, identifier, read, write)
        .await?;
    let state = if read { "read" } else { "unread" };
    Reply::ok(format!("Notification {identifier} marked {state}"))
        .with::<keys::Notification>(&notification)
}

pub(crate) async fn update_all(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let NotificationPatchBody { read } = context.body()?;
    let write = context.write();
    let notifications = context
        .service()
        .set_all_notifications_read(&path.net_name, read, write)
        .await?;
    let state = if read { "read" } else { "unread" };
    Reply::ok(format!(
        "{} marked {state}",
        super::count(notifications.len(), "notification")
    ))
    .with::<keys::Notifications>(&notifications)
}
