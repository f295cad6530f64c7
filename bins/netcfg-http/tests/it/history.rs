//! The change history through the real server (decisions.md §10): each
//! request that changes a configuration is journalled with its origin and
//! address; restore puts the content back as one new change (409 while the
//! configuration runs); a downloaded file carries its history and an
//! uploaded one keeps it.

use serde_json::{Value, json};

use crate::support::{Request, Server, act, copy, history};

fn anchor(serial: &str, x: i64) -> Value {
    json!({"serial_number": serial, "disabled": false,
           "interfaces": [{"identifier": 0, "role_id": 2, "x": x, "y": 0, "z": 2500}]})
}

/// `POST /nets/{net}/history/{id}/restore`.
fn restore(server: &Server, net: &str, id: u64) -> crate::support::Response {
    server.send(&Request::new(
        "POST",
        &format!("/nets/{net}/history/{id}/restore"),
    ))
}

/// Adds a device to `net`; it must be created.
fn add(server: &Server, net: &str, device: &Value) {
    server
        .send(&Request::json(
            "POST",
            &format!("/nets/{net}/devices"),
            device,
        ))
        .expect(201);
}

fn devices(server: &Server, net: &str) -> Value {
    server
        .send(&Request::get(&format!("/nets/{net}/devices")))
        .expect(200)["devices"]
        .clone()
}

#[test]
fn changes_are_journalled_and_restored_through_the_api() {
    let server = Server::start();
    server.create_on_simulator("site", &[anchor("01:04:0001", 0)]);
    let entries = history(&server, "site");
    assert_eq!(entries.len(), 2, "{entries:?}");
    assert_eq!(entries[1]["summary"], "Create a configuration");
    assert_eq!(entries[0]["origin"], "anonymous");
    assert_eq!(entries[0]["address"], "127.0.0.1");
    assert_eq!(entries[0]["method"], "POST");
    assert_eq!(entries[0]["path"], "/nets/site/devices");
    let point = entries[0]["id"].as_u64().unwrap();
    let before = devices(&server, "site");

    server
        .send(&Request::json(
            "PATCH",
            "/nets/site/devices/01:04:0001",
            &anchor("01:04:0001", 9000),
        ))
        .expect(200);
    add(&server, "site", &anchor("01:04:0002", 5000));
    server
        .send(&Request::json(
            "PATCH",
            "/nets/site/settings",
            &json!({"setting_key": "max_tag_period", "value": 97500}),
        ))
        .expect(200);
    assert_ne!(devices(&server, "site"), before);

    let restored = restore(&server, "site", point).expect(200);
    assert_eq!(restored["configuration"]["name"], "site");
    assert_eq!(devices(&server, "site"), before);
    let newest = &history(&server, "site")[0];
    assert_eq!(
        newest["path"],
        format!("/nets/site/history/{point}/restore")
    );
    assert!(
        newest["summary"]
            .as_str()
            .unwrap()
            .contains("device 01:04:0002 removed"),
        "{newest}"
    );

    // Running, it cannot be restored.
    act(&server, "site", "start");
    let refused = restore(&server, "site", point);
    assert_eq!(refused.status, 409);
    assert_eq!(refused.json()["code"], "configuration_running");
    act(&server, "site", "stop");

    // Paging: newest first, `before` continues.
    let page = server
        .send(&Request::get("/nets/site/history?limit=2"))
        .expect(200);
    let page = page["history"].as_array().unwrap();
    assert_eq!(page.len(), 2);
    let next = server
        .send(&Request::get(&format!(
            "/nets/site/history?limit=2&before={}",
            page[1]["id"]
        )))
        .expect(200);
    assert!(next["history"][0]["id"].as_u64() < page[1]["id"].as_u64());
}

