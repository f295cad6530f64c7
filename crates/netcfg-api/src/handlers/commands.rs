//! Commands to the devices of a running configuration.

use crate::{
    context::Ctx,
    error_code::ErrorCode,
    path::{DevicePath, NetPath},
    payload::keys,
    reply::{ApiError, Reply},
    wire::{CommandFailure, DeviceCommandStatus},
};
use netcfg_model::{DeviceAction, body::MultiDeviceCommandBody};

pub(crate) async fn one(context: Ctx, path: DevicePath) -> Result<Reply, ApiError> {
    let service = context.service();
    // The device must exist before the body is read (a 404 first).
    let serial = service.serial_of(&path.net_name, path.device_key).await?;
    let action: DeviceAction = context.body()?;
    let action_name = action.name();
    let reply = service
        .device_command(&path.net_name, serial, action)
        .await?;
    Reply::ok(format!("Device {serial} did {action_name}")).with::<keys::CommandStatus>(
        &DeviceCommandStatus {
            replies: vec![reply],
            failures: Vec::new(),
        },
    )
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
    let service = context.service();
    let unknown = service
        .unknown_serials(&path.net_name, serial_numbers.clone())
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
    let results = service
        .multi_device_command(&path.net_name, serial_numbers, action)
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
    let reply = Reply::ok(message)
        .with::<keys::CommandStatus>(&DeviceCommandStatus { replies, failures })?;
    Ok(if partial { reply.partial() } else { reply })
}
