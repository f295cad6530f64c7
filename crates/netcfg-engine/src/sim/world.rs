//! The simulated network: devices, their state, and what they report.

use std::collections::{BTreeMap, HashMap};

use netcfg_model::{
    ActionOutcome, Connectivity, DeviceAction, DeviceActionReply, DeviceAttributes, DeviceStatus,
    FirmwareImage, FirmwareImageType, NetworkMode, NetworkTime, Role, RoleId, SerialNumber,
    Synchronisation,
};
use tokio::time::Instant;

use super::{
    SimFault, SimOptions,
    motion::{Area, Walker},
    radio::{Radio, RadioAnchor, TICKS_PER_UNIT},
};
use crate::protocol::{
    AnchorCounters, BeaconReport, Frame, MAX_PAYLOAD, Message, NackReason, SensorKind,
    SensorReport, WireDevice,
};

/// Reports of one kind sent in one frame at most (keeps frames well under
/// the payload limit).
const BATCH: usize = 100;
/// Payload bytes of beacon measurements gathered into one frame at most.
const BEACON_BYTES: usize = MAX_PAYLOAD - 256;

/// A tag more periods late than this skips ahead instead of bursting.
const MAX_CATCH_UP: u64 = 10;

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

#[derive(Debug)]
struct SimDevice {
    serial: SerialNumber,
    interface: u8,
    role_id: RoleId,
    configured: bool,
    anchor_position: Option<[i32; 3]>,
    /// Where it truly is (configured + the instance's survey error); for
    /// tags, only reference tags (which stand still).
    true_position: Option<[f64; 3]>,
    /// A moving tag's walk.
    walker: Option<Walker>,
    /// Anchors: residual synchronisation error and free clock offset, mm.
    offsets: (f64, f64),
    /// Network time units between beacons; 0 for devices that do not beacon.
    period: u64,
    next_beacon: u64,
    sensors: Vec<(SensorKind, u64, u64)>,
    silent_since: Option<Instant>,
    lost_reported: bool,
    synchronisation: Synchronisation,
    rejoin_at: Option<Instant>,
    properties: BTreeMap<u32, i64>,
    /// Anchors and seeders: what they timed since the network started.
    counters: AnchorCounters,
}

impl SimDevice {
    fn new(serial: SerialNumber) -> Self {
        let seed = serial.as_u32();
        Self {
            serial,
            interface: 0,
            role_id: RoleId::UNCONFIGURED,
            configured: false,
            anchor_position: None,
            true_position: None,
            walker: None,
            offsets: (0.0, 0.0),
            period: 0,
            next_beacon: 0,
            sensors: Vec::new(),
            silent_since: None,
            lost_reported: false,
            synchronisation: Synchronisation::None,
            rejoin_at: None,
            // A few persistent properties every device has.
            properties: BTreeMap::from([(1, 0), (2, i64::from(seed & 0xFF)), (7, 100)]),
            counters: AnchorCounters::default(),
        }
    }

    fn is_anchor(&self) -> bool {
        self.role_id == RoleId::ANCHOR || self.role_id == RoleId::SEEDER
    }

    fn in_sync(&self) -> Synchronisation {
        match self.role_id {
            RoleId::SEEDER => Synchronisation::TxAndRx,
            RoleId::ANCHOR => Synchronisation::Rx,
            _ => Synchronisation::None,
        }
    }

    fn status(&self, now: Instant, started: Instant) -> DeviceStatus {
        let minutes = now.saturating_duration_since(started).as_secs() / 60;
        let wobble = (self.serial.as_u32() % 7) as u8;
        if self.is_anchor() {
            DeviceStatus {
                battery_percent: DeviceStatus::NO_BATTERY,
                temperature_celsius: 38 + i16::from(wobble),
                processor_use_percent: 20 + wobble,
                minutes_remaining: None,
            }
        } else {
            let battery = 100u8.saturating_sub(u8::try_from(minutes.min(90)).unwrap_or(90));
            DeviceStatus {
                battery_percent: battery,
                temperature_celsius: 24 + i16::from(wobble),
                processor_use_percent: 5 + wobble,
                minutes_remaining: Some(u32::from(battery) * 60),
            }
        }
    }
}

