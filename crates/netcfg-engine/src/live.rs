//! What a running configuration says on its data streams, as CDP items:
//! pure functions of the plan, the device cache and the network's reports
//! (the session sends them; see `docs/engine-protocol.md` §2).

use std::{
    collections::BTreeMap,
    net::{IpAddr, Ipv4Addr},
    time::{Duration, Instant},
};

use netcfg_model::{
    CachedDevice, Connectivity, DataStream, Device, RoleId, SerialNumber, Synchronisation,
};

use crate::{
    cdp::{
        self, AccelerometerV3, AnchorHealthV5, DeviceActivityState, DeviceNames, Item, PositionV3,
        PressureV2, QUATERNION_NO_QUALITY, QuaternionV3, RoleReport, StreamInformation,
        Synchronization, TemperatureV2, Vector3,
    },
    identity::truncate,
    plan::NetworkPlan,
    protocol::{AnchorCounters, PositionReport, SensorKind, SensorReport},
};

/// The full scales netcfg sends sensor data at.
pub(crate) const ACCELEROMETER_SCALE_G: u8 = 16;
/// Degrees per second.
pub(crate) const GYROSCOPE_SCALE_DPS: u16 = 2_000;
/// Microtesla.
pub(crate) const MAGNETOMETER_SCALE_UT: u16 = 4_900;
/// Millibar.
pub(crate) const PRESSURE_SCALE_MBAR: u32 = 1_260;
/// Degrees Celsius.
pub(crate) const TEMPERATURE_SCALE_C: u16 = 128;
/// QuaternionV3 type: accelerometer, gyroscope and magnetometer, normalised.
pub(crate) const QUATERNION_TYPE: u8 = 2;
/// Texts (names) are cut to this many bytes so any item fits a datagram.
pub(crate) const MAX_TEXT: usize = 255;

type Cache = BTreeMap<netcfg_model::SerialNumber, CachedDevice>;

fn text(value: &str) -> String {
    let mut value = value.to_owned();
    truncate(&mut value, MAX_TEXT);
    value
}

/// CDP codes of connectivity and synchronisation (0 none, 1 UWB or TX,
/// 2 Ethernet or RX, 3 both).
pub(crate) fn connectivity_code(value: Connectivity) -> u8 {
    match value {
        Connectivity::None => 0,
        Connectivity::Uwb => 1,
        Connectivity::Ethernet => 2,
        Connectivity::UwbAndEthernet => 3,
    }
}

pub(crate) fn synchronisation_code(value: Synchronisation) -> u8 {
    match value {
        Synchronisation::None => 0,
        Synchronisation::Tx => 1,
        Synchronisation::Rx => 2,
        Synchronisation::TxAndRx => 3,
    }
}

/// True for a device with an anchor or seeder interface.
pub(crate) fn is_anchor(device: &Device) -> bool {
    device
        .interfaces
        .iter()
        .any(|interface| interface.role_id.needs_position())
}

/// PositionV3 for each report, at `network_time` (units of 1/975,000 s).
pub(crate) fn positions(network_time: u64, reports: &[PositionReport]) -> Vec<Item> {
    let ticks = cdp::ticks_from_units(network_time);
    reports
        .iter()
        .map(|report| {
            Item::PositionV3(PositionV3 {
                serial_number: report.serial_number,
                network_time: ticks,
                x: report.position.x,
                y: report.position.y,
                z: report.position.z,
                quality: report.position.quality.min(10_000),
                anchor_count: report.position.anchors_used,
                flags: 0,
                smoothing: 0,
            })
        })
        .collect()
}

