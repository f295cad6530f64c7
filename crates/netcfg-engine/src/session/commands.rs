//! What a client asks of the running network: a resynchronisation, a
//! device action, a magnetometer calibration.

use std::time::Duration;

use netcfg_model::{DeviceAction, DeviceActionReply, Level, MagnetometerCalibration, SerialNumber};

use super::{
    Session,
    exchange::{exchange, expect_ack},
};
use crate::{error::EngineError, protocol::Message};

impl Session {
    pub(crate) async fn resync(&self) -> Result<(), EngineError> {
        self.require_link()?;
        expect_ack(
            &self.driver,
            &self.configuration,
            Message::Resync,
            "resync",
            self.timing.push_timeout,
        )
        .await?;
        self.journal
            .line(Level::Information, "anchors asked to resynchronise");
        Ok(())
    }

    fn map_device_error(
        &self,
        error: EngineError,
        serial_number: SerialNumber,
        action: &DeviceAction,
    ) -> EngineError {
        match error {
            EngineError::NetworkTimeout { waited, .. } => EngineError::DeviceTimeout {
                serial_number,
                action: action.name(),
                waited,
            },
            other => other,
        }
    }

    /// Sends one device action and waits for its reply.
    pub(crate) async fn command(
        &self,
        serial_number: SerialNumber,
        action: DeviceAction,
        timeout: Duration,
    ) -> Result<DeviceActionReply, EngineError> {
        if self.plan().enabled_device(serial_number).is_none() {
            return Err(EngineError::UnknownDevice {
                configuration: self.configuration.clone(),
                serial_number,
            });
        }
        self.require_link()?;
        let name = action.name();
        let message = Message::DeviceCommand {
            serial_number,
            action: action.clone(),
        };
        let answer = exchange(
            &self.driver,
            &self.configuration,
            message,
            "device command",
            timeout,
        )
        .await
        .map_err(|error| self.map_device_error(error, serial_number, &action))?;
        let what = || format!("{name} for device {serial_number}");
        let reply = match answer {
            Message::DeviceReply(reply)
                if reply.serial_number == serial_number && reply.action == name =>
            {
                reply
            }
            Message::Nack { reason } => {
                return Err(EngineError::Refused {
                    what: what(),
                    reason,
                });
            }
            other => {
                return Err(EngineError::UnexpectedReply {
                    what: what(),
                    answer: format!("{other:?}"),
                });
            }
        };
        self.update_cache(serial_number, |cached| cached.last_action = Some(name));
        self.journal.line(
            Level::Information,
            &format!(
                "device {serial_number}: {name} answered {:?}",
                reply.outcome
            ),
        );
        Ok(reply)
    }

    pub(crate) async fn calibrate(
        &self,
        calibration: MagnetometerCalibration,
        timeout: Duration,
    ) -> Result<MagnetometerCalibration, EngineError> {
        let serial_number = calibration.serial_number;
        if self.plan().enabled_device(serial_number).is_none() {
            return Err(EngineError::UnknownDevice {
                configuration: self.configuration.clone(),
                serial_number,
            });
        }
        self.require_link()?;
        let message = Message::SetMagnetometerCalibration(calibration.clone());
        match expect_ack(
            &self.driver,
            &self.configuration,
            message,
            "magnetometer calibration",
            timeout,
        )
        .await
        {
            Ok(()) => {
                self.journal.line(
                    Level::Information,
                    &format!(
                        "device {serial_number}: magnetometer calibration set to {}, {}, {}",
                        calibration.x_offset, calibration.y_offset, calibration.z_offset
                    ),
                );
                Ok(calibration)
            }
            Err(EngineError::NetworkTimeout { waited, .. }) => Err(EngineError::NetworkTimeout {
                configuration: self.configuration.clone(),
                step: "magnetometer calibration",
                waited,
            }),
            Err(error) => Err(error),
        }
    }
}