#[derive(Debug, Default)]
struct PendingPush {
    configuration: String,
    network_mode: NetworkMode,
    roles: Vec<Role>,
    devices: Vec<WireDevice>,
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
}

/// Of every thousand beacons an anchor hears, how many it discards and how
/// many come late (a little different for each anchor).
fn beacon_losses(serial: SerialNumber) -> (u64, u64) {
    let seed = u64::from(serial.as_u32());
    (2 + seed % 5, 1 + seed % 3)
}

impl World {
    pub(super) fn new(options: SimOptions) -> Self {
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
        let nanos = now.saturating_duration_since(started).as_nanos();
        let units = nanos * u128::from(NetworkTime::UNITS_PER_SECOND) / 1_000_000_000;
        u64::try_from(units).unwrap_or(u64::MAX)
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
            } => {
                self.pending = Some(PendingPush {
                    configuration,
                    network_mode,
                    roles,
                    devices: Vec::new(),
                });
                Some(Message::Ack)
            }
            Message::ConfigDevices { devices } => Some(match self.pending.as_mut() {
                Some(pending) => {
                    pending.devices.extend(devices);
                    Message::Ack
                }
                None => Message::Nack {
                    reason: NackReason::BadRequest,
                },
            }),
            Message::ConfigCommit { device_count } => Some(self.commit(device_count, out)),
            Message::StartNetwork => Some(self.start(out)),
            Message::StopNetwork => {
                self.running_since = None;
                Some(Message::Ack)
            }
            Message::Resync => {
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
                Some(Message::Ack)
            }
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

    fn commit(&mut self, device_count: u32, out: &mut Outbox) -> Message {
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
                    anchors.push(configured);
                    device.offsets = self.radio.anchor_offsets();
                }
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

    fn command(
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

    pub(super) fn tick(&mut self, out: &mut Outbox) {
        if self.running_since.is_none() {
            return;
        }
        let now = Instant::now();
        let network_time = self.network_time(now);
        let status_due = now >= self.next_status;
        if status_due {
            self.next_status = now + self.options.status_period;
        }
        let mut due = Vec::new();
        let mut sensors = Vec::new();
        for device in self.devices.values_mut() {
            if let Some(since) = device.silent_since {
                if !device.lost_reported
                    && now.saturating_duration_since(since) >= self.options.lost_after
                {
                    device.lost_reported = true;
                    out.report(Message::Lost {
                        serial_number: device.serial,
                    });
                }
                continue;
            }
            if let Some(at) = device.rejoin_at
                && now >= at
            {
                device.rejoin_at = None;
                join_reports(device, out);
            }
            if device.rejoin_at.is_some() {
                continue;
            }
            if status_due {
                if device.configured {
                    out.report(Message::Status {
                        serial_number: device.serial,
                        connectivity: Connectivity::Uwb,
                        status: device.status(now, self.running_since.unwrap_or(now)),
                    });
                    if device.is_anchor() {
                        out.report(Message::AnchorCounters {
                            serial_number: device.serial,
                            interface: device.interface,
                            counters: device.counters,
                        });
                    }
                } else {
                    out.report(Message::Heard {
                        serial_number: device.serial,
                    });
                }
            }
            if !device.configured || device.period == 0 {
                continue;
            }
            if network_time >= device.next_beacon + device.period * MAX_CATCH_UP {
                device.next_beacon = network_time;
            }
            while device.next_beacon <= network_time {
                due.push((device.serial, device.next_beacon));
                device.next_beacon += device.period;
            }
            for (kind, period, next) in &mut device.sensors {
                if network_time >= *next + *period * MAX_CATCH_UP {
                    *next = network_time;
                }
                while *next <= network_time {
                    sensors.push(SensorReport {
                        serial_number: device.serial,
                        kind: *kind,
                        values: sensor_values(*kind, *next),
                    });
                    *next += *period;
                }
            }
        }
        let beacons = self.measure(&due);
        self.count_receptions(network_time, &beacons);
        out.positions += beacons.len() as u64;
        self.send_beacons(network_time, beacons, out);
        for chunk in sensors.chunks(BATCH) {
            out.report(Message::Sensors {
                network_time,
                reports: chunk.to_vec(),
            });
        }
    }
}

impl World {
    /// The anchors and seeders the radio can use now: configured,
    /// positioned, answering.
    fn radio_anchors(&self) -> Vec<RadioAnchor> {
        self.devices
            .values()
            .filter(|device| {
                device.configured
                    && device.is_anchor()
                    && device.silent_since.is_none()
                    && device.rejoin_at.is_none()
            })
            .filter_map(|device| {
                Some(RadioAnchor {
                    serial_number: device.serial,
                    position: device.true_position?,
                    sync_offset_mm: device.offsets.0,
                    clock_offset_mm: device.offsets.1,
                    synchronised: device.synchronisation != Synchronisation::None,
                })
            })
            .collect()
    }

