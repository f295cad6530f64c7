//! What a recorded CDP datagram says, as the reports a network interface
//! device would send: positions, sensor readings, joins and losses,
//! synchronisation, anchor counters. The session then does with them what
//! it does with any network's reports (live feed, zones, caches, CDP on the
//! replay's own streams).
//!
//! Announcements, names, roles, Synchronization and zone items are left
//! out: the replay announces itself as its own configuration.

use std::collections::{HashMap, HashSet};

use netcfg_model::{Connectivity, Position, RoleId, SerialNumber, Synchronisation};

use crate::{
    cdp::{
        self, AnchorHealthV5, DeviceActivityState, FLAG_NOT_CALCULATED, FULL_SCALE_I16,
        FULL_SCALE_I32, Item, PositionV3, QUATERNION_ONE,
    },
    protocol::{AnchorCounters, Message, PositionReport, SensorKind, SensorReport},
};

/// Reports per message at most: a CDP datagram from another tool can be
/// larger than ours, and a frame's payload is limited (4,096 bytes).
pub(super) const BATCH: usize = 100;

/// A device's place on the network, as the recording last said it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Activity {
    connectivity: Connectivity,
    synchronisation: Synchronisation,
}

const SILENT: Activity = Activity {
    connectivity: Connectivity::None,
    synchronisation: Synchronisation::None,
};

/// Turns datagrams into reports, remembering what the configured devices
/// last did. Bounded by the configured devices.
#[derive(Debug, Default)]
pub(super) struct Translator {
    configured: HashSet<SerialNumber>,
    activity: HashMap<SerialNumber, Activity>,
    /// Each anchor's running totals: AnchorHealthV5 counts a period, the
    /// wire protocol's counters count since the start. They keep growing
    /// across seeks and loops so that the session's differences of two
    /// reports are never negative.
    totals: HashMap<SerialNumber, AnchorCounters>,
}

/// A run's readings of one kind and their network time, when the run is of
/// that kind.
type Readings<'a, R> = Option<(u64, &'a mut Vec<R>)>;

/// Consecutive readings of one kind at one network time.
enum Run {
    Empty,
    Positions(u64, Vec<PositionReport>),
    Sensors(u64, Vec<SensorReport>),
}

impl Run {
    fn flush(&mut self, out: &mut Vec<Message>) {
        match std::mem::replace(self, Self::Empty) {
            Self::Empty => {}
            Self::Positions(network_time, reports) => out.push(Message::Positions {
                network_time,
                reports,
            }),
            Self::Sensors(network_time, reports) => out.push(Message::Sensors {
                network_time,
                reports,
            }),
        }
    }

    /// The positions of this run and their network time, when it is one.
    fn positions(&mut self) -> Readings<'_, PositionReport> {
        match self {
            Self::Positions(time, reports) => Some((*time, reports)),
            _ => None,
        }
    }

    /// The sensor readings of this run and their network time, when it is one.
    fn sensors(&mut self) -> Readings<'_, SensorReport> {
        match self {
            Self::Sensors(time, reports) => Some((*time, reports)),
            _ => None,
        }
    }

    /// Adds `report` to this run when the run is of its kind (`readings`),
    /// at its time and not full; else flushes the run and starts one
    /// (`start`) with it.
    fn add<R>(
        &mut self,
        network_time: u64,
        report: R,
        out: &mut Vec<Message>,
        readings: fn(&mut Self) -> Readings<'_, R>,
        start: fn(u64, Vec<R>) -> Self,
    ) {
        if let Some((time, reports)) = readings(self)
            && time == network_time
            && reports.len() < BATCH
        {
            reports.push(report);
            return;
        }
        self.flush(out);
        *self = start(network_time, vec![report]);
    }
}

