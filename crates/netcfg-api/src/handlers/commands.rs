//! Commands to the devices of a running configuration.

use netcfg_model::{
    ConfigName, DeviceAction, DeviceKey, SerialNumber, body::MultiDeviceCommandBody,
};

use super::{net, require_net};
use crate::{
    context::Ctx,
    error_code::ErrorCode,
    path::{DevicePath, NetPath},
    reply::{ApiError, Reply},
    wire::{CommandFailure, DeviceCommandStatus},
};

/// The serial number of the device the path names (an id is looked up).
async fn serial_of(
    context: &Ctx,
    name: &ConfigName,
    key: DeviceKey,
) -> Result<SerialNumber, ApiError> {
    match key {
        DeviceKey::Serial(serial) => {
            // The configuration must exist whatever the key.
            require_net(context, name).await?;
            Ok(serial)
        }
        DeviceKey::Id(_) => Ok(net(context, name, move |net| net.device(key))
            .await?
            .serial_number),
    }
}

pub(crate) async fn one(context: Ctx, path: DevicePath) -> Result<Reply, ApiError> {
    let serial = serial_of(&context, &path.net_name, path.device_key).await?;
    let action: DeviceAction = context.body()?;
    let action_name = action.name();
    let timeout = context.state().command_timeout();
    let reply = context
        .state()
        .engine()
        .device_command(&path.net_name, serial, action, timeout)
        .await?;
    Reply::ok(format!("Device {serial} did {action_name}")).with(&DeviceCommandStatus {
        replies: vec![reply],
        failures: Vec::new(),
    })
}

/// One command to several devices (decisions.md §4): 404 naming every
/// serial number that is not in the configuration, before anything is sent;
/// 200 at level 2 when some devices fail, with each device's outcome; the
/// first failure's error when none succeeds.
pub(crate) async fn many(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let MultiDeviceCommandBody {
        action,
        serial_numbers,
    } = context.body()?;
    let asked = serial_numbers.clone();
    let unknown = net(&context, &path.net_name, move |net| {
        net.unknown_serials(asked)
    })
    .await?;
    if !unknown.is_empty() {
        let listed: Vec<String> = unknown.iter().map(ToString::to_string).collect();
        return Err(ApiError::new(
            ErrorCode::DeviceNotFound,
            format!(
                "not in configuration {}: {}; no command was sent",
                path.net_name,
                listed.join(", ")
            ),
        ));
    }
    let action_name = action.name();
    let asked = serial_numbers.len();
    let timeout = context.state().command_timeout();
    let results = context
        .state()
        .engine()
        .multi_device_command(&path.net_name, serial_numbers, action, timeout)
        .await?;
    let mut replies = Vec::new();
    let mut failures = Vec::new();
    let mut first_error = None;
    for (serial_number, result) in results {
        match result {
            Ok(reply) => replies.push(reply),
            Err(error) => {
                let error = ApiError::from(error);
                failures.push(CommandFailure {
                    serial_number,
                    message: error.message.clone(),
                });
                first_error.get_or_insert(error);
            }
        }
    }
    if replies.is_empty()
        && let Some(mut error) = first_error
    {
        let messages: Vec<String> = failures
            .iter()
            .map(|failure| format!("{}: {}", failure.serial_number, failure.message))
            .collect();
        error.message = format!("no device did {action_name}: {}", messages.join("; "));
        return Err(error);
    }
    let message = format!("{} of {asked} devices did {action_name}", replies.len());
    let partial = !failures.is_empty();
    let reply = Reply::ok(message).with(&DeviceCommandStatus { replies, failures })?;
    Ok(if partial { reply.partial() } else { reply })
}