    /// What the anchors measured of each beacon due (tag, network time).
    fn measure(&mut self, due: &[(SerialNumber, u64)]) -> Vec<BeaconReport> {
        if due.is_empty() {
            return Vec::new();
        }
        let anchors = self.radio_anchors();
        let mut beacons = Vec::with_capacity(due.len());
        for &(serial, at_units) in due {
            let Some(device) = self.devices.get_mut(&serial) else {
                continue;
            };
            let seconds = at_units as f64 / f64::from(NetworkTime::UNITS_PER_SECOND);
            let here = match (device.true_position, device.walker.as_mut()) {
                (Some(still), _) => still,
                (None, Some(walker)) => walker.position_at(seconds, &self.area, &mut self.radio),
                (None, None) => continue,
            };
            let beacon = match self.network_mode {
                NetworkMode::MultiTime => self.radio.arrival_times(
                    serial,
                    here,
                    at_units.saturating_mul(TICKS_PER_UNIT),
                    &anchors,
                ),
                NetworkMode::MultiRange => self.radio.ranges(serial, here, &anchors),
            };
            beacons.push(beacon);
        }
        beacons
    }

    /// Sends beacons in frames that stay under the payload limit.
    fn send_beacons(&self, network_time: u64, beacons: Vec<BeaconReport>, out: &mut Outbox) {
        let wrap = |beacons: Vec<BeaconReport>| match self.network_mode {
            NetworkMode::MultiTime => Message::ArrivalTimes {
                network_time,
                beacons,
            },
            NetworkMode::MultiRange => Message::Ranges {
                network_time,
                beacons,
            },
        };
        let mut frame = Vec::new();
        let mut bytes = 0;
        for beacon in beacons {
            let size = 14 + 8 * beacon.links.len();
            if bytes + size > BEACON_BYTES && !frame.is_empty() {
                out.report(wrap(std::mem::take(&mut frame)));
                bytes = 0;
            }
            bytes += size;
            frame.push(beacon);
        }
        if !frame.is_empty() {
            out.report(wrap(frame));
        }
    }

    /// A survey: `anchor` ranges its peers.
    fn survey(&mut self, anchor: SerialNumber, rounds: u8) -> Message {
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

    /// Every synchronised, reachable anchor times the seeder ticks of this
    /// step and the tag beacons it heard; it discards a few and gets a few
    /// late ([`beacon_losses`]).
    fn count_receptions(&mut self, network_time: u64, beacons: &[BeaconReport]) {
        let ticks_now = network_time / self.seeder_period.max(1);
        let new_ticks = ticks_now.saturating_sub(self.ticks_so_far);
        self.ticks_so_far = ticks_now;
        let mut heard_by: HashMap<SerialNumber, u64> = HashMap::new();
        for beacon in beacons {
            for (anchor, _) in &beacon.links {
                *heard_by.entry(*anchor).or_default() += 1;
            }
        }
        for device in self.devices.values_mut() {
            if !device.is_anchor()
                || !device.configured
                || device.silent_since.is_some()
                || device.rejoin_at.is_some()
                || device.synchronisation == Synchronisation::None
            {
                continue;
            }
            let beacons = heard_by.get(&device.serial).copied().unwrap_or(0);
            let counters = &mut device.counters;
            // The wire counters are u32 and wrap, as a device's would.
            let wrap = |value: u64| (value & u64::from(u32::MAX)) as u32;
            counters.ticks = counters.ticks.wrapping_add(wrap(new_ticks));
            let heard_before = u64::from(counters.beacons_reported)
                + u64::from(counters.beacons_discarded)
                + u64::from(counters.beacons_late);
            let heard = heard_before + beacons;
            let (discard, late) = beacon_losses(device.serial);
            let discarded = heard * discard / 1_000;
            let late = heard * late / 1_000;
            let reported_now = heard - discarded - late;
            let reported_new = reported_now.saturating_sub(u64::from(counters.beacons_reported));
            counters.beacons_discarded = wrap(discarded);
            counters.beacons_late = wrap(late);
            counters.beacons_reported = wrap(reported_now);
            counters.timed_rxs = counters.timed_rxs.wrapping_add(wrap(new_ticks + beacons));
            // A reception's quality, as the anchor judges its first path.
            counters.quality_sum = counters
                .quality_sum
                .wrapping_add(reported_new * LINK_QUALITY);
        }
    }
}

/// The quality an anchor gives each beacon it reports (AnchorHealthV5's
/// average quality).
const LINK_QUALITY: u64 = 8_500;

/// A number from a configuration's name, so each configuration's random
/// numbers differ and repeat from run to run.
fn name_salt(name: &str) -> u64 {
    name.bytes().fold(0xCBF2_9CE4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01B3)
    })
}

