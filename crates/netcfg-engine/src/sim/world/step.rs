//! One step of the running simulated network: statuses and counters when
//! due, silent devices reported lost, and every beacon and sensor reading
//! due, measured by the radio and sent in frames under the payload limit.
//! The anchors count what they heard as a device's would.

use std::{collections::HashMap, time::Duration};

use netcfg_model::{Connectivity, NetworkMode, SerialNumber, Synchronisation, time::ticks};
use tokio::time::Instant;

use super::{
    Outbox, World,
    device::{SimDevice, beacon_losses, join_reports},
};
use crate::{
    protocol::{BeaconReport, MAX_PAYLOAD, Message, SensorKind, SensorReport},
    sim::radio::RadioAnchor,
};

/// Reports of one kind sent in one frame at most (keeps frames well under
/// the payload limit).
const BATCH: usize = 100;
/// Payload bytes of beacon measurements gathered into one frame at most.
const BEACON_BYTES: usize = MAX_PAYLOAD - 256;

/// A tag more periods late than this skips ahead instead of bursting.
const MAX_CATCH_UP: u64 = 10;

impl World {
    /// Reports what came due since the last step (nothing while stopped).
    pub(in crate::sim) fn tick(&mut self, out: &mut Outbox) {
        let Some(started) = self.running_since else {
            return;
        };
        let now = Instant::now();
        let network_time = self.network_time(now);
        let status_due = now >= self.next_status;
        if status_due {
            self.next_status = now + self.options.status_period;
        }
        let mut due = Vec::new();
        let mut sensors = Vec::new();
        for device in self.devices.values_mut() {
            if !device.answers(now, self.options.lost_after, out) {
                continue;
            }
            if status_due {
                device.report_status(now, started, out);
            }
            if !device.configured || device.period == 0 {
                continue;
            }
            device.beacons_due(network_time, &mut due);
            device.readings_due(network_time, &mut sensors);
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

impl SimDevice {
    /// Whether the device answers this step. A silent one is reported lost
    /// once, `lost_after` into its silence; a hard reset one rejoins when
    /// its time comes.
    fn answers(&mut self, now: Instant, lost_after: Duration, out: &mut Outbox) -> bool {
        if let Some(since) = self.silent_since {
            if !self.lost_reported && now.saturating_duration_since(since) >= lost_after {
                self.lost_reported = true;
                out.report(Message::Lost {
                    serial_number: self.serial,
                });
            }
            return false;
        }
        if let Some(at) = self.rejoin_at
            && now >= at
        {
            self.rejoin_at = None;
            join_reports(self, out);
        }
        self.rejoin_at.is_none()
    }

    /// A configured device's status (and an anchor's counters); an
    /// unconfigured one is just heard.
    fn report_status(&self, now: Instant, started: Instant, out: &mut Outbox) {
        if self.configured {
            out.report(Message::Status {
                serial_number: self.serial,
                connectivity: Connectivity::Uwb,
                status: self.status(now, started),
            });
            if self.is_anchor() {
                out.report(Message::AnchorCounters {
                    serial_number: self.serial,
                    interface: self.interface,
                    counters: self.counters,
                });
            }
        } else {
            out.report(Message::Heard {
                serial_number: self.serial,
            });
        }
    }

    /// The beacons due by `network_time`, as (tag, network time).
    fn beacons_due(&mut self, network_time: u64, due: &mut Vec<(SerialNumber, u64)>) {
        if network_time >= self.next_beacon + self.period * MAX_CATCH_UP {
            self.next_beacon = network_time;
        }
        while self.next_beacon <= network_time {
            due.push((self.serial, self.next_beacon));
            self.next_beacon += self.period;
        }
    }

    /// The sensor readings due by `network_time`.
    fn readings_due(&mut self, network_time: u64, sensors: &mut Vec<SensorReport>) {
        for (kind, period, next) in &mut self.sensors {
            if network_time >= *next + *period * MAX_CATCH_UP {
                *next = network_time;
            }
            while *next <= network_time {
                sensors.push(SensorReport {
                    serial_number: self.serial,
                    kind: *kind,
                    values: sensor_values(*kind, *next),
                });
                *next += *period;
            }
        }
    }
}

impl World {
    /// The anchors and seeders the radio can use now: configured,
    /// positioned, answering.
    pub(super) fn radio_anchors(&self) -> Vec<RadioAnchor> {
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
            let seconds = ticks::seconds_from_units(at_units);
            let here = match (device.true_position, device.walker.as_mut()) {
                (Some(still), _) => still,
                (None, Some(walker)) => walker.position_at(seconds, &self.area, &mut self.radio),
                (None, None) => continue,
            };
            self.truth.record(serial, at_units, here);
            let beacon = match self.network_mode {
                NetworkMode::MultiTime => self.radio.arrival_times(
                    serial,
                    here,
                    at_units.saturating_mul(ticks::TICKS_PER_UNIT),
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

fn sensor_values(kind: SensorKind, network_time: u64) -> [i32; 4] {
    let seconds = ticks::seconds_from_units(network_time);
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
