//! The crash test: acknowledged changes survive SIGKILL at any moment.
//!
//! This binary runs in two roles. As the parent (the test) it creates a
//! configuration, then again and again starts itself as a child, lets it
//! write for a random while and kills it with SIGKILL. The child writes in a
//! loop from several threads (so grouped commits are killed too) and prints
//! one line per acknowledged change. After each kill the parent reopens the
//! store and checks that every acknowledged change is there and that
//! `PRAGMA integrity_check` says `ok`.
//!
//! `NETCFG_CRASH_KILLS` sets the number of kills (default 20; 500 for a slow
//! run); `NETCFG_CRASH_SEED` replays a run's random moments.

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "the child reports acknowledgements on stdout; the parent reports its run"
)]

use std::{
    collections::{BTreeMap, BTreeSet},
    io::{BufRead, BufReader, Write},
    process::{Command, Stdio},
    thread,
    time::Duration,
};

use netcfg_model::SettingScope;
use netcfg_model::{
    ConfigName, Instance, SerialNumber, SettingKey, body::DeviceBody, body::SettingsBody,
};
use netcfg_store::{SettingWrite, Store};

const CHILD_DIR: &str = "NETCFG_CRASH_CHILD_DIR";
const CHILD_START: &str = "NETCFG_CRASH_CHILD_START";
const WRITERS: u32 = 4;
/// Serial numbers each child may use, so children never collide.
const SERIALS_PER_CHILD: u32 = 1_000_000;

fn config_name() -> ConfigName {
    "crash".parse().expect("a valid name")
}

fn tag(serial: u32) -> DeviceBody {
    serde_json::from_value(serde_json::json!({
        "serial_number": SerialNumber::from_u32(serial).to_string(),
        "interfaces": [{"identifier": 0, "role_id": 4}],
        "disabled": false
    }))
    .expect("a valid device body")
}

fn counter_key(writer: u32) -> SettingKey {
    format!("counter-{writer}").parse().expect("a valid key")
}

/// The child: writes until killed, printing `device <serial>` and
/// `counter <writer> <value>` after each acknowledged change.
fn child(dir: &str, start: u32) {
    let store = Store::open(dir).expect("the child opens the store");
    let net = store
        .net(&config_name())
        .expect("the child opens the configuration");
    let writers: Vec<_> = (0..WRITERS)
        .map(|writer| {
            let net = net.clone();
            thread::spawn(move || {
                for round in 0.. {
                    let serial = start + round * WRITERS + writer;
                    net.create_device(tag(serial)).expect("a device is added");
                    let mut out = std::io::stdout().lock();
                    writeln!(out, "device {serial}")
                        .and_then(|()| out.flush())
                        .expect("stdout");
                    drop(out);
                    let body = SettingsBody {
                        settings: vec![(
                            counter_key(writer),
                            netcfg_model::SettingValue::Integer(serial.into()),
                        )],
                    };
                    net.write_settings(SettingScope::system(), body, SettingWrite::Upsert)
                        .expect("a setting is written");
                    let mut out = std::io::stdout().lock();
                    writeln!(out, "counter {writer} {serial}")
                        .and_then(|()| out.flush())
                        .expect("stdout");
                }
            })
        })
        .collect();
    for writer in writers {
        let _ = writer.join();
    }
}

/// A small xorshift generator: enough to spread the kills.
struct Random(u64);

impl Random {
    fn below(&mut self, bound: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % bound
    }
}

fn parent() {
    let kills: u32 = std::env::var("NETCFG_CRASH_KILLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20);
    let seed: u64 = std::env::var("NETCFG_CRASH_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64)
                | 1
        });
    let mut random = Random(seed);
    println!("crash test: {kills} kills, seed {seed} (NETCFG_CRASH_SEED={seed} replays it)");
    let dir = tempfile::tempdir().expect("a temporary directory");
    let data = dir.path().join("data");
    Store::open(&data)
        .unwrap()
        .create(&config_name(), Instance::ServerDefault)
        .unwrap();

    let mut acknowledged_devices = BTreeSet::new();
    let mut acknowledged_counters: BTreeMap<u32, u32> = BTreeMap::new();
    for kill in 0..kills {
        let mut child = Command::new(std::env::current_exe().expect("the test binary"))
            .env(CHILD_DIR, &data)
            .env(CHILD_START, (kill * SERIALS_PER_CHILD).to_string())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the child starts");
        let stdout = child.stdout.take().expect("piped stdout");
        let reader = thread::spawn(move || {
            BufReader::new(stdout)
                .lines()
                .map_while(Result::ok)
                .collect::<Vec<String>>()
        });
        thread::sleep(Duration::from_millis(20 + random.below(230)));
        child.kill().expect("SIGKILL is sent");
        child.wait().expect("the child is reaped");
        let lines = reader.join().expect("the reader thread");
        for line in lines {
            let words: Vec<&str> = line.split(' ').collect();
            match words.as_slice() {
                ["device", serial] => {
                    acknowledged_devices.insert(serial.parse::<u32>().expect("a serial"));
                }
                ["counter", writer, value] => {
                    let (writer, value) = (
                        writer.parse().expect("a writer"),
                        value.parse().expect("a value"),
                    );
                    let last = acknowledged_counters.entry(writer).or_insert(0);
                    *last = (*last).max(value);
                }
                // A line cut by the kill acknowledged nothing.
                _ => {}
            }
        }
        verify(&data, &acknowledged_devices, &acknowledged_counters, kill);
    }
    assert!(
        acknowledged_devices.len() >= kills as usize,
        "the children acknowledged too little to test anything: {}",
        acknowledged_devices.len()
    );
    println!(
        "crash test: ok; {} acknowledged devices and {} counters survived {kills} SIGKILLs",
        acknowledged_devices.len(),
        acknowledged_counters.len()
    );
}

/// Reopens the store after a kill and checks every acknowledged change.
fn verify(
    data: &std::path::Path,
    devices: &BTreeSet<u32>,
    counters: &BTreeMap<u32, u32>,
    kill: u32,
) {
    let store = Store::open(data).expect("the store reopens after a kill");
    let net = store
        .net(&config_name())
        .expect("the configuration reopens after a kill");
    let stored: BTreeSet<u32> = net
        .devices()
        .unwrap()
        .iter()
        .map(|d| d.serial_number.as_u32())
        .collect();
    let lost: Vec<_> = devices.difference(&stored).collect();
    assert!(
        lost.is_empty(),
        "after kill {kill}: acknowledged devices lost: {lost:?}"
    );
    for (writer, value) in counters {
        let setting = net
            .setting(SettingScope::system(), counter_key(*writer))
            .expect("the counter exists");
        let stored = match setting.value {
            netcfg_model::SettingValue::Integer(stored) => stored,
            other => panic!("counter {writer} holds {other:?}"),
        };
        assert!(
            stored >= i64::from(*value),
            "after kill {kill}: counter {writer} is {stored}, acknowledged {value}"
        );
    }
    let conn = rusqlite::Connection::open(data.join("crash.sqlite")).unwrap();
    let check: String = conn
        .query_row("PRAGMA integrity_check", [], |row| row.get(0))
        .unwrap();
    assert_eq!(check, "ok", "after kill {kill}");
}

fn main() {
    match std::env::var(CHILD_DIR) {
        Ok(dir) => {
            let start = std::env::var(CHILD_START)
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(0);
            child(&dir, start);
        }
        Err(_) => parent(),
    }
}
