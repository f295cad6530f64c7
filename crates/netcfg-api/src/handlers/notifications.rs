//! Notifications raised by a configuration's network (stored by the event
//! pump), with their read flags.

use netcfg_model::body::NotificationPatchBody;

use crate::{
    context::Ctx,
    path::{NetPath, NotificationPath},
    reply::{ApiError, Reply},
};

pub(crate) async fn get(context: Ctx, path: NotificationPath) -> Result<Reply, ApiError> {
    let identifier = path.identifier;
    let notification = context
        .service()
        .notification(&path.net_name, identifier)
        .await?;
    Reply::ok(format!("Notification {identifier}")).with(&notification)
}

/// The list; 5.0 names it `notification` (the seed's Versioning, item 3),
/// which its row declares.
pub(crate) async fn list(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let notifications = context.service().notifications(&path.net_name).await?;
    Reply::ok(super::count(notifications.len(), "notification")).with(&notifications)
}

pub(crate) async fn unread(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let unread = context
        .service()
        .unread_notifications(&path.net_name)
        .await?;
    Reply::ok(format!("{unread} unread")).with(&unread)
}

pub(crate) async fn update(context: Ctx, path: NotificationPath) -> Result<Reply, ApiError> {
    let identifier = path.identifier;
    let NotificationPatchBody { read } = context.body()?;
    let write = context.write().await?;
    let notification = context
        .service()
        .set_notification_read(&path.net_name, identifier, read, write)
        .await?;
    let state = if read { "read" } else { "unread" };
    Reply::ok(format!("Notification {identifier} marked {state}")).with(&notification)
}

pub(crate) async fn update_all(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let NotificationPatchBody { read } = context.body()?;
    let write = context.write().await?;
    let notifications = context
        .service()
        .set_all_notifications_read(&path.net_name, read, write)
        .await?;
    let state = if read { "read" } else { "unread" };
    Reply::ok(format!(
        "{} marked {state}",
        super::count(notifications.len(), "notification")
    ))
    .with(&notifications)
}
