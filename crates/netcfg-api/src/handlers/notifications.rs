//! Notifications raised by a configuration's network (stored by the event
//! pump), with their read flags.

use netcfg_model::body::NotificationPatchBody;

use super::{change, net};
use crate::{
    context::Ctx,
    path::{NetPath, NotificationPath},
    reply::{ApiError, Reply},
};

pub(crate) async fn get(context: Ctx, path: NotificationPath) -> Result<Reply, ApiError> {
    let identifier = path.identifier;
    let notification = net(&context, &path.net_name, move |net| {
        net.notification(identifier)
    })
    .await?;
    Reply::ok(format!("Notification {identifier}")).with(&notification)
}

/// The list; 5.0 names it `notification` (the seed's Versioning, item 3),
/// which its row declares.
pub(crate) async fn list(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let notifications = net(&context, &path.net_name, |net| net.notifications()).await?;
    Reply::ok(super::count(notifications.len(), "notification")).with(&notifications)
}

pub(crate) async fn unread(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let unread = net(&context, &path.net_name, |net| net.unread_notifications()).await?;
    Reply::ok(format!("{unread} unread")).with(&unread)
}

pub(crate) async fn update(context: Ctx, path: NotificationPath) -> Result<Reply, ApiError> {
    let identifier = path.identifier;
    let NotificationPatchBody { read } = context.body()?;
    let notification = change(&context, &path.net_name, move |net| {
        net.set_notification_read(identifier, read)
    })
    .await?;
    let state = if read { "read" } else { "unread" };
    Reply::ok(format!("Notification {identifier} marked {state}")).with(&notification)
}

pub(crate) async fn update_all(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let NotificationPatchBody { read } = context.body()?;
    let notifications = change(&context, &path.net_name, move |net| {
        net.set_all_notifications_read(read)?;
        net.notifications()
    })
    .await?;
    let state = if read { "read" } else { "unread" };
    Reply::ok(format!(
        "{} marked {state}",
        super::count(notifications.len(), "notification")
    ))
    .with(&notifications)
}
