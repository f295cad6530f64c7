//! Lifecycle, files, migration, upload, locking and concurrency of the store.

use std::{sync::Arc, thread};

use netcfg_model::{DeviceKey, Instance, NetworkMode, SerialNumber, body::MultipleDevicePatchBody};
use netcfg_store::{BadUpload, SCHEMA_VERSION, StoreError, StoreOptions};
use serde_json::{Value, json};

use crate::support::{
    dir_listing, edited, fixture, kind, name, store_with_net, tag, temp_store, temp_store_with,
};

fn serial(value: u32) -> DeviceKey {
    DeviceKey::Serial(SerialNumber::from_u32(value))
}

#[test]
fn a_new_configuration_has_the_defaults_and_lives_in_one_file() {
    let temp = temp_store();
    let configuration = temp
        .store
        .create(&name("site"), "sim".parse().unwrap())
        .unwrap();
    assert_eq!(configuration.network_mode, NetworkMode::MultiTime);
    assert_eq!(configuration.instance.to_string(), "sim");
    let net = temp.store.net(&name("site")).unwrap();
    assert_eq!(net.roles().unwrap(), netcfg_model::builtin_roles());
    assert_eq!(net.streams().unwrap(), netcfg_model::default_streams());
    assert_eq!(
        net.rf_settings().unwrap(),
        vec![netcfg_model::RfSetting::default_setting()]
    );
    let keys: Vec<String> = net
        .settings(None)
        .unwrap()
        .iter()
        .map(|s| s.setting_key.to_string())
        .collect();
    let catalogue: Vec<String> = netcfg_model::default_settings()
        .iter()
        .map(|s| s.setting_key.to_string())
        .collect();
    assert_eq!(keys, catalogue);
    assert!(temp.store.data_dir().join("site.sqlite").is_file());
    assert_eq!(
        temp.store
            .create(&name("site"), Instance::ServerDefault)
            .map_err(|e| kind(&e))
            .unwrap_err(),
        "conflict"
    );
}

#[test]
fn configurations_are_listed_renamed_copied_and_deleted() {
    let temp = temp_store();
    let store = &temp.store;
    for text in ["b", "a", "c"] {
        store.create(&name(text), Instance::ServerDefault).unwrap();
    }
    let names: Vec<String> = store
        .list()
        .unwrap()
        .iter()
        .map(|c| c.name.to_string())
        .collect();
    assert_eq!(names, ["a", "b", "c"]);
    assert_eq!(kind(&store.get(&name("zz")).unwrap_err()), "not_found");

    let a = store.net(&name("a")).unwrap();
    a.create_device(tag(1)).unwrap();
    std::fs::write(store.log_dir(&name("a")).unwrap().join("run.log"), "hello").unwrap();

    // Rename onto a taken name is refused; a rename with a new instance works.
    assert_eq!(
        kind(
            &store
                .update(&name("a"), Some(&name("b")), None)
                .unwrap_err()
        ),
        "conflict"
    );
    let renamed = store
        .update(&name("a"), Some(&name("d")), Some("sim".parse().unwrap()))
        .unwrap();
    assert_eq!(
        (renamed.name.as_str(), renamed.instance.to_string().as_str()),
        ("d", "sim")
    );
    assert_eq!(
        kind(&a.devices().unwrap_err()),
        "not_found",
        "an old handle sees the rename"
    );
    let d = store.net(&name("d")).unwrap();
    assert_eq!(d.devices().unwrap().len(), 1);
    assert_eq!(store.log_files(&name("d")).unwrap()[0].as_str(), "run.log");
    assert_eq!(kind(&store.get(&name("a")).unwrap_err()), "not_found");

    // A copy holds the same data and then lives its own life.
    store.copy(&name("d"), &name("e")).unwrap();
    assert_eq!(
        kind(&store.copy(&name("d"), &name("e")).unwrap_err()),
        "conflict"
    );
    let e = store.net(&name("e")).unwrap();
    assert_eq!(e.devices().unwrap(), d.devices().unwrap());
    e.delete_device(serial(1)).unwrap();
    assert_eq!(d.devices().unwrap().len(), 1);

    store.delete(&name("d")).unwrap();
    assert_eq!(kind(&store.delete(&name("d")).unwrap_err()), "not_found");
    assert!(!store.data_dir().join("logs/d").exists());
    let names: Vec<String> = store
        .names()
        .unwrap()
        .iter()
        .map(|n| n.to_string())
        .collect();
    assert_eq!(names, ["b", "c", "e"]);
}

