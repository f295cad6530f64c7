//! Idle configurations are put to rest (no writer thread, no connection)
//! and woken by their next call, with nothing lost: handles taken before
//! the rest keep working, and listing the configurations wakes none.
//!
//! Writer threads are counted through `/proc/self/task`, so this file holds
//! the only store of its process: one test, in steps, in a binary of its own
//! (not a module of `tests/it/`, where other tests run stores beside it).

use std::{
    thread,
    time::{Duration, Instant},
};

#[path = "it/support/mod.rs"]
mod support;

use netcfg_model::{ConfigName, Instance, SerialNumber};
use netcfg_store::StoreOptions;

use support::{name, tag, temp_store_with};

/// The writer threads of this process.
fn writer_threads() -> usize {
    std::fs::read_dir("/proc/self/task")
        .expect("Linux lists a process's threads")
        .filter_map(Result::ok)
        .filter_map(|task| std::fs::read_to_string(task.path().join("comm")).ok())
        .filter(|comm| comm.starts_with("store-writer"))
        .count()
}

/// Waits until every writer thread stopped. The bound only keeps a broken
/// janitor from hanging the run; a healthy one takes a fraction of a second.
fn wait_for_rest() {
    let give_up = Instant::now() + Duration::from_secs(60);
    while writer_threads() > 0 {
        assert!(
            Instant::now() < give_up,
            "{} writer threads still running after a minute idle",
            writer_threads()
        );
        thread::sleep(Duration::from_millis(20));
    }
}

fn serials(net: &netcfg_store::Net) -> Vec<SerialNumber> {
    let mut serials: Vec<SerialNumber> = net
        .devices()
        .expect("devices")
        .into_iter()
        .map(|device| device.serial_number)
        .collect();
    serials.sort();
    serials
}

fn serial(number: u32) -> SerialNumber {
    SerialNumber::from_u32(number)
}

#[test]
fn idle_configurations_rest_and_wake_with_nothing_lost() {
    let temp = temp_store_with(StoreOptions {
        idle_after: Duration::from_millis(50),
        ..StoreOptions::default()
    });
    let store = &temp.store;

    // Twelve configurations, each written to: each had a writer.
    let names: Vec<ConfigName> = (0..12).map(|n| name(&format!("site-{n:02}"))).collect();
    for (number, net_name) in (0..).zip(&names) {
        store.create(net_name, Instance::ServerDefault).unwrap();
        store
            .net(net_name)
            .unwrap()
            .create_device(tag(number))
            .unwrap();
    }
    let held = store.net(&names[0]).unwrap();
    let generation = held.generation();

    wait_for_rest();

    // Listing reads every configuration and leaves them all at rest.
    let listed = store.list().unwrap();
    assert_eq!(listed.len(), names.len());
    assert_eq!(writer_threads(), 0, "listing woke configurations");

    // A handle taken before the rest still reads and writes; the rest
    // changed no generation, the write did.
    assert_eq!(serials(&held), vec![serial(0)]);
    assert_eq!(
        held.generation(),
        generation,
        "resting moved the generation"
    );
    held.create_device(tag(1000)).unwrap();
    assert_ne!(held.generation(), generation);
    assert_eq!(serials(&held), vec![serial(0), serial(1000)]);

    // Writers racing the janitor: a configuration rests between nearly
    // every pair of calls; every acknowledged write is there at the end.
    let written = |worker: u32, n: u32| 0x0200_0000 + worker * 0x1_0000 + n;
    thread::scope(|scope| {
        for (worker, net_name) in (0..).zip(&names[..4]) {
            scope.spawn(move || {
                let net = store.net(net_name).unwrap();
                for n in 0..40 {
                    net.create_device(tag(written(worker, n))).unwrap();
                    if n % 8 == 0 {
                        thread::sleep(Duration::from_millis(60));
                    }
                }
            });
        }
    });
    wait_for_rest();
    for (worker, net_name) in (0..).zip(&names[..4]) {
        let found = serials(&store.net(net_name).unwrap());
        let kept = (0..40)
            .filter(|n| found.contains(&serial(written(worker, *n))))
            .count();
        assert_eq!(kept, 40, "{net_name} lost writes across rests");
    }

    // Deleting a resting configuration closes it for good.
    store.delete(&names[1]).unwrap();
    assert!(store.net(&names[1]).is_err());
}
