//! Writes meet a full and a read-only data directory, through the real
//! server (issue 17): refused with a 500 that names the fault and carries
//! an incident id, `/readyz` 503, reads still served, nothing acknowledged
//! lost, every file whole (`PRAGMA integrity_check`), and writes work again
//! once space is freed or the directory writable again.
//!
//! The data directory is a 4 MiB tmpfs, mounted as root (CI runs as root);
//! without root, the read-only case runs on a directory whose write
//! permission is taken away.

use std::{fs, path::Path};

use serde_json::{Value, json};

use crate::support::{
    Request, Response, Server,
    disk::{fill, is_root, server_on_small_disk},
};

fn tag(number: u32) -> Value {
    json!({"serial_number": format!("01:05:{number:04X}"), "disabled": false,
           "name": format!("tag {number} with a name long enough to take some room"),
           "interfaces": [{"identifier": 0, "role_id": 4}]})
}

fn add(server: &Server, number: u32) -> Response {
    server.send(&Request::json("POST", "/nets/site/devices", &tag(number)))
}

/// A refused write: 500, the code, a message that names the fault and an
/// incident id, and nothing else.
fn assert_refused(response: &Response, code: &str, says: &str) {
    response.assert_status(500, "a refused write");
    let body = response.json();
    assert_eq!(body["code"], code, "{body}");
    let message = body["message"].as_str().unwrap_or("");
    assert!(message.contains(says), "{message}");
    let incident = body["incident"].as_str().expect("an incident id");
    assert!(message.contains(incident), "{message}");
    assert!(!message.contains('/'), "no path in the message: {message}");
}

fn device_count(server: &Server) -> usize {
    server.send(&Request::get("/nets/site/devices")).expect(200)["devices"]
        .as_array()
        .expect("a list")
        .len()
}

/// Every saved-state file of `data_dir` passes `integrity_check`; the
/// devices of `site` are returned.
fn check_files(data_dir: &Path) -> usize {
    let mut devices = None;
    for entry in fs::read_dir(data_dir).expect("the data directory") {
        let path = entry.expect("an entry").path();
        if path
            .extension()
            .is_none_or(|extension| extension != "sqlite")
        {
            continue;
        }
        let connection = rusqlite::Connection::open(&path).expect("an SQLite file");
        let check: String = connection
            .query_row("PRAGMA integrity_check", [], |row| row.get(0))
            .expect("integrity_check");
        assert_eq!(check, "ok", "{}", path.display());
        if path.file_stem().is_some_and(|stem| stem == "site") {
            let count: i64 = connection
                .query_row("SELECT count(*) FROM devices", [], |row| row.get(0))
                .expect("the devices");
            devices = Some(usize::try_from(count).expect("a count"));
        }
    }
    devices.expect("site's file")
}

#[test]
fn a_full_data_directory_refuses_writes_loses_nothing_and_recovers() {
    if !is_root() {
        return read_only_without_root();
    }
    let (mut server, _disk) = server_on_small_disk();
    server.create_on_simulator("site", &[]);
    let mut acknowledged = 0;
    for number in 1..=20 {
        add(&server, number).expect(201);
        acknowledged += 1;
    }

    let filler = server.data_dir.join("filler");
    fill(&filler);
    let mut refused = 0;
    let mut number = 100;
    // The write-ahead log may still hold a little room: write until the
    // disk refuses three in a row.
    while refused < 3 {
        let response = add(&server, number);
        number += 1;
        if response.status == 201 {
            acknowledged += 1;
            refused = 0;
        } else {
            assert_refused(&response, "disk_full", "the data directory is full");
            refused += 1;
        }
        assert!(number < 2_000, "the disk never filled");
    }
    let ready = server.send(&Request::get("/readyz"));
    assert_eq!(ready.status, 503);
    assert_eq!(
        device_count(&server),
        acknowledged,
        "reads are served, and nothing is lost"
    );

    fs::remove_file(&filler).expect("freeing the space");
    add(&server, 9_000).expect(201);
    acknowledged += 1;
    assert_eq!(server.send(&Request::get("/readyz")).status, 200);
    assert_eq!(device_count(&server), acknowledged);

    assert!(server.terminate().success());
    assert_eq!(check_files(&server.data_dir), acknowledged);
}

/// A filesystem with files open for writing cannot be remounted
/// read-only, so the directory turns read-only while no configuration is
/// open: creating one is the write that meets it.
#[test]
fn a_read_only_data_directory_refuses_writes_and_recovers() {
    if !is_root() {
        return read_only_without_root();
    }
    let (mut server, disk) = server_on_small_disk();
    let create = Request::json("POST", "/nets", &json!({"name": "site", "instance": "sim"}));

    disk.remount("ro");
    let refused = server.send(&create);
    let ready = server.send(&Request::get("/readyz")).status;
    let listed = server.send(&Request::get("/nets")).status;
    disk.remount("rw");
    assert_refused(&refused, "data_directory_read_only", "cannot be written");
    assert_eq!(ready, 503);
    assert_eq!(listed, 200, "reads are served");

    server.send(&create).expect(201);
    add(&server, 1).expect(201);
    assert_eq!(device_count(&server), 1);
    assert!(server.terminate().success());
    assert_eq!(check_files(&server.data_dir), 1);
}

/// Without root: the configuration's directory made read-only.
fn read_only_without_root() {
    let server = Server::start();
    server.create_on_simulator("site", &[tag(1)]);
    let set_mode = |mode: u32| {
        let mut permissions = fs::metadata(&server.data_dir)
            .expect("the directory")
            .permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, mode);
        fs::set_permissions(&server.data_dir, permissions).expect("chmod");
    };
    set_mode(0o555);
    let ready = server.send(&Request::get("/readyz")).status;
    set_mode(0o755);
    assert_eq!(ready, 503);
    add(&server, 3).expect(201);
}
