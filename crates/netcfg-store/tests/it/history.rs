//! The change history: journalling, paging, restore (a property test over
//! random sequences of changes), download and upload, a damaged history.

use netcfg_model::SettingScope;
use netcfg_model::{
    ChangeRecord, DeviceKey, Instance, NetworkMode, SerialNumber, body::DeviceBody,
};
use netcfg_store::{ConflictKind, Missing, Net, SettingWrite, StoreError};
use proptest::prelude::*;

use crate::support::{name, store_with_net, tag};

/// Everything a restore puts back, read through the store's own API.
#[derive(Debug, Clone, PartialEq)]
struct Content(Vec<String>);

fn content(net: &Net) -> Content {
    let text = |value: serde_json::Value| value.to_string();
    // The name is the file's, not its content's (a copy has another).
    let mut configuration = serde_json::to_value(net.configuration().unwrap()).unwrap();
    configuration["name"] = serde_json::Value::Null;
    Content(vec![
        text(configuration),
        text(serde_json::to_value(net.group_image().unwrap()).unwrap()),
        text(serde_json::to_value(net.devices().unwrap()).unwrap()),
        text(serde_json::to_value(net.pairs().unwrap()).unwrap()),
        text(serde_json::to_value(net.roles().unwrap()).unwrap()),
        text(serde_json::to_value(net.rf_settings().unwrap()).unwrap()),
        text(serde_json::to_value(net.streams().unwrap()).unwrap()),
        text(serde_json::to_value(net.position_limits().unwrap()).unwrap()),
        text(serde_json::to_value(net.settings(None).unwrap()).unwrap()),
        text(serde_json::to_value(net.alert_rules().unwrap()).unwrap()),
        // The schedules, not their ledgers: those are not content.
        text(
            serde_json::to_value(
                net.schedules()
                    .unwrap()
                    .into_iter()
                    .map(|(schedule, _)| schedule)
                    .collect::<Vec<_>>(),
            )
            .unwrap(),
        ),
        text(serde_json::to_value(net.zones().unwrap()).unwrap()),
        text(serde_json::to_value(net.outputs().unwrap()).unwrap()),
        format!(
            "{:?}",
            net.devices()
                .unwrap()
                .iter()
                .map(|device| net
                    .magnetometer_calibration(DeviceKey::Serial(device.serial_number))
                    .ok())
                .collect::<Vec<_>>()
        ),
    ])
}

fn record(summary: &str) -> ChangeRecord {
    ChangeRecord {
        origin: "engineer".to_owned(),
        address: Some("192.0.2.7".to_owned()),
        method: "PATCH".to_owned(),
        path: "/nets/net/devices/01:05:0001".to_owned(),
        summary: summary.to_owned(),
    }
}

fn block_on<T>(future: impl std::future::Future<Output = T>) -> T {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(future)
}

fn newest(net: &Net) -> u64 {
    net.history(None, 1).unwrap()[0].id
}

fn anchor(serial: u32, x: i64) -> DeviceBody {
    serde_json::from_value(serde_json::json!({
        "serial_number": SerialNumber::from_u32(serial).to_string(),
        "interfaces": [{"identifier": 0, "role_id": 2, "x": x, "y": 0, "z": 2500}],
        "disabled": false
    }))
    .unwrap()
}

#[test]
fn a_request_is_journalled_with_its_origin_and_what_it_did() {
    let (_temp, net) = store_with_net();
    assert!(net.history(None, 100).unwrap().is_empty());
    block_on(net.change_as(record("Add a device"), |net| {
        net.create_device(tag(0x0105_0001))
    }))
    .unwrap();
    let entries = net.history(None, 100).unwrap();
    assert_eq!(entries.len(), 1);
    let entry = &entries[0];
    assert_eq!(entry.id, 1);
    assert_eq!(entry.origin, "engineer");
    assert_eq!(entry.address.as_deref(), Some("192.0.2.7"));
    assert_eq!(entry.method, "PATCH");
    assert_eq!(entry.path, "/nets/net/devices/01:05:0001");
    assert_eq!(
        entry.summary,
        "Add a device: device 01:05:0001 added, 1 interface added"
    );
    assert!(entry.timestamp_ms > 1_700_000_000_000);

    // A request that changes nothing is journalled too; a failed one is not.
    block_on(net.change_as(record("Mark read"), |_| Ok(()))).unwrap();
    let failed = block_on(net.change_as(record("Add it again"), |net| {
        net.create_device(tag(0x0105_0001))
    }));
    assert!(failed.is_err());
    let summaries: Vec<String> = net
        .history(None, 100)
        .unwrap()
        .into_iter()
        .map(|entry| entry.summary)
        .collect();
    assert_eq!(
        summaries,
        [
            "Mark read",
            "Add a device: device 01:05:0001 added, 1 interface added"
        ]
    );
}