/// The sensor item of each reading (units of the wire protocol in,
/// CDP full scales out).
pub(crate) fn sensors(network_time: u64, reports: &[SensorReport]) -> Vec<Item> {
    let network_time = cdp::ticks_from_units(network_time);
    reports
        .iter()
        .map(|report| {
            let serial_number = report.serial_number;
            let [a, b, c, d] = report.values.map(f64::from);
            match report.kind {
                SensorKind::Accelerometer => {
                    // mg to g.
                    let [x, y, z] = raw_axes([a, b, c], f64::from(ACCELEROMETER_SCALE_G));
                    Item::AccelerometerV3(AccelerometerV3 {
                        serial_number,
                        network_time,
                        x,
                        y,
                        z,
                        scale: ACCELEROMETER_SCALE_G,
                    })
                }
                // Millidegrees to degrees per second.
                SensorKind::Gyroscope => Item::GyroscopeV3(vector3(
                    serial_number,
                    network_time,
                    [a, b, c],
                    GYROSCOPE_SCALE_DPS,
                )),
                // nT to µT.
                SensorKind::Magnetometer => Item::MagnetometerV3(vector3(
                    serial_number,
                    network_time,
                    [a, b, c],
                    MAGNETOMETER_SCALE_UT,
                )),
                SensorKind::Quaternion => {
                    // w, x, y, z × 10,000 to × 2^30.
                    let q = |value: f64| {
                        (value / 10_000.0 * cdp::QUATERNION_ONE)
                            .round()
                            .clamp(f64::from(i32::MIN), f64::from(i32::MAX))
                            as i32
                    };
                    Item::QuaternionV3(QuaternionV3 {
                        serial_number,
                        network_time,
                        x: q(b),
                        y: q(c),
                        z: q(d),
                        w: q(a),
                        quaternion_type: QUATERNION_TYPE,
                        quality: QUATERNION_NO_QUALITY,
                    })
                }
                SensorKind::Pressure => Item::PressureV2(PressureV2 {
                    serial_number,
                    network_time,
                    // Pa to mbar.
                    pressure: cdp::raw_i32(a / 100.0, f64::from(PRESSURE_SCALE_MBAR)),
                    scale: PRESSURE_SCALE_MBAR,
                }),
                SensorKind::Temperature => Item::TemperatureV2(TemperatureV2 {
                    serial_number,
                    network_time,
                    // Millidegrees to degrees Celsius.
                    temperature: cdp::raw_i16(a / 1_000.0, f64::from(TEMPERATURE_SCALE_C)),
                    scale: TEMPERATURE_SCALE_C,
                }),
            }
        })
        .collect()
}

/// Three axes in thousandths of a CDP unit (the wire protocol's mg,
/// millidegrees per second, nT), raw at full scale `scale`.
fn raw_axes(axes: [f64; 3], scale: f64) -> [i32; 3] {
    axes.map(|thousandths| cdp::raw_i32(thousandths / 1_000.0, scale))
}

/// A gyroscope's or magnetometer's reading (thousandths, see [`raw_axes`])
/// as a CDP vector at full scale `scale`.
fn vector3(serial_number: SerialNumber, network_time: u64, axes: [f64; 3], scale: u16) -> Vector3 {
    let [x, y, z] = raw_axes(axes, f64::from(scale));
    Vector3 {
        serial_number,
        network_time,
        x,
        y,
        z,
        scale,
    }
}

/// The Config stream's announcement: InstanceAnnounce, HostnameAnnounce,
/// and one CDPStreamInformation per IPv4 stream of the configuration.
pub(crate) fn announcement(
    configuration: &str,
    hostname: &str,
    streams: &[DataStream],
) -> Vec<Item> {
    let mut items = vec![
        Item::InstanceAnnounce(text(configuration)),
        Item::HostnameAnnounce(text(hostname)),
    ];
    items.extend(streams.iter().filter_map(|stream| {
        let (IpAddr::V4(destination_ip), IpAddr::V4(interface_ip)) =
            (stream.destination_ip, stream.interface)
        else {
            return None;
        };
        Some(Item::StreamInformation(StreamInformation {
            destination_ip,
            destination_port: stream.destination_port,
            interface_ip,
            interface_netmask: Ipv4Addr::UNSPECIFIED,
            interface_port: stream.interface_port,
            ttl: stream.time_to_live,
            name: text(&stream.name),
        }))
    }));
    items
}

/// A device's DeviceActivityState: its first interface, role and position
/// (surveyed for anchors, last located for tags), connectivity and
/// synchronisation from the cache.
pub(crate) fn activity(device: &Device, cached: Option<&CachedDevice>) -> Item {
    let interface = device.interfaces.first();
    let role = interface.map_or(RoleId::UNCONFIGURED, |interface| interface.role_id);
    let [x, y, z] = interface
        .and_then(|interface| interface.position())
        .or_else(|| {
            cached
                .and_then(|cached| cached.position)
                .map(|position| [position.x, position.y, position.z])
        })
        .unwrap_or([0, 0, 0]);
    Item::DeviceActivityState(DeviceActivityState {
        serial_number: device.serial_number,
        interface_id: interface.map_or(0, |interface| interface.identifier),
        x,
        y,
        z,
        role_id: u8::try_from(role.0).unwrap_or(u8::MAX),
        connectivity: cached.map_or(0, |cached| connectivity_code(cached.connectivity)),
        synchronization: cached.map_or(0, |cached| synchronisation_code(cached.synchronisation)),
    })
}

fn active(cached: Option<&CachedDevice>) -> bool {
    cached.is_some_and(|cached| cached.connectivity != Connectivity::None)
}

