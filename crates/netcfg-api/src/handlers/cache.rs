//! The cache manager: what the network last reported about each device,
//! kept by the engine whether or not the configuration runs.

use super::count;
use crate::{
    context::Ctx,
    path::{DevicePath, NetPath},
    payload::keys,
    reply::{ApiError, Reply},
};

pub(crate) async fn list(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let devices = context.service().cached_devices(&path.net_name).await?;
    Reply::ok(count(devices.len(), "cached device")).with::<keys::CachedDevices>(&devices)
}

/// Forgetting is idempotent: 200 whether or not anything was cached
/// (decisions.md §4); 404 only for a configuration, or a device id, that
/// does not exist.
pub(crate) async fn delete_one(context: Ctx, path: DevicePath) -> Result<Reply, ApiError> {
    let (serial, cleared) = context
        .service()
        .clear_cached_device(&path.net_name, path.device_key)
        .await?;
    let message = if cleared {
        format!("Cached data of device {serial} deleted")
    } else {
        format!("Nothing was cached for device {serial}")
    };
    Ok(Reply::ok(message))
}

pub(crate) async fn clear(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let cleared = context.service().clear_cache(&path.net_name).await?;
    Ok(Reply::ok(format!(
        "Cached data of {} deleted",
        count(cleared, "device")
    )))
}
