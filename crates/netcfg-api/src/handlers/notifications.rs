//! Notifications raised by a configuration's network (stored by the event
//! pump), with their read flags.

use netcfg_model::body::NotificationPatchBody;

use super::net;
use crate::{
    context::Ctx,
    reply::{ApiError, Reply},
    version::ApiVersion,
};

pub(crate) async fn get(context: Ctx) -> Result<Reply, ApiError> {
    let identifier: u64 = context.param("identifier")?;
    let notification = net(&context, move |net| net.notification(identifier)).await?;
    Reply::ok(format!("Notification {identifier}")).with("notification", &notification)
}

pub(crate) async fn list(context: Ctx) -> Result<Reply, ApiError> {
    let notifications = net(&context, |net| net.notifications()).await?;
    // 5.0 names the list `notification` (the seed's Versioning, item 3).
    let key = match context.version() {
        ApiVersion::V5_1 => "notifications",
        ApiVersion::V5_0 => "notification",
    };
    Reply::ok(super::count(notifications.len(), "notification")).with(key, &notifications)
}

pub(crate) async fn unread(context: Ctx) -> Result<Reply, ApiError> {
    let unread = net(&context, |net| net.unread_notifications()).await?;
    Reply::ok(format!("{unread} unread")).with("count", &unread)
}

pub(crate) async fn update(context: Ctx) -> Result<Reply, ApiError> {
    let identifier: u64 = context.param("identifier")?;
    let NotificationPatchBody { read } = context.body()?;
    let notification = net(&context, move |net| {
        net.set_notification_read(identifier, read)
    })
    .await?;
    let state = if read { "read" } else { "unread" };
    Reply::ok(format!("Notification {identifier} marked {state}"))
        .with("notification", &notification)
}

pub(crate) async fn update_all(context: Ctx) -> Result<Reply, ApiError> {
    let NotificationPatchBody { read } = context.body()?;
    let notifications = net(&context, move |net| {
        net.set_all_notifications_read(read)?;
        net.notifications()
    })
    .await?;
    let state = if read { "read" } else { "unread" };
    Reply::ok(format!(
        "{} marked {state}",
        super::count(notifications.len(), "notification")
    ))
    .with("notifications", &notifications)
}
