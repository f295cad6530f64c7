//! Zones in a running engine (decisions §13): a tag standing in a zone
//! enters it, on the live feed and on the User stream as TagZoneInfo that
//! the vendor's cdp-py reads; new zones decide again at once from each
//! tag's last position, and the occupancy follows; the zone's action
//! reaches the tag, and a tag that goes silent leaves.

use std::time::Duration;

use netcfg_engine::{
    Engine, EngineOptions, LiveEvent, NetcfgEngine, ZoneEvent,
    cdp::{self, Item, Packet},
    sim::SimFault,
};
use netcfg_model::{ConfigName, SerialNumber, Zone, body::ZonePostBody, geofence::CrossingKind};
use serde_json::{Value, json};
use tokio::net::UdpSocket;

use crate::{cdp_py::*, support::*};

fn zone(id: u16, body: Value) -> Zone {
    serde_json::from_value::<ZonePostBody>(body)
        .expect("a valid zone")
        .into_zone(id)
}

/// The desk around (5 m, 5 m), where tag 01:05:0002 stands.
fn desk() -> Zone {
    zone(
        1,
        json!({"name": "desk", "polygon": [[4000, 4000], [6000, 4000], [6000, 6000], [4000, 6000]],
               "on_enter": {"action": "set_led", "color": "blue"}}),
    )
}

async fn next_zone_event(
    feed: &mut tokio::sync::broadcast::Receiver<LiveEvent>,
    what: &str,
) -> ZoneEvent {
    first(feed, what, |event| match event {
        LiveEvent::Zones(events) => events.first().cloned(),
        _ => None,
    })
    .await
}

type Feed = tokio::sync::broadcast::Receiver<LiveEvent>;

/// A second zone far from every tag, with heights.
fn far() -> Zone {
    zone(
        7,
        json!({"name": "far", "polygon": [[9000, 9000], [9900, 9000], [9900, 9900]],
               "z_min": 0, "z_max": 2000}),
    )
}

/// An engine that announces (and so repeats the zones) every 250 ms.
fn announcing_engine() -> NetcfgEngine {
    NetcfgEngine::new(
        EngineOptions {
            announce_period: Duration::from_millis(250),
            ..EngineOptions::default()
        },
        tokio::runtime::Handle::current(),
    )
}

/// The standing tag enters the desk where it stands, and is its only
/// occupant; the far zone stays empty.
async fn assert_the_standing_tag_entered(
    engine: &NetcfgEngine,
    name: &ConfigName,
    feed: &mut Feed,
    standing: SerialNumber,
) {
    let entered = next_zone_event(feed, "the enter").await;
    assert_eq!(
        (
            entered.zone.as_str(),
            entered.zone_id,
            entered.serial_number,
            entered.kind
        ),
        ("desk", 1, standing, CrossingKind::Enter),
        "{entered:?}"
    );
    let [x, y, _] = entered.position;
    assert!(
        (x - 5_000).abs() < 500 && (y - 5_000).abs() < 500,
        "{entered:?}"
    );
    assert!(entered.network_time > 0, "{entered:?}");
    let occupants = engine.zone_occupancy(name, 1).unwrap();
    assert_eq!(occupants.len(), 1, "{occupants:?}");
    assert_eq!(occupants[0].serial_number, standing);
    assert!(engine.zone_occupancy(name, 7).unwrap().is_empty());
}

/// Moving the desk away makes the tag leave at once.
async fn move_the_desk_away(
    engine: &NetcfgEngine,
    name: &ConfigName,
    feed: &mut Feed,
    standing: SerialNumber,
) {
    let moved = zone(
        1,
        json!({"name": "desk", "polygon": [[0, 0], [1000, 0], [1000, 1000], [0, 1000]]}),
    );
    engine.set_zones(name, vec![moved, far()]);
    let left = next_zone_event(feed, "the exit").await;
    assert_eq!(
        (
            left.zone_id,
            left.serial_number,
            left.kind,
            left.network_time
        ),
        (1, standing, CrossingKind::Exit, 0),
        "{left:?}"
    );
    assert!(engine.zone_occupancy(name, 1).unwrap().is_empty());
}

/// What comes on `user` until a TagZoneInfo that says a tag is in no zone
/// (an earlier one may still wait in the socket).
async fn until_a_tag_in_no_zone(user: &UdpSocket) -> Vec<Received> {
    let sockets = [("User", user), ("User", user), ("User", user)];
    collect(&sockets, |received| {
        received.iter().any(|(_, bytes)| {
            Packet::decode(bytes).is_ok_and(|packet| {
                packet
                    .items
                    .iter()
                    .any(|item| matches!(item, Item::TagZoneInfo(info) if info.zones.is_empty()))
            })
        })
    })
    .await
}

