//! Helpers shared by the store's integration tests.

#![allow(dead_code, reason = "each test binary uses its own subset")]

use std::path::PathBuf;

use netcfg_model::{ConfigName, Instance, SerialNumber, body::DeviceBody};
use netcfg_store::{Net, Store, StoreError, StoreOptions};

/// A store in a fresh temporary directory (removed when dropped).
pub(crate) struct TempStore {
    pub(crate) store: Store,
    pub(crate) dir: tempfile::TempDir,
}

/// A store in a fresh temporary directory whose notifications never grow
/// too old: the scenarios raise them at times of 1970, which the default
/// retention (90 days) would prune in the background while a test runs
/// (tests/it/retention.rs tests the retention itself).
pub(crate) fn temp_store() -> TempStore {
    temp_store_with(StoreOptions {
        retention: netcfg_store::Retention {
            notifications_keep_days: u32::MAX,
            ..netcfg_store::Retention::default()
        },
        ..StoreOptions::default()
    })
}

pub(crate) fn temp_store_with(options: StoreOptions) -> TempStore {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let store = Store::open_with(dir.path().join("data"), options).expect("the store opens");
    TempStore { store, dir }
}

pub(crate) fn name(text: &str) -> ConfigName {
    text.parse().expect("a valid configuration name")
}

/// A store with one new configuration `net`.
pub(crate) fn store_with_net() -> (TempStore, Net) {
    let temp = temp_store();
    temp.store
        .create(&name("net"), Instance::ServerDefault)
        .expect("the configuration is created");
    let net = temp.store.net(&name("net")).expect("it opens");
    (temp, net)
}

/// A tag device (role 4) with serial number `serial`.
pub(crate) fn tag(serial: u32) -> DeviceBody {
    serde_json::from_value(serde_json::json!({
        "serial_number": SerialNumber::from_u32(serial).to_string(),
        "interfaces": [{"identifier": 0, "role_id": 4}],
        "disabled": false
    }))
    .expect("a valid device body")
}

/// The kind of an error, as the scenario fixtures write it.
pub(crate) fn kind(error: &StoreError) -> &'static str {
    match error {
        StoreError::NotFound { .. } => "not_found",
        StoreError::Conflict { .. } => "conflict",
        StoreError::Invalid(_) => "invalid",
        StoreError::Locked { .. } => "locked",
        StoreError::NewerSchema { .. } => "newer_schema",
        StoreError::BadUpload(_) => "bad_upload",
        StoreError::Io { .. } => "io",
        StoreError::Changed { .. } => "changed",
    }
}

/// `fixtures/store/<relative>` in the workspace.
pub(crate) fn fixture(relative: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/store")
        .join(relative)
}

/// The names of the files in a directory, sorted (to show nothing changed).
pub(crate) fn dir_listing(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = walk(dir)
        .into_iter()
        .map(|path| path.strip_prefix(dir).unwrap().display().to_string())
        .collect();
    names.sort();
    names
}

fn walk(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            found.push(path.clone());
            found.extend(walk(&path));
        } else {
            found.push(path);
        }
    }
    found
}

/// `bytes` (a saved-state file) after running `edit` (SQL) on a copy, in
/// rollback-journal mode so the result is one file.
pub(crate) fn edited(bytes: &[u8], edit: &str) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.sqlite");
    std::fs::write(&path, bytes).unwrap();
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(edit).unwrap();
    conn.execute_batch("PRAGMA journal_mode = DELETE").unwrap();
    drop(conn);
    std::fs::read(&path).unwrap()
}