#[test]
fn log_files_are_listed_and_opened_only_inside_their_directory() {
    let (temp, _net) = store_with_net();
    let store = &temp.store;
    let dir = store.log_dir(&name("net")).unwrap();
    assert_eq!(dir, store.data_dir().join("logs/net"));
    std::fs::write(dir.join("b.log"), "second").unwrap();
    std::fs::write(dir.join("a.log"), "first").unwrap();
    std::fs::create_dir(dir.join("sub.log")).unwrap();
    let outside = temp.dir.path().join("secret.txt");
    std::fs::write(&outside, "secret").unwrap();
    std::os::unix::fs::symlink(&outside, dir.join("link.log")).unwrap();
    let files: Vec<String> = store
        .log_files(&name("net"))
        .unwrap()
        .iter()
        .map(|f| f.to_string())
        .collect();
    assert_eq!(files, ["a.log", "b.log"]);
    let mut text = String::new();
    std::io::Read::read_to_string(
        &mut store
            .open_log(&name("net"), &"a.log".parse().unwrap())
            .unwrap(),
        &mut text,
    )
    .unwrap();
    assert_eq!(text, "first");
    for refused in ["link.log", "sub.log", "missing.log"] {
        let error = store
            .open_log(&name("net"), &refused.parse().unwrap())
            .unwrap_err();
        assert_eq!(kind(&error), "not_found", "{refused}");
    }
    assert_eq!(
        kind(&store.log_dir(&name("other")).unwrap_err()),
        "not_found"
    );
}

/// Reads everything a configuration holds, as JSON, for comparisons.
fn contents(net: &netcfg_store::Net) -> Value {
    json!({
        "configuration": net.configuration().unwrap(),
        "group_image": net.group_image().unwrap(),
        "devices": net.devices().unwrap(),
        "pairs": net.pairs().unwrap(),
        "roles": net.roles().unwrap(),
        "streams": net.streams().unwrap(),
        "rf_settings": net.rf_settings().unwrap(),
        "position_limits": net.position_limits().unwrap(),
        "settings": net.settings(None).unwrap(),
        "notifications": net.notifications().unwrap(),
        "cached_devices": net.cached_devices().unwrap(),
    })
}

fn contains(actual: &Value, expected: &Value) -> bool {
    match (actual, expected) {
        (Value::Object(a), Value::Object(e)) => e
            .iter()
            .all(|(k, v)| a.get(k).is_some_and(|f| contains(f, v))),
        (Value::Array(a), Value::Array(e)) => {
            a.len() == e.len() && a.iter().zip(e).all(|(a, e)| contains(a, e))
        }
        (Value::Array(a), Value::Number(n)) => Some(a.len() as u64) == n.as_u64(),
        _ => actual == expected,
    }
}

fn user_version(path: &std::path::Path) -> i64 {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.query_row("PRAGMA user_version", [], |row| row.get(0))
        .unwrap()
}

/// Everything the v1 fixture holds, as `fixtures/store/v1-expected.json`.
fn assert_reads_as_the_v1_fixture(net: &netcfg_store::Net) {
    let expected: Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("v1-expected.json")).unwrap())
            .unwrap();
    let mut found = contents(net);
    found["magnetometer_calibration"] =
        json!(net.magnetometer_calibration(serial(0x0100_0703)).unwrap());
    assert!(contains(&found, &expected), "got {found:#}");
}

