//! A configuration's generation changes with every commit, not with reads,
//! and no two configurations (or two openings of one name) share a value:
//! what a cache keyed by it relies on.

use netcfg_model::{ConfigName, Instance, body::DeviceBody};
use netcfg_store::Store;
use serde_json::json;

fn device(serial: &str) -> DeviceBody {
    serde_json::from_value(json!({
        "serial_number": serial,
        "disabled": false,
        "interfaces": [{"identifier": 0, "role_id": 4}]
    }))
    .expect("a valid body")
}

#[test]
fn the_generation_follows_commits_only() {
    let directory = tempfile::tempdir().unwrap();
    let store = Store::open(directory.path()).unwrap();
    let name: ConfigName = "site".parse().unwrap();
    store.create(&name, Instance::ServerDefault).unwrap();
    let net = store.net(&name).unwrap();

    let before = net.generation();
    net.devices().unwrap();
    assert_eq!(net.generation(), before, "a read changed the generation");

    net.create_device(device("01:05:0001")).unwrap();
    let after_add = net.generation();
    assert_ne!(after_add, before, "a commit left the generation");

    // A refused change commits nothing that matters, but may move the value:
    // a cache only ever misses more, never serves stale data.
    let _ = net.create_device(device("01:05:0001"));
    assert!(net.generation() >= after_add);

    let other: ConfigName = "other".parse().unwrap();
    store.create(&other, Instance::ServerDefault).unwrap();
    assert_ne!(store.net(&other).unwrap().generation(), net.generation());

    // The same name opened anew (deleted, created again) starts elsewhere.
    let old = net.generation();
    drop(net);
    store.delete(&name).unwrap();
    store.create(&name, Instance::ServerDefault).unwrap();
    assert_ne!(store.net(&name).unwrap().generation(), old);
}
