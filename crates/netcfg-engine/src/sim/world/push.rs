//! A configuration pushed to the simulated network: begun, its devices
//! added frame by frame, then committed, which makes the pushed devices the
//! world's (placed by the radio, walking, beaconing at their roles' rates).

use netcfg_model::{NetworkMode, Role, RoleId};

use super::{Outbox, SimDevice, World};
use crate::{
    protocol::{Message, NackReason, SensorKind, WireDevice},
    sim::{
        motion::{Area, Walker},
        radio::Radio,
    },
};

/// A push begun and not yet committed.
#[derive(Debug, Default)]
pub(super) struct PendingPush {
    configuration: String,
    network_mode: NetworkMode,
    roles: Vec<Role>,
    devices: Vec<WireDevice>,
}

impl World {
    /// `ConfigBegin`: a push starts again from nothing.
    pub(super) fn begin_push(
        &mut self,
        configuration: String,
        network_mode: NetworkMode,
        roles: Vec<Role>,
    ) -> Message {
        self.pending = Some(PendingPush {
            configuration,
            network_mode,
            roles,
            devices: Vec::new(),
        });
        Message::Ack
    }

    /// `ConfigDevices`: more devices of the push begun.
    pub(super) fn push_devices(&mut self, devices: Vec<WireDevice>) -> Message {
        match self.pending.as_mut() {
            Some(pending) => {
                pending.devices.extend(devices);
                Message::Ack
            }
            None => Message::Nack {
                reason: NackReason::BadRequest,
            },
        }
    }

    /// `ConfigCommit`: the push becomes the world, when it holds the
    /// devices the commit counts.
    pub(super) fn commit(&mut self, device_count: u32, out: &mut Outbox) -> Message {
        let Some(pending) = self.pending.take() else {
            return Message::Nack {
                reason: NackReason::BadRequest,
            };
        };
        if usize::try_from(device_count) != Ok(pending.devices.len()) {
            return Message::Nack {
                reason: NackReason::BadRequest,
            };
        }
        log::debug!("simulator: configuration {} pushed", pending.configuration);
        let was_running = self.running_since.is_some();
        self.roles = pending.roles;
        self.network_mode = pending.network_mode;
        self.radio = Radio::new(
            self.options.radio.clone(),
            name_salt(&pending.configuration),
        );
        self.devices.clear();
        let mut anchors = Vec::new();
        for wire in pending.devices {
            let device = self.configured_device(&wire);
            if device.is_anchor()
                && let Some(configured) = device.anchor_position
            {
                anchors.push(configured.map(f64::from));
            }
            self.devices.insert(device.serial, device);
        }
        self.add_extras();
        self.seeder_period = self
            .roles
            .iter()
            .find(|role| role.id == RoleId::SEEDER)
            .map_or(0, |role| u64::from(role.network_period.units()))
            .max(4_375);
        self.area = Area::of_anchors(&anchors);
        for device in self.devices.values_mut() {
            if device.period > 0 && device.true_position.is_none() {
                device.walker = Some(Walker::new(device.serial, &self.area, &mut self.radio));
            }
        }
        self.configured = true;
        if was_running {
            // A reload while running: the new devices join at once.
            self.join_all(out);
        }
        Message::Ack
    }

    /// A pushed device as the world holds it: its first interface's role
    /// and position, where it truly stands (the radio's survey error), an
    /// anchor's clock offsets, a tag's beacon and sensor periods.
    fn configured_device(&mut self, wire: &WireDevice) -> SimDevice {
        let mut device = SimDevice::new(wire.serial_number);
        device.configured = true;
        if let Some(interface) = wire.interfaces.first() {
            device.interface = interface.identifier;
            device.role_id = interface.role_id;
            device.anchor_position = interface.position();
        }
        if let Some(configured) = device.anchor_position {
            let configured = configured.map(f64::from);
            let truth = self.radio.true_position(device.serial, configured);
            device.true_position = Some(truth);
            if device.is_anchor() {
                device.offsets = self.radio.anchor_offsets();
            }
        } else if let Some(still) = self.radio.still_position(device.serial) {
            device.true_position = Some(still);
        }
        if let Some(role) = self.roles.iter().find(|role| role.id == device.role_id)
            && device.role_id.is_tag_role()
        {
            device.period = u64::from(role.network_period.units());
            device.sensors = SensorKind::ALL
                .into_iter()
                .filter_map(|kind| {
                    let period = kind.period_in(role).period()?;
                    Some((kind, u64::from(period.units()), 0))
                })
                .collect();
        }
        device
    }
}

/// A number from a configuration's name, so each configuration's random
/// numbers differ and repeat from run to run.
fn name_salt(name: &str) -> u64 {
    name.bytes().fold(0xCBF2_9CE4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01B3)
    })
}