#[test]
fn a_version_1_file_opens_migrated_with_all_its_data() {
    let fixture_file = fixture("v1.sqlite");
    assert_eq!(
        user_version(&fixture_file),
        1,
        "the fixture is a version-1 file"
    );
    // Dropped into the data directory: opened and migrated in place.
    let temp = temp_store();
    let target = temp.store.data_dir().join("legacy.sqlite");
    std::fs::copy(&fixture_file, &target).unwrap();
    let net = temp.store.net(&name("legacy")).unwrap();
    assert_reads_as_the_v1_fixture(&net);
    assert_eq!(user_version(&target), SCHEMA_VERSION);
    // Version 2 features work on the migrated file.
    net.add_notification(netcfg_model::Level::Warning, "migrated", None, 1)
        .unwrap();
    assert_eq!(net.unread_notifications().unwrap(), 1);

    // Uploaded: checked as a version-1 file, then migrated.
    let uploaded = temp
        .store
        .upload(&name("legacy2"), &std::fs::read(&fixture_file).unwrap())
        .unwrap();
    assert_eq!(uploaded.network_mode, NetworkMode::MultiRange);
    assert_eq!(
        temp.store
            .net(&name("legacy2"))
            .unwrap()
            .devices()
            .unwrap()
            .len(),
        3
    );
}

/// Today's files before the history (schema version 2) open migrated: every
/// item kept, the history empty until the first change, which restores.
#[test]
fn a_version_2_file_opens_migrated_with_all_its_data_and_an_empty_history() {
    let temp = temp_store();
    let target = temp.store.data_dir().join("legacy.sqlite");
    std::fs::copy(fixture("v1.sqlite"), &target).unwrap();
    {
        let conn = rusqlite::Connection::open(&target).unwrap();
        conn.execute_batch(&format!(
            "BEGIN; {} PRAGMA user_version = 2; COMMIT;",
            include_str!("../../src/schema/v2.sql")
        ))
        .unwrap();
    }
    assert_eq!(user_version(&target), 2, "a version-2 file");
    let net = temp.store.net(&name("legacy")).unwrap();
    assert_reads_as_the_v1_fixture(&net);
    assert_eq!(user_version(&target), SCHEMA_VERSION);
    assert!(net.history(None, 10).unwrap().is_empty());

    let before = contents(&net);
    net.create_device(tag(0x0105_0F01)).unwrap();
    let first = net.history(None, 10).unwrap();
    assert_eq!(first.len(), 1);
    net.delete_device(serial(0x0100_0703)).unwrap();
    net.restore(first[0].id).unwrap();
    net.delete_device(serial(0x0105_0F01)).unwrap();
    assert_eq!(contents(&net), before);
}

#[test]
fn a_newer_file_in_the_data_directory_is_refused_as_newer() {
    let temp = temp_store();
    let path = temp.store.data_dir().join("future.sqlite");
    std::fs::copy(fixture("v1.sqlite"), &path).unwrap();
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute_batch("PRAGMA user_version = 99")
        .unwrap();
    match temp.store.get(&name("future")).unwrap_err() {
        StoreError::NewerSchema {
            found, supported, ..
        } => assert_eq!((found, supported), (99, SCHEMA_VERSION)),
        other => panic!("expected NewerSchema, got {other}"),
    }
    assert!(
        temp.store.list().unwrap().is_empty(),
        "an unreadable file is left out of the list"
    );
}

