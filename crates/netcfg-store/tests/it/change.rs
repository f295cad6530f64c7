//! `Net::change`: the async form of every write, awaited on a one-thread
//! runtime with no blocking thread in between; a change made of changes
//! commits whole or not at all; changes awaited together share commits.

use std::{sync::mpsc, thread, time::Duration};

use netcfg_model::{DeviceKey, Instance, SerialNumber};
use netcfg_store::{StoreError, StoreOptions};

use crate::support::{kind, name, store_with_net, tag, temp_store_with};

fn serial(value: u32) -> DeviceKey {
    DeviceKey::Serial(SerialNumber::from_u32(value))
}

/// A runtime of one thread and no blocking pool worth the name: whatever
/// the futures wait for must wake them from elsewhere (the writer thread).
fn one_thread() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .max_blocking_threads(1)
        .build()
        .expect("a runtime")
}

#[test]
fn many_changes_awaited_on_one_thread_are_durable_and_share_commits() {
    let (_temp, net) = store_with_net();
    let runtime = one_thread();
    let before = net.generation();
    let changes: Vec<_> = (0..32)
        .map(|number| net.change(move |net| net.create_device(tag(number))))
        .collect();
    let devices = runtime.block_on(async {
        let mut devices = Vec::new();
        for change in changes {
            devices.push(change.await.expect("a change"));
        }
        devices
    });
    assert_eq!(devices.len(), 32);
    assert_eq!(net.devices().unwrap().len(), 32);
    // The generation moves once per commit: 32 changes queued together took
    // fewer commits than changes.
    let commits = net.generation() - before;
    assert!(commits < 32, "{commits} commits for 32 changes");
}

#[test]
fn a_change_made_of_changes_is_committed_whole_or_not_at_all() {
    let (_temp, net) = store_with_net();
    let runtime = one_thread();

    // Reads inside a change see its own writes.
    let read_back = runtime
        .block_on(net.change(|net| {
            net.create_device(tag(1))?;
            net.device(serial(1))
        }))
        .unwrap();
    assert_eq!(read_back.serial_number, SerialNumber::from_u32(1));

    // A failing step fails the change, and its earlier steps are undone.
    let refused = runtime.block_on(net.change(|net| {
        net.create_device(tag(2))?;
        net.create_device(tag(1))
    }));
    assert_eq!(kind(&refused.unwrap_err()), "conflict");
    assert_eq!(kind(&net.device(serial(2)).unwrap_err()), "not_found");

    // A failing step the change chooses to ignore is undone alone, even
    // the part of it that was written (device 3 before the conflict on 1).
    runtime
        .block_on(net.change(|net| {
            assert!(net.create_devices(vec![tag(3), tag(1)]).is_err());
            net.create_device(tag(4))
        }))
        .unwrap();
    let serials: Vec<u32> = net
        .devices()
        .unwrap()
        .iter()
        .map(|device| device.serial_number.as_u32())
        .collect();
    assert_eq!(serials, [1, 4]);
}

#[test]
fn a_change_cannot_reach_another_configuration() {
    let (temp, net) = store_with_net();
    temp.store
        .create(&name("other"), Instance::ServerDefault)
        .unwrap();
    let other = temp.store.net(&name("other")).unwrap();
    let outcome = one_thread().block_on(net.change(move |_| other.create_device(tag(1))));
    assert!(matches!(outcome, Err(StoreError::Io { .. })), "{outcome:?}");
    let other = temp.store.net(&name("other")).unwrap();
    assert!(other.devices().unwrap().is_empty());
}

#[test]
fn a_change_outlives_its_store_and_every_handle() {
    let (temp, net) = store_with_net();
    let (go, wait) = mpsc::channel::<()>();
    let change = net.change(move |net| {
        wait.recv().expect("the test says go");
        net.create_device(tag(9))
    });
    // The queued change holds the last handle: it is dropped on the writer
    // thread, which must not wait for itself.
    drop(net);
    let data = temp.store.data_dir().to_owned();
    drop(temp.store);
    go.send(()).unwrap();
    let device = one_thread().block_on(change).expect("the change is made");
    assert_eq!(device.serial_number, SerialNumber::from_u32(9));
    let store = netcfg_store::Store::open(&data).unwrap();
    let net = store.net(&name("net")).unwrap();
    assert_eq!(net.devices().unwrap().len(), 1);
}