fn join_reports(device: &SimDevice, out: &mut Outbox) {
    if !device.configured {
        out.report(Message::Heard {
            serial_number: device.serial,
        });
        return;
    }
    out.report(Message::Joined {
        serial_number: device.serial,
        interface: device.interface,
        role_id: device.role_id,
    });
    out.report(Message::Attributes {
        serial_number: device.serial,
        attributes: attributes(device),
    });
    out.report(Message::FirmwareImages {
        serial_number: device.serial,
        images: firmware_images(device.serial),
    });
    if device.is_anchor() {
        out.report(Message::Sync {
            serial_number: device.serial,
            synchronisation: device.synchronisation,
        });
    }
}

fn attributes(device: &SimDevice) -> DeviceAttributes {
    let anchor = device.is_anchor();
    DeviceAttributes {
        minimum_beacon_period: NetworkTime::from_units(if anchor { 4_375 } else { 9_750 }),
        jurisdiction: if device.serial.as_u32().is_multiple_of(2) {
            "ETSI"
        } else {
            "FCC"
        }
        .to_owned(),
        enclosure_colour: if anchor { "white" } else { "black" }.to_owned(),
        sku: if anchor { "ANC-5000" } else { "TAG-2000" }.to_owned(),
    }
}

fn firmware_images(serial: SerialNumber) -> Vec<FirmwareImage> {
    let sha1 = |salt: u32| {
        format!(
            "{:08x}{:032x}",
            serial.as_u32() ^ salt,
            u128::from(salt) * 0x9E37_79B9
        )
    };
    vec![
        FirmwareImage {
            image_type: FirmwareImageType::Bootloader,
            version: "2.1.0".to_owned(),
            sha1: sha1(1),
        },
        FirmwareImage {
            image_type: FirmwareImageType::Firmware,
            version: "5.1.3".to_owned(),
            sha1: sha1(2),
        },
    ]
}

fn sensor_values(kind: SensorKind, network_time: u64) -> [i32; 4] {
    let seconds = network_time as f64 / f64::from(NetworkTime::UNITS_PER_SECOND);
    let wave = |scale: f64| (seconds.sin() * scale).round() as i32;
    match kind {
        SensorKind::Accelerometer => [wave(50.0), wave(30.0), 1_000, 0],
        SensorKind::Gyroscope => [wave(2_000.0), 0, wave(500.0), 0],
        // A rotation about the vertical axis (w, x, y, z), normalised.
        SensorKind::Quaternion => {
            let half = seconds * 0.1;
            [
                (half.cos() * 10_000.0).round() as i32,
                0,
                0,
                (half.sin() * 10_000.0).round() as i32,
            ]
        }
        SensorKind::Magnetometer => [22_000, wave(1_000.0), -40_000, 0],
        SensorKind::Pressure => [101_325 + wave(20.0), 0, 0, 0],
        SensorKind::Temperature => [23_000 + wave(200.0), 0, 0, 0],
    }
}
