//! `cargo bench -p netcfg-store`: the store's cost and throughput, as ratios
//! measured in the same run.
//!
//! - growth: the time to add the 10,000th device divided by the time to add
//!   the 10th (medians of add-and-remove cycles, alternating between a
//!   configuration of 9 devices and one of 9,999); must stay at or
//!   below 1.5, since adding one device costs O(log n).
//! - durable changes per second from one writer, and from 16 concurrent
//!   writers (grouped commits), with their ratio.
//!
//! Every change is durable when counted (`synchronous = FULL`). The files
//! live under Cargo's target directory, on the same disk as the build.

#![allow(
    clippy::print_stdout,
    missing_docs,
    reason = "a benchmark prints its figures; it is not a library"
)]

use std::{
    sync::Arc,
    thread,
    time::{Duration, Instant},
};

use netcfg_model::{ConfigName, DeviceKey, Instance, SerialNumber, body::DeviceBody};
use netcfg_store::{Net, Store};

const GROWTH_LIMIT: f64 = 1.5;
const SAMPLES: usize = 101;

fn device(serial: u32, name: &str) -> DeviceBody {
    serde_json::from_value(serde_json::json!({
        "serial_number": SerialNumber::from_u32(serial).to_string(),
        "interfaces": [{"identifier": 0, "role_id": 2, "x": serial % 1000, "y": 0, "z": 2500}],
        "disabled": false,
        "name": name,
    }))
    .expect("a valid device body")
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

/// Fills `net` up to `count` devices.
fn fill(net: &Net, count: u32) {
    let present = net.devices().expect("devices").len() as u32;
    let missing: Vec<DeviceBody> = (present..count)
        .map(|serial| device(serial, "filler"))
        .collect();
    for chunk in missing.chunks(1000) {
        net.create_devices(chunk.to_vec()).expect("filler devices");
    }
}

/// Times adding one more device to `net` (and removes it again).
fn time_one_add(net: &Net) -> Duration {
    let probe = 0xFFFF_0000;
    let started = Instant::now();
    net.create_device(device(probe, "probe"))
        .expect("the probe is added");
    let elapsed = started.elapsed();
    net.delete_device(DeviceKey::Serial(SerialNumber::from_u32(probe)))
        .expect("the probe is removed");
    elapsed
}

/// The median time to add the 10th and the 10,000th device. The samples
/// alternate between the two configurations so both see the same machine.
fn growth(store: &Store) -> (Duration, Duration) {
    let small = open(store, "small");
    let large = open(store, "large");
    fill(&small, 9);
    fill(&large, 9_999);
    let (mut tenth, mut ten_thousandth) = (Vec::new(), Vec::new());
    for _ in 0..SAMPLES {
        tenth.push(time_one_add(&small));
        ten_thousandth.push(time_one_add(&large));
    }
    (median(tenth), median(ten_thousandth))
}

fn open(store: &Store, name: &str) -> Net {
    let name: ConfigName = name.parse().expect("a name");
    store
        .create(&name, Instance::ServerDefault)
        .expect("created");
    store.net(&name).expect("opened")
}

/// Durable changes per second from `writers` threads, each changing its own
/// device `changes_each` times.
fn changes_per_second(net: &Net, writers: u32, changes_each: u32) -> f64 {
    let started = Instant::now();
    let threads: Vec<_> = (0..writers)
        .map(|writer| {
            let net = net.clone();
            thread::spawn(move || {
                let serial = 0x0100_0000 + writer;
                let key = DeviceKey::Serial(SerialNumber::from_u32(serial));
                for change in 0..changes_each {
                    net.replace_device(key, device(serial, &format!("change {change}")))
                        .expect("a change");
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().expect("a writer");
    }
    f64::from(writers * changes_each) / started.elapsed().as_secs_f64()
}

fn main() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("a temporary directory");
    let store = Arc::new(Store::open(dir.path()).expect("the store opens"));

    let (tenth, ten_thousandth) = growth(&store);
    let growth = ten_thousandth.as_secs_f64() / tenth.as_secs_f64();
    println!(
        "add the 10th device:      {:>9.3} ms (median of {SAMPLES})",
        tenth.as_secs_f64() * 1e3
    );
    println!(
        "add the 10,000th device:  {:>9.3} ms (median of {SAMPLES})",
        ten_thousandth.as_secs_f64() * 1e3
    );
    println!(
        "growth ratio 10,000th / 10th: {growth:.3} (limit {GROWTH_LIMIT}: {})",
        if growth <= GROWTH_LIMIT {
            "ok"
        } else {
            "ABOVE THE LIMIT"
        }
    );

    let net = open(&store, "throughput");
    net.create_devices((0..16).map(|w| device(0x0100_0000 + w, "start")).collect())
        .expect("the writers' devices");
    let single = changes_per_second(&net, 1, 300);
    let concurrent = changes_per_second(&net, 16, 60);
    println!("durable changes per second, 1 writer:   {single:>10.0}");
    println!("durable changes per second, 16 writers: {concurrent:>10.0}");
    println!("ratio 16 writers / 1 writer: {:.2}", concurrent / single);
    if growth > GROWTH_LIMIT {
        std::process::exit(1);
    }
}
