//! Devices of a configuration, and the devices networks hear that are not in
//! their configuration.

use actix_web::http::StatusCode;
use netcfg_model::{
    DeviceKey,
    body::{DeviceBody, DevicesPatchBody, MultipleDeviceDeleteBody},
};

use super::{count, device_key, net, net_name, store};
use crate::{
    context::Ctx,
    render_cache::Rendered,
    reply::{ApiError, Reply},
    version::ApiVersion,
    wire::{DeviceStatuses, OneOrMany},
};

pub(crate) async fn create(context: Ctx) -> Result<Reply, ApiError> {
    let body: DeviceBody = context.body()?;
    let device = net(&context, move |net| net.create_device(body)).await?;
    Reply::created(format!("Device {} created", device.serial_number)).with("device", &device)
}

pub(crate) async fn get(context: Ctx) -> Result<Reply, ApiError> {
    let key = device_key(&context)?;
    let device = net(&context, move |net| net.device(key)).await?;
    Reply::ok(format!("Device {}", device.serial_number)).with("device", &device)
}

pub(crate) async fn list(context: Ctx) -> Result<Reply, ApiError> {
    let name = net_name(&context)?;
    let state = context.state_handle();
    // The generation is read before the devices, so a list kept under it is
    // never older than it; any commit changes it (netcfg_store::Net::generation).
    let (generation, fresh) = store(&context, move |store| {
        let net = store.net(&name)?;
        let generation = net.generation();
        if state.renders().devices(&name, generation).is_some() {
            return Ok((generation, None));
        }
        Ok((generation, Some(net.devices()?)))
    })
    .await?;
    let name = net_name(&context)?;
    let renders = context.state().renders();
    let rendered = match fresh {
        Some(devices) => {
            let json = serde_json::to_vec(&devices).map_err(|error| {
                ApiError::internal(format!("could not render the devices: {error}"))
            })?;
            let rendered = Rendered {
                json: json.into(),
                count: devices.len(),
            };
            renders.keep_devices(name, generation, rendered.clone());
            rendered
        }
        None => match renders.devices(&name, generation) {
            Some(rendered) => rendered,
            // Replaced by a newer list in the meantime: read again.
            None => {
                let devices = super::net(&context, |net| net.devices()).await?;
                let json = serde_json::to_vec(&devices).map_err(|error| {
                    ApiError::internal(format!("could not render the devices: {error}"))
                })?;
                Rendered {
                    json: json.into(),
                    count: devices.len(),
                }
            }
        },
    };
    Ok(Reply::ok(count(rendered.count, "device")).with_json("devices", &rendered.json))
}

pub(crate) async fn unconfigured_of_net(context: Ctx) -> Result<Reply, ApiError> {
    let name = net_name(&context)?;
    let checked = name.clone();
    store(&context, move |store| store.get(&checked)).await?;
    let devices = context.state().engine().unconfigured_devices(Some(name));
    Reply::ok(count(devices.len(), "unconfigured device")).with("unconfigured_devices", &devices)
}

pub(crate) async fn unconfigured(context: Ctx) -> Result<Reply, ApiError> {
    let devices = context.state().engine().unconfigured_devices(None);
    Reply::ok(count(devices.len(), "unconfigured device")).with("unconfigured_devices", &devices)
}

pub(crate) async fn update(context: Ctx) -> Result<Reply, ApiError> {
    let key = device_key(&context)?;
    let body: DeviceBody = context.body()?;
    let device = net(&context, move |net| net.replace_device(key, body)).await?;
    Reply::ok(format!("Device {} updated", device.serial_number)).with("device", &device)
}

pub(crate) async fn update_many(context: Ctx) -> Result<Reply, ApiError> {
    let body: DevicesPatchBody = context.body()?;
    let version = context.version();
    let outcomes = match body {
        DevicesPatchBody::Single(body) => {
            let key = DeviceKey::Serial(body.serial_number);
            let serial = body.serial_number;
            let outcome = net(&context, move |net| net.replace_device(key, body)).await;
            if version == ApiVersion::V5_1 {
                let device = outcome?;
                return Reply::ok(format!("Device {serial} updated"))
                    .with("device", &OneOrMany::One(device));
            }
            vec![(serial, outcome)]
        }
        DevicesPatchBody::Multiple(bodies) => net(&context, move |net| net.patch_devices(bodies))
            .await?
            .into_iter()
            .map(|(serial, outcome)| (serial, outcome.map_err(ApiError::from)))
            .collect(),
    };
    let failures: Vec<String> = outcomes
        .iter()
        .filter_map(|(serial, outcome)| {
            outcome
                .as_ref()
                .err()
                .map(|error| format!("{serial}: {}", error.message))
        })
        .collect();
    let updated = outcomes.len() - failures.len();
    if updated == 0 {
        // Nothing changed: answer with the first failure's status and every message.
        let status = outcomes
            .iter()
            .find_map(|(_, outcome)| outcome.as_ref().err().map(|error| error.status))
            .unwrap_or(StatusCode::BAD_REQUEST);
        return Err(ApiError::new(
            status,
            format!("no device was updated: {}", failures.join("; ")),
        ));
    }
    let mut message = format!("{} of {} updated", updated, count(outcomes.len(), "device"));
    if !failures.is_empty() {
        message.push_str(&format!("; not updated: {}", failures.join("; ")));
    }
    match version {
        ApiVersion::V5_1 => {
            let devices: Vec<_> = outcomes
                .into_iter()
                .filter_map(|(_, outcome)| outcome.ok())
                .collect();
            Reply::ok(message).with("device", &OneOrMany::Many(devices))
        }
        ApiVersion::V5_0 => {
            let statuses: DeviceStatuses = outcomes
                .into_iter()
                .map(|(serial, outcome)| {
                    let text = match outcome {
                        Ok(_) => "Device updated".to_owned(),
                        Err(error) => error.message,
                    };
                    (serial, text)
                })
                .collect();
            Reply::ok(message).with("device_statuses", &statuses)
        }
    }
}

pub(crate) async fn delete(context: Ctx) -> Result<Reply, ApiError> {
    let key = device_key(&context)?;
    net(&context, move |net| net.delete_device(key)).await?;
    Ok(Reply::ok(format!("Device {key} deleted")))
}

pub(crate) async fn delete_many(context: Ctx) -> Result<Reply, ApiError> {
    let MultipleDeviceDeleteBody { delete } = context.body()?;
    let deleted = net(&context, move |net| net.delete_devices(delete)).await?;
    Ok(Reply::ok(format!("{} deleted", count(deleted, "device"))))
}
