//! The data streams read by the vendor's own decoder, `cdp-py` 1.8.1.
//!
//! Configurations run through the engine with their streams aimed at UDP
//! sockets on 127.0.0.1; every datagram received is decoded by
//! `tests/cdp_py/decode.py` (cdp-py, run by `python3`, or by the
//! interpreter `NETCFG_PYTHON` names). The tests fail, never skip, when
//! Python or cdp-py is missing: install it with `pip install cdp-py==1.8.1`.
//!
//! - a simulated site: no datagram rejected, every known item at its exact
//!   size, every stream's sequence without gaps from 0, one header serial,
//!   positions of every tag at its role's rate, sensor items at the role's
//!   periods with plausible values, the announcements, names, roles,
//!   activity, synchronisation and anchor health;
//! - a scripted network interface device on a pseudo-terminal: positions
//!   the test chose keep their network time (× 65,536 ticks) and quality;
//! - the golden fixtures of `fixtures/engine/cdp/`: cdp-py reads the valid
//!   ones as our decoder does, and rejects the packet-level errors.

use std::{
    collections::{BTreeMap, HashMap},
    io::Write,
    path::Path,
    process::Command,
    time::Duration,
};

use crate::support::*;
use netcfg_engine::{
    Engine, EngineOptions, NetcfgEngine, NetworkPlan,
    cdp::{self, Item, Packet},
    protocol::{Frame, FrameDecoder, Message, PositionReport},
    sim::SimFault,
};
use netcfg_model::{
    ItemName, NetworkTime, Position, Role, RoleId, SensorPeriod, SettingKey, SettingValue,
    SystemSetting,
};
use serde_json::Value;
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::UdpSocket,
};

const CDP_PY: &str = "1.8.1";

/// One received datagram: the stream it came on and its bytes.
pub(crate) type Received = (String, Vec<u8>);

/// Decodes `datagrams` with cdp-py; one JSON object per datagram.
pub(crate) fn cdp_py(datagrams: &[Received]) -> Vec<Value> {
    let mut input = tempfile::NamedTempFile::new().unwrap();
    for (stream, bytes) in datagrams {
        let hex: String = bytes.iter().map(|byte| format!("{byte:02x}")).collect();
        writeln!(input, "{stream} {hex}").unwrap();
    }
    input.flush().unwrap();
    let python = std::env::var("NETCFG_PYTHON").unwrap_or_else(|_| "python3".to_owned());
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cdp_py/decode.py");
    let output = Command::new(&python)
        .arg(&script)
        .arg(input.path())
        .output()
        .unwrap_or_else(|error| {
            panic!("cannot run `{python}` ({error}): this test needs Python 3 with cdp-py {CDP_PY} (pip install cdp-py=={CDP_PY})")
        });
    assert!(
        output.status.success(),
        "the cdp-py decoder failed (pip install cdp-py=={CDP_PY}): {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let mut lines = std::str::from_utf8(&output.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap());
    let version = lines.next().expect("the decoder prints its version first");
    assert_eq!(
        version["cdp_py"], CDP_PY,
        "cdp-py {CDP_PY} is the reference"
    );
    let decoded: Vec<Value> = lines.collect();
    assert_eq!(decoded.len(), datagrams.len());
    decoded
}

/// Receives from the three sockets until `enough` says so (bounded by
/// [`within`]); returns every datagram in arrival order per stream.
pub(crate) async fn collect(
    sockets: &[(&str, &UdpSocket)],
    mut enough: impl FnMut(&[Received]) -> bool,
) -> Vec<Received> {
    let mut received = Vec::new();
    within("the wanted datagrams", async {
        let mut buffers = vec![vec![0u8; 2048]; sockets.len()];
        while !enough(&received) {
            let [(a, sa), (b, sb), (c, sc)] = sockets else {
                panic!("three streams");
            };
            let [ba, bb, bc] = &mut buffers[..] else {
                unreachable!()
            };
            let (stream, bytes) = tokio::select! {
                Ok(n) = sa.recv(ba) => (*a, ba[..n].to_vec()),
                Ok(n) = sb.recv(bb) => (*b, bb[..n].to_vec()),
                Ok(n) = sc.recv(bc) => (*c, bc[..n].to_vec()),
            };
            received.push((stream.to_owned(), bytes));
        }
    })
    .await;
    received
}

pub(crate) fn items<'a>(
    decoded: &'a [Value],
    stream: &'a str,
    item_type: u16,
) -> impl Iterator<Item = &'a Value> {
    decoded
        .iter()
        .filter(move |datagram| datagram["stream"] == stream)
        .flat_map(|datagram| datagram["items"].as_array().unwrap())
        .filter(move |item| item["type"] == item_type)
}