#[test]
fn a_local_change_is_journalled_only_when_it_touches_the_content() {
    let (_temp, net) = store_with_net();
    net.add_notification(
        netcfg_model::Level::Warning,
        "a tag went silent".to_owned(),
        None,
        1,
    )
    .unwrap();
    assert!(net.history(None, 10).unwrap().is_empty());
    net.set_instance("sim".parse::<Instance>().unwrap())
        .unwrap();
    let entries = net.history(None, 10).unwrap();
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0].origin, ChangeRecord::LOCAL);
    assert_eq!(entries[0].method, "");
    assert_eq!(entries[0].summary, "1 configuration changed");
}

#[test]
fn history_pages_newest_first() {
    let (_temp, net) = store_with_net();
    for serial in 1..=25 {
        net.create_device(tag(0x0105_0000 + serial)).unwrap();
    }
    let first = net.history(None, 10).unwrap();
    assert_eq!(
        first.iter().map(|entry| entry.id).collect::<Vec<_>>(),
        (16..=25).rev().collect::<Vec<_>>()
    );
    let second = net.history(Some(16), 10).unwrap();
    assert_eq!(second[0].id, 15);
    let last = net.history(Some(6), 10).unwrap();
    assert_eq!(
        last.iter().map(|entry| entry.id).collect::<Vec<_>>(),
        [5, 4, 3, 2, 1]
    );
}

#[test]
fn restore_undoes_cascades_and_serial_changes() {
    let (_temp, net) = store_with_net();
    net.create_device(anchor(0x0104_0001, 0)).unwrap();
    net.create_device(anchor(0x0104_0002, 5000)).unwrap();
    let pair: netcfg_model::DevicePair = serde_json::from_value(serde_json::json!({
        "serial_number_1": "01:04:0001", "interface_1": 0,
        "serial_number_2": "01:04:0002", "interface_2": 0, "type": "twr"
    }))
    .unwrap();
    net.create_pairs(vec![pair]).unwrap();
    net.set_magnetometer_calibration(
        DeviceKey::Serial(SerialNumber::from_u32(0x0104_0001)),
        serde_json::from_value(serde_json::json!({"x_offset": 1, "y_offset": 2, "z_offset": 3}))
            .unwrap(),
    )
    .unwrap();
    let point = newest(&net);
    let before = content(&net);

    // A new serial number cascades into the pairs; a delete cascades into
    // interfaces, pairs and the calibration.
    net.replace_device(
        DeviceKey::Serial(SerialNumber::from_u32(0x0104_0002)),
        anchor(0x0104_0003, 7000),
    )
    .unwrap();
    net.delete_device(DeviceKey::Serial(SerialNumber::from_u32(0x0104_0001)))
        .unwrap();
    assert_ne!(content(&net), before);

    net.restore(point).unwrap();
    assert_eq!(content(&net), before);
    let entry = &net.history(None, 1).unwrap()[0];
    assert!(entry.id > point);

    // The restore is one change, undone by restoring to the one before it.
    let after_changes = entry.id - 1;
    net.restore(after_changes).unwrap();
    assert!(
        net.device(DeviceKey::Serial(SerialNumber::from_u32(0x0104_0003)))
            .is_ok()
    );
}