/// A valid file's bytes changed by `edit` through SQLite.
/// A refused upload: its label, its bytes, and the reason expected.
type UploadCase = (&'static str, Vec<u8>, fn(&BadUpload) -> bool);

#[test]
fn every_bad_upload_is_refused_with_its_own_reason_and_nothing_is_written() {
    let (temp, net) = store_with_net();
    net.create_device(tag(7)).unwrap();
    let good = temp.store.download(&name("net")).unwrap();
    let other_application = {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("other.sqlite");
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch("CREATE TABLE t (x); INSERT INTO t VALUES (1);")
            .unwrap();
        drop(conn);
        std::fs::read(&path).unwrap()
    };
    let mut corrupt = good.clone();
    // Scribble over the second page (a table's b-tree page).
    let page_size = usize::from(u16::from_be_bytes([good[16], good[17]]));
    for byte in &mut corrupt[page_size + 8..page_size + 64] {
        *byte = 0xA5;
    }
    let cases: Vec<UploadCase> = vec![
        (
            "garbage",
            b"this is not a database at all, not even close".repeat(10),
            |r| matches!(r, BadUpload::NotSqlite),
        ),
        ("empty", Vec::new(), |r| matches!(r, BadUpload::NotSqlite)),
        ("truncated", good[..good.len() / 2].to_vec(), |r| {
            matches!(r, BadUpload::Truncated { .. })
        }),
        ("header only", good[..60].to_vec(), |r| {
            matches!(r, BadUpload::Truncated { .. })
        }),
        ("other application", other_application, |r| {
            matches!(r, BadUpload::OtherApplication { found: 0, .. })
        }),
        (
            "newer schema",
            edited(
                &good,
                &format!("PRAGMA user_version = {}", SCHEMA_VERSION + 1),
            ),
            |r| matches!(r, BadUpload::NewerSchema { found, .. } if *found == SCHEMA_VERSION + 1),
        ),
        (
            "extra table",
            edited(&good, "CREATE TABLE extra (x)"),
            |r| matches!(r, BadUpload::SchemaMismatch { .. }),
        ),
        ("damaged page", corrupt, |r| {
            matches!(r, BadUpload::FailedIntegrityCheck { .. })
        }),
        (
            "unreadable value",
            edited(
                &good,
                "PRAGMA ignore_check_constraints = ON; UPDATE configuration SET instance = 'no-such-port'",
            ),
            |r| matches!(r, BadUpload::BadContent { .. }),
        ),
    ];
    let before = dir_listing(temp.store.data_dir());
    for (label, bytes, expected) in cases {
        match temp.store.upload(&name("uploaded"), &bytes) {
            Err(StoreError::BadUpload(reason)) => {
                assert!(expected(&reason), "{label}: refused for {reason}")
            }
            Err(other) => panic!("{label}: expected a refused upload, got {other}"),
            Ok(_) => panic!("{label}: the upload was accepted"),
        }
        assert_eq!(
            dir_listing(temp.store.data_dir()),
            before,
            "{label}: something was written"
        );
    }
    // The good file is accepted; its name is then taken.
    temp.store.upload(&name("uploaded"), &good).unwrap();
    assert_eq!(
        temp.store
            .net(&name("uploaded"))
            .unwrap()
            .devices()
            .unwrap(),
        net.devices().unwrap()
    );
    assert_eq!(
        kind(&temp.store.upload(&name("uploaded"), &good).unwrap_err()),
        "conflict"
    );
}

#[test]
fn a_download_is_a_consistent_snapshot_while_writes_go_on() {
    let (temp, net) = store_with_net();
    let store = Arc::new(temp.store);
    let writer = {
        let net = net.clone();
        thread::spawn(move || {
            for i in 0..200 {
                net.create_device(tag(1000 + i)).unwrap();
            }
        })
    };
    let mut sizes = Vec::new();
    for round in 0..5 {
        let bytes = store.download(&name("net")).unwrap();
        let copy = name(&format!("snapshot{round}"));
        store.upload(&copy, &bytes).unwrap();
        sizes.push(store.net(&copy).unwrap().devices().unwrap().len());
    }
    writer.join().unwrap();
    assert!(
        sizes.windows(2).all(|w| w[0] <= w[1]),
        "snapshots go forward: {sizes:?}"
    );
    let path = temp.dir.path().join("out.sqlite");
    store.download_to_file(&name("net"), &path).unwrap();
    let conn = rusqlite::Connection::open(&path).unwrap();
    let devices: i64 = conn
        .query_row("SELECT count(*) FROM devices", [], |r| r.get(0))
        .unwrap();
    assert_eq!(devices, 200);
    let check: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(check, "ok");
}

#[test]
fn a_file_another_program_holds_gives_locked_not_a_hang() {
    let temp = temp_store_with(StoreOptions {
        busy_timeout: std::time::Duration::from_millis(200),
        ..StoreOptions::default()
    });
    temp.store
        .create(&name("net"), Instance::ServerDefault)
        .unwrap();
    let net = temp.store.net(&name("net")).unwrap();
    let other = rusqlite::Connection::open(temp.store.data_dir().join("net.sqlite")).unwrap();
    other.execute_batch("BEGIN EXCLUSIVE").unwrap();
    let error = net.create_device(tag(1)).unwrap_err();
    assert_eq!(kind(&error), "locked", "{error}");
    assert!(error.to_string().contains("configuration net"), "{error}");
    // Readers are not blocked by a writer in WAL mode.
    assert!(net.devices().unwrap().is_empty());
    other.execute_batch("COMMIT").unwrap();
    net.create_device(tag(1)).unwrap();
    assert_eq!(net.devices().unwrap().len(), 1);
}

#[test]
fn eight_threads_patching_devices_lose_no_change() {
    let (_temp, net) = store_with_net();
    const THREADS: u32 = 8;
    const DEVICES_PER_THREAD: u32 = 5;
    const ROUNDS: u32 = 6;
    net.create_devices((0..THREADS * DEVICES_PER_THREAD).map(tag).collect())
        .unwrap();
    let workers: Vec<_> = (0..THREADS)
        .map(|thread_index| {
            let net = net.clone();
            thread::spawn(move || {
                for round in 0..ROUNDS {
                    for offset in 0..DEVICES_PER_THREAD {
                        let serial = thread_index * DEVICES_PER_THREAD + offset;
                        let body: MultipleDevicePatchBody = serde_json::from_value(json!({
                            "serial_number": SerialNumber::from_u32(serial).to_string(),
                            "interfaces": [{"identifier": 0, "role_id": 4}],
                            "disabled": round % 2 == 1,
                            "name": format!("t{thread_index} r{round}"),
                        }))
                        .unwrap();
                        let outcomes = net.patch_devices(vec![body]).unwrap();
                        assert!(outcomes[0].1.is_ok());
                    }
                    // Inserts race too: every one must land.
                    net.create_device(tag(10_000 + thread_index * ROUNDS + round))
                        .unwrap();
                }
            })
        })
        .collect();
    for worker in workers {
        worker.join().unwrap();
    }
    let devices = net.devices().unwrap();
    assert_eq!(
        devices.len() as u32,
        THREADS * DEVICES_PER_THREAD + THREADS * ROUNDS
    );
    for device in devices.iter().filter(|d| d.serial_number.as_u32() < 10_000) {
        let thread_index = device.serial_number.as_u32() / DEVICES_PER_THREAD;
        let expected = format!("t{thread_index} r{}", ROUNDS - 1);
        assert_eq!(device.name.as_deref(), Some(expected.as_str()));
        assert!(device.disabled);
    }
}

#[test]
fn the_schema_refuses_bad_rows_written_behind_the_models_back() {
    let (temp, net) = store_with_net();
    net.create_device(tag(1)).unwrap();
    drop(net);
    let conn = rusqlite::Connection::open(temp.store.data_dir().join("net.sqlite")).unwrap();
    conn.execute_batch("PRAGMA foreign_keys = ON").unwrap();
    let refused = [
        "INSERT INTO roles (id, name, network_period, window_duration, device_count, accelerometer_period, gyroscope_period, quaternion_period, magnetometer_period, pressure_period, temperature_period, led_brightness) VALUES (1, 'x', 0, 0, 0, 0, 0, 0, 0, 0, 0, 'Bright')",
        "INSERT INTO roles (id, name, network_period, window_duration, device_count, accelerometer_period, gyroscope_period, quaternion_period, magnetometer_period, pressure_period, temperature_period, led_brightness) VALUES (9, 'ANCHOR', 0, 0, 0, 0, 0, 0, 0, 0, 0, 'Bright')",
        "INSERT INTO devices (serial_number, disabled) VALUES (1, 0)",
        "INSERT INTO devices (serial_number, disabled) VALUES (4294967296, 0)",
        "INSERT INTO interfaces (device_id, identifier, role_id) VALUES (1, 1, 2)",
        "INSERT INTO interfaces (device_id, identifier, role_id) VALUES (1, 1, 77)",
        "INSERT INTO device_pairs VALUES (1, 0, 1, 0, 'twr')",
        "INSERT INTO device_pairs VALUES (1, 0, 2, 0, 'twr')",
        "UPDATE settings SET value = '\"fast\"' WHERE setting_key = 'network_mode'",
        "UPDATE rf_settings SET channel = 6",
        "INSERT INTO position_limits (name, min_x, min_y, min_z, max_x, max_y, max_z) VALUES ('b', 5, 0, 0, 1, 1, 1)",
        "INSERT INTO data_streams (name, destination_ip, destination_port, interface, interface_port, time_to_live) VALUES ('Config', '1.2.3.4', 1, '0.0.0.0', 0, 1)",
        "DELETE FROM roles WHERE id = 4",
    ];
    for statement in refused {
        assert!(
            conn.execute_batch(statement).is_err(),
            "the schema accepted: {statement}"
        );
    }
}
