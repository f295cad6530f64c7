//! What a new site engineer meets in the first hour (issue 46), through the
//! real server: a change to a running configuration says that it waits for
//! a restart, and restart and reload are actions of 5.1's
//! `POST /nets/{net}`.

use serde_json::{Value, json};

use crate::support::{Request, Server, act, history, notifications, wait_until};

fn anchor(serial: &str, x: i64) -> Value {
    json!({"serial_number": serial, "disabled": false,
           "interfaces": [{"identifier": 0, "role_id": 2, "x": x, "y": 0, "z": 2500}]})
}

fn configuration(server: &Server, net: &str) -> Value {
    server
        .send(&Request::get(&format!("/nets/{net}")))
        .expect(200)["configuration"]
        .clone()
}

/// The serial numbers the running network has reported.
fn heard(server: &Server, net: &str) -> Vec<String> {
    server
        .send(&Request::get(&format!("/cache-manager/{net}")))
        .expect(200)["cached_devices"]
        .as_array()
        .expect("a list")
        .iter()
        .filter_map(|device| device["serial_number"].as_str().map(str::to_owned))
        .collect()
}

fn post_action(server: &Server, net: &str, action: &str) -> Value {
    server
        .send(&Request::json(
            "POST",
            &format!("/nets/{net}"),
            &json!({"action": action}),
        ))
        .expect(200)
}

#[test]
fn a_device_added_while_running_waits_for_a_restart_and_joins_after_it() {
    let server = Server::start();
    server.create_on_simulator(
        "site",
        &[anchor("01:04:0001", 0), anchor("01:04:0002", 8000)],
    );
    assert_eq!(configuration(&server, "site")["restart_needed"], false);
    act(&server, "site", "start");
    assert_eq!(configuration(&server, "site")["restart_needed"], false);

    // A name is taken at once: nothing waits.
    let mut named = anchor("01:04:0001", 0);
    named["name"] = json!("north wall");
    let renamed = server
        .send(&Request::json(
            "PATCH",
            "/nets/site/devices/01:04:0001",
            &named,
        ))
        .expect(200);
    assert_eq!(configuration(&server, "site")["restart_needed"], false);
    assert!(
        !renamed["message"].as_str().unwrap().contains("restart"),
        "{renamed}"
    );

    // A new device waits, and the reply and the configuration say so.
    let added = server
        .send(&Request::json(
            "POST",
            "/nets/site/devices",
            &anchor("01:04:0003", 4000),
        ))
        .expect(201);
    let message = added["message"].as_str().unwrap();
    assert!(message.contains("restarted or reloaded"), "{message}");
    assert_eq!(configuration(&server, "site")["restart_needed"], true);
    let listed = server.send(&Request::get("/nets")).expect(200);
    assert_eq!(listed["configurations"][0]["restart_needed"], true);

    // A restart clears it and the device joins; it is journalled.
    let restarted = post_action(&server, "site", "restart");
    assert_eq!(restarted["status"]["action"], "restart");
    assert_eq!(restarted["status"]["state"], "running");
    assert_eq!(configuration(&server, "site")["restart_needed"], false);
    let joined = wait_until(
        || heard(&server, "site"),
        |serials| serials.iter().any(|serial| serial == "01:04:0003"),
    );
    assert!(
        joined.iter().any(|serial| serial == "01:04:0003"),
        "{joined:?}"
    );
    assert_eq!(history(&server, "site")[0]["summary"], "Restarted");

    // A reload takes a change as well.
    server
        .send(&Request::json(
            "POST",
            "/nets/site/devices",
            &anchor("01:04:0004", 2000),
        ))
        .expect(201);
    assert_eq!(configuration(&server, "site")["restart_needed"], true);
    let reloaded = post_action(&server, "site", "reload");
    assert_eq!(reloaded["status"]["action"], "reload");
    assert_eq!(configuration(&server, "site")["restart_needed"], false);
    let joined = wait_until(
        || heard(&server, "site"),
        |serials| serials.iter().any(|serial| serial == "01:04:0004"),
    );
    assert!(
        joined.iter().any(|serial| serial == "01:04:0004"),
        "{joined:?}"
    );
    assert_eq!(history(&server, "site")[0]["summary"], "Reloaded");

    // Stopped, nothing waits; a reload says there is nothing to reload and
    // a restart starts it.
    act(&server, "site", "stop");
    assert_eq!(configuration(&server, "site")["restart_needed"], false);
    let idle = post_action(&server, "site", "reload");
    assert!(
        idle["message"].as_str().unwrap().contains("not running"),
        "{idle}"
    );
    assert_eq!(idle["status"]["state"], "stopped");
    let started = post_action(&server, "site", "restart");
    assert_eq!(started["status"]["state"], "running");
    assert!(
        started["message"].as_str().unwrap().contains("started"),
        "{started}"
    );
    act(&server, "site", "stop");
}

