//! Zones through the real server (decisions §13): a tag standing in a zone
//! enters it after the dwell, over SSE and in the occupancy; changing and
//! deleting the zone moves it out at once; a zone's filter keeps other
//! tags out; every change is journalled.

use std::time::Duration;

use netcfg_model::time::clock::wall_clock_ms;

use serde_json::{Value, json};

use crate::{
    site::{room, set_instance},
    support::{EventClient, Request, Server, act},
};

const DESK: [[i32; 2]; 4] = [[6000, 5000], [8000, 5000], [8000, 7000], [6000, 7000]];
const STANDING: &str = "01:05:0002";

/// Matches the standing tag's `event` (enter or exit).
fn is_standing(event: &'static str) -> impl Fn(&Value) -> bool {
    move |data| data["serial_number"] == STANDING && data["event"] == event
}

fn occupancy(server: &Server, zone: &str) -> Value {
    server
        .send(&Request::get(&format!("/nets/room/zones/{zone}/occupancy")))
        .expect(200)["occupancy"]
        .clone()
}

fn patch_desk(server: &Server, body: &Value) {
    server
        .send(&Request::json("PATCH", "/nets/room/zones/desk", body))
        .expect(200);
}

/// Makes the zone "desk" (dwell 1 s, a blue LED on entering) and
/// "walkers" (the same outline, for the walking tag only); neither has an
/// occupancy before the configuration runs.
fn make_the_zones(server: &Server) {
    let created = server
        .send(&Request::json(
            "POST",
            "/nets/room/zones",
            &json!({"name": "desk", "polygon": DESK, "dwell_ms": 1000,
                    "on_enter": {"action": "set_led", "color": "blue", "timeout": 5}}),
        ))
        .expect(201)["zone"]
        .clone();
    assert_eq!(created["zone_id"], 1);
    server
        .send(&Request::json(
            "POST",
            "/nets/room/zones",
            &json!({"name": "walkers", "polygon": DESK, "tags": ["01:05:0001"]}),
        ))
        .expect(201);
    server
        .send(&Request::get("/nets/room/zones/desk/occupancy"))
        .expect(409);
}

/// Whether the standing tag is out of `zone`'s occupancy.
fn standing_is_out_of(server: &Server, zone: &str) -> bool {
    occupancy(server, zone)
        .as_array()
        .unwrap()
        .iter()
        .all(|occupant| occupant["serial_number"] != STANDING)
}

/// Starts the configuration; the standing tag enters the desk (and only
/// the desk) after its dwell, where it stands. Returns when it entered.
fn start_and_see_the_standing_tag_enter(server: &Server, events: &mut EventClient) -> u64 {
    let before_start = wall_clock_ms();
    act(server, "room", "start");
    let (entered, skipped) = events.until("zone", is_standing("enter"));
    assert_eq!(entered.data["zone"], "desk", "{:?}", entered.data);
    assert!(
        skipped
            .iter()
            .all(|event| event.data["serial_number"] != STANDING),
        "the walkers' zone is not the standing tag's: {skipped:?}"
    );
    let entered_ms = entered.data["time_ms"].as_u64().unwrap();
    assert!(
        entered_ms >= before_start + 1_000,
        "the dwell comes first: {entered_ms} vs {before_start}"
    );
    let x = entered.data["x"].as_i64().unwrap();
    assert!((x - 7_000).abs() < 300, "{:?}", entered.data);
    assert!(entered.data["network_time"].as_u64().unwrap() > 0);
    entered_ms
}

/// The standing tag is in the desk's occupancy since it entered, and not
/// in the walkers'.
fn assert_the_occupancies(server: &Server, entered_ms: u64) {
    let inside = occupancy(server, "desk");
    let standing = inside
        .as_array()
        .unwrap()
        .iter()
        .find(|occupant| occupant["serial_number"] == STANDING)
        .unwrap_or_else(|| panic!("{inside}"));
    assert_eq!(standing["since_ms"], entered_ms);
    assert!(standing_is_out_of(server, "walkers"));
}

/// Moved away: it leaves at once, decided by its last position.
fn move_the_desk_away(server: &Server, events: &mut EventClient) {
    patch_desk(
        server,
        &json!({"polygon": [[0, 0], [1000, 0], [1000, 1000], [0, 1000]]}),
    );
    let (left, _) = events.until("zone", is_standing("exit"));
    assert_eq!(
        (left.data["zone"].clone(), left.data["network_time"].clone()),
        (json!("desk"), json!(0))
    );
    assert!(standing_is_out_of(server, "desk"));
}

/// Back, with no dwell: in again at once; deleted: out, and nothing more.
fn bring_the_desk_back_then_delete_it(server: &Server, events: &mut EventClient) {
    patch_desk(server, &json!({"polygon": DESK, "dwell_ms": 0}));
    let (again, _) = events.until("zone", is_standing("enter"));
    assert_eq!(again.data["zone"], "desk");
    let deleted = server.send(&Request::new("DELETE", "/nets/room/zones/desk"));
    assert_eq!(deleted.status, 204);
    let (gone, _) = events.until("zone", is_standing("exit"));
    assert_eq!(gone.data["zone"], "desk");
    assert!(
        events
            .next_within(Duration::from_millis(500))
            .is_none_or(|event| { event.data["serial_number"] != STANDING }),
        "a deleted zone tells nothing more of the standing tag"
    );
}

/// No action failed, and the zones' changes are in the history.
fn assert_no_failure_and_the_history(server: &Server) {
    let notifications = server
        .send(&Request::get("/nets/room/notifications"))
        .expect(200)["notifications"]
        .to_string();
    assert!(!notifications.contains("zone's"), "{notifications}");
    let history =
        server.send(&Request::get("/nets/room/history")).expect(200)["history"].to_string();
    for summary in ["zone desk added", "zone desk changed", "zone desk removed"] {
        assert!(history.contains(summary), "{summary}: {history}");
    }
}

#[test]
fn a_standing_tag_enters_after_its_dwell_and_leaves_when_the_zone_moves_away() {
    let server = Server::start();
    server.create_on_simulator("room", &room());
    set_instance(&server, "room", "sim?toa_noise_mm=20&seed=4");
    make_the_zones(&server);

    let mut events = server.events("/nets/room/events?types=zone", &[]);
    let entered_ms = start_and_see_the_standing_tag_enter(&server, &mut events);
    assert_the_occupancies(&server, entered_ms);
    move_the_desk_away(&server, &mut events);
    bring_the_desk_back_then_delete_it(&server, &mut events);
    events.close();
    assert_no_failure_and_the_history(&server);
}