#[test]
fn a_downloaded_file_carries_its_history_and_an_upload_keeps_it() {
    let server = Server::start();
    server.create_on_simulator("site", &[anchor("01:04:0001", 0)]);
    let point = history(&server, "site")[0]["id"].as_u64().unwrap();
    let before = devices(&server, "site");
    add(&server, "site", &anchor("01:04:0002", 5000));
    let journal = history(&server, "site");
    let file = server.send(&Request::get("/nets/site/download"));
    assert_eq!(file.status, 200);
    server
        .send(&Request::multipart(
            "/nets/upload",
            &[("name", "moved")],
            &[("net_file", "site.sqlite", &file.body)],
        ))
        .expect(201);
    let moved = history(&server, "moved");
    assert_eq!(
        moved[1..],
        journal[..],
        "the file's history, then the upload"
    );
    assert_eq!(moved[0]["path"], "/nets/upload");
    restore(&server, "moved", point).expect(200);
    assert_eq!(devices(&server, "moved"), before);

    // A copy keeps the history too, and says where it came from.
    copy(&server, "site", "twin");
    let twin = history(&server, "twin");
    assert_eq!(twin[0]["summary"], "Copied from site");
    assert_eq!(twin[1..], journal[..]);
}

#[test]
fn each_entry_names_what_it_changed() {
    let server = Server::start();
    server.create_on_simulator("site", &[anchor("01:04:0001", 0)]);
    let send = |method: &str, path: &str, body: Value| {
        let request = if body.is_null() {
            Request::new(method, path)
        } else {
            Request::json(method, path, &body)
        };
        assert!(server.send(&request).status < 300, "{method} {path}");
    };
    let outline = json!([[0, 0], [4000, 0], [4000, 3000], [0, 3000]]);
    send(
        "POST",
        "/nets/site/zones",
        json!({"name": "dock", "polygon": outline}),
    );
    send("PATCH", "/nets/site/zones/dock", json!({"dwell_ms": 2000}));
    send(
        "POST",
        "/nets/site/outputs",
        json!({"name": "broker", "url": "mqtt://127.0.0.1:1", "events": ["zone"]}),
    );
    send("DELETE", "/nets/site/outputs/broker", Value::Null);
    send("DELETE", "/nets/site/devices/01:04:0001", Value::Null);
    let summaries: Vec<String> = history(&server, "site")
        .iter()
        .map(|entry| entry["summary"].as_str().unwrap().to_owned())
        .collect();
    let named = |what: &str| summaries.iter().any(|summary| summary.contains(what));
    for what in [
        "device 01:04:0001 added",
        "zone dock added",
        "zone dock changed",
        "output broker added",
        "output broker removed",
        "device 01:04:0001 removed",
    ] {
        assert!(named(what), "no entry says \"{what}\": {summaries:#?}");
    }
}

/// With `history_keep = 10`, the server prunes the history in the
/// background (decisions §20): an entry of its own says so, and a restore
/// to a change pruned is 409 `history_pruned`. Waited for up to a minute
/// (it takes seconds), so a server that never prunes fails the test.
#[test]
fn the_history_is_pruned_past_history_keep_and_a_restore_stops_there() {
    let server = Server::start_with_config("history_keep = 10\n");
    server.create_on_simulator("site", &[anchor("01:04:0001", 0)]);
    for x in 1..=12 {
        server
            .send(&Request::json(
                "PATCH",
                "/nets/site/devices/01:04:0001",
                &anchor("01:04:0001", x * 100),
            ))
            .expect(200);
    }
    // A pruning may come between the changes too: wait for the one after
    // the last change.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let entries = loop {
        let entries = history(&server, "site");
        if entries[0]["origin"] == "local" && entries.len() <= 10 {
            break entries;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "not pruned after a minute: {entries:#?}"
        );
        std::thread::sleep(std::time::Duration::from_millis(200));
    };
    let oldest = entries.last().unwrap()["id"].as_u64().unwrap();
    let summary = entries[0]["summary"].as_str().unwrap();
    assert!(
        summary.starts_with("History pruned: the oldest ")
            && summary.contains(&format!(" to {}) went, more than history_keep (10); a restore reaches back to change {oldest}", oldest - 1)),
        "{summary}"
    );
    let refused = restore(&server, "site", oldest - 1);
    assert_eq!(refused.status, 409);
    assert_eq!(refused.json()["code"], "history_pruned");
    restore(&server, "site", oldest).expect(200);
}
