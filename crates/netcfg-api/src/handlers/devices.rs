//! Devices of a configuration, and the devices networks hear that are not in
//! their configuration.

use netcfg_model::{
    DeviceKey,
    body::{DeviceBody, DevicesPatchBody, MultipleDeviceDeleteBody},
};

use super::{change, count, net, require_net, store};
use crate::{
    context::Ctx,
    error_code::ErrorCode,
    path::NoPath,
    path::{DevicePath, NetPath},
    render_cache::Rendered,
    reply::{ApiError, Reply},
    version::ApiVersion,
    wire::{DeviceStatuses, OneOrMany},
};

pub(crate) async fn create(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let body: DeviceBody = context.body()?;
    let device = change(&context, &path.net_name, move |net| net.create_device(body)).await?;
    Reply::created(format!("Device {} created", device.serial_number)).with(&device)
}

pub(crate) async fn get(context: Ctx, path: DevicePath) -> Result<Reply, ApiError> {
    let key = path.device_key;
    let device = net(&context, &path.net_name, move |net| net.device(key)).await?;
    Reply::ok(format!("Device {}", device.serial_number)).with(&device)
}

pub(crate) async fn list(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    // The common case, an awake configuration whose list is kept: answered
    // here, with no blocking-pool thread (reading the generation and the
    // cache touches no file).
    if let Some(net) = context.state().store().net_if_awake(&path.net_name)
        && let Some(rendered) = context
            .state()
            .renders()
            .devices(&path.net_name, net.generation())
    {
        return Ok(sent_list(rendered));
    }
    let name = path.net_name.clone();
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
    let name = path.net_name;
    let renders = context.state().renders();
    let rendered = match fresh {
        Some(devices) => {
            let json = serde_json::to_vec(&devices).map_err(|error| {
                ApiError::internal(format_args!("could not render the devices: {error}"))
            })?;
            let rendered = Rendered::new(json.into(), devices.len());
            renders.keep_devices(name, generation, rendered.clone());
            rendered
        }
        None => match renders.devices(&name, generation) {
            Some(rendered) => rendered,
            // Replaced by a newer list in the meantime: read again.
            None => {
                let devices = net(&context, &name, |net| net.devices()).await?;
                let json = serde_json::to_vec(&devices).map_err(|error| {
                    ApiError::internal(format_args!("could not render the devices: {error}"))
                })?;
                Rendered::new(json.into(), devices.len())
            }
        },
    };
    Ok(sent_list(rendered))
}

/// The answer of a rendered list, kept with it once sent.
fn sent_list(rendered: Rendered) -> Reply {
    Reply::ok(count(rendered.count, "device"))
        .with_json(rendered.json)
        .kept_as(rendered.sent)
}

pub(crate) async fn unconfigured_of_net(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    require_net(&context, &path.net_name).await?;
    let devices = context
        .state()
        .engine()
        .unconfigured_devices(Some(path.net_name));
    Reply::ok(count(devices.len(), "unconfigured device")).with(&devices)
}

pub(crate) async fn unconfigured(context: Ctx, _: NoPath) -> Result<Reply, ApiError> {
    let devices = context.state().engine().unconfigured_devices(None);
    Reply::ok(count(devices.len(), "unconfigured device")).with(&devices)
}

pub(crate) async fn update(context: Ctx, path: DevicePath) -> Result<Reply, ApiError> {
    let key = path.device_key;
    let body: DeviceBody = context.body()?;
    let device = change(&context, &path.net_name, move |net| {
        net.replace_device(key, body)
    })
    .await?;
    Reply::ok(format!("Device {} updated", device.serial_number)).with(&device)
}

pub(crate) async fn update_many(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let body: DevicesPatchBody = context.body()?;
    let version = context.version();
    let outcomes = match body {
        DevicesPatchBody::Single(body) => {
            let key = DeviceKey::Serial(body.serial_number);
            let serial = body.serial_number;
            let outcome = change(&context, &path.net_name, move |net| {
                net.replace_device(key, body)
            })
            .await;
            if version == ApiVersion::V5_1 {
                let device = outcome?;
                return Reply::ok(format!("Device {serial} updated")).with(&OneOrMany::One(device));
            }
            vec![(serial, outcome)]
        }
        DevicesPatchBody::Multiple(bodies) => change(&context, &path.net_name, move |net| {
            net.patch_devices(bodies)
        })
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
            Reply::ok(message).with(&OneOrMany::Many(devices))
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
            Reply::ok(message).with(&statuses)
        }
    }
}

pub(crate) async fn delete(context: Ctx, path: DevicePath) -> Result<Reply, ApiError> {
    let key = path.device_key;
    change(&context, &path.net_name, move |net| net.delete_device(key)).await?;
    Ok(Reply::ok(format!("Device {key} deleted")))
}

pub(crate) async fn delete_many(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let MultipleDeviceDeleteBody { delete } = context.body()?;
    let deleted = change(&context, &path.net_name, move |net| {
        net.delete_devices(delete)
    })
    .await?;
    Ok(Reply::ok(format!("{} deleted", count(deleted, "device"))))
}