#[test]
fn restore_of_an_unknown_change_is_not_found_and_changes_nothing() {
    let (_temp, net) = store_with_net();
    net.create_device(tag(0x0105_0001)).unwrap();
    match net.restore(99) {
        Err(StoreError::NotFound {
            kind: Missing::HistoryEntry,
            ..
        }) => {}
        other => panic!("expected a missing history entry, got {other:?}"),
    }
    assert_eq!(net.history(None, 10).unwrap().len(), 1);
}

#[test]
fn history_survives_download_and_upload_and_restores_there() {
    let (temp, net) = store_with_net();
    net.create_device(tag(0x0105_0001)).unwrap();
    let point = newest(&net);
    let before = content(&net);
    net.create_device(tag(0x0105_0002)).unwrap();
    let bytes = temp.store.download(&name("net")).unwrap();
    let mut upload = temp.store.begin_upload().unwrap();
    upload.write(&bytes).unwrap();
    temp.store.finish_upload(&name("copy"), upload).unwrap();
    let copy = temp.store.net(&name("copy")).unwrap();
    assert_eq!(
        copy.history(None, 100).unwrap(),
        net.history(None, 100).unwrap()
    );
    copy.restore(point).unwrap();
    assert_eq!(content(&copy), before);
}

/// Renames the tag `serial` (a whole replacement, as PUT makes it).
fn rename_tag(net: &Net, serial: u32, new_name: &str) {
    let mut renamed = tag(serial);
    renamed.name = Some(new_name.parse().unwrap());
    net.replace_device(DeviceKey::Serial(SerialNumber::from_u32(serial)), renamed)
        .unwrap();
}

/// A file of schema version 7 (undo rows in a rowid table with a second
/// index; the journal's checks as lists) is migrated on upload with its
/// history whole: the same entries,
/// and a restore across changes made before and after the migration.
#[test]
fn a_version_7_history_is_migrated_whole() {
    let (temp, net) = store_with_net();
    net.create_device(tag(0x0105_0001)).unwrap();
    let point = newest(&net);
    let before = content(&net);
    rename_tag(&net, 0x0105_0001, "Forklift 3");
    net.create_device(tag(0x0105_0002)).unwrap();
    let bytes = temp.store.download(&name("net")).unwrap();
    let path = temp.dir.path().join("v7.sqlite");
    std::fs::write(&path, &bytes).unwrap();
    {
        // Back to version 7 the way version 7 built its tables: the
        // entries as v3.sql made their table; the undo rows numbered in the
        // order they were written, then v7.sql's own rebuild; the roles
        // without v11's tracking.
        let v3 = include_str!("../../src/schema/v3.sql");
        let start = v3.find("CREATE TABLE history (").unwrap();
        let entries = &v3[start..start + v3[start..].find(") STRICT;").unwrap() + 9];
        let v7 = include_str!("../../src/schema/v7.sql");
        let rebuild = &v7[v7.find("CREATE TABLE history_undo_v7").unwrap()..];
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch(&format!(
            "BEGIN;
             ALTER TABLE history RENAME TO history_v9;
             {entries}
             INSERT INTO history SELECT * FROM history_v9;
             DROP TABLE history_v9;
             ALTER TABLE history_undo RENAME TO undo_v10;
             CREATE TABLE history_undo AS SELECT
                 row_number() OVER (ORDER BY id) AS id,
                 id >> 24 AS change_id, table_name, action, key, old FROM undo_v10;
             DROP TABLE undo_v10;
             {rebuild}
             ALTER TABLE roles DROP COLUMN tracking;
             ALTER TABLE roles DROP COLUMN max_speed_mm_s;
             UPDATE history_undo SET old = json_remove(old, '$.tracking', '$.max_speed_mm_s')
                 WHERE table_name = 'roles' AND old IS NOT NULL;
             PRAGMA user_version = 7;
             COMMIT;"
        ))
        .unwrap();
    }
    let mut upload = temp.store.begin_upload().unwrap();
    upload.write(&std::fs::read(&path).unwrap()).unwrap();
    temp.store.finish_upload(&name("old"), upload).unwrap();
    let old = temp.store.net(&name("old")).unwrap();
    assert_eq!(
        old.history(None, 100).unwrap(),
        net.history(None, 100).unwrap()
    );
    old.delete_device(DeviceKey::Serial(SerialNumber::from_u32(0x0105_0002)))
        .unwrap();
    old.restore(point).unwrap();
    assert_eq!(content(&old), before);
}