impl Translator {
    /// The devices of the configuration pushed (replacing any before).
    pub(super) fn configure(&mut self, serials: impl IntoIterator<Item = SerialNumber>) {
        self.configured = serials.into_iter().collect();
        let configured = &self.configured;
        self.activity
            .retain(|serial, _| configured.contains(serial));
        self.totals.retain(|serial, _| configured.contains(serial));
    }

    /// Appends the reports `items` make, in their order.
    pub(super) fn datagram(&mut self, items: &[Item], out: &mut Vec<Message>) {
        let mut run = Run::Empty;
        for item in items {
            match item {
                Item::PositionV3(position) => {
                    if let Some((time, report)) = position_report(position) {
                        run.add(time, report, out, Run::positions, Run::Positions);
                    }
                }
                Item::DeviceActivityState(state) => {
                    run.flush(out);
                    self.activity_state(state, out);
                }
                Item::AnchorHealthV5(health) => {
                    run.flush(out);
                    self.anchor_health(health, out);
                }
                other => {
                    if let Some((time, report)) = sensor_report(other) {
                        run.add(time, report, out, Run::sensors, Run::Sensors);
                    }
                }
            }
        }
        run.flush(out);
    }

    /// Joined, Lost and Sync for a configured device whose state changed;
    /// a device the recording saw but this configuration does not hold says
    /// nothing (its positions still play).
    fn activity_state(&mut self, state: &DeviceActivityState, out: &mut Vec<Message>) {
        let serial_number = state.serial_number;
        if !self.configured.contains(&serial_number) {
            return;
        }
        let (Some(connectivity), Some(synchronisation)) = (
            connectivity_of(state.connectivity),
            synchronisation_of(state.synchronization),
        ) else {
            // A code no device sends: not a state to act on.
            return;
        };
        let now = Activity {
            connectivity,
            synchronisation,
        };
        let before = self.activity.insert(serial_number, now).unwrap_or(SILENT);
        let was_on = before.connectivity != Connectivity::None;
        let is_on = now.connectivity != Connectivity::None;
        if is_on && !was_on {
            out.push(Message::Joined {
                serial_number,
                interface: state.interface_id,
                role_id: RoleId(u32::from(state.role_id)),
            });
        } else if was_on && !is_on {
            out.push(Message::Lost { serial_number });
        }
        if before.synchronisation != now.synchronisation {
            out.push(Message::Sync {
                serial_number,
                synchronisation,
            });
        }
    }

    /// Adds a configured anchor's period counts to its totals and reports
    /// the totals.
    fn anchor_health(&mut self, health: &AnchorHealthV5, out: &mut Vec<Message>) {
        let serial_number = health.serial_number;
        if !self.configured.contains(&serial_number) {
            return;
        }
        let totals = self.totals.entry(serial_number).or_default();
        // The counters wrap, as a device's do.
        totals.ticks = totals.ticks.wrapping_add(health.ticks);
        totals.timed_rxs = totals.timed_rxs.wrapping_add(health.timed_rxs);
        totals.beacons_reported = totals
            .beacons_reported
            .wrapping_add(health.beacons_reported);
        totals.beacons_discarded = totals
            .beacons_discarded
            .wrapping_add(health.beacons_discarded);
        totals.beacons_late = totals.beacons_late.wrapping_add(health.beacons_late);
        // The average back to a sum, so the session's average of the period
        // is the recorded one.
        let quality = u64::from(health.average_quality) * u64::from(health.beacons_reported);
        totals.quality_sum = totals.quality_sum.wrapping_add(quality);
        out.push(Message::AnchorCounters {
            serial_number,
            interface: health.interface_id,
            counters: *totals,
        });
    }
}

fn connectivity_of(code: u8) -> Option<Connectivity> {
    Some(match code {
        0 => Connectivity::None,
        1 => Connectivity::Uwb,
        2 => Connectivity::Ethernet,
        3 => Connectivity::UwbAndEthernet,
        _ => return None,
    })
}

