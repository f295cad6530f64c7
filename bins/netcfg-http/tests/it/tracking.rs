//! Tracks through the real server (decisions §18): the simulator measures,
//! the engine solves and tracks; velocities on the live events, the last
//! positions without a stream, tracking changed while the network runs,
//! and the accuracy of tracked positions beside the fixes, against the
//! simulator's truth for tags without coordinates.

use serde_json::{Value, json};

use crate::{
    site::{accuracy_after, room, set_instance},
    support::{Request, Server, act, wait_until},
};

/// The six-anchor room of `site.rs` running on the simulator as `room`.
fn start_room(instance: &str) -> Server {
    let server = Server::start();
    server.create_on_simulator("room", &room());
    set_instance(&server, "room", instance);
    server
}

fn positions(server: &Server, query: &str) -> Vec<Value> {
    server
        .send(&Request::get(&format!("/nets/room/positions{query}")))
        .expect(200)["positions"]
        .as_array()
        .expect("positions")
        .clone()
}

#[test]
fn tracked_tags_carry_their_velocity_and_their_last_positions_are_read_without_a_stream() {
    // The tag without coordinates, 01:05:0001, is made to stand still at
    // (12 m, 9 m); the reference tag stands where it is configured.
    let server = start_room("sim?toa_noise_mm=30&seed=5&still=01:05:0001:12000:9000:1000");
    server
        .send(&Request::get("/nets/room/positions"))
        .expect(409);
    // A tag the configuration holds that the network never locates (it is
    // disabled): its last position is an empty list, not a 404.
    server
        .send(&Request::json(
            "POST",
            "/nets/room/devices",
            &json!({"serial_number": "01:05:0FFE", "disabled": true,
                    "interfaces": [{"identifier": 0, "role_id": 4}]}),
        ))
        .expect(201);
    act(&server, "room", "start");

    let located = wait_until(|| positions(&server, ""), |list| list.len() == 2);
    for position in &located {
        assert!(
            position["vx"].is_i64() && position["vy"].is_i64(),
            "{position}"
        );
        assert!(position["age_ms"].as_u64().unwrap() < 5_000, "{position}");
        assert!(position["network_time"].as_u64().unwrap() > 0, "{position}");
    }
    let still = positions(&server, "?serial_number=01:05:0001");
    assert_eq!(still.len(), 1, "{still:?}");
    let (x, y) = (
        still[0]["x"].as_f64().unwrap(),
        still[0]["y"].as_f64().unwrap(),
    );
    assert!((x - 12_000.0).hypot(y - 9_000.0) < 300.0, "{still:?}");
    let unlocated = positions(&server, "?serial_number=01:05:0FFE");
    assert!(unlocated.is_empty(), "{unlocated:?}");
    server
        .send(&Request::get(
            "/nets/room/positions?serial_number=01:05:0999",
        ))
        .expect(404);
    let bad = server
        .send(&Request::get("/nets/room/positions?serial_number=tag"))
        .expect(400);
    assert!(bad.to_string().contains("serial_number"), "{bad}");

    // Positions on the live events carry vx, vy; with tracking off they
    // do not, at once, without a restart.
    let mut events = server.events("/nets/room/events?types=position", &[]);
    events.until("position", |data| data["positions"][0]["vx"].is_i64());
    events.close();
    let reply = server
        .send(&Request::json(
            "PATCH",
            "/nets/room/roles/4",
            &json!({"tracking": "off"}),
        ))
        .expect(200);
    assert_eq!(reply["role"]["tracking"], "off", "{reply}");
    let configuration = server.send(&Request::get("/nets/room")).expect(200);
    assert_eq!(
        configuration["configuration"]["restart_needed"], false,
        "{configuration}"
    );
    let mut events = server.events("/nets/room/events?types=position", &[]);
    events.until("position", |data| {
        data["positions"]
            .as_array()
            .is_some_and(|list| list.iter().all(|position| position.get("vx").is_none()))
    });
    events.close();

    // A new tag role tracks at default and 3,000 mm/s; the anchor role
    // has neither field.
    let created = server
        .send(&Request::json(
            "POST",
            "/nets/room/roles",
            &json!({"name": "forklifts", "network_period": 97_500}),
        ))
        .expect(201);
    assert_eq!(created["role"]["tracking"], "default", "{created}");
    assert_eq!(created["role"]["max_speed_mm_s"], 3_000, "{created}");
    let anchor = server.send(&Request::get("/nets/room/roles/2")).expect(200);
    assert!(anchor["role"].get("tracking").is_none(), "{anchor}");
    assert!(anchor["role"].get("max_speed_mm_s").is_none(), "{anchor}");

    // Only tag roles track, within the speed limits.
    for (role, body, field) in [
        (2, json!({"tracking": "light"}), "tracking"),
        (4, json!({"max_speed_mm_s": 99}), "max_speed_mm_s"),
        (4, json!({"tracking": "smooth"}), "tracking"),
    ] {
        let refused = server
            .send(&Request::json(
                "PATCH",
                &format!("/nets/room/roles/{role}"),
                &body,
            ))
            .expect(400);
        assert!(refused.to_string().contains(field), "{refused}");
    }
}

#[test]
fn the_accuracy_sets_tracked_positions_beside_the_fixes_and_walkers_against_their_truth() {
    let server = start_room("sim?toa_noise_mm=30&nlos=0.05&nlos_bias_mm=500&seed=8");
    act(&server, "room", "start");
    let references = accuracy_after(&server, "room", 300);
    let reference = &references[0];
    assert_eq!(reference["serial_number"], "01:05:0002", "{references}");
    let tracked = reference["rms_mm"].as_f64().unwrap();
    let fixes = reference["fix_rms_mm"].as_f64().unwrap();
    assert!(tracked < fixes, "{reference}");
    assert!(
        reference["max_error_mm"].as_f64().unwrap() <= reference["fix_max_mm"].as_f64().unwrap(),
        "{reference}"
    );
    let every = server
        .send(&Request::get("/nets/room/accuracy"))
        .expect(200);
    let walker = every["accuracy"]
        .as_array()
        .unwrap()
        .iter()
        .find(|entry| entry["serial_number"] == "01:05:0001")
        .expect("the walking tag is measured against the simulator's truth")
        .clone();
    assert_eq!(walker["reference"], false, "{walker}");
    assert!(walker["fixes"].as_u64().unwrap() > 0, "{walker}");
    // A walker tracked against its true path: within a few centimetres,
    // not the metres a tally against the wrong time would give.
    assert!(walker["rms_mm"].as_f64().unwrap() < 200.0, "{walker}");
    assert!(walker["fix_rms_mm"].as_f64().unwrap() > 0.0, "{walker}");
}