/// A file of schema version 10 (roles without tracking) is migrated on
/// upload: every tag role tracks at `default` and 3,000 mm/s, the anchor
/// roles do not, and a restore to before a role's change made in version
/// 10 puts the role back as the migration reads it.
#[test]
fn a_version_10_file_gets_tracking_and_its_history_restores() {
    let (temp, net) = store_with_net();
    net.create_device(tag(0x0105_0001)).unwrap();
    let point = newest(&net);
    let rename: netcfg_model::body::RolePatchBody =
        serde_json::from_value(serde_json::json!({"device_count": 7})).unwrap();
    net.patch_role(netcfg_model::RoleId::DEFAULT_TAG, rename)
        .unwrap();
    let bytes = temp.store.download(&name("net")).unwrap();
    let path = temp.dir.path().join("v10.sqlite");
    std::fs::write(&path, &bytes).unwrap();
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch(
            "BEGIN;
             ALTER TABLE roles DROP COLUMN tracking;
             ALTER TABLE roles DROP COLUMN max_speed_mm_s;
             UPDATE history_undo SET old = json_remove(old, '$.tracking', '$.max_speed_mm_s')
                 WHERE table_name = 'roles' AND old IS NOT NULL;
             PRAGMA user_version = 10;
             COMMIT;",
        )
        .unwrap();
    }
    let mut upload = temp.store.begin_upload().unwrap();
    upload.write(&std::fs::read(&path).unwrap()).unwrap();
    temp.store.finish_upload(&name("old"), upload).unwrap();
    let old = temp.store.net(&name("old")).unwrap();
    let roles = old.roles().unwrap();
    for role in &roles {
        let tracked = role.id.is_tag_role();
        assert_eq!(
            role.tracking,
            tracked.then_some(netcfg_model::locate::Tracking::Default),
            "{}",
            role.name
        );
        assert_eq!(
            role.max_speed_mm_s,
            tracked.then_some(3_000),
            "{}",
            role.name
        );
    }
    assert_eq!(roles, net.roles().unwrap());
    old.restore(point).unwrap();
    assert_eq!(
        old.role(netcfg_model::RoleId::DEFAULT_TAG)
            .unwrap()
            .device_count,
        0
    );
}

#[test]
fn a_copy_keeps_the_history() {
    let (temp, net) = store_with_net();
    net.create_device(tag(0x0105_0001)).unwrap();
    temp.store.copy(&name("net"), &name("other")).unwrap();
    let other = temp.store.net(&name("other")).unwrap();
    assert_eq!(
        other.history(None, 10).unwrap(),
        net.history(None, 10).unwrap()
    );
}

#[test]
fn a_history_that_does_not_fit_the_content_is_refused_and_changes_nothing() {
    let (temp, net) = store_with_net();
    net.create_device(tag(0x0105_0001)).unwrap();
    let point = newest(&net);
    rename_tag(&net, 0x0105_0001, "Forklift 3");
    // Another program removes the device behind the store's back: the
    // history's "rename it back" has nothing to rename.
    let path = temp.store.data_dir().join("net.sqlite");
    drop(net);
    let other = rusqlite::Connection::open(&path).unwrap();
    other
        .execute_batch("PRAGMA foreign_keys = ON; DELETE FROM devices WHERE id = 1;")
        .unwrap();
    drop(other);
    let net = temp.store.net(&name("net")).unwrap();
    let before = content(&net);
    match net.restore(point) {
        Err(StoreError::Conflict {
            kind: ConflictKind::HistoryDiverged,
            ..
        }) => {}
        other => panic!("expected a diverged history, got {other:?}"),
    }
    assert_eq!(content(&net), before);
}

