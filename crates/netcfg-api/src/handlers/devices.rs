//! Devices of a configuration, and the devices networks hear that are not in
//! their configuration.

use netcfg_model::{
    DeviceKey,
    body::{DeviceBody, DevicesPatchBody, MultipleDeviceDeleteBody},
};

use super::count;
use crate::{
    context::Ctx,
    error_code::ErrorCode,
    path::NoPath,
    path::{DevicePath, NetPath},
    payload::keys,
    render_cache::Rendered,
    reply::{ApiError, Reply},
    version::ApiVersion,
    wire::{DeviceStatuses, OneOrMany},
};

pub(crate) async fn create(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let body: DeviceBody = context.body()?;
    let write = context.write();
    let device = context
        .service()
        .create_device(&path.net_name, body, write)
        .await?;
    Reply::created(format!("Device {} created", device.serial_number)).with::<keys::Device>(&device)
}

pub(crate) async fn get(context: Ctx, path: DevicePath) -> Result<Reply, ApiError> {
    let device = context
        .service()
        .device(&path.net_name, path.device_key)
        .await?;
    Reply::ok(format!("Device {}", device.serial_number)).with::<keys::Device>(&device)
}

pub(crate) async fn list(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    // The common case, an awake configuration whose list is kept: answered
    // here, with no blocking thread (reading the generation and the cache
    // touches no file).
    let service = context.service();
    let renders = context.state().renders();
    if let Some(generation) = service.generation_if_awake(&path.net_name)
        && let Some(rendered) = renders.devices(&path.net_name, generation)
    {
        return Ok(sent_list(rendered));
    }
    let state = context.state_handle();
    let name = path.net_name.clone();
    let (generation, fresh) = service
        .devices_unless_kept(&path.net_name, move |generation| {
            state.renders().devices(&name, generation).is_some()
        })
        .await?;
    let name = path.net_name;
    let rendered = match fresh {
        Some(devices) => {
            let rendered = render_devices(&devices)?;
            renders.keep_devices(name, generation, rendered.clone());
            rendered
        }
        None => match renders.devices(&name, generation) {
            Some(rendered) => rendered,
            // Replaced by a newer list in the meantime: read again.
            None => render_devices(&service.devices(&name).await?)?,
        },
    };
    Ok(sent_list(rendered))
}

/// A device list rendered as JSON, to keep.
fn render_devices(devices: &[netcfg_model::Device]) -> Result<Rendered, ApiError> {
    let json = serde_json::to_vec(devices).map_err(|error| {
        ApiError::internal(format_args!("could not render the devices: {error}"))
    })?;
    Ok(Rendered::new(json.into(), devices.len()))
}

/// The answer of a rendered list, kept with it once sent.
fn sent_list(rendered: Rendered) -> Reply {
    Reply::ok(count(rendered.count, "device"))
        .with_json::<keys::Devices>(rendered.json)
        .kept_as(rendered.sent)
}

pub(crate) async fn unconfigured_of_net(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let devices = context
        .service()
        .unconfigured_devices(Some(&path.net_name))
        .await?;
    Reply::ok(count(devices.len(), "unconfigured device"))
        .with::<keys::UnconfiguredDevices>(&devices)
}

pub(crate) async fn unconfigured(context: Ctx, _: NoPath) -> Result<Reply, ApiError> {
    let devices = context.service().unconfigured_devices(None).await?;
    Reply::ok(count(devices.len(), "unconfigured device"))
        .with::<keys::UnconfiguredDevices>(&devices)
}

pub(crate) async fn update(context: Ctx, path: DevicePath) -> Result<Reply, ApiError> {
    let body: DeviceBody = context.body()?;
    let write = context.write();
    let device = context
        .service()
        .replace_device(&path.net_name, path.device_key, body, write)
        .await?;
    Reply::ok(format!("Device {} updated", device.serial_number)).with::<keys::Device>(&device)
}

pub(crate) async fn update_many(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let body: DevicesPatchBody = context.body()?;
    let write = context.write();
    let service = context.service();
    let version = context.version();
    let outcomes = match body {
        DevicesPatchBody::Single(body) => {
            let key = DeviceKey::Serial(body.serial_number);
            let serial = body.serial_number;
            let outcome = service
                .replace_device(&path.net_name, key, body, write)
                .await
                .map_err(ApiError::from);
            if version == ApiVersion::V5_1 {
                let device = outcome?;
                return Reply::ok(format!("Device {serial} updated"))
                    .with::<keys::DeviceOrDevices>(&OneOrMany::One(device));
            }
            vec![(serial, outcome)]
        }
        DevicesPatchBody::Multiple(bodies) => service
            .patch_devices(&path.net_name, bodies, write)
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
        // Nothing changed: answer with the first failure and every message.
        let first = outcomes
            .iter()
            .find_map(|(_, outcome)| outcome.as_ref().err().cloned());
        let mut error = first.unwrap_or_else(|| {
            ApiError::problem(ErrorCode::InvalidBody, "", "no device to update")
        });
        error.message = format!("no device was updated: {}", failures.join("; "));
        return Err(error);
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
            Reply::ok(message).with::<keys::DeviceOrDevices>(&OneOrMany::Many(devices))
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
            Reply::ok(message).with::<keys::DeviceStatuses>(&statuses)
        }
    }
}

pub(crate) async fn delete(context: Ctx, path: DevicePath) -> Result<Reply, ApiError> {
    let key = path.device_key;
    let write = context.write();
    context
        .service()
        .delete_device(&path.net_name, key, write)
        .await?;
    Ok(Reply::ok(format!("Device {key} deleted")))
}

pub(crate) async fn delete_many(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let MultipleDeviceDeleteBody { delete } = context.body()?;
    let write = context.write();
    let deleted = context
        .service()
        .delete_devices(&path.net_name, delete, write)
        .await?;
    Ok(Reply::ok(format!("{} deleted", count(deleted, "device"))))
}
