//! The cache manager: what the network last reported about each device,
//! kept by the engine whether or not the configuration runs.

use netcfg_model::DeviceKey;

use super::{count, device_key, net, net_name, store};
use crate::{
    context::Ctx,
    reply::{ApiError, Reply},
};

pub(crate) async fn list(context: Ctx) -> Result<Reply, ApiError> {
    let name = net_name(&context)?;
    let checked = name.clone();
    store(&context, move |store| store.get(&checked)).await?;
    let devices = context.state().engine().cached_devices(&name);
    Reply::ok(count(devices.len(), "cached device")).with("cached_devices", &devices)
}

pub(crate) async fn delete_one(context: Ctx) -> Result<Reply, ApiError> {
    let name = net_name(&context)?;
    let key = device_key(&context)?;
    let serial = match key {
        DeviceKey::Serial(serial) => {
            let checked = name.clone();
            store(&context, move |store| store.get(&checked)).await?;
            serial
        }
        DeviceKey::Id(_) => {
            net(&context, move |net| net.device(key))
                .await?
                .serial_number
        }
    };
    if !context.state().engine().clear_cached_device(&name, serial) {
        return Err(ApiError::not_found(format!(
            "no cached data for device {serial}"
        )));
    }
    Ok(Reply::ok(format!("Cached data of device {serial} deleted")))
}

pub(crate) async fn clear(context: Ctx) -> Result<Reply, ApiError> {
    let name = net_name(&context)?;
    let checked = name.clone();
    store(&context, move |store| store.get(&checked)).await?;
    let cleared = context.state().engine().clear_cache(&name);
    Ok(Reply::ok(format!(
        "Cached data of {} deleted",
        count(cleared, "device")
    )))
}