fn synchronisation_of(code: u8) -> Option<Synchronisation> {
    Some(match code {
        0 => Synchronisation::None,
        1 => Synchronisation::Tx,
        2 => Synchronisation::Rx,
        3 => Synchronisation::TxAndRx,
        _ => return None,
    })
}

/// A calculated position and its network time in units; `None` for one
/// flagged "not calculated" (it says where the tag is not known to be).
fn position_report(item: &PositionV3) -> Option<(u64, PositionReport)> {
    if item.flags & FLAG_NOT_CALCULATED != 0 {
        return None;
    }
    let report = PositionReport {
        serial_number: item.serial_number,
        position: Position {
            x: item.x,
            y: item.y,
            z: item.z,
            quality: item.quality,
            anchors_used: item.anchor_count,
            error_mm: 0,
            vx: None,
            vy: None,
        },
    };
    Some((cdp::units_from_ticks(item.network_time), report))
}

/// `raw × scale ÷ full_scale × unit`, rounded into an `i32`: a CDP reading
/// back in the wire protocol's unit (`unit` wire units per CDP unit).
fn unscaled(raw: f64, scale: f64, full_scale: f64, unit: f64) -> i32 {
    let value = (raw * scale / full_scale * unit).round();
    // `as` saturates; the clamp says so.
    value.clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i32
}

/// A reading of one value ([`unscaled`]), the wire's other three zero.
fn one_value(raw: f64, scale: f64, full_scale: f64, unit: f64) -> [i32; 4] {
    [unscaled(raw, scale, full_scale, unit), 0, 0, 0]
}

fn three_axes(x: i32, y: i32, z: i32, scale: f64, unit: f64) -> [i32; 4] {
    let axis = |raw: i32| unscaled(f64::from(raw), scale, FULL_SCALE_I32, unit);
    [axis(x), axis(y), axis(z), 0]
}