/// The User stream's periodic state: DeviceNames of every named device,
/// RoleReport of every role, DeviceActivityState of every device.
pub(crate) fn user_state(plan: &NetworkPlan, cache: Option<&Cache>) -> Vec<Item> {
    let cached = |device: &Device| cache.and_then(|cache| cache.get(&device.serial_number));
    let mut items: Vec<Item> = plan
        .enabled_devices()
        .filter_map(|device| {
            Some(Item::DeviceNames(DeviceNames {
                serial_number: device.serial_number,
                name: text(device.name.as_ref()?),
            }))
        })
        .collect();
    items.extend(plan.roles.iter().map(|role| {
        let members = plan.enabled_devices().filter(|device| {
            device
                .interfaces
                .iter()
                .any(|interface| interface.role_id == role.id)
        });
        let (mut configured, mut active_now) = (0u16, 0u16);
        for device in members {
            configured = configured.saturating_add(1);
            if active(cached(device)) {
                active_now = active_now.saturating_add(1);
            }
        }
        Item::RoleReport(RoleReport {
            role_id: u16::try_from(role.id.0).unwrap_or(u16::MAX),
            max_quantity: configured,
            active_quantity: active_now,
            name: text(&role.name),
        })
    }));
    items.extend(
        plan.enabled_devices()
            .map(|device| activity(device, cached(device))),
    );
    items
}

/// Synchronization: seeders can be TX-synchronised, anchors and seeders
/// RX-synchronised; the current counts come from the cache.
pub(crate) fn synchronization(plan: &NetworkPlan, cache: Option<&Cache>) -> Item {
    let mut item = Synchronization {
        max_tx: 0,
        current_tx: 0,
        max_rx: 0,
        current_rx: 0,
    };
    for device in plan.enabled_devices().filter(|device| is_anchor(device)) {
        let seeder = device
            .interfaces
            .iter()
            .any(|interface| interface.role_id == RoleId::SEEDER);
        let sync = cache
            .and_then(|cache| cache.get(&device.serial_number))
            .map_or(Synchronisation::None, |cached| cached.synchronisation);
        if seeder {
            item.max_tx = item.max_tx.saturating_add(1);
        }
        item.max_rx = item.max_rx.saturating_add(1);
        if matches!(sync, Synchronisation::Tx | Synchronisation::TxAndRx) {
            item.current_tx = item.current_tx.saturating_add(1);
        }
        if matches!(sync, Synchronisation::Rx | Synchronisation::TxAndRx) {
            item.current_rx = item.current_rx.saturating_add(1);
        }
    }
    Item::Synchronization(item)
}

/// The Anchor stream's periodic state: the anchors' DeviceActivityState
/// and Synchronization.
pub(crate) fn anchor_state(plan: &NetworkPlan, cache: Option<&Cache>) -> Vec<Item> {
    let mut items: Vec<Item> = plan
        .enabled_devices()
        .filter(|device| is_anchor(device))
        .map(|device| {
            activity(
                device,
                cache.and_then(|cache| cache.get(&device.serial_number)),
            )
        })
        .collect();
    items.push(synchronization(plan, cache));
    items
}

/// One anchor's latest `AnchorCounters` report, as the session received it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CounterReport {
    pub interface: u8,
    pub counters: AnchorCounters,
    pub received: Instant,
}

/// What one anchor's previous health item was computed from.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct HealthMark {
    counters: AnchorCounters,
    received: Option<Instant>,
    waited: bool,
}

/// The anchor's health item for this health period, or `None` when its
/// counters have not come since its previous item and it is waited for once.
///
/// Anchors report counters on their own clock, so a health period as short
/// as their reporting period can end just before a report that is on time;
/// sending zeros then would tell a tool that a working anchor heard nothing.
/// The item after a wait covers both periods and says so in its
/// `report_period` (the time between the two counter reports, in whole
/// seconds). An anchor still silent after the wait is sent with zeros every
/// period, as is one that has not reported yet.
pub(crate) fn health_due(
    device: &Device,
    latest: Option<CounterReport>,
    mark: &mut HealthMark,
    period: Duration,
) -> Option<Item> {
    match latest {
        Some(report) if mark.received != Some(report.received) => {
            let covered = mark.received.map_or(period, |before| {
                report.received.saturating_duration_since(before)
            });
            let seconds = (covered + Duration::from_millis(500)).as_secs().max(1);
            let item = anchor_health(
                device,
                report.interface,
                report.counters,
                mark.counters,
                seconds,
            );
            *mark = HealthMark {
                counters: report.counters,
                received: Some(report.received),
                waited: false,
            };
            Some(item)
        }
        latest => {
            if mark.received.is_some() && !mark.waited {
                mark.waited = true;
                return None;
            }
            let interface = latest.map_or_else(
                || {
                    device
                        .interfaces
                        .first()
                        .map_or(0, |interface| interface.identifier)
                },
                |report| report.interface,
            );
            Some(anchor_health(
                device,
                interface,
                mark.counters,
                mark.counters,
                period.as_secs(),
            ))
        }
    }
}

