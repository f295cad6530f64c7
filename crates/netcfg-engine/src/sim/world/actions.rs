//! What a simulated device is asked while the network runs: device actions
//! (answered from what the device keeps) and surveys (an anchor ranging its
//! peers).

use netcfg_model::{ActionOutcome, DeviceAction, DeviceActionReply, SerialNumber};
use tokio::time::Instant;

use super::{Outbox, World, device::attributes};
use crate::protocol::{Message, NackReason};

impl World {
    pub(super) fn command(
        &mut self,
        serial: SerialNumber,
        action: DeviceAction,
        out: &mut Outbox,
    ) -> Option<Message> {
        match self.reachable(serial) {
            Err(reason) => return Some(Message::Nack { reason }),
            Ok(false) => return None,
            Ok(true) => {}
        }
        let device = self.devices.get_mut(&serial)?;
        let outcome = match &action {
            DeviceAction::HardReset => {
                device.rejoin_at = Some(Instant::now() + self.options.tick * 5);
                ActionOutcome::Done
            }
            DeviceAction::SoftReset => {
                device.synchronisation = device.in_sync();
                ActionOutcome::Done
            }
            DeviceAction::SetLed { .. }
            | DeviceAction::ClearDeviceError
            | DeviceAction::ShipMode => ActionOutcome::Done,
            DeviceAction::GetPropertyList => ActionOutcome::PropertyList {
                property_ids: device.properties.keys().copied().collect(),
            },
            DeviceAction::GetProperty { property_id } => match device.properties.get(property_id) {
                Some(value) => ActionOutcome::Property {
                    property_id: *property_id,
                    value: *value,
                },
                None => {
                    return Some(Message::Nack {
                        reason: NackReason::BadRequest,
                    });
                }
            },
            DeviceAction::SetProperty { property_id, value } => {
                device.properties.insert(*property_id, *value);
                ActionOutcome::Property {
                    property_id: *property_id,
                    value: *value,
                }
            }
            DeviceAction::GetDeviceAttributes => ActionOutcome::Attributes {
                attributes: attributes(device),
            },
        };
        out.commands += 1;
        Some(Message::DeviceReply(DeviceActionReply {
            serial_number: serial,
            action: action.name(),
            outcome,
        }))
    }

    /// A survey: `anchor` ranges its peers.
    pub(super) fn survey(&mut self, anchor: SerialNumber, rounds: u8) -> Message {
        if self.running_since.is_none() {
            return Message::Nack {
                reason: NackReason::NotRunning,
            };
        }
        let anchors = self.radio_anchors();
        let Some(ranging) = anchors.iter().find(|a| a.serial_number == anchor) else {
            return Message::Nack {
                reason: NackReason::UnknownDevice,
            };
        };
        let ranging = *ranging;
        let peers = self.radio.survey(&ranging, &anchors, rounds.max(1));
        Message::SurveyRanges { anchor, peers }
    }
}
