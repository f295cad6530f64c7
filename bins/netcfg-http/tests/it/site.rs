//! Solved locations through the real server (decisions §12): the simulator
//! measures, the engine solves; the reference tag's accuracy, the anchors'
//! survey, the coverage prediction, and the refusals of each.

use std::{
    thread,
    time::{Duration, Instant},
};

use serde_json::{Value, json};

use crate::support::{Request, Server, act};

/// Six anchors at 2 to 4 m around a 20 m × 15 m room (the first a
/// seeder), a walking tag and a reference tag standing at (7 m, 6 m).
pub(crate) fn room() -> Vec<Value> {
    let anchors = [
        (1, 3, 0, 0, 2_000),
        (2, 2, 20_000, 0, 3_000),
        (3, 2, 20_000, 15_000, 4_000),
        (4, 2, 0, 15_000, 2_500),
        (5, 2, 10_000, 0, 3_500),
        (6, 2, 10_000, 15_000, 2_000),
    ];
    let mut devices: Vec<Value> = anchors
        .iter()
        .map(|(serial, role, x, y, z)| {
            json!({"serial_number": format!("01:04:000{serial}"), "disabled": false,
                   "interfaces": [{"identifier": 0, "role_id": role, "x": x, "y": y, "z": z}]})
        })
        .collect();
    devices.push(json!({"serial_number": "01:05:0001", "disabled": false,
                        "interfaces": [{"identifier": 0, "role_id": 4}]}));
    devices.push(json!({"serial_number": "01:05:0002", "disabled": false,
                        "interfaces": [{"identifier": 0, "role_id": 4, "x": 7_000, "y": 6_000, "z": 1_000}]}));
    devices
}

pub(crate) fn set_instance(server: &Server, net: &str, instance: &str) -> Value {
    server
        .send(&Request::json(
            "PATCH",
            &format!("/nets/{net}"),
            &json!({"name": net, "instance": instance}),
        ))
        .json()
}

