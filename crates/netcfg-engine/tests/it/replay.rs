//! Replays: a capture written here (pcap of CDP datagrams) started as a
//! `replay:` configuration plays through the real engine: its positions on
//! the live feed in the recorded order, its devices' joins, its sensor data
//! on the configuration's own User stream; pause, seek, speed and loop.
//!
//! Timing is never asserted here (real time on a shared machine): orders
//! and counts are. The pace itself is tested on tokio's paused clock in
//! `src/replay/player.rs`.

use std::{net::SocketAddr, path::PathBuf, time::Duration};

use crate::support::*;
use netcfg_engine::{
    Engine, EngineError, EngineOptions, LiveEvent, NetcfgEngine, NetworkPlan, ReplayPlan,
    cdp::{self, AccelerometerV3, AnchorHealthV5, DeviceActivityState, Item, Packet, PositionV3},
    protocol::NackReason,
};
use netcfg_model::{
    ConfigName, Connectivity, DeviceAction, Instance, Position, ReplayControl, ReplaySpeed,
    ReplayState, SerialNumber, Synchronisation, pcap,
};
use tokio::{net::UdpSocket, sync::broadcast};

/// 2023-11-14, when the recording was "made".
const T0_US: u64 = 1_700_000_000_000_000;
/// One datagram of positions every 100 ms for 2 s.
const STEPS: u64 = 21;
const EVERY_US: u64 = 100_000;
/// The CDP serial of the manager that made the recording.
const RECORDER: u32 = 0xFE00_0001;
const TAGS: [&str; 3] = ["01:05:0001", "01:05:0002", "01:0D:0009"];

fn from() -> SocketAddr {
    "10.0.0.5:40000".parse().unwrap()
}

fn to() -> SocketAddr {
    "239.255.76.67:7667".parse().unwrap()
}

fn record(file: &mut Vec<u8>, time_us: u64, items: &[Item]) {
    for datagram in cdp::pack(SerialNumber::from_u32(RECORDER), items).unwrap() {
        pcap::append_record(file, time_us, from(), to(), &datagram);
    }
}

/// Where tag `tag` of step `step` is.
fn x_of(step: u64, tag: usize) -> i32 {
    i32::try_from(step * 100 + tag as u64).unwrap()
}

fn network_time(step: u64) -> u64 {
    (step + 1) * 97_500
}

fn positions(step: u64) -> Vec<Item> {
    let mut items: Vec<Item> = TAGS
        .iter()
        .enumerate()
        .map(|(index, tag)| {
            Item::PositionV3(PositionV3 {
                serial_number: serial(tag),
                network_time: cdp::ticks_from_units(network_time(step)),
                x: x_of(step, index),
                y: -x_of(step, index),
                z: 1_200,
                quality: 9_000,
                anchor_count: 4,
                flags: 0,
                smoothing: 0,
            })
        })
        .collect();
    // A beacon the recording's location server could not solve.
    items.push(Item::PositionV3(PositionV3 {
        serial_number: serial("01:05:0001"),
        network_time: cdp::ticks_from_units(network_time(step)),
        x: 0,
        y: 0,
        z: 0,
        quality: 0,
        anchor_count: 0,
        flags: cdp::FLAG_NOT_CALCULATED,
        smoothing: 0,
    }));
    items
}

fn activity(device: &str, connectivity: u8, synchronization: u8) -> Item {
    Item::DeviceActivityState(DeviceActivityState {
        serial_number: serial(device),
        interface_id: 0,
        x: 0,
        y: 0,
        z: 2_500,
        role_id: 2,
        connectivity,
        synchronization,
    })
}

fn accelerometer() -> AccelerometerV3 {
    AccelerometerV3 {
        serial_number: serial("01:05:0001"),
        network_time: cdp::ticks_from_units(network_time(5)),
        x: cdp::raw_i32(0.5, 16.0),
        y: cdp::raw_i32(-0.25, 16.0),
        z: cdp::raw_i32(1.0, 16.0),
        scale: 16,
    }
}