/// AnchorHealthV5 for the period between two counter reports of one anchor.
pub(crate) fn anchor_health(
    device: &Device,
    interface_id: u8,
    now: AnchorCounters,
    before: AnchorCounters,
    report_period_s: u64,
) -> Item {
    let reported = now.beacons_reported.wrapping_sub(before.beacons_reported);
    let quality_sum = now.quality_sum.wrapping_sub(before.quality_sum);
    let average_quality = if reported == 0 {
        0
    } else {
        u16::try_from((quality_sum / u64::from(reported)).min(10_000)).unwrap_or(10_000)
    };
    Item::AnchorHealthV5(AnchorHealthV5 {
        serial_number: device.serial_number,
        interface_id,
        ticks: now.ticks.wrapping_sub(before.ticks),
        timed_rxs: now.timed_rxs.wrapping_sub(before.timed_rxs),
        beacons_reported: reported,
        beacons_discarded: now.beacons_discarded.wrapping_sub(before.beacons_discarded),
        beacons_late: now.beacons_late.wrapping_sub(before.beacons_late),
        average_quality,
        report_period: u8::try_from(report_period_s).unwrap_or(u8::MAX),
        interanchor_comms_error_code: 0,
        bad_paired_anchors: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use netcfg_model::{Position, SerialNumber};

    use super::*;

    fn device(serial: u32, role: RoleId, position: Option<[i32; 3]>) -> Device {
        crate::fixture::device(
            serial & 0xFFFF,
            SerialNumber::from_u32(serial),
            role,
            position,
        )
    }

    #[test]
    fn positions_keep_their_time_in_ticks_and_their_quality() {
        let report = PositionReport {
            serial_number: SerialNumber::from_u32(0x0105_0001),
            position: Position {
                x: 1,
                y: 2,
                z: 3,
                quality: 9_100,
                anchors_used: 4,
                error_mm: 60,
                vx: None,
                vy: None,
            },
        };
        let items = positions(97_500, &[report]);
        let [Item::PositionV3(item)] = &items[..] else {
            panic!("one position: {items:?}");
        };
        assert_eq!(item.network_time, 97_500 * 65_536);
        assert_eq!((item.quality, item.anchor_count, item.flags), (9_100, 4, 0));
    }

    #[test]
    fn sensor_readings_keep_their_values_at_the_documented_scales() {
        let serial_number = SerialNumber::from_u32(0x0105_0001);
        let reading = |kind, values| SensorReport {
            serial_number,
            kind,
            values,
        };
        let items = sensors(
            975,
            &[
                reading(SensorKind::Accelerometer, [0, 500, 1_000, 0]),
                reading(SensorKind::Pressure, [101_325, 0, 0, 0]),
                reading(SensorKind::Temperature, [23_500, 0, 0, 0]),
                reading(SensorKind::Quaternion, [10_000, 0, 0, 0]),
            ],
        );
        let back = |raw: i32, scale: f64| f64::from(raw) * scale / cdp::FULL_SCALE_I32;
        match &items[..] {
            [
                Item::AccelerometerV3(accelerometer),
                Item::PressureV2(pressure),
                Item::TemperatureV2(temperature),
                Item::QuaternionV3(quaternion),
            ] => {
                assert!((back(accelerometer.z, 16.0) - 1.0).abs() < 1e-6);
                assert!((back(accelerometer.y, 16.0) - 0.5).abs() < 1e-6);
                assert!((back(pressure.pressure, 1_260.0) - 1_013.25).abs() < 1e-4);
                let celsius = f64::from(temperature.temperature) * 128.0 / cdp::FULL_SCALE_I16;
                assert!((celsius - 23.5).abs() < 0.01);
                assert_eq!(quaternion.w, 1 << 30);
                assert_eq!(accelerometer.network_time, 975 * 65_536);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn health_is_the_difference_of_two_counter_reports() {
        let anchor = device(0x0104_0001, RoleId::ANCHOR, Some([0, 0, 0]));
        let before = AnchorCounters {
            ticks: u32::MAX,
            timed_rxs: 10,
            beacons_reported: 100,
            beacons_discarded: 1,
            beacons_late: 0,
            quality_sum: 900_000,
        };
        let now = AnchorCounters {
            ticks: 99,
            timed_rxs: 310,
            beacons_reported: 300,
            beacons_discarded: 2,
            beacons_late: 1,
            quality_sum: 900_000 + 200 * 8_000,
        };
        let Item::AnchorHealthV5(health) = anchor_health(&anchor, 0, now, before, 5) else {
            panic!("health");
        };
        assert_eq!(health.ticks, 100, "wraps like the device's counter");
        assert_eq!((health.timed_rxs, health.beacons_reported), (300, 200));
        assert_eq!((health.beacons_discarded, health.beacons_late), (1, 1));
        assert_eq!((health.average_quality, health.report_period), (8_000, 5));
    }

    fn ticks_and_period(item: Option<Item>) -> Option<(u32, u8)> {
        item.map(|item| match item {
            Item::AnchorHealthV5(health) => (health.ticks, health.report_period),
            other => panic!("{other:?}"),
        })
    }

    #[test]
    fn a_late_counter_report_is_waited_for_once_then_an_anchor_is_sent_with_zeros() {
        let anchor = device(0x0104_0001, RoleId::ANCHOR, Some([0, 0, 0]));
        let period = Duration::from_secs(1);
        let start = Instant::now();
        let report = |ticks: u32, seconds: u64| CounterReport {
            interface: 0,
            counters: AnchorCounters {
                ticks,
                ..AnchorCounters::default()
            },
            received: start + Duration::from_secs(seconds),
        };
        let mut mark = HealthMark::default();
        let mut due = |latest: Option<CounterReport>| {
            ticks_and_period(health_due(&anchor, latest, &mut mark, period))
        };
        assert_eq!(due(None), Some((0, 1)), "nothing reported yet: zeros");
        assert_eq!(due(Some(report(10, 1))), Some((10, 1)));
        assert_eq!(due(Some(report(20, 2))), Some((10, 1)));
        // The next report is late for this period: wait for it once...
        assert_eq!(due(Some(report(20, 2))), None);
        // ...and it covers both periods.
        assert_eq!(due(Some(report(40, 4))), Some((20, 2)));
        // A silent anchor: one wait, then zeros every period.
        assert_eq!(due(Some(report(40, 4))), None);
        assert_eq!(due(Some(report(40, 4))), Some((0, 1)));
        assert_eq!(due(Some(report(40, 4))), Some((0, 1)));
        assert_eq!(due(Some(report(45, 9))), Some((5, 5)));
    }

    #[test]
    fn synchronization_counts_seeders_for_tx_and_every_anchor_for_rx() {
        let mut plan = NetworkPlan::new(
            "site".parse().unwrap(),
            "sim".parse().unwrap(),
            "/tmp".into(),
        );
        plan.devices = vec![
            device(0x0104_0001, RoleId::SEEDER, Some([0, 0, 0])),
            device(0x0104_0002, RoleId::ANCHOR, Some([1, 0, 0])),
            device(0x0104_0003, RoleId::ANCHOR, Some([0, 1, 0])),
            device(0x0105_0001, RoleId::DEFAULT_TAG, None),
        ];
        let mut cache = Cache::new();
        for (serial, sync) in [
            (0x0104_0001, Synchronisation::TxAndRx),
            (0x0104_0002, Synchronisation::Rx),
            (0x0104_0003, Synchronisation::None),
        ] {
            let serial_number = SerialNumber::from_u32(serial);
            cache.insert(
                serial_number,
                CachedDevice {
                    connectivity: Connectivity::Uwb,
                    synchronisation: sync,
                    ..crate::session::fresh_cache_entry(serial_number, 0)
                },
            );
        }
        assert_eq!(
            synchronization(&plan, Some(&cache)),
            Item::Synchronization(Synchronization {
                max_tx: 1,
                current_tx: 1,
                max_rx: 3,
                current_rx: 2
            })
        );
        let roles: Vec<_> = user_state(&plan, Some(&cache))
            .into_iter()
            .filter_map(|item| match item {
                Item::RoleReport(role) => {
                    Some((role.role_id, role.max_quantity, role.active_quantity))
                }
                _ => None,
            })
            .collect();
        // ANCHOR: 2 configured, both heard; DEFAULT TAG: 1, never heard.
        assert!(roles.contains(&(2, 2, 2)), "{roles:?}");
        assert!(roles.contains(&(4, 1, 0)), "{roles:?}");
    }
}
