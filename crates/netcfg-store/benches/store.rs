//! `cargo bench -p netcfg-store`: the store's cost and throughput, as ratios
//! measured in the same run.
//!
//! - growth: the time to add the 10,000th device divided by the time to add
//!   the 10th (medians of add-and-remove cycles, alternating between a
//!   configuration of 9 devices and one of 9,999); must stay at or
//!   below 1.5, since adding one device costs O(log n).
//! - durable changes per second from one writer, and from 16 concurrent
//!   writers (grouped commits), with their ratio.
//! - the same through `Net::change` (awaited futures): one task, and 16
//!   tasks on a one-thread runtime (no thread blocks while they wait).
//! - the latency of one PATCH-like change (replace a device, one caller),
//!   blocking and awaited, beside the p50 of the disk's `fdatasync` (4 KiB
//!   appended, measured here, on the same file system) and their ratio.
//!
//! Every change is durable when counted (its log synced before the answer). The files
//! live under Cargo's target directory, on the same disk as the build, or
//! under `NETCFG_BENCH_DIR` (`/dev/shm` measures the CPU cost alone).

#![allow(
    clippy::print_stdout,
    missing_docs,
    reason = "a benchmark prints its figures; it is not a library"
)]

use std::{
    fs::OpenOptions,
    io::Write,
    path::Path,
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

/// The same through `Net::change`: `tasks` tasks on one thread.
fn async_changes_per_second(net: &Net, tasks: u32, changes_each: u32) -> f64 {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime");
    let started = Instant::now();
    runtime.block_on(async {
        let tasks: Vec<_> = (0..tasks)
            .map(|task| {
                let net = net.clone();
                tokio::spawn(async move {
                    let serial = 0x0100_0000 + task;
                    let key = DeviceKey::Serial(SerialNumber::from_u32(serial));
                    for change in 0..changes_each {
                        let body = device(serial, &format!("change {change}"));
                        net.change(move |net| net.replace_device(key, body))
                            .await
                            .expect("a change");
                    }
                })
            })
            .collect();
        for task in tasks {
            task.await.expect("a task");
        }
    });
    f64::from(tasks * changes_each) / started.elapsed().as_secs_f64()
}

/// The p50 of `fdatasync` after appending 4 KiB, in `dir`.
fn fdatasync_p50(dir: &Path) -> Duration {
    let path = dir.join("fdatasync-probe");
    let mut file = OpenOptions::new()
        .create_new(true)
        .append(true)
        .open(&path)
        .expect("a probe file");
    let page = [0x5a_u8; 4096];
    let samples = (0..SAMPLES * 2)
        .map(|_| {
            file.write_all(&page).expect("a write");
            let started = Instant::now();
            file.sync_data().expect("fdatasync");
            started.elapsed()
        })
        .collect();
    drop(file);
    std::fs::remove_file(&path).expect("the probe is removed");
    median(samples)
}

/// The p50 latency of one replace-device change from one caller, blocking
/// and awaited.
fn change_p50(net: &Net) -> (Duration, Duration) {
    let serial = 0x0100_0000;
    let key = DeviceKey::Serial(SerialNumber::from_u32(serial));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime");
    let (mut blocking, mut awaited) = (Vec::new(), Vec::new());
    for sample in 0..SAMPLES * 2 {
        let body = device(serial, &format!("latency {sample}"));
        let started = Instant::now();
        net.replace_device(key, body).expect("a change");
        blocking.push(started.elapsed());
        let body = device(serial, &format!("latency {sample}"));
        let started = Instant::now();
        runtime
            .block_on(net.change(move |net| net.replace_device(key, body)))
            .expect("a change");
        awaited.push(started.elapsed());
    }
    (median(blocking), median(awaited))
}

fn main() {
    // NETCFG_BENCH_DIR=/dev/shm takes the disk out (fsync is free on
    // tmpfs): what is left is the CPU cost of the write path.
    let parent = std::env::var_os("NETCFG_BENCH_DIR").map_or_else(
        || env!("CARGO_TARGET_TMPDIR").into(),
        std::path::PathBuf::from,
    );
    let dir = tempfile::tempdir_in(parent).expect("a temporary directory");
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
    let single = async_changes_per_second(&net, 1, 300);
    let concurrent = async_changes_per_second(&net, 16, 60);
    println!("durable changes per second, 1 task awaiting Net::change:       {single:>10.0}");
    println!("durable changes per second, 16 tasks on one thread (change):   {concurrent:>10.0}");
    println!("ratio 16 tasks / 1 task: {:.2}", concurrent / single);

    let fdatasync = fdatasync_p50(dir.path());
    let (blocking, awaited) = change_p50(&net);
    println!(
        "fdatasync p50 (4 KiB appended):       {:>9.3} ms",
        fdatasync.as_secs_f64() * 1e3
    );
    for (what, p50) in [("blocking", blocking), ("awaited ", awaited)] {
        println!(
            "replace one device p50, {what}:     {:>9.3} ms = {:.1} x fdatasync",
            p50.as_secs_f64() * 1e3,
            p50.as_secs_f64() / fdatasync.as_secs_f64()
        );
    }
    if growth > GROWTH_LIMIT {
        std::process::exit(1);
    }
}