/// One random change.
#[derive(Debug, Clone)]
enum Step {
    AddTag(u8),
    AddAnchor(u8, i16),
    Rename(u8, u8),
    NewSerial(u8, u8),
    Delete(u8),
    AddRole(u8),
    DeleteRole(u8),
    AddLimit(u8),
    DeleteLimit(u8),
    Instance(u8),
    Mode(bool),
    Setting(u8),
    Pair(u8, u8),
    Calibrate(u8, i16),
    AddRule(u8),
    RetimeRule(u8, u16),
    DeleteRule(u8),
    AddSchedule(u8),
    RetimeSchedule(u8, u8),
    DeleteSchedule(u8),
    AddZone(u8),
    MoveZone(u8, i16),
    DeleteZone(u8),
    AddOutput(u8),
    RetimeOutput(u8, u16),
    DeleteOutput(u8),
}

fn serial(index: u8) -> SerialNumber {
    SerialNumber::from_u32(0x0104_0000 + u32::from(index))
}

fn step() -> impl Strategy<Value = Step> {
    let index = || 0u8..6;
    prop_oneof![
        index().prop_map(Step::AddTag),
        (index(), any::<i16>()).prop_map(|(index, x)| Step::AddAnchor(index, x)),
        (index(), any::<u8>()).prop_map(|(index, label)| Step::Rename(index, label)),
        (index(), index()).prop_map(|(from, to)| Step::NewSerial(from, to)),
        index().prop_map(Step::Delete),
        index().prop_map(Step::AddRole),
        index().prop_map(Step::DeleteRole),
        index().prop_map(Step::AddLimit),
        index().prop_map(Step::DeleteLimit),
        index().prop_map(Step::Instance),
        any::<bool>().prop_map(Step::Mode),
        any::<u8>().prop_map(Step::Setting),
        (index(), index()).prop_map(|(one, other)| Step::Pair(one, other)),
        (index(), any::<i16>()).prop_map(|(index, offset)| Step::Calibrate(index, offset)),
        index().prop_map(Step::AddRule),
        (index(), any::<u16>()).prop_map(|(index, for_s)| Step::RetimeRule(index, for_s)),
        index().prop_map(Step::DeleteRule),
        index().prop_map(Step::AddSchedule),
        index().prop_map(Step::AddZone),
        (index(), any::<i16>()).prop_map(|(index, x)| Step::MoveZone(index, x)),
        index().prop_map(Step::DeleteZone),
        index().prop_map(Step::AddOutput),
        (index(), any::<u16>()).prop_map(|(index, batch)| Step::RetimeOutput(index, batch)),
        index().prop_map(Step::DeleteOutput),
        (index(), 0..24_u8).prop_map(|(index, hour)| Step::RetimeSchedule(index, hour)),
        index().prop_map(Step::DeleteSchedule),
    ]
}

