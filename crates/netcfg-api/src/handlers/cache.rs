//! The cache manager: what the network last reported about each device,
//! kept by the engine whether or not the configuration runs.

use netcfg_model::DeviceKey;

use super::{count, net, require_net};
use crate::{
    context::Ctx,
    path::{DevicePath, NetPath},
    reply::{ApiError, Reply},
};

pub(crate) async fn list(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    require_net(&context, &path.net_name).await?;
    let devices = context.state().engine().cached_devices(&path.net_name);
    Reply::ok(count(devices.len(), "cached device")).with(&devices)
}

/// Forgetting is idempotent: 200 whether or not anything was cached
/// (decisions.md §4); 404 only for a configuration, or a device id, that
/// does not exist.
pub(crate) async fn delete_one(context: Ctx, path: DevicePath) -> Result<Reply, ApiError> {
    let DevicePath {
        net_name,
        device_key,
    } = path;
    let serial = match device_key {
        DeviceKey::Serial(serial) => {
            require_net(&context, &net_name).await?;
            serial
        }
        DeviceKey::Id(_) => {
            net(&context, &net_name, move |net| net.device(device_key))
                .await?
                .serial_number
        }
    };
    let engine = context.state().engine();
    let message = if engine.clear_cached_device(&net_name, serial) {
        format!("Cached data of device {serial} deleted")
    } else {
        format!("Nothing was cached for device {serial}")
    };
    Ok(Reply::ok(message))
}

pub(crate) async fn clear(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    require_net(&context, &path.net_name).await?;
    let cleared = context.state().engine().clear_cache(&path.net_name);
    Ok(Reply::ok(format!(
        "Cached data of {} deleted",
        count(cleared, "device")
    )))
}