/// The recording: the site's anchors on the network (and a stranger), then
/// positions of two configured tags and a stranger every 100 ms for 2 s,
/// an accelerometer reading, an anchor's health.
fn recording() -> Vec<u8> {
    let mut file = pcap::FileHeader::NETCFG.encode().to_vec();
    let mut joined = vec![
        Item::InstanceAnnounce("site".to_owned()),
        activity("01:04:0001", 1, 3),
        activity("01:04:0002", 1, 2),
        activity("01:0D:0009", 1, 2),
    ];
    joined.extend(positions(0));
    record(&mut file, T0_US, &joined);
    for step in 1..STEPS {
        let mut items = positions(step);
        if step == 5 {
            items.push(Item::AccelerometerV3(accelerometer()));
        }
        if step == 10 {
            items.push(Item::AnchorHealthV5(AnchorHealthV5 {
                serial_number: serial("01:04:0002"),
                interface_id: 0,
                ticks: 100,
                timed_rxs: 120,
                beacons_reported: 20,
                beacons_discarded: 0,
                beacons_late: 0,
                average_quality: 8_500,
                report_period: 1,
                interanchor_comms_error_code: 0,
                bad_paired_anchors: Vec::new(),
            }));
        }
        record(&mut file, T0_US + step * EVERY_US, &items);
    }
    file
}

fn engine() -> NetcfgEngine {
    NetcfgEngine::new(EngineOptions::default(), tokio::runtime::Handle::current())
}

/// A plan that replays `path` as `replay:site/r1?<query>`.
fn replay_plan(directory: &std::path::Path, path: PathBuf, query: &str) -> NetworkPlan {
    let instance = format!("replay:site/r1{query}");
    let mut plan = site_plan("replayed", &instance, directory);
    let Instance::Replay(source) = instance.parse::<Instance>().unwrap() else {
        panic!("a replay instance");
    };
    plan.replay = Some(ReplayPlan {
        source,
        path,
        duration_ms: 2_000,
    });
    plan
}