/// Applies a step; a step the store refuses (a taken serial, a role in
/// use) is fine: it changes nothing and is not journalled.
fn apply(net: &Net, step: &Step) {
    let json = |value: serde_json::Value| value;
    let _ = match step {
        Step::AddTag(index) => net.create_device(tag(serial(*index).as_u32())).map(drop),
        Step::AddAnchor(index, x) => net
            .create_device(anchor(serial(*index).as_u32(), i64::from(*x)))
            .map(drop),
        Step::Rename(index, label) => net
            .replace_device(
                DeviceKey::Serial(serial(*index)),
                serde_json::from_value(json(serde_json::json!({
                    "serial_number": serial(*index).to_string(),
                    "name": format!("device {label}"),
                    "interfaces": [{"identifier": 0, "role_id": 4}],
                    "disabled": label % 2 == 0
                })))
                .unwrap(),
            )
            .map(drop),
        Step::NewSerial(from, to) => net
            .replace_device(DeviceKey::Serial(serial(*from)), tag(serial(*to).as_u32()))
            .map(drop),
        Step::Delete(index) => net.delete_device(DeviceKey::Serial(serial(*index))),
        Step::AddRole(index) => net
            .create_role(
                serde_json::from_value(json(serde_json::json!({
                    "name": format!("role {index}"), "network_period": 48750
                })))
                .unwrap(),
            )
            .map(drop),
        Step::DeleteRole(index) => net.delete_role(
            serde_json::from_value(json(serde_json::json!(5 + u32::from(*index)))).unwrap(),
        ),
        Step::AddLimit(index) => net
            .create_position_limit(
                serde_json::from_value(json(serde_json::json!({
                    "name": format!("zone {index}"),
                    "min_x": 0, "min_y": 0, "min_z": 0,
                    "max_x": 1000 + i64::from(*index), "max_y": 1000, "max_z": 1000
                })))
                .unwrap(),
            )
            .map(drop),
        Step::AddRule(index) => net
            .create_alert_rule(
                serde_json::from_value(json(serde_json::json!({
                    "name": format!("battery {index}"),
                    "condition": "battery_below",
                    "threshold": 10 + u32::from(*index),
                })))
                .unwrap(),
            )
            .map(drop),
        Step::RetimeRule(index, for_s) => net
            .patch_alert_rule(
                format!("battery {index}").parse().unwrap(),
                serde_json::from_value(json(serde_json::json!({"for_s": for_s}))).unwrap(),
            )
            .map(drop),
        Step::DeleteRule(index) => {
            net.delete_alert_rule(format!("battery {index}").parse().unwrap())
        }
        Step::AddSchedule(index) => net
            .create_schedule(
                serde_json::from_value(json(serde_json::json!({
                    "name": format!("nightly {index}"),
                    "cron": format!("0 {index} * * *"),
                    "action": "restart",
                })))
                .unwrap(),
            )
            .map(drop),
        Step::RetimeSchedule(index, hour) => net
            .patch_schedule(
                format!("nightly {index}").parse().unwrap(),
                serde_json::from_value(json(serde_json::json!({
                    "cron": format!("0 0 {hour} * * *"), "timezone": "Europe/Berlin"
                })))
                .unwrap(),
            )
            .map(drop),
        Step::DeleteSchedule(index) => {
            net.delete_schedule(format!("nightly {index}").parse().unwrap())
        }
        Step::AddZone(index) => net
            .create_zone(
                serde_json::from_value(json(serde_json::json!({
                    "name": format!("dock {index}"),
                    "polygon": [[0, 0], [1000 + u32::from(*index), 0], [0, 1000]],
                })))
                .unwrap(),
            )
            .map(drop),
        Step::MoveZone(index, x) => net
            .patch_zone(
                format!("dock {index}").parse().unwrap(),
                serde_json::from_value(json(serde_json::json!({
                    "polygon": [[x, 0], [i32::from(*x) + 1000, 0], [x, 1000]],
                    "z_max": 2500,
                })))
                .unwrap(),
            )
            .map(drop),
        Step::DeleteZone(index) => net.delete_zone(format!("dock {index}").parse().unwrap()),
        Step::AddOutput(index) => net
            .create_output(
                serde_json::from_value(json(serde_json::json!({
                    "name": format!("broker {index}"),
                    "url": format!("mqtt://10.0.0.{index}:1883"),
                    "events": ["position", "zone"],
                    "password": "never in the file",
                })))
                .unwrap(),
            )
            .map(drop),
        Step::RetimeOutput(index, batch) => net
            .patch_output(
                format!("broker {index}").parse().unwrap(),
                serde_json::from_value(json(serde_json::json!({
                    "batch_ms": u32::from(*batch) % 60_001, "qos": 1,
                })))
                .unwrap(),
                netcfg_model::OutputSecrets::default(),
            )
            .map(drop),
        Step::DeleteOutput(index) => net.delete_output(format!("broker {index}").parse().unwrap()),
        Step::DeleteLimit(index) => {
            net.delete_position_limit(netcfg_model::PositionLimitKey::Id(1 + u32::from(*index)))
        }
        Step::Instance(index) => net
            .set_instance(format!("/dev/ttyUSB{index}").parse().unwrap())
            .map(drop),
        Step::Mode(multirange) => net
            .set_network_mode(if *multirange {
                NetworkMode::MultiRange
            } else {
                NetworkMode::MultiTime
            })
            .map(drop),
        Step::Setting(value) => net
            .write_settings(
                SettingScope::system(),
                serde_json::from_value(json(serde_json::json!({
                    "setting_key": "site_label", "value": format!("hall {value}")
                })))
                .unwrap(),
                SettingWrite::Upsert,
            )
            .map(drop),
        Step::Pair(one, other) => net
            .create_pairs(vec![
                serde_json::from_value(json(serde_json::json!({
                    "serial_number_1": serial(*one).to_string(), "interface_1": 0,
                    "serial_number_2": serial(*other).to_string(), "interface_2": 0,
                    "type": "blacklist"
                })))
                .unwrap(),
            ])
            .map(drop),
        Step::Calibrate(index, offset) => net
            .set_magnetometer_calibration(
                DeviceKey::Serial(serial(*index)),
                serde_json::from_value(json(serde_json::json!({
                    "x_offset": offset, "y_offset": 0, "z_offset": 0
                })))
                .unwrap(),
            )
            .map(drop),
    };
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Random changes, then a restore to each point in turn (in a random
    /// order, so restores are undone by later restores too): each time the
    /// content equals what it was right after that change.
    #[test]
    fn restore_to_any_point_gives_the_content_of_that_point(
        steps in proptest::collection::vec(step(), 1..24),
        order in any::<u64>(),
    ) {
        let (_temp, net) = store_with_net();
        let mut points: Vec<(u64, Content)> = Vec::new();
        for step in &steps {
            let newest_before = net.history(None, 1).unwrap().first().map(|entry| entry.id);
            apply(&net, step);
            let entry = net.history(None, 1).unwrap().first().map(|entry| entry.id);
            if entry != newest_before {
                points.push((entry.unwrap(), content(&net)));
            }
        }
        // A fixed shuffle from `order`.
        let mut shuffled = points.clone();
        let mut state = order | 1;
        for index in (1..shuffled.len()).rev() {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            shuffled.swap(index, (state % (index as u64 + 1)) as usize);
        }
        for (id, expected) in &shuffled {
            net.restore(*id).unwrap();
            prop_assert_eq!(&content(&net), expected, "restore to {}", id);
        }
    }
}

#[test]
fn an_upload_whose_undo_rows_belong_to_no_change_is_refused() {
    let (temp, net) = store_with_net();
    net.create_device(tag(0x0105_0001)).unwrap();
    let bytes = temp.store.download(&name("net")).unwrap();
    let path = temp.dir.path().join("edited.sqlite");
    std::fs::write(&path, &bytes).unwrap();
    {
        // Rows that the next change would take for its own.
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute(
            "INSERT INTO history_undo (id, table_name, action, key, old)
             VALUES ((2 << 24) + 1, 'devices', 'delete', '{\"id\": 1}', NULL)",
            [],
        )
        .unwrap();
    }
    let refused = temp
        .store
        .upload(&name("edited"), &std::fs::read(&path).unwrap());
    assert!(
        matches!(refused, Err(StoreError::BadUpload(_))),
        "{refused:?}"
    );
}

/// The file's schema no longer checks that undo rows hold JSON (v10): the
/// upload check parses them.
#[test]
fn an_upload_whose_undo_row_is_not_json_is_refused() {
    let (temp, net) = store_with_net();
    net.create_device(tag(0x0105_0001)).unwrap();
    rename_tag(&net, 0x0105_0001, "Forklift 3");
    let bytes = temp.store.download(&name("net")).unwrap();
    let path = temp.dir.path().join("edited.sqlite");
    std::fs::write(&path, &bytes).unwrap();
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        let edited = conn
            .execute(
                "UPDATE history_undo SET old = '{\"id\": 1, \"name\": ' WHERE action = 'update'",
                [],
            )
            .unwrap();
        assert_eq!(edited, 1);
    }
    let refused = temp
        .store
        .upload(&name("edited"), &std::fs::read(&path).unwrap());
    assert!(
        matches!(&refused, Err(StoreError::BadUpload(_))),
        "{refused:?}"
    );
}
