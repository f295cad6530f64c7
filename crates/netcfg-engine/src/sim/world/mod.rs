//! The simulated network: devices, their state, and what they report.
//!
//! Its rooms: `device` (one simulated device and how it introduces itself),
//! `push` (a configuration pushed and committed), `actions` (device actions
//! and surveys answered), `step` (what every step of the simulation reports:
//! status, beacons as the anchors measured them, sensors). This file holds
//! the world, its frames handled and its faults injected.

mod actions;
mod device;
mod push;
mod step;

use std::collections::BTreeMap;

use netcfg_model::{
    NetworkMode, Role, SerialNumber, Synchronisation, time::ticks::units_from_duration,
};
use tokio::time::Instant;

use super::{SimFault, SimOptions, TruthBoard, motion::Area, radio::Radio};
use crate::protocol::{AnchorCounters, Frame, Message, NackReason};
use device::{SimDevice, join_reports};
use push::PendingPush;

/// Bytes to write after one step, and what they held.
#[derive(Debug, Default)]
pub(super) struct Outbox {
    pub(super) bytes: Vec<u8>,
    pub(super) frames: u64,
    pub(super) positions: u64,
    pub(super) commands: u64,
}

impl Outbox {
    fn send(&mut self, sequence: u16, message: Message) {
        // Every message the simulator builds is bounded well below the
        // frame limit, so encoding cannot fail; a failure is dropped.
        if let Ok(bytes) = Frame::new(sequence, message).encode() {
            self.bytes.extend_from_slice(&bytes);
            self.frames += 1;
        }
    }

    fn report(&mut self, message: Message) {
        self.send(0, message);
    }

    pub(super) fn clear(&mut self) {
        self.bytes.clear();
        self.frames = 0;
        self.positions = 0;
        self.commands = 0;
    }
}

pub(super) struct World {
    options: SimOptions,
    pending: Option<PendingPush>,
    configured: bool,
    roles: Vec<Role>,
    devices: BTreeMap<SerialNumber, SimDevice>,
    running_since: Option<Instant>,
    next_status: Instant,
    network_mode: NetworkMode,
    radio: Radio,
    area: Area,
    /// Network time units between seeder ticks.
    seeder_period: u64,
    /// Seeder ticks since the start, as of the last step.
    ticks_so_far: u64,
    /// Where each tag was at its latest beacons (the accuracy tally's).
    truth: TruthBoard,
}

impl World {
    pub(super) fn new(options: SimOptions, truth: TruthBoard) -> Self {
        let radio = Radio::new(options.radio.clone(), 0);
        let mut world = Self {
            options,
            pending: None,
            configured: false,
            roles: Vec::new(),
            devices: BTreeMap::new(),
            running_since: None,
            next_status: Instant::now(),
            network_mode: NetworkMode::MultiTime,
            radio,
            area: Area::of_anchors(&[]),
            seeder_period: 9_750,
            ticks_so_far: 0,
            truth,
        };
        world.add_extras();
        world
    }

    fn add_extras(&mut self) {
        for serial in self.options.extra_devices.clone() {
            self.devices
                .entry(serial)
                .or_insert_with(|| SimDevice::new(serial));
        }
    }

    fn network_time(&self, now: Instant) -> u64 {
        let Some(started) = self.running_since else {
            return 0;
        };
        units_from_duration(now.saturating_duration_since(started))
    }

