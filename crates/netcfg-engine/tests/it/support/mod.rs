//! Helpers shared by the engine's integration tests.

#![allow(dead_code, reason = "each test file uses a part of the helpers")]

use std::{future::Future, net::IpAddr, path::Path, time::Duration};

use netcfg_engine::{EngineEvent, EngineNotification, NetworkPlan};
use netcfg_model::{ConfigName, DataStream, Device, Instance, RoleId, SerialNumber};
use tokio::sync::broadcast;

/// Bounds a wait so a broken engine fails the test instead of hanging it.
pub(crate) async fn within<T>(what: &str, future: impl Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(20), future)
        .await
        .unwrap_or_else(|_| panic!("timed out waiting for {what}"))
}

pub(crate) fn serial(text: &str) -> SerialNumber {
    text.parse().unwrap()
}

pub(crate) fn device(
    id: u32,
    serial_text: &str,
    role: RoleId,
    position: Option<[i32; 3]>,
) -> Device {
    netcfg_engine::fixture::device(id, serial(serial_text), role, position)
}

/// A small site: a seeder, three anchors, two tags; streams point at
/// 127.0.0.1 ports nobody listens on unless a test replaces them.
pub(crate) fn site_plan(name: &str, instance: &str, logs: &Path) -> NetworkPlan {
    let mut plan = NetworkPlan::new(
        name.parse::<ConfigName>().unwrap(),
        instance.parse::<Instance>().unwrap(),
        logs.to_owned(),
    );
    plan.devices = vec![
        device(1, "01:04:0001", RoleId::SEEDER, Some([0, 0, 2500])),
        device(2, "01:04:0002", RoleId::ANCHOR, Some([10_000, 0, 2500])),
        device(
            3,
            "01:04:0003",
            RoleId::ANCHOR,
            Some([10_000, 10_000, 2500]),
        ),
        device(4, "01:04:0004", RoleId::ANCHOR, Some([0, 10_000, 2500])),
        device(5, "01:05:0001", RoleId::DEFAULT_TAG, None),
        device(6, "01:05:0002", RoleId::DEFAULT_TAG, None),
    ];
    for stream in &mut plan.streams {
        stream.destination_ip = IpAddr::from([127, 0, 0, 1]);
        stream.destination_port = 9; // discard: nobody listens
    }
    plan
}

/// Points the stream called `name` at `port` on 127.0.0.1.
pub(crate) fn aim_stream(plan: &mut NetworkPlan, name: &str, port: u16) {
    let stream: &mut DataStream = plan
        .streams
        .iter_mut()
        .find(|stream| stream.name.as_str() == name)
        .unwrap();
    stream.destination_ip = IpAddr::from([127, 0, 0, 1]);
    stream.destination_port = port;
}

/// Waits for the first item of `feed` that `pick` takes (lagging skips
/// items; a closed feed fails the test).
pub(crate) async fn first<T: Clone, R>(
    feed: &mut broadcast::Receiver<T>,
    what: &str,
    pick: impl Fn(T) -> Option<R>,
) -> R {
    within(what, async {
        loop {
            match feed.recv().await {
                Ok(item) => {
                    if let Some(picked) = pick(item) {
                        return picked;
                    }
                }
                Err(broadcast::error::RecvError::Lagged(_)) => {}
                Err(broadcast::error::RecvError::Closed) => panic!("the feed closed"),
            }
        }
    })
    .await
}

/// Waits for the first notification that `matches`.
pub(crate) async fn notification(
    feed: &mut broadcast::Receiver<EngineEvent>,
    what: &str,
    matches: impl Fn(&EngineNotification) -> bool,
) -> EngineNotification {
    first(feed, what, |event| match event {
        EngineEvent::Notification(notification) if matches(&notification) => Some(notification),
        _ => None,
    })
    .await
}

/// The bytes of a fixture's `.hex` file: hexadecimal bytes separated by
/// white space, `#` starting a comment.
pub(crate) fn parse_hex(text: &str) -> Vec<u8> {
    text.lines()
        .map(|line| line.split('#').next().unwrap_or(""))
        .flat_map(str::split_whitespace)
        .map(|byte| u8::from_str_radix(byte, 16).unwrap_or_else(|_| panic!("bad hex byte {byte}")))
        .collect()
}

/// Walks the `.hex` fixtures directly in `directory`, in name order: each
/// decodes as the `.txt` beside it records (`{:#?}` of the value, or
/// `error: <message>`; the expected-files harness, so `UPDATE_EXPECT=1`
/// rewrites them), and a value that decodes encodes back to exactly its
/// bytes. `seen` is shown every decoded value. Returns how many fixtures
/// there were and how many of them were errors.
pub(crate) fn check_hex_fixtures<T: std::fmt::Debug, E: std::fmt::Display>(
    directory: &Path,
    decode: impl Fn(&[u8]) -> Result<T, E>,
    encode: impl Fn(&T) -> Vec<u8>,
    mut seen: impl FnMut(&T),
) -> (usize, usize) {
    let mut entries: Vec<_> = std::fs::read_dir(directory)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "hex"))
        .collect();
    entries.sort();
    let mut expected = netcfg_expect::Expected::new();
    let mut errors = 0;
    for hex_path in &entries {
        let bytes = parse_hex(&std::fs::read_to_string(hex_path).unwrap());
        let text = match decode(&bytes) {
            Ok(value) => {
                assert_eq!(
                    encode(&value),
                    bytes,
                    "{} does not re-encode to its bytes",
                    hex_path.display()
                );
                seen(&value);
                format!("{value:#?}\n")
            }
            Err(error) => {
                errors += 1;
                format!("error: {error}\n")
            }
        };
        expected.file(&hex_path.with_extension("txt"), &text);
    }
    let checked = expected.checked();
    expected.assert();
    (checked, errors)
}
