//! Request and reply with the network interface device: a message sent and
//! its answer awaited within a bound, and the configuration pushed.

use std::time::Duration;

use netcfg_model::ConfigName;

use netcfg_model::time::clock::wall_clock_ms;

use crate::{
    driver::{Driver, DriverError},
    error::EngineError,
    plan::NetworkPlan,
    protocol::{Message, WireDevice},
};

/// Devices per `ConfigDevices` frame (well under the payload limit).
const DEVICES_PER_FRAME: usize = 100;

/// Sends `message` and maps the driver's failures to engine errors.
pub(super) async fn exchange(
    driver: &Driver,
    configuration: &ConfigName,
    message: Message,
    step: &'static str,
    timeout: Duration,
) -> Result<Message, EngineError> {
    driver
        .request(message, timeout)
        .await
        .map_err(|error| match error {
            DriverError::Timeout(waited) => EngineError::NetworkTimeout {
                configuration: configuration.clone(),
                step,
                waited,
            },
            DriverError::LinkDown(reason) => EngineError::LinkDown {
                configuration: configuration.clone(),
                reason,
            },
            DriverError::Encode(error) => EngineError::Encode(error),
        })
}

/// Sends `message` and expects `Ack`.
pub(super) async fn expect_ack(
    driver: &Driver,
    configuration: &ConfigName,
    message: Message,
    step: &'static str,
    timeout: Duration,
) -> Result<(), EngineError> {
    match exchange(driver, configuration, message, step, timeout).await? {
        Message::Ack => Ok(()),
        Message::Nack { reason } => Err(EngineError::Refused {
            what: step.to_owned(),
            reason,
        }),
        other => Err(EngineError::UnexpectedReply {
            what: step.to_owned(),
            answer: format!("{other:?}"),
        }),
    }
}

/// Checks the link with a ping, then pushes `plan`'s configuration.
pub(crate) async fn push_configuration(
    driver: &Driver,
    plan: &NetworkPlan,
    timeout: Duration,
) -> Result<(), EngineError> {
    let configuration = &plan.configuration;
    let token = (wall_clock_ms() & 0xFFFF_FFFF) as u32;
    match exchange(
        driver,
        configuration,
        Message::Ping { token },
        "ping",
        timeout,
    )
    .await?
    {
        Message::Pong { token: echoed } if echoed == token => {}
        other => {
            return Err(EngineError::UnexpectedReply {
                what: "ping".to_owned(),
                answer: format!("{other:?}"),
            });
        }
    }
    let begin = Message::ConfigBegin {
        configuration: configuration.to_string(),
        network_mode: plan.network_mode,
        rf: plan.rf.clone(),
        roles: plan.roles.clone(),
    };
    expect_ack(driver, configuration, begin, "configuration push", timeout).await?;
    let devices: Vec<WireDevice> = plan
        .enabled_devices()
        .map(|device| WireDevice {
            serial_number: device.serial_number,
            interfaces: device.interfaces.clone(),
        })
        .collect();
    for chunk in devices.chunks(DEVICES_PER_FRAME) {
        let message = Message::ConfigDevices {
            devices: chunk.to_vec(),
        };
        expect_ack(
            driver,
            configuration,
            message,
            "configuration push",
            timeout,
        )
        .await?;
    }
    let commit = Message::ConfigCommit {
        device_count: u32::try_from(devices.len()).unwrap_or(u32::MAX),
    };
    expect_ack(driver, configuration, commit, "configuration push", timeout).await
}

pub(crate) async fn start_network(
    driver: &Driver,
    plan: &NetworkPlan,
    timeout: Duration,
) -> Result<(), EngineError> {
    expect_ack(
        driver,
        &plan.configuration,
        Message::StartNetwork,
        "start",
        timeout,
    )
    .await
}