#[test]
fn version_5_0_has_neither_restart_nor_restart_needed() {
    let server = Server::start();
    server.create_on_simulator("site", &[]);
    let old = |request: Request| server.send(&request.header("Api-Version", "5.0"));
    let refused = old(Request::json(
        "POST",
        "/nets/site",
        &json!({"action": "restart"}),
    ));
    refused.assert_status(400, "restart in 5.0");
    let problem = refused.text();
    assert!(
        problem.contains("one of copy, delete, start, stop"),
        "{problem}"
    );
    let shown = old(Request::get("/nets/site"));
    shown.assert_status(200, "a configuration in 5.0");
    let shown = shown.json();
    assert!(
        shown["configuration"].get("restart_needed").is_none(),
        "{shown}"
    );
    assert!(shown["configuration"].get("state").is_some(), "{shown}");
}

#[test]
fn the_network_starts_before_its_devices_join_and_anchors_report_no_battery() {
    let server = Server::start();
    server.create_on_simulator(
        "site",
        &[anchor("01:04:0001", 0), anchor("01:04:0002", 8000)],
    );
    server
        .send(&Request::json(
            "PATCH",
            "/nets/site/settings",
            &json!({"setting_key": "anchor_health_report_period", "value": 1}),
        ))
        .expect(200);
    let mut events = server.events("/nets/site/events", &[]);
    act(&server, "site", "start");
    let (joined, before) = events.until("device", |data| data["event"] == "joined");
    assert!(
        before
            .iter()
            .any(|event| event.name == "state" && event.data["state"] == "started"),
        "the start comes before the joins it causes: {:?} then {:?}",
        before.iter().map(|event| &event.data).collect::<Vec<_>>(),
        joined.data
    );
    let (health, _) = events.until("device", |data| {
        data["event"] == "health" && !data["status"].is_null()
    });
    let status = &health.data["status"];
    assert!(
        status.get("battery_percent").is_none(),
        "an anchor has no battery: {status}"
    );
    assert!(status["temperature_celsius"].is_number(), "{status}");
    events.close();
    act(&server, "site", "stop");
    // The notifications say the same, oldest first.
    let identifier = |prefix: &str| {
        notifications(&server, "site", prefix)
            .iter()
            .filter_map(|notification| notification["identifier"].as_u64())
            .min()
            .unwrap_or_else(|| panic!("no notification \"{prefix}...\""))
    };
    assert!(
        identifier("network started") < identifier("device 01:04:0001 joined"),
        "\"network started\" is notified before the joins it causes"
    );
}

#[test]
fn a_server_stopped_with_a_running_configuration_warns_of_nothing() {
    let mut server = Server::start();
    server.create_on_simulator(
        "site",
        &[anchor("01:04:0001", 0), anchor("01:04:0002", 8000)],
    );
    act(&server, "site", "start");
    // Notifications flow while it stops (the devices leave).
    wait_until(|| heard(&server, "site"), |serials| serials.len() == 2);
    assert!(server.terminate().success());
    let log = server.log.text();
    assert!(log.contains("netcfg stopped"), "{log}");
    let warnings: Vec<&str> = log.lines().filter(|line| line.contains("WARN")).collect();
    assert!(
        warnings.is_empty(),
        "a clean stop warns of nothing: {warnings:#?}"
    );
}
