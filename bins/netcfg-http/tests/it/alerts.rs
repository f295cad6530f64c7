//! Alert rules through the real server (decisions §16): a rule that holds
//! for its time raises a notification naming it, and one that says
//! `cleared` when it stops holding; a change to the rule while the network
//! runs is taken at the next look.

use std::{thread, time::Duration};

use serde_json::{Value, json};

use crate::support::{Request, Server, act, notifications, wait_until};

fn tag(index: u32) -> Value {
    json!({"serial_number": format!("01:05:{index:04X}"), "disabled": false,
           "interfaces": [{"identifier": 0, "role_id": 4}]})
}

/// The messages of `net`'s notifications that name alert rule `rule`.
fn alerts(server: &Server, net: &str, rule: &str) -> Vec<String> {
    notifications(server, net, &format!("alert rule {rule}"))
        .iter()
        .filter_map(|notification| notification["message"].as_str())
        .map(str::to_owned)
        .collect()
}

/// Waits (a bounded number of looks, not a time limit on the server) for
/// `rule`'s notifications to number `count`.
fn wait_for_alerts(server: &Server, net: &str, rule: &str, count: usize) -> Vec<String> {
    wait_until(|| alerts(server, net, rule), |seen| seen.len() >= count)
}

/// Adds the alert rule `rule` to `site` and starts it.
fn start_with_rule(server: &Server, rule: &Value) {
    server
        .send(&Request::json("POST", "/nets/site/alert_rules", rule))
        .expect(201);
    act(server, "site", "start");
}

#[test]
fn a_rule_fires_after_its_time_and_clears_when_changed() {
    let server = Server::start();
    server.create_on_simulator("site", &[tag(1), tag(2)]);
    let rule = json!({"name": "busy", "condition": "positions_below", "threshold": 1_000_000,
                      "for_s": 2, "level": 2});
    start_with_rule(&server, &rule);

    let fired = wait_for_alerts(&server, "site", "busy", 1);
    assert_eq!(fired.len(), 1, "{fired:?}");
    assert!(
        fired[0].contains("positions a second, below 1000000") && fired[0].contains("for 2 s"),
        "{fired:?}"
    );
    let stored = server
        .send(&Request::get("/nets/site/notifications"))
        .expect(200);
    let notification = stored["notifications"]
        .as_array()
        .unwrap()
        .iter()
        .find(|notification| notification["message"] == fired[0].as_str())
        .cloned()
        .unwrap();
    assert_eq!(notification["level"], 2);
    let firing = server.send(&Request::get("/nets/site/alerts")).expect(200)["alerts"].clone();
    assert_eq!(firing.as_array().map(Vec::len), Some(1), "{firing}");
    assert_eq!(firing[0]["rule"], "busy");
    assert_eq!(firing[0]["serial_number"], Value::Null);
    assert!(
        firing[0]["since_ms"]
            .as_u64()
            .is_some_and(|since| since > 0)
    );

    // No position count is below 0: the rule clears at the next look.
    server
        .send(&Request::json(
            "PATCH",
            "/nets/site/alert_rules/busy",
            &json!({"condition": "positions_below", "threshold": 0}),
        ))
        .expect(200);
    let both = wait_for_alerts(&server, "site", "busy", 2);
    assert_eq!(both.len(), 2, "{both:?}");
    assert!(both[1].contains("cleared"), "{both:?}");
    let firing = server.send(&Request::get("/nets/site/alerts")).expect(200)["alerts"].clone();
    assert_eq!(firing, json!([]));
    // It fired once and cleared once: nothing more while it holds still.
    thread::sleep(Duration::from_millis(1_500));
    assert_eq!(alerts(&server, "site", "busy").len(), 2);
}

fn anchor(index: u32, role_id: u32, x: i64, y: i64) -> Value {
    json!({"serial_number": format!("01:04:{index:04X}"), "disabled": false,
           "interfaces": [{"identifier": 0, "role_id": role_id, "x": x, "y": y, "z": 2500}]})
}

/// The simulator's anchors discard or get late a few beacons in every
/// thousand: a rule on any loss at all fires for an anchor, with its share.
#[test]
fn packet_loss_is_read_from_the_anchors_counters() {
    let server = Server::start();
    server.create_on_simulator(
        "site",
        &[
            anchor(1, 3, 0, 0),
            anchor(2, 2, 20_000, 0),
            anchor(3, 2, 20_000, 20_000),
            anchor(4, 2, 0, 20_000),
            tag(1),
            tag(2),
        ],
    );
    let rule = json!({"name": "lossy", "condition": "packet_loss_above", "threshold": 0,
                      "for_s": 0, "level": 2});
    start_with_rule(&server, &rule);
    let fired = wait_for_alerts(&server, "site", "lossy", 1);
    assert!(!fired.is_empty(), "no anchor's loss was read");
    assert!(
        fired[0].contains("% of its packets, above 0%") && fired[0].contains("01:04:"),
        "{fired:?}"
    );
    let firing = server.send(&Request::get("/nets/site/alerts")).expect(200)["alerts"].clone();
    assert!(
        firing
            .as_array()
            .unwrap()
            .iter()
            .all(|alert| alert["serial_number"]
                .as_str()
                .is_some_and(|serial| serial.starts_with("01:04:"))),
        "only anchors lose packets: {firing}"
    );
}