    pub(super) fn handle(&mut self, frame: Frame, out: &mut Outbox) {
        let sequence = frame.sequence;
        let reply = match frame.message {
            Message::Ping { token } => Some(Message::Pong { token }),
            Message::ConfigBegin {
                configuration,
                roles,
                network_mode,
                ..
            } => Some(self.begin_push(configuration, network_mode, roles)),
            Message::ConfigDevices { devices } => Some(self.push_devices(devices)),
            Message::ConfigCommit { device_count } => Some(self.commit(device_count, out)),
            Message::StartNetwork => Some(self.start(out)),
            Message::StopNetwork => {
                self.running_since = None;
                Some(Message::Ack)
            }
            Message::Resync => Some(self.resync(out)),
            Message::DeviceCommand {
                serial_number,
                action,
            } => self.command(serial_number, action, out),
            Message::Survey { anchor, rounds } => Some(self.survey(anchor, rounds)),
            Message::SetMagnetometerCalibration(calibration) => {
                match self.reachable(calibration.serial_number) {
                    Err(reason) => Some(Message::Nack { reason }),
                    Ok(false) => None,
                    Ok(true) => Some(Message::Ack),
                }
            }
            // Replies and reports are what the simulator sends, not receives.
            _ => None,
        };
        if let Some(reply) = reply {
            out.send(sequence, reply);
        }
    }

    fn start(&mut self, out: &mut Outbox) -> Message {
        if !self.configured {
            return Message::Nack {
                reason: NackReason::NotConfigured,
            };
        }
        let now = Instant::now();
        self.running_since = Some(now);
        self.next_status = now;
        self.ticks_so_far = 0;
        for device in self.devices.values_mut() {
            device.counters = AnchorCounters::default();
        }
        self.join_all(out);
        Message::Ack
    }

    fn join_all(&mut self, out: &mut Outbox) {
        let now = Instant::now();
        let network_time = self.network_time(now);
        let serials: Vec<_> = self.devices.keys().copied().collect();
        for serial in serials {
            if let Some(device) = self.devices.get_mut(&serial) {
                device.next_beacon =
                    network_time + device.period * u64::from(serial.as_u32() % 7) / 7;
                for sensor in &mut device.sensors {
                    sensor.2 = network_time + sensor.1;
                }
                if device.silent_since.is_none() {
                    device.synchronisation = device.in_sync();
                    join_reports(device, out);
                }
            }
        }
    }

    /// Every answering anchor takes its synchronisation again (and says so
    /// while the network runs); statuses are due at once.
    fn resync(&mut self, out: &mut Outbox) -> Message {
        let now = Instant::now();
        for device in self
            .devices
            .values_mut()
            .filter(|d| d.configured && d.is_anchor())
        {
            if device.silent_since.is_none() {
                device.synchronisation = device.in_sync();
                if self.running_since.is_some() {
                    out.report(Message::Sync {
                        serial_number: device.serial,
                        synchronisation: device.synchronisation,
                    });
                }
            }
        }
        self.next_status = self.next_status.min(now);
        Message::Ack
    }

    /// `Ok(true)` when the device answers, `Ok(false)` when it is silent.
    fn reachable(&self, serial: SerialNumber) -> Result<bool, NackReason> {
        if self.running_since.is_none() {
            return Err(NackReason::NotRunning);
        }
        match self.devices.get(&serial) {
            None => Err(NackReason::UnknownDevice),
            Some(device) => Ok(device.silent_since.is_none() && device.rejoin_at.is_none()),
        }
    }

    pub(super) fn inject(&mut self, fault: SimFault, out: &mut Outbox) {
        let now = Instant::now();
        match fault {
            SimFault::Silence(serial) => {
                if let Some(device) = self.devices.get_mut(&serial) {
                    device.silent_since.get_or_insert(now);
                }
            }
            SimFault::Revive(serial) => {
                if let Some(device) = self.devices.get_mut(&serial)
                    && device.silent_since.take().is_some()
                {
                    device.lost_reported = false;
                    device.synchronisation = device.in_sync();
                    if self.running_since.is_some() {
                        join_reports(device, out);
                    }
                }
            }
            SimFault::LoseSync(serial) => {
                if let Some(device) = self.devices.get_mut(&serial) {
                    device.synchronisation = Synchronisation::None;
                    if self.running_since.is_some() && device.silent_since.is_none() {
                        out.report(Message::Sync {
                            serial_number: serial,
                            synchronisation: Synchronisation::None,
                        });
                    }
                }
            }
            // Handled by the serve loop.
            SimFault::DropLink => {}
        }
    }
}