/// Waits (a bounded number of looks) for the reference tag's fixes: the
/// reference tags' entries (a simulator's other tags have theirs too).
pub(crate) fn accuracy_after(server: &Server, net: &str, fixes: u64) -> Value {
    let started = Instant::now();
    loop {
        let accuracy: Vec<Value> = server
            .send(&Request::get(&format!("/nets/{net}/accuracy")))
            .expect(200)["accuracy"]
            .as_array()
            .expect("accuracy")
            .iter()
            .filter(|entry| entry["reference"] == true)
            .cloned()
            .collect();
        let accuracy = Value::Array(accuracy);
        let seen = accuracy[0]["fixes"].as_u64().unwrap_or(0);
        if seen >= fixes || started.elapsed() > Duration::from_secs(60) {
            return accuracy;
        }
        thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn a_reference_tag_is_located_from_the_measurements_within_its_estimate() {
    let server = Server::start();
    server.create_on_simulator("room", &room());
    set_instance(&server, "room", "sim?toa_noise_mm=30&seed=3");
    server
        .send(&Request::get("/nets/room/accuracy"))
        .expect(409);
    act(&server, "room", "start");

    let accuracy = accuracy_after(&server, "room", 100);
    let reference = &accuracy[0];
    assert_eq!(reference["serial_number"], "01:05:0002", "{accuracy}");
    let rms = reference["rms_mm"].as_f64().unwrap();
    // The bound here is about 25 mm: a solver that uses the measurements
    // lands near it, one that invents positions does not.
    assert!(rms > 5.0 && rms < 80.0, "{reference}");
    let within = reference["within_estimate"].as_f64().unwrap();
    assert!(within > 0.75, "{reference}");

    // Positions reach the live events with their own error estimate, and
    // the walking tag is located too.
    let mut events = server.events("/nets/room/events?types=position", &[]);
    let (batch, _) = events.until("position", |data| {
        data["positions"]
            .as_array()
            .is_some_and(|positions| positions.iter().any(|p| p["serial_number"] == "01:05:0001"))
    });
    for position in batch.data["positions"].as_array().unwrap() {
        let error = position["error_mm"].as_u64().expect("error_mm");
        assert!(error > 0 && error < 1_000, "{position}");
    }
    events.close();
}

/// The last survey is kept beside the saved-state file (decisions §20): a
/// restart of the server keeps it, a rename takes it along, a deletion
/// removes it.
#[test]
fn the_last_survey_survives_a_restart_and_follows_its_configuration() {
    let server = Server::start();
    server.create_on_simulator("site", &room());
    act(&server, "site", "start");
    let survey = server
        .send(&Request::json("POST", "/nets/site/survey", &json!({})))
        .expect(200)["survey"]
        .clone();
    act(&server, "site", "stop");

    let server = server.restart(|_| {});
    let kept = |server: &Server, net: &str| {
        server
            .send(&Request::get(&format!("/nets/{net}/survey")))
            .expect(200)["survey"]
            .clone()
    };
    assert_eq!(kept(&server, "site"), survey);

    server
        .send(&Request::json(
            "PATCH",
            "/nets/site",
            &json!({"name": "hall", "instance": "sim"}),
        ))
        .expect(200);
    assert_eq!(kept(&server, "hall"), survey);

    server
        .send(&Request::new("DELETE", "/nets/hall"))
        .assert_status(204, "deleting hall");
    server.create_on_simulator("hall", &room());
    server.send(&Request::get("/nets/hall/survey")).expect(404);
}

#[test]
fn a_displaced_anchor_is_found_by_the_survey_and_shown_in_the_accuracy() {
    let server = Server::start();
    server.create_on_simulator("site", &room());
    server
        .send(&Request::json("POST", "/nets/site/survey", &json!({})))
        .expect(409);
    server.send(&Request::get("/nets/site/survey")).expect(404);
    set_instance(
        &server,
        "site",
        "sim?toa_noise_mm=30&survey_error=01:04:0003:1500:0:0",
    );
    act(&server, "site", "start");

    let survey = server
        .send(&Request::json("POST", "/nets/site/survey", &json!({})))
        .expect(200)["survey"]
        .clone();
    let anchors = survey["anchors"].as_array().expect("anchors");
    assert_eq!(anchors.len(), 6, "{survey}");
    for anchor in anchors {
        let displaced = anchor["serial_number"] == "01:04:0003";
        assert_eq!(
            anchor["verdict"] == "bad",
            displaced,
            "only the displaced anchor is bad: {survey}"
        );
        if displaced {
            let suggested = &anchor["suggested"];
            let (x, y) = (
                suggested["x"].as_f64().unwrap(),
                suggested["y"].as_f64().unwrap(),
            );
            assert!((x - 21_500.0).hypot(y - 15_000.0) < 200.0, "{anchor}");
        }
    }
    assert_eq!(
        server.send(&Request::get("/nets/site/survey")).expect(200)["survey"],
        survey
    );

    // The reference tag stands 400 mm east of where it is configured.
    act(&server, "site", "stop");
    set_instance(
        &server,
        "site",
        "sim?toa_noise_mm=30&survey_error=01:05:0002:400:0:0",
    );
    act(&server, "site", "start");
    let accuracy = accuracy_after(&server, "site", 100);
    let mean = accuracy[0]["mean_error_mm"].as_f64().unwrap();
    assert!((mean - 400.0).abs() < 150.0, "{accuracy}");
}

#[test]
fn coverage_is_predicted_from_the_configuration_alone() {
    let server = Server::start();
    server.create_on_simulator("plan", &room());
    let coverage = server
        .send(&Request::get("/nets/plan/coverage?resolution_mm=1000"))
        .expect(200)["coverage"]
        .clone();
    let columns = coverage["columns"].as_u64().unwrap();
    let rows = coverage["rows"].as_u64().unwrap();
    let errors = coverage["error_mm"].as_array().unwrap();
    assert_eq!(errors.len() as u64, columns * rows);
    assert_eq!(
        coverage["anchors_in_range"].as_array().unwrap().len(),
        errors.len()
    );
    // Inside the room every cell is covered, and finer noise is better.
    let x0 = coverage["x0"].as_f64().unwrap();
    let y0 = coverage["y0"].as_f64().unwrap();
    let centre =
        (((7_500.0 - y0) / 1_000.0) as u64 * columns + ((10_000.0 - x0) / 1_000.0) as u64) as usize;
    let at_centre = errors[centre].as_f64().expect("the centre is covered");
    assert!(at_centre > 10.0 && at_centre < 200.0, "{at_centre}");
    let finer = server
        .send(&Request::get(
            "/nets/plan/coverage?resolution_mm=1000&toa_noise_mm=3",
        ))
        .expect(200)["coverage"]["error_mm"][centre]
        .as_f64()
        .unwrap();
    assert!(
        (finer * 10.0 - at_centre).abs() < at_centre * 0.01,
        "{finer} {at_centre}"
    );

    let refused = server
        .send(&Request::get(
            "/nets/plan/coverage?resolution_mm=1&toa_noise_mm=x",
        ))
        .expect(400);
    let fields: Vec<&str> = refused["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|problem| problem["field"].as_str().unwrap())
        .collect();
    assert_eq!(fields, ["toa_noise_mm"], "{refused}");

    // Fewer than three anchors: a grid of nulls, not an error.
    server.create_on_simulator("bare", &room()[..2]);
    let bare = server
        .send(&Request::get("/nets/bare/coverage"))
        .expect(200)["coverage"]
        .clone();
    assert!(
        bare["error_mm"]
            .as_array()
            .unwrap()
            .iter()
            .all(Value::is_null)
    );
}

#[test]
fn bad_simulator_parameters_are_refused_on_the_instance() {
    let server = Server::start();
    server.create_on_simulator("odd", &room());
    for instance in [
        "sim?colour=red",
        "sim?nlos=2",
        "sim?survey_error=01:04:0099:1:2:3",
    ] {
        let refused = set_instance(&server, "odd", instance);
        assert_eq!(refused["code"], "invalid_body", "{instance}: {refused}");
        let problems = refused["problems"].as_array().unwrap();
        assert!(
            problems
                .iter()
                .any(|problem| problem["field"] == "instance"),
            "{instance}: {refused}"
        );
    }
}

#[test]
fn a_tag_too_few_anchors_hear_gets_no_position_and_the_site_says_why() {
    let server = Server::start();
    let mut devices = room();
    // A reference tag in a corner, 1.7 m from the seeder and beyond the
    // 5 m hearing range of every other anchor.
    devices.push(json!({"serial_number": "01:05:0003", "disabled": false,
                        "interfaces": [{"identifier": 0, "role_id": 4, "x": 1_000, "y": 1_000, "z": 1_000}]}));
    server.create_on_simulator("corner", &devices);
    set_instance(&server, "corner", "sim?toa_noise_mm=30&range_mm=5000");
    act(&server, "corner", "start");

    let started = Instant::now();
    let told = loop {
        let notifications = server
            .send(&Request::get("/nets/corner/notifications"))
            .expect(200)["notifications"]
            .clone();
        let found = notifications
            .as_array()
            .unwrap()
            .iter()
            .find(|notification| {
                notification["message"]
                    .as_str()
                    .is_some_and(|message| message.starts_with("tag 01:05:0003 cannot be located"))
            });
        if let Some(found) = found {
            break found.clone();
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "{notifications}"
        );
        thread::sleep(Duration::from_millis(200));
    };
    assert_eq!(
        told["message"],
        "tag 01:05:0003 cannot be located: heard by 1 anchor, needs 3"
    );
    let cached = server
        .send(&Request::get("/cache-manager/corner"))
        .expect(200)["cached_devices"]
        .clone();
    let tag = cached
        .as_array()
        .unwrap()
        .iter()
        .find(|device| device["serial_number"] == "01:05:0003")
        .expect("the tag is cached")
        .clone();
    assert_eq!(tag["unlocated"], "heard by 1 anchor, needs 3", "{tag}");
    assert!(tag["position"].is_null(), "{tag}");
}

#[test]
fn in_multirange_tags_are_located_from_their_ranges() {
    let server = Server::start();
    server.create_on_simulator("ranging", &room());
    server
        .send(&Request::json(
            "PATCH",
            "/nets/ranging/network_mode",
            &json!({"network_mode": "multirange"}),
        ))
        .expect(200);
    set_instance(&server, "ranging", "sim?toa_noise_mm=30&seed=9");
    act(&server, "ranging", "start");
    let accuracy = accuracy_after(&server, "ranging", 100);
    let rms = accuracy[0]["rms_mm"].as_f64().unwrap();
    // Six ranges of 30 mm locate a point to about 20 mm in x and y.
    assert!(rms > 3.0 && rms < 60.0, "{accuracy}");
}