#[test]
fn net_if_awake_finds_an_awake_configuration() {
    let (temp, net) = store_with_net();
    assert!(temp.store.net_if_awake(&name("nowhere")).is_none());
    // Creating it read it back, which starts no writer: a change queued
    // now would start one, so it is not offered.
    assert_eq!(net.devices().unwrap().len(), 0);
    assert!(temp.store.net_if_awake(&name("net")).is_none());
    net.wake().unwrap();
    let awake = temp.store.net_if_awake(&name("net")).expect("awake");
    assert!(awake.is_awake());
    one_thread()
        .block_on(awake.change(|net| net.create_device(tag(1))))
        .unwrap();
    assert_eq!(awake.devices().unwrap().len(), 1);
}

#[test]
fn a_resting_configuration_is_not_offered_as_awake_and_wakes_on_demand() {
    let temp = temp_store_with(StoreOptions {
        idle_after: Duration::from_millis(20),
        ..StoreOptions::default()
    });
    let store = &temp.store;
    store
        .create(&name("site"), Instance::ServerDefault)
        .unwrap();
    let net = store.net(&name("site")).unwrap();
    // Resting comes after `idle_after` without calls.
    while net.is_awake() {
        thread::sleep(Duration::from_millis(5));
    }
    assert!(store.net_if_awake(&name("site")).is_none());
    net.wake().unwrap();
    one_thread()
        .block_on(net.change(|net| net.create_device(tag(1))))
        .unwrap();
    assert_eq!(net.devices().unwrap().len(), 1);
}

#[test]
fn a_replaced_device_is_answered_as_it_reads_back() {
    let (_temp, net) = store_with_net();
    net.create_device(tag(1)).unwrap();
    for (serial_after, id) in [(1, None), (2, Some(40_u32)), (2, None)] {
        let mut json = serde_json::json!({
            "serial_number": SerialNumber::from_u32(serial_after).to_string(),
            "interfaces": [
                {"identifier": 3, "role_id": 4},
                {"identifier": 1, "role_id": 2, "x": 1, "y": 2, "z": 3}
            ],
            "disabled": true,
            "name": "renamed",
        });
        if let Some(id) = id {
            json["id"] = serde_json::json!(id);
        }
        let body: netcfg_model::body::DeviceBody = serde_json::from_value(json).unwrap();
        let key = net.devices().unwrap()[0].id;
        let answered = net.replace_device(DeviceKey::Id(key), body).unwrap();
        assert_eq!(answered, net.device(DeviceKey::Id(answered.id)).unwrap());
    }
}

/// Changes queued together share a commit, each in its own savepoint: one
/// that fails and one that panics are undone alone, the others commit,
/// and the writer goes on.
#[test]
fn a_failed_or_panicking_change_is_undone_alone_and_its_batch_commits() {
    let (_temp, net) = store_with_net();
    let runtime = one_thread();
    let first = net.change(|net| net.create_device(tag(1)));
    let failing = net.change(|net| {
        net.create_device(tag(2))?;
        // Device 1 exists (the change before, in the same batch).
        net.create_device(tag(1))
    });
    let panicking = net.change(|net| -> Result<(), StoreError> {
        net.create_device(tag(3))?;
        panic!("a bug in a change");
    });
    let last = net.change(|net| net.create_device(tag(4)));
    runtime.block_on(async {
        assert!(first.await.is_ok());
        assert_eq!(kind(&failing.await.unwrap_err()), "conflict");
        assert!(panicking.await.is_err());
        assert!(last.await.is_ok());
    });
    let serials: Vec<SerialNumber> = net
        .devices()
        .unwrap()
        .into_iter()
        .map(|device| device.serial_number)
        .collect();
    assert_eq!(
        serials,
        [SerialNumber::from_u32(1), SerialNumber::from_u32(4)]
    );
    runtime
        .block_on(net.change(|net| net.create_device(tag(5))))
        .expect("the writer goes on");
}
