//! A configuration's generation changes with every commit, not with reads,
//! and no two configurations (or two openings of one name) share a value:
//! what a cache keyed by it relies on.

use netcfg_model::Level;
use netcfg_model::{ConfigName, Instance, body::DeviceBody};
use netcfg_store::{NewNotification, StampKind, Store, StoreError};
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

/// `Net::require_stamp`: inside a change, it passes while nothing of its
/// kind was committed since the stamp its caller read, and fails with
/// `Changed` (writing nothing) once something was; a commit of the other
/// kind (a notification stored while the network runs) leaves it passing;
/// outside a change it cannot judge and says so.
#[test]
fn a_conditional_change_sees_commits_of_its_kind_since_its_stamp() {
    let directory = tempfile::tempdir().unwrap();
    let store = Store::open(directory.path()).unwrap();
    let name: ConfigName = "site".parse().unwrap();
    store.create(&name, Instance::ServerDefault).unwrap();
    let net = store.net(&name).unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();

    let content = net.stamp(StampKind::Content);
    let notifications = net.stamp(StampKind::Notifications);
    net.add_notifications(vec![NewNotification {
        level: Level::Warning,
        message: "anchor 01:05:0009 is offline".to_owned(),
        serial_number: None,
        timestamp_ms: 1_700_000_000_000,
    }])
    .unwrap();
    assert_eq!(
        net.stamp(StampKind::Content),
        content,
        "a notification moved the content"
    );
    assert_ne!(net.stamp(StampKind::Notifications), notifications);

    let passed = runtime.block_on(net.change(move |net| {
        net.require_stamp(StampKind::Content, content)?;
        net.create_device(device("01:05:0001"))
    }));
    assert!(passed.is_ok(), "{passed:?}");
    assert_ne!(net.stamp(StampKind::Content), content);

    // `content` is stale now: the conditional change writes nothing.
    let refused = runtime.block_on(net.change(move |net| {
        net.require_stamp(StampKind::Content, content)?;
        net.create_device(device("01:05:0002"))
    }));
    assert!(
        matches!(refused, Err(StoreError::Changed { .. })),
        "{refused:?}"
    );
    assert_eq!(net.devices().unwrap().len(), 1);

    // A refused change (a duplicate serial) leaves the stamp where it was.
    let current = net.stamp(StampKind::Content);
    assert!(net.create_device(device("01:05:0001")).is_err());
    assert_eq!(net.stamp(StampKind::Content), current);

    assert!(matches!(
        net.require_stamp(StampKind::Content, current),
        Err(StoreError::Io { .. })
    ));
}

/// A schedule's run moves the schedules' stamp and leaves the content's
/// alone (an editor's tag stays current); a change of a schedule moves
/// both.
#[test]
fn a_scheduled_run_moves_the_schedules_stamp_alone() {
    let directory = tempfile::tempdir().unwrap();
    let store = Store::open(directory.path()).unwrap();
    let name: ConfigName = "site".parse().unwrap();
    store.create(&name, Instance::ServerDefault).unwrap();
    let net = store.net(&name).unwrap();
    let (content, schedules) = (
        net.stamp(StampKind::Content),
        net.stamp(StampKind::Schedules),
    );
    net.create_schedule(
        serde_json::from_value(serde_json::json!({
            "name": "nightly", "cron": "0 3 * * *", "action": "restart"
        }))
        .unwrap(),
    )
    .unwrap();
    assert_ne!(net.stamp(StampKind::Content), content);
    assert_ne!(net.stamp(StampKind::Schedules), schedules);

    let (content, schedules) = (
        net.stamp(StampKind::Content),
        net.stamp(StampKind::Schedules),
    );
    net.record_schedule_run(
        "nightly".parse().unwrap(),
        10_800_000,
        netcfg_model::ScheduleRun {
            due_ms: 10_800_000,
            at_ms: 10_800_050,
            outcome: netcfg_model::RunOutcome::Ok,
            message: "restarted".to_owned(),
        },
    )
    .unwrap();
    assert_eq!(
        net.stamp(StampKind::Content),
        content,
        "a run moved the content"
    );
    assert_ne!(net.stamp(StampKind::Schedules), schedules);
    assert_eq!(
        net.history(None, 10).unwrap().len(),
        1,
        "a run is not a change: only the creation is journalled"
    );
}