pub(crate) fn count(received: &[Received], stream: &str, item_type: u16) -> usize {
    received
        .iter()
        .filter(|(name, _)| name == stream)
        .flat_map(|(_, bytes)| Packet::decode(bytes).unwrap().items)
        .filter(|item| item.item_type() == item_type)
        .count()
}

/// No datagram rejected, one header serial, and per stream sequence numbers
/// 0, 1, 2, … without a gap.
fn check_packets(decoded: &[Value], received: &[Received]) -> String {
    let rejected: Vec<_> = decoded
        .iter()
        .filter(|datagram| datagram.get("rejected").is_some())
        .collect();
    assert!(rejected.is_empty(), "cdp-py rejected {rejected:?}");
    let serials: std::collections::BTreeSet<_> = decoded
        .iter()
        .map(|datagram| datagram["serial"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(serials.len(), 1, "one sender serial: {serials:?}");
    let serial = serials.into_iter().next().unwrap();
    assert!(serial.starts_with("FE:"), "{serial}");
    let mut sequences: HashMap<&str, Vec<u64>> = HashMap::new();
    for datagram in decoded {
        assert!(datagram["length"].as_u64().unwrap() <= 1_472);
        sequences
            .entry(datagram["stream"].as_str().unwrap())
            .or_default()
            .push(datagram["sequence"].as_u64().unwrap());
    }
    for (stream, sequence) in &sequences {
        let expected: Vec<u64> = (0..sequence.len() as u64).collect();
        assert_eq!(sequence, &expected, "the {stream} stream's sequence");
    }
    // Our decoder agrees with the vendor's on every datagram.
    for ((_, bytes), datagram) in received.iter().zip(decoded) {
        let packet = Packet::decode(bytes).unwrap();
        assert_eq!(u64::from(packet.sequence), datagram["sequence"]);
        assert_eq!(
            packet.items.len(),
            datagram["items"].as_array().unwrap().len()
        );
    }
    serial
}

fn setting(key: &str, value: i64) -> SystemSetting {
    SystemSetting {
        setting_key: key.parse::<SettingKey>().unwrap(),
        value: SettingValue::Integer(value),
        setting_class: "system".parse::<SettingKey>().unwrap(),
        setting_id: 0,
    }
}

/// One listener for each stream of the site (Config, Anchor, User), each
/// stream aimed at its own.
pub(crate) async fn aim_every_stream(plan: &mut NetworkPlan) -> [UdpSocket; 3] {
    let mut sockets = Vec::new();
    for stream in ["Config", "Anchor", "User"] {
        let (socket, port) = listener().await;
        aim_stream(plan, stream, port);
        sockets.push(socket);
    }
    sockets.try_into().expect("three sockets")
}

async fn listener() -> (UdpSocket, u16) {
    let socket = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let port = socket.local_addr().unwrap().port();
    (socket, port)
}

/// A custom tag role at 20 Hz with every sensor on.
fn sensing_role() -> Role {
    let mut sensing = Role::new(
        RoleId(5),
        "SENSING TAG".parse::<ItemName>().unwrap(),
        NetworkTime::from_units(48_750),
    );
    let ten_hz = SensorPeriod::try_from(97_500).unwrap();
    let one_hz = SensorPeriod::try_from(975_000).unwrap();
    sensing.accelerometer_period = ten_hz;
    sensing.gyroscope_period = ten_hz;
    sensing.quaternion_period = ten_hz;
    sensing.magnetometer_period = one_hz;
    sensing.pressure_period = one_hz;
    sensing.temperature_period = one_hz;
    sensing
}

/// Positions: every tag, at its role's rate, counted in network time.
fn assert_the_positions(decoded: &[Value]) {
    let mut times: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    for position in items(decoded, "User", cdp::item_type::POSITION_V3) {
        let ticks = position["network_time"].as_u64().unwrap();
        assert_eq!(ticks % cdp::TICKS_PER_UNIT, 0, "{position}");
        let quality = position["quality"].as_u64().unwrap();
        assert!((1..=10_000).contains(&quality), "{position}");
        // Solved from the four anchors' times (a missed reception leaves
        // three, still enough in two dimensions: the anchors share a height).
        let anchors = position["anchor_count"].as_u64().unwrap();
        assert!((3..=4).contains(&anchors), "{position}");
        times
            .entry(position["serial_number"].as_str().unwrap().to_owned())
            .or_default()
            .push(ticks / cdp::TICKS_PER_UNIT);
    }
    assert_eq!(
        times.keys().collect::<Vec<_>>(),
        ["01:05:0001", "01:05:0002"]
    );
    for (tag, period) in [("01:05:0001", 97_500.0), ("01:05:0002", 48_750.0)] {
        let times = &times[tag];
        let span = (times[times.len() - 1] - times[0]) as f64;
        let delivered = (times.len() - 1) as f64;
        // The tracker refuses the odd fix an NLOS reception threw far off
        // (decisions §18): that beacon delivers no position.
        let beacons = span / period;
        assert!(
            delivered <= beacons + 1.5 && delivered >= 0.97 * beacons - 1.5,
            "{tag}: {delivered} positions over {beacons} periods"
        );
    }
}

/// Sensors: only the sensing tag, every kind, plausible values.
fn assert_the_sensors(decoded: &[Value]) {
    let full = 2_147_483_647.0;
    let value = |item: &Value, field: &str| item[field].as_f64().unwrap();
    for item_type in [0x017A, 0x017B, 0x017C, 0x0178, 0x013C, 0x013E] {
        let readings: Vec<_> = items(decoded, "User", item_type).collect();
        assert!(!readings.is_empty(), "no item {item_type:#06X}");
        for reading in readings {
            assert_eq!(reading["serial_number"], "01:05:0002", "{reading}");
            match item_type {
                0x017A => {
                    let g = value(reading, "z") * value(reading, "scale") / full;
                    assert!((0.9..1.1).contains(&g), "gravity {g} g");
                }
                0x0178 => {
                    let norm = ["x", "y", "z", "w"]
                        .iter()
                        .map(|field| (value(reading, field) / f64::from(1 << 30)).powi(2))
                        .sum::<f64>()
                        .sqrt();
                    assert!((norm - 1.0).abs() < 0.01, "quaternion norm {norm}");
                }
                0x013C => {
                    let mbar = value(reading, "pressure") * value(reading, "scale") / full;
                    assert!((950.0..1_070.0).contains(&mbar), "{mbar} mbar");
                }
                0x013E => {
                    let celsius =
                        value(reading, "temperature") * value(reading, "scale") / 32_767.0;
                    assert!((-20.0..60.0).contains(&celsius), "{celsius} °C");
                }
                _ => {}
            }
        }
    }
}

/// Config stream: the instance, the host, one stream information per
/// stream (each of `sockets`, and the Data-to-Device stream).
fn assert_the_config_stream(decoded: &[Value], sockets: &[(&str, &UdpSocket)]) {
    for announce in items(decoded, "Config", 0x011C) {
        assert_eq!(announce["instance_name"], "cdp-site");
    }
    assert!(items(decoded, "Config", 0x011B).all(|host| host["hostname"] != ""));
    let streams: std::collections::BTreeSet<_> = items(decoded, "Config", 0x011A)
        .map(|stream| {
            (
                stream["name"].as_str().unwrap().to_owned(),
                stream["destination_port"].as_u64().unwrap(),
            )
        })
        .collect();
    for (stream, socket) in sockets {
        let port = socket.local_addr().unwrap().port();
        assert!(
            streams.contains(&((*stream).to_owned(), u64::from(port))),
            "{streams:?}"
        );
    }
    assert!(streams.iter().any(|(stream, _)| stream == "Data-to-Device"));
}

/// User stream: names, roles, every device's activity.
fn assert_the_user_stream(decoded: &[Value]) {
    let names: Vec<_> = items(decoded, "User", 0x013F)
        .map(|name| (name["serial_number"].clone(), name["name"].clone()))
        .collect();
    assert!(
        names.contains(&("01:05:0001".into(), "forklift 7".into())),
        "{names:?}"
    );
    let roles: BTreeMap<String, (u64, u64)> = items(decoded, "User", 0x0141)
        .map(|role| {
            (
                role["role_name"].as_str().unwrap().to_owned(),
                (
                    role["max_quantity"].as_u64().unwrap(),
                    role["active_quantity"].as_u64().unwrap(),
                ),
            )
        })
        .collect();
    assert_eq!(roles["ANCHOR"], (3, 3), "{roles:?}");
    assert_eq!(roles["SEEDER"], (1, 1), "{roles:?}");
    assert_eq!(roles["SENSING TAG"], (1, 1), "{roles:?}");
    let active: std::collections::BTreeSet<_> = items(decoded, "User", 0x0137)
        .map(|state| state["serial_number"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(active.len(), 6, "{active:?}");
}

/// Anchor stream: health of every anchor and seeder with counters,
/// synchronisation, the anchors' activity.
fn assert_the_anchor_stream(decoded: &[Value]) {
    let mut health: BTreeMap<String, Vec<&Value>> = BTreeMap::new();
    for item in items(decoded, "Anchor", 0x014A) {
        health
            .entry(item["serial_number"].as_str().unwrap().to_owned())
            .or_default()
            .push(item);
    }
    assert_eq!(
        health.keys().collect::<Vec<_>>(),
        ["01:04:0001", "01:04:0002", "01:04:0003", "01:04:0004"]
    );
    for reports in health.values() {
        let last = reports[reports.len() - 1];
        // 1 s, or 2 s when a late counter report was waited for.
        let period = last["report_period"].as_u64().unwrap();
        assert!((1..=2).contains(&period), "{last}");
        assert!(last["ticks_reported"].as_u64().unwrap() > 0, "{last}");
        assert!(last["beacons_reported"].as_u64().unwrap() > 0, "{last}");
        let quality = last["average_quality"].as_u64().unwrap();
        assert!((7_000..=10_000).contains(&quality), "{last}");
    }
    let sync = items(decoded, "Anchor", 0x0140)
        .last()
        .expect("Synchronization");
    assert_eq!(
        (&sync["max_tx_sync_count"], &sync["max_rx_sync_count"]),
        (&Value::from(1), &Value::from(4)),
        "{sync}"
    );
    let anchors: std::collections::BTreeSet<_> = items(decoded, "Anchor", 0x0137)
        .map(|state| state["serial_number"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(anchors.len(), 4, "{anchors:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_simulated_site_is_read_by_cdp_py_without_a_rejected_datagram() {
    let logs = tempfile::tempdir().unwrap();
    let engine = NetcfgEngine::new(
        EngineOptions {
            announce_period: Duration::from_millis(250),
            manager_id: Some("cdp-py test".to_owned()),
            ..EngineOptions::default()
        },
        tokio::runtime::Handle::current(),
    );
    let mut plan = site_plan("cdp-site", "sim", logs.path());
    let [config, anchor, user] = aim_every_stream(&mut plan).await;
    plan.settings
        .push(setting("anchor_health_report_period", 1));
    // Tag 01:05:0002 has the sensing role.
    plan.roles.push(sensing_role());
    plan.devices[5].interfaces[0].role_id = RoleId(5);
    plan.devices[4].name = Some("forklift 7".parse().unwrap());
    let name = plan.configuration.clone();
    within("start", engine.start(plan)).await.unwrap();

    let sockets = [("Config", &config), ("Anchor", &anchor), ("User", &user)];
    let received = collect(&sockets, |received| {
        count(received, "User", cdp::item_type::POSITION_V3) >= 90
            && count(received, "User", cdp::item_type::PRESSURE_V2) >= 2
            && count(received, "Anchor", cdp::item_type::ANCHOR_HEALTH_V5) >= 8
            && count(received, "Config", cdp::item_type::INSTANCE_ANNOUNCE) >= 3
    })
    .await;
    within("stop", engine.stop(&name)).await.unwrap();
    let decoded = cdp_py(&received);
    let serial = check_packets(&decoded, &received);

    assert_the_positions(&decoded);
    assert_the_sensors(&decoded);
    assert_the_config_stream(&decoded, &sockets);
    assert_the_user_stream(&decoded);
    assert_the_anchor_stream(&decoded);
    assert!(serial.starts_with("FE:"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_activity_change_is_sent_at_once() {
    let logs = tempfile::tempdir().unwrap();
    // The periodic state would come only after an hour: what arrives after
    // the start is the change itself.
    let engine = NetcfgEngine::new(
        EngineOptions {
            announce_period: Duration::from_secs(3_600),
            ..EngineOptions::default()
        },
        tokio::runtime::Handle::current(),
    );
    let mut plan = site_plan("cdp-change", "sim", logs.path());
    let [config, anchor, user] = aim_every_stream(&mut plan).await;
    let name = plan.configuration.clone();
    within("start", engine.start(plan)).await.unwrap();
    let sockets = [("Config", &config), ("Anchor", &anchor), ("User", &user)];
    let anchor_sync = |received: &[Received], synchronization: u8| {
        received
            .iter()
            .filter(|(stream, _)| stream == "Anchor")
            .flat_map(|(_, bytes)| Packet::decode(bytes).unwrap().items)
            .any(|item| {
                matches!(item, Item::DeviceActivityState(state)
                    if state.serial_number == serial("01:04:0002")
                        && state.synchronization == synchronization)
            })
    };
    let every_anchor_synchronised = |received: &[Received]| {
        received
            .iter()
            .filter(|(stream, _)| stream == "Anchor")
            .flat_map(|(_, bytes)| Packet::decode(bytes).unwrap().items)
            .filter_map(|item| match item {
                Item::Synchronization(sync) => Some(sync.current_rx),
                _ => None,
            })
            .next_back()
            == Some(4)
    };
    // The start's own state, then the anchors join and synchronise (RX):
    // each change is sent as it happens. The fault waits for all four, so
    // that the loss is the only change left to count.
    let mut received = collect(&sockets, |received| {
        anchor_sync(received, 2) && every_anchor_synchronised(received)
    })
    .await;
    let simulator = engine.simulator(&name).unwrap();
    assert!(simulator.inject(SimFault::LoseSync(serial("01:04:0002"))));
    received.extend(collect(&sockets, |received| anchor_sync(received, 0)).await);
    within("stop", engine.stop(&name)).await.unwrap();
    let decoded = cdp_py(&received);
    check_packets(&decoded, &received);
    let sync = items(&decoded, "Anchor", 0x0140).last().unwrap();
    assert_eq!(
        (&sync["max_rx_sync_count"], &sync["current_rx_sync_count"]),
        (&Value::from(4), &Value::from(3)),
        "{sync}"
    );
}

/// Plays a network interface device on `device_end`: acknowledges the push
/// and the start, answers pings, then reports `batches`.
async fn scripted_device(mut device_end: tokio_serial::SerialStream, batches: Vec<Message>) {
    let mut decoder = FrameDecoder::new();
    let mut buffer = vec![0u8; 4_096];
    let mut pending = Some(batches);
    loop {
        let Ok(read) = AsyncReadExt::read(&mut device_end, &mut buffer).await else {
            return;
        };
        if read == 0 {
            return;
        }
        decoder.extend(&buffer[..read]);
        while let Some(Ok(frame)) = decoder.next_frame() {
            let reply = match frame.message {
                Message::Ping { token } => Message::Pong { token },
                _ => Message::Ack,
            };
            let started = matches!(frame.message, Message::StartNetwork);
            let bytes = Frame::new(frame.sequence, reply).encode().unwrap();
            if AsyncWriteExt::write_all(&mut device_end, &bytes)
                .await
                .is_err()
            {
                return;
            }
            if started && let Some(batches) = pending.take() {
                for message in batches {
                    let bytes = Frame::new(0, message).encode().unwrap();
                    if AsyncWriteExt::write_all(&mut device_end, &bytes)
                        .await
                        .is_err()
                    {
                        return;
                    }
                }
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn positions_keep_their_network_time_and_quality() {
    let logs = tempfile::tempdir().unwrap();
    let (device_end, host_end) = tokio_serial::SerialStream::pair().unwrap();
    let path = tokio_serial::SerialPort::name(&host_end).unwrap();
    // 30 batches of 3 tags; network times up to 2^40 units (about 13 days),
    // every quality from 0 to 10,000 in steps.
    let mut expected = Vec::new();
    let batches: Vec<Message> = (0..30u64)
        .map(|batch| {
            let network_time = if batch == 29 {
                1 << 40
            } else {
                1_000 + batch * 97_500
            };
            let reports = (0..3u32)
                .map(|tag| {
                    let quality =
                        u16::try_from((batch * 3 + u64::from(tag)) * 10_000 / 89).unwrap();
                    let report = PositionReport {
                        serial_number: netcfg_model::SerialNumber::from_u32(0x0105_0001 + tag),
                        position: Position {
                            x: -1_000 * i32::try_from(batch).unwrap(),
                            y: 7,
                            z: 1_234,
                            quality,
                            anchors_used: 3 + u8::try_from(tag).unwrap(),
                            error_mm: 0,
                            vx: None,
                            vy: None,
                        },
                    };
                    expected.push((
                        report.serial_number.to_string(),
                        network_time,
                        report.position,
                    ));
                    report
                })
                .collect();
            Message::Positions {
                network_time,
                reports,
            }
        })
        .collect();
    tokio::spawn(scripted_device(device_end, batches));
    let engine = NetcfgEngine::new(EngineOptions::default(), tokio::runtime::Handle::current());
    let mut plan = site_plan("cdp-scripted", &path, logs.path());
    plan.devices
        .push(device(7, "01:05:0003", RoleId::DEFAULT_TAG, None));
    let [config, anchor, user] = aim_every_stream(&mut plan).await;
    let name = plan.configuration.clone();
    within("start", engine.start(plan)).await.unwrap();
    let sockets = [("Config", &config), ("Anchor", &anchor), ("User", &user)];
    let received = collect(&sockets, |received| {
        count(received, "User", cdp::item_type::POSITION_V3) >= expected.len()
    })
    .await;
    within("stop", engine.stop(&name)).await.unwrap();
    drop(host_end);
    let decoded = cdp_py(&received);
    check_packets(&decoded, &received);
    let positions: Vec<_> = items(&decoded, "User", cdp::item_type::POSITION_V3)
        .map(|item| {
            (
                item["serial_number"].as_str().unwrap().to_owned(),
                item["network_time"].as_u64().unwrap(),
                Position {
                    x: i32::try_from(item["x"].as_i64().unwrap()).unwrap(),
                    y: i32::try_from(item["y"].as_i64().unwrap()).unwrap(),
                    z: i32::try_from(item["z"].as_i64().unwrap()).unwrap(),
                    quality: u16::try_from(item["quality"].as_u64().unwrap()).unwrap(),
                    anchors_used: u8::try_from(item["anchor_count"].as_u64().unwrap()).unwrap(),
                    error_mm: 0,
                    vx: None,
                    vy: None,
                },
            )
        })
        .collect();
    let expected: Vec<_> = expected
        .into_iter()
        .map(|(serial, units, position)| (serial, units * 65_536, position))
        .collect();
    assert_eq!(positions, expected);
    // Positions are packed: 90 of them (34 bytes each) in 3 datagrams at most.
    let user_datagrams = decoded
        .iter()
        .filter(|datagram| {
            datagram["stream"] == "User"
                && datagram["items"][0]["type"] == cdp::item_type::POSITION_V3
        })
        .count();
    assert!(user_datagrams <= 30, "{user_datagrams} datagrams");
}

#[test]
fn cdp_py_reads_the_golden_fixtures_as_we_do() {
    let directory = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/engine/cdp");
    let mut fixtures: Vec<_> = std::fs::read_dir(&directory)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "hex"))
        .collect();
    fixtures.sort();
    let datagrams: Vec<Received> = fixtures
        .iter()
        .map(|path| {
            let bytes = std::fs::read_to_string(path)
                .unwrap()
                .lines()
                .map(|line| line.split('#').next().unwrap_or(""))
                .flat_map(str::split_whitespace)
                .map(|byte| u8::from_str_radix(byte, 16).unwrap())
                .collect();
            (
                path.file_stem().unwrap().to_string_lossy().into_owned(),
                bytes,
            )
        })
        .collect();
    let decoded = cdp_py(&datagrams);
    for ((name, bytes), datagram) in datagrams.iter().zip(&decoded) {
        let ours = Packet::decode(bytes);
        let theirs_rejected = datagram.get("rejected").is_some();
        match ours {
            Ok(packet) => {
                assert!(
                    !theirs_rejected,
                    "{name}: cdp-py rejects what we accept: {datagram}"
                );
                assert_eq!(u64::from(packet.sequence), datagram["sequence"], "{name}");
                let types: Vec<u64> = packet
                    .items
                    .iter()
                    .map(|item| u64::from(item.item_type()))
                    .collect();
                let theirs: Vec<u64> = datagram["items"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|item| item["type"].as_u64().unwrap())
                    .collect();
                assert_eq!(types, theirs, "{name}");
            }
            // Errors in the packet's framing are errors to cdp-py too; a
            // malformed item's data (wrong size, bad text, partial pair) is
            // ours to refuse, where cdp-py reads what it can.
            Err(_)
                if name.starts_with("error_bad_mark")
                    || name.starts_with("error_bad_string")
                    || name.starts_with("error_short")
                    || name.starts_with("error_left_over")
                    || name.starts_with("error_overrun")
                    || name.starts_with("error_wrong_size") =>
            {
                assert!(
                    theirs_rejected,
                    "{name}: cdp-py accepts what we refuse: {datagram}"
                );
            }
            Err(_) => {}
        }
    }
}
