//! Commands to the devices of a running configuration.

use netcfg_model::{DeviceAction, DeviceKey, SerialNumber, body::MultiDeviceCommandBody};

use super::{device_key, net, net_name, store};
use crate::{
    context::Ctx,
    reply::{ApiError, Reply},
    wire::{CommandFailure, DeviceCommandStatus},
};

/// The serial number of the device the path names (an id is looked up).
async fn serial_of(context: &Ctx, key: DeviceKey) -> Result<SerialNumber, ApiError> {
    match key {
        DeviceKey::Serial(serial) => {
            // The configuration must exist whatever the key.
            let name = net_name(context)?;
            store(context, move |store| store.get(&name)).await?;
            Ok(serial)
        }
        DeviceKey::Id(_) => Ok(net(context, move |net| net.device(key))
            .await?
            .serial_number),
    }
}

pub(crate) async fn one(context: Ctx) -> Result<Reply, ApiError> {
    let name = net_name(&context)?;
    let serial = serial_of(&context, device_key(&context)?).await?;
    let action: DeviceAction = context.body()?;
    let action_name = action.name();
    let timeout = context.state().command_timeout();
    let reply = context
        .state()
        .engine()
        .device_command(&name, serial, action, timeout)
        .await?;
    Reply::ok(format!("Device {serial} did {action_name}")).with(
        "status",
        &DeviceCommandStatus {
            replies: vec![reply],
            failures: Vec::new(),
        },
    )
}

pub(crate) async fn many(context: Ctx) -> Result<Reply, ApiError> {
    let name = net_name(&context)?;
    let checked = name.clone();
    store(&context, move |store| store.get(&checked)).await?;
    let MultiDeviceCommandBody {
        action,
        serial_numbers,
    } = context.body()?;
    let action_name = action.name();
    let asked = serial_numbers.len();
    let timeout = context.state().command_timeout();
    let results = context
        .state()
        .engine()
        .multi_device_command(&name, serial_numbers, action, timeout)
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
        && let Some(error) = first_error
    {
        let messages: Vec<String> = failures
            .iter()
            .map(|failure| format!("{}: {}", failure.serial_number, failure.message))
            .collect();
        return Err(ApiError::new(
            error.status,
            format!("no device did {action_name}: {}", messages.join("; ")),
        ));
    }
    let message = format!("{} of {asked} devices did {action_name}", replies.len());
    Reply::ok(message).with("status", &DeviceCommandStatus { replies, failures })
}