fn write(directory: &std::path::Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = directory.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// The next batch of positions of `name` on the live feed.
async fn batch(
    feed: &mut broadcast::Receiver<LiveEvent>,
    name: &ConfigName,
) -> (u64, Vec<(SerialNumber, Position)>) {
    first(feed, "positions", |event| match event {
        LiveEvent::Positions {
            configuration,
            network_time,
            positions,
        } if &configuration == name => Some((network_time, positions.to_vec())),
        _ => None,
    })
    .await
}

/// Waits (polling) until the replay's state satisfies `done`.
async fn until(
    engine: &NetcfgEngine,
    name: &ConfigName,
    what: &str,
    done: impl Fn(&ReplayState) -> bool,
) -> ReplayState {
    within(what, async {
        loop {
            let state = engine.replay_state(name).unwrap();
            if done(&state) {
                return state;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
}

fn control() -> ReplayControl {
    ReplayControl::default()
}

/// The positions of the configured tags and the stranger at step `step`,
/// as the engine reports them (the unsolved beacon is not among them).
fn expected_positions(step: u64) -> Vec<(SerialNumber, Position)> {
    TAGS.iter()
        .enumerate()
        .map(|(index, tag)| {
            let x = x_of(step, index);
            let position = Position {
                x,
                y: -x,
                z: 1_200,
                quality: 9_000,
                anchors_used: 4,
                error_mm: 0,
                vx: None,
                vy: None,
            };
            (serial(tag), position)
        })
        .collect()
}

/// Every step's positions come on the live feed in the recorded order.
async fn assert_every_step_in_order(feed: &mut broadcast::Receiver<LiveEvent>, name: &ConfigName) {
    for step in 0..STEPS {
        let (time, positions) = batch(feed, name).await;
        assert_eq!(time, network_time(step), "in the recorded order");
        assert_eq!(positions, expected_positions(step), "step {step}");
    }
}

/// The replay ends having played all of the recording at speed 10.
async fn assert_played_to_the_end(engine: &NetcfgEngine, name: &ConfigName) {
    let state = until(engine, name, "the end", |state| state.finished).await;
    assert_eq!(
        (state.datagrams, state.position_ms, state.duration_ms),
        (STEPS, 2_000, 2_000)
    );
    assert_eq!(state.speed, "10".parse::<ReplaySpeed>().unwrap());
    assert_eq!(
        (state.net.as_str(), state.recording.as_str()),
        ("site", "r1")
    );
}

/// The configured anchors joined with their recorded synchronisation;
/// the stranger of the recording is no device of this configuration.
fn assert_the_anchors_joined(engine: &NetcfgEngine, name: &ConfigName) {
    let links = engine.device_links(name);
    let link = |text: &str| links.iter().find(|link| link.serial_number == serial(text));
    let seeder = link("01:04:0001").expect("the seeder joined");
    assert_eq!(seeder.connectivity, Connectivity::Uwb);
    assert_eq!(seeder.synchronisation, Synchronisation::TxAndRx);
    assert_eq!(
        link("01:04:0002").unwrap().synchronisation,
        Synchronisation::Rx
    );
    assert_eq!(engine.beacon_counts(name).len(), 1, "the anchor's health");
    assert!(engine.status(name).link_up, "the link stays up at the end");
}

/// The sensor reading that went out on the configuration's User stream,
/// with the configuration's own serial in the header (not the recorder's).
async fn the_accelerometer_on(user: &UdpSocket) -> AccelerometerV3 {
    within("the accelerometer", async {
        let mut buffer = vec![0u8; 2_048];
        loop {
            let length = user.recv(&mut buffer).await.unwrap();
            let packet = Packet::decode(&buffer[..length]).unwrap();
            assert_ne!(packet.serial_number, SerialNumber::from_u32(RECORDER));
            let found = packet.items.into_iter().find_map(|item| match item {
                Item::AccelerometerV3(reading) => Some(reading),
                _ => None,
            });
            if let Some(reading) = found {
                return reading;
            }
        }
    })
    .await
}

/// A replayed tag takes no command: the engine refuses it as a bad request.
async fn assert_a_command_is_refused(engine: &NetcfgEngine, name: &ConfigName) {
    let refused = engine
        .device_command(
            name,
            serial("01:05:0001"),
            DeviceAction::SoftReset,
            Duration::from_secs(2),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(
            refused,
            EngineError::Refused {
                reason: NackReason::BadRequest,
                ..
            }
        ),
        "{refused}"
    );
}

/// Stops the replay; its state is then gone.
async fn stop_and_assert_gone(engine: &NetcfgEngine, name: &ConfigName) {
    within("stop", engine.stop(name)).await.unwrap();
    assert!(matches!(
        engine.replay_state(name),
        Err(EngineError::NotRunning(_))
    ));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replay_plays_the_recorded_positions_in_order_as_its_own_configuration() {
    let directory = tempfile::tempdir().unwrap();
    let path = write(directory.path(), "r1.pcap", &recording());
    let engine = engine();
    let user = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let mut plan = replay_plan(directory.path(), path, "?speed=10");
    aim_stream(&mut plan, "User", user.local_addr().unwrap().port());
    let name = plan.configuration.clone();
    let mut feed = engine.live();
    within("start", engine.start(plan)).await.unwrap();

    assert_every_step_in_order(&mut feed, &name).await;
    assert_played_to_the_end(&engine, &name).await;
    assert_the_anchors_joined(&engine, &name);
    assert_eq!(the_accelerometer_on(&user).await, accelerometer());
    assert_a_command_is_refused(&engine, &name).await;
    stop_and_assert_gone(&engine, &name).await;
}

/// Steers the replay `name` with `control` and returns its state then.
fn steer(engine: &NetcfgEngine, name: &ConfigName, control: ReplayControl) -> ReplayState {
    engine.replay_control(name, control).unwrap()
}

/// Paused: nothing more plays. Resumed: it goes on from there.
async fn pause_and_resume(engine: &NetcfgEngine, name: &ConfigName) {
    let paused = steer(
        engine,
        name,
        ReplayControl {
            paused: Some(true),
            ..control()
        },
    );
    assert!(paused.paused);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let still = engine.replay_state(name).unwrap();
    assert_eq!(
        still.datagrams, paused.datagrams,
        "nothing played while paused"
    );
    assert!(!still.finished);

    steer(
        engine,
        name,
        ReplayControl {
            paused: Some(false),
            ..control()
        },
    );
    let later = until(engine, name, "more datagrams", |state| {
        state.datagrams > paused.datagrams
    })
    .await;
    assert!(later.position_ms >= paused.position_ms);
}

/// Back to the start: the first positions come again.
async fn seek_to_the_start(
    engine: &NetcfgEngine,
    name: &ConfigName,
    feed: &mut broadcast::Receiver<LiveEvent>,
) {
    let back = steer(
        engine,
        name,
        ReplayControl {
            position_ms: Some(0),
            ..control()
        },
    );
    assert_eq!(back.position_ms, 0);
    first(feed, "the first positions again", |event| match event {
        LiveEvent::Positions {
            configuration,
            network_time: time,
            ..
        } if &configuration == name && time == network_time(0) => Some(()),
        _ => None,
    })
    .await;
}

/// Faster and looping: it starts again at its end. No more looping: it
/// ends and stays at the end.
async fn loop_then_end(engine: &NetcfgEngine, name: &ConfigName) {
    let state = steer(
        engine,
        name,
        ReplayControl {
            speed: Some("50".parse().unwrap()),
            looping: Some(true),
            ..control()
        },
    );
    assert!(state.looping);
    let looped = until(engine, name, "a loop", |state| state.loops >= 2).await;
    assert!(!looped.finished);
    assert_eq!(looped.duration_ms, 2_000);

    steer(
        engine,
        name,
        ReplayControl {
            looping: Some(false),
            ..control()
        },
    );
    let ended = until(engine, name, "the end", |state| state.finished).await;
    assert_eq!(ended.position_ms, 2_000);
}

/// A seek past the end is the end.
async fn seek_past_the_end(engine: &NetcfgEngine, name: &ConfigName) {
    let far = steer(
        engine,
        name,
        ReplayControl {
            position_ms: Some(60_000),
            ..control()
        },
    );
    assert_eq!(far.position_ms, 2_000);
    until(engine, name, "the end again", |state| state.finished).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pause_resume_seek_speed_and_loop_steer_the_replay() {
    let directory = tempfile::tempdir().unwrap();
    let path = write(directory.path(), "r1.pcap", &recording());
    let engine = engine();
    let plan = replay_plan(directory.path(), path, "");
    let name = plan.configuration.clone();
    let mut feed = engine.live();
    within("start", engine.start(plan)).await.unwrap();
    let (time, _) = batch(&mut feed, &name).await;
    assert_eq!(time, network_time(0));

    pause_and_resume(&engine, &name).await;
    seek_to_the_start(&engine, &name, &mut feed).await;
    loop_then_end(&engine, &name).await;
    seek_past_the_end(&engine, &name).await;
    within("stop", engine.stop(&name)).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_that_is_no_recording_fails_the_start_and_says_why() {
    let directory = tempfile::tempdir().unwrap();
    let engine = engine();
    let cases = [
        (
            "text.pcap",
            b"this is not a capture at all".to_vec(),
            "not a pcap",
        ),
        (
            "next.pcapng",
            vec![0x0A, 0x0D, 0x0D, 0x0A, 0, 0, 0, 0, 0, 0, 0, 0],
            "pcapng",
        ),
    ];
    for (file, bytes, says) in cases {
        let path = write(directory.path(), file, &bytes);
        let plan = replay_plan(directory.path(), path.clone(), "");
        let name = plan.configuration.clone();
        let error = within("start", engine.start(plan)).await.unwrap_err();
        match &error {
            EngineError::Replay {
                path: named,
                reason,
            } => {
                assert_eq!(named, &path);
                assert!(reason.contains(says), "{file}: {reason}");
            }
            other => panic!("{file}: {other}"),
        }
        assert!(engine.running().is_empty(), "{name} must not run");
    }
    let missing = replay_plan(directory.path(), directory.path().join("gone.pcap"), "");
    let error = within("start", engine.start(missing)).await.unwrap_err();
    assert!(error.to_string().contains("cannot open"), "{error}");
    let mut unfound = replay_plan(directory.path(), PathBuf::new(), "");
    unfound.replay = None;
    let error = within("start", engine.start(unfound)).await.unwrap_err();
    assert!(
        matches!(&error, EngineError::Replay { reason, .. } if reason.contains("no recording")),
        "{error}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_damaged_recording_plays_what_is_whole_and_skips_what_is_not_cdp() {
    let directory = tempfile::tempdir().unwrap();
    let mut file = pcap::FileHeader::NETCFG.encode().to_vec();
    // A UDP datagram of another protocol, and a record that is no IP packet.
    pcap::append_record(&mut file, T0_US, from(), to(), b"M-SEARCH * HTTP/1.1");
    let mut raw = Vec::new();
    pcap::append_record(&mut raw, T0_US, from(), to(), b"x");
    raw[pcap::RECORD_HEADER_LEN] = 0;
    file.extend_from_slice(&raw);
    for step in 0..5 {
        record(&mut file, T0_US + 1_000 + step * EVERY_US, &positions(step));
    }
    // The last record, cut short as by a crash.
    let mut cut = Vec::new();
    record(&mut cut, T0_US + 1_000 + 5 * EVERY_US, &positions(5));
    file.extend_from_slice(&cut[..cut.len() / 2]);
    let path = write(directory.path(), "cut.pcap", &file);

    let engine = engine();
    let plan = replay_plan(directory.path(), path, "?speed=50");
    let name = plan.configuration.clone();
    let mut feed = engine.live();
    within("start", engine.start(plan)).await.unwrap();
    for step in 0..5 {
        let (time, positions) = batch(&mut feed, &name).await;
        assert_eq!((time, positions.len()), (network_time(step), 3));
    }
    let state = until(&engine, &name, "the end", |state| state.finished).await;
    assert_eq!(state.datagrams, 5, "the skipped records are no datagrams");
    assert_eq!(state.duration_ms, 400, "learned at the end");
    within("stop", engine.stop(&name)).await.unwrap();
}