/// Back in the desk: its on_enter action reaches the tag. Then silent:
/// the tag leaves.
async fn back_in_the_desk_then_silent(
    engine: &NetcfgEngine,
    name: &ConfigName,
    feed: &mut Feed,
    standing: SerialNumber,
) {
    let simulator = engine.simulator(name).expect("the simulator");
    let commands = simulator.stats().commands();
    engine.set_zones(name, vec![desk()]);
    let back = next_zone_event(feed, "the enter again").await;
    assert_eq!(
        (back.serial_number, back.kind),
        (standing, CrossingKind::Enter)
    );
    within("the desk's action", async {
        while simulator.stats().commands() == commands {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
    assert!(simulator.inject(SimFault::Silence(standing)));
    let gone = next_zone_event(feed, "the exit of a silent tag").await;
    assert_eq!(
        (gone.serial_number, gone.kind),
        (standing, CrossingKind::Exit)
    );
    assert!(engine.zone_occupancy(name, 1).unwrap().is_empty());
}

/// cdp-py reads every datagram: both zones' outlines, and the tag's last
/// TagZoneInfo says it is in no zone now.
fn assert_cdp_py_reads_the_zones(received: &[Received]) {
    let decoded = cdp_py(received);
    assert!(
        decoded
            .iter()
            .all(|datagram| datagram.get("rejected").is_none()),
        "cdp-py rejected a datagram: {:?}",
        decoded
            .iter()
            .find(|datagram| datagram.get("rejected").is_some())
    );
    let outlines: Vec<&Value> =
        items(&decoded, "User", cdp::item_type::GEOFENCER_ZONE_INFO).collect();
    let desk_outline = outlines
        .iter()
        .find(|item| item["zone_name"] == "desk")
        .expect("the desk's outline");
    assert_eq!(desk_outline["zone_id"], 1);
    assert_eq!(desk_outline["hysteresis"], 150);
    assert_eq!(desk_outline["vertices"].as_array().unwrap().len(), 4);
    assert_eq!(desk_outline["z_min"], i32::MIN);
    let far_outline = outlines
        .iter()
        .find(|item| item["zone_name"] == "far")
        .expect("the far zone's outline");
    assert_eq!(
        (far_outline["zone_id"].clone(), far_outline["z_max"].clone()),
        (json!(7), json!(2000))
    );
    let whereabouts: Vec<&Value> = items(&decoded, "User", cdp::item_type::TAG_ZONE_INFO)
        .filter(|item| item["serial_number"] == "01:05:0002")
        .collect();
    let last = whereabouts.last().expect("a TagZoneInfo of the tag");
    assert_eq!(last["zone_list"], json!([]), "{whereabouts:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tag_in_a_zone_enters_it_and_cdp_py_reads_where_it_is() {
    let logs = tempfile::tempdir().unwrap();
    let engine = announcing_engine();
    let mut plan = site_plan("zoned", "sim?toa_noise_mm=20&seed=5", logs.path());
    plan.devices[5].interfaces[0].x = Some(5_000);
    plan.devices[5].interfaces[0].y = Some(5_000);
    plan.devices[5].interfaces[0].z = Some(1_000);
    plan.zones = vec![desk(), far()];
    let [_config, _anchor, user] = aim_every_stream(&mut plan).await;
    let name = plan.configuration.clone();
    let mut feed = engine.live();
    within("start", engine.start(plan)).await.unwrap();

    let standing: SerialNumber = "01:05:0002".parse().unwrap();
    assert_the_standing_tag_entered(&engine, &name, &mut feed, standing).await;
    // The zones leave on the User stream: their outlines, repeated with
    // the state, and where the tag is when it crosses.
    let sockets = [("User", &user), ("User", &user), ("User", &user)];
    let mut received = collect(&sockets, |received| {
        count(received, "User", cdp::item_type::GEOFENCER_ZONE_INFO) >= 2
    })
    .await;
    move_the_desk_away(&engine, &name, &mut feed, standing).await;
    received.extend(until_a_tag_in_no_zone(&user).await);
    back_in_the_desk_then_silent(&engine, &name, &mut feed, standing).await;
    within("stop", engine.stop(&name)).await.unwrap();
    assert!(
        engine.zone_occupancy(&name, 1).is_err(),
        "a stopped network has none"
    );
    assert_cdp_py_reads_the_zones(&received);
}