/// A sensor item as the wire protocol's reading (the inverse of
/// `live::sensors`, which uses the item's own full scale), with its network
/// time in units; `None` for any other item.
pub(super) fn sensor_report(item: &Item) -> Option<(u64, SensorReport)> {
    let (serial_number, ticks, kind, values) = match item {
        // g to mg.
        Item::AccelerometerV3(a) => (
            a.serial_number,
            a.network_time,
            SensorKind::Accelerometer,
            three_axes(a.x, a.y, a.z, f64::from(a.scale), 1_000.0),
        ),
        // Degrees to millidegrees per second.
        Item::GyroscopeV3(g) => (
            g.serial_number,
            g.network_time,
            SensorKind::Gyroscope,
            three_axes(g.x, g.y, g.z, f64::from(g.scale), 1_000.0),
        ),
        // µT to nT.
        Item::MagnetometerV3(m) => (
            m.serial_number,
            m.network_time,
            SensorKind::Magnetometer,
            three_axes(m.x, m.y, m.z, f64::from(m.scale), 1_000.0),
        ),
        // ÷ 2^30 to × 10,000, in the wire's order w, x, y, z.
        Item::QuaternionV3(q) => {
            let part = |raw: i32| unscaled(f64::from(raw), 1.0, QUATERNION_ONE, 10_000.0);
            (
                q.serial_number,
                q.network_time,
                SensorKind::Quaternion,
                [part(q.w), part(q.x), part(q.y), part(q.z)],
            )
        }
        // mbar to Pa.
        Item::PressureV2(p) => (
            p.serial_number,
            p.network_time,
            SensorKind::Pressure,
            one_value(
                f64::from(p.pressure),
                f64::from(p.scale),
                FULL_SCALE_I32,
                100.0,
            ),
        ),
        // Degrees to millidegrees Celsius.
        Item::TemperatureV2(t) => (
            t.serial_number,
            t.network_time,
            SensorKind::Temperature,
            one_value(
                f64::from(t.temperature),
                f64::from(t.scale),
                FULL_SCALE_I16,
                1_000.0,
            ),
        ),
        _ => return None,
    };
    let report = SensorReport {
        serial_number,
        kind,
        values,
    };
    Some((cdp::units_from_ticks(ticks), report))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        cdp::{Synchronization, ticks_from_units},
        live,
    };

    fn serial(value: u32) -> SerialNumber {
        SerialNumber::from_u32(value)
    }

    fn position(tag: u32, units: u64, x: i32, flags: u8) -> Item {
        Item::PositionV3(PositionV3 {
            serial_number: serial(tag),
            network_time: ticks_from_units(units),
            x,
            y: -x,
            z: 1_000,
            quality: 8_700,
            anchor_count: 5,
            flags,
            smoothing: 0,
        })
    }

    fn state(device: u32, connectivity: u8, synchronization: u8) -> Item {
        Item::DeviceActivityState(DeviceActivityState {
            serial_number: serial(device),
            interface_id: 1,
            x: 0,
            y: 0,
            z: 0,
            role_id: 2,
            connectivity,
            synchronization,
        })
    }

    fn translate(translator: &mut Translator, items: &[Item]) -> Vec<Message> {
        let mut out = Vec::new();
        translator.datagram(items, &mut out);
        out
    }

    #[test]
    fn positions_are_one_message_per_network_time_without_uncalculated_ones() {
        let mut translator = Translator::default();
        let out = translate(
            &mut translator,
            &[
                position(1, 100, 10, 0),
                position(2, 100, 20, cdp::FLAG_INACTIVE),
                position(3, 100, 30, FLAG_NOT_CALCULATED),
                position(1, 200, 11, 0),
                Item::Synchronization(Synchronization {
                    max_tx: 1,
                    current_tx: 1,
                    max_rx: 1,
                    current_rx: 1,
                }),
            ],
        );
        let [
            Message::Positions {
                network_time: 100,
                reports: first,
            },
            Message::Positions {
                network_time: 200,
                reports: second,
            },
        ] = &out[..]
        else {
            panic!("two batches: {out:?}");
        };
        let tags: Vec<_> = first.iter().map(|r| r.serial_number).collect();
        assert_eq!(tags, [serial(1), serial(2)]);
        assert_eq!(
            first[0].position,
            Position {
                x: 10,
                y: -10,
                z: 1_000,
                quality: 8_700,
                anchors_used: 5,
                error_mm: 0,
                vx: None,
                vy: None
            }
        );
        assert_eq!(second.len(), 1);
    }

    #[test]
    fn a_large_datagram_is_cut_into_messages_that_fit_a_frame() {
        let items: Vec<Item> = (0..250).map(|tag| position(tag, 7, 1, 0)).collect();
        let out = translate(&mut Translator::default(), &items);
        let sizes: Vec<usize> = out
            .iter()
            .map(|message| match message {
                Message::Positions { reports, .. } => reports.len(),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(sizes, [100, 100, 50]);
        for message in out {
            crate::protocol::Frame::new(0, message).encode().unwrap();
        }
    }

    #[test]
    fn configured_devices_join_lose_and_change_synchronisation() {
        let mut translator = Translator::default();
        translator.configure([serial(1)]);
        let joined = translate(&mut translator, &[state(1, 1, 2), state(9, 1, 2)]);
        assert_eq!(
            joined,
            [
                Message::Joined {
                    serial_number: serial(1),
                    interface: 1,
                    role_id: RoleId::ANCHOR
                },
                Message::Sync {
                    serial_number: serial(1),
                    synchronisation: Synchronisation::Rx
                }
            ],
            "the unconfigured device says nothing"
        );
        assert!(translate(&mut translator, &[state(1, 1, 2)]).is_empty());
        assert_eq!(
            translate(&mut translator, &[state(1, 1, 0)]),
            [Message::Sync {
                serial_number: serial(1),
                synchronisation: Synchronisation::None
            }]
        );
        assert_eq!(
            translate(&mut translator, &[state(1, 0, 0), state(1, 9, 0)]),
            [Message::Lost {
                serial_number: serial(1)
            }]
        );
    }

    #[test]
    fn anchor_health_adds_up_to_counters_since_the_start() {
        let mut translator = Translator::default();
        translator.configure([serial(1)]);
        let health = |reported, quality| {
            Item::AnchorHealthV5(AnchorHealthV5 {
                serial_number: serial(1),
                interface_id: 0,
                ticks: 100,
                timed_rxs: 150,
                beacons_reported: reported,
                beacons_discarded: 1,
                beacons_late: 2,
                average_quality: quality,
                report_period: 1,
                interanchor_comms_error_code: 0,
                bad_paired_anchors: Vec::new(),
            })
        };
        translate(&mut translator, &[health(50, 8_000)]);
        let out = translate(&mut translator, &[health(40, 9_000)]);
        let [
            Message::AnchorCounters {
                counters: after, ..
            },
        ] = out[..]
        else {
            panic!("{out:?}");
        };
        assert_eq!(
            after,
            AnchorCounters {
                ticks: 200,
                timed_rxs: 300,
                beacons_reported: 90,
                beacons_discarded: 2,
                beacons_late: 4,
                quality_sum: 50 * 8_000 + 40 * 9_000,
            }
        );
        // What the session makes of two reports is the recorded period.
        let device = netcfg_model::Device {
            id: netcfg_model::DeviceId::try_from(1).unwrap(),
            serial_number: serial(1),
            name: None,
            disabled: false,
            interfaces: Vec::new(),
        };
        let before = AnchorCounters {
            ticks: 100,
            timed_rxs: 150,
            beacons_reported: 50,
            beacons_discarded: 1,
            beacons_late: 2,
            quality_sum: 50 * 8_000,
        };
        assert_eq!(
            live::anchor_health(&device, 0, after, before, 1),
            health(40, 9_000)
        );
        translator.configure([serial(2)]);
        assert!(translate(&mut translator, &[health(1, 1)]).is_empty());
    }

    #[test]
    fn sensor_readings_come_back_from_their_items() {
        let tag = serial(0x0105_0001);
        let reading = |kind, values| SensorReport {
            serial_number: tag,
            kind,
            values,
        };
        let readings = [
            reading(SensorKind::Accelerometer, [-15_999, 500, 1_000, 0]),
            reading(SensorKind::Gyroscope, [1_999_000, -3, 250_123, 0]),
            reading(SensorKind::Quaternion, [7_071, 0, -1, 7_071]),
            reading(SensorKind::Magnetometer, [22_000, -999, -40_000, 0]),
            reading(SensorKind::Pressure, [101_325, 0, 0, 0]),
            reading(SensorKind::Temperature, [23_456, 0, 0, 0]),
            reading(SensorKind::Temperature, [-40_000, 0, 0, 0]),
        ];
        let items = live::sensors(975, &readings);
        for (reading, item) in readings.iter().zip(&items) {
            let (units, back) = sensor_report(item).unwrap();
            assert_eq!(units, 975);
            assert_eq!((back.serial_number, back.kind), (tag, reading.kind));
            // One raw step of TemperatureV2 is 128 / 32,767 °C, about 4 m°C.
            let tolerance = if reading.kind == SensorKind::Temperature {
                2
            } else {
                0
            };
            for (want, got) in reading.values.iter().zip(back.values) {
                assert!(
                    (want - got).abs() <= tolerance,
                    "{:?}: {:?} came back as {:?}",
                    reading.kind,
                    reading.values,
                    back.values
                );
            }
        }
        assert!(sensor_report(&position(1, 1, 1, 0)).is_none());
        let out = translate(&mut Translator::default(), &items);
        assert_eq!(out.len(), 1, "one batch at one network time: {out:?}");
    }
}
