//! Live events (decisions §8) on the real server over a real socket: each
//! event on its trigger, resuming without gap or duplicate, `types=`,
//! `max_rate=`, 404s, clients that never read, and the end of the streams
//! at shutdown.

use std::{collections::BTreeSet, net::TcpStream, time::Duration};

use serde_json::{Value, json};

use crate::support::{EventClient, Request, Server, SseEvent, act, copy};

/// The fields of a position in either form, before its time
/// (`network_time` in a position, `network_time_offset` in a compact row).
const POSITION_FIELDS: [&str; 6] = ["serial_number", "x", "y", "z", "quality", "error_mm"];

/// A configuration `name` on the simulator with four anchors around a
/// 10 m square (the first the seeder), so its tags are located, and `tags`
/// tags (role 4).
fn configuration_with_tags(server: &Server, name: &str, tags: u32) {
    let corners = [
        (3, 0, 0),
        (2, 10_000, 0),
        (2, 10_000, 10_000),
        (2, 0, 10_000),
    ];
    let anchors = corners.iter().enumerate().map(|(index, (role, x, y))| {
        json!({
            "serial_number": format!("01:04:{:04X}", index + 1),
            "disabled": false,
            "interfaces": [{"identifier": 0, "role_id": role, "x": x, "y": y, "z": 2_500}]
        })
    });
    let devices: Vec<Value> = anchors
        .chain((1..=tags).map(|number| {
            json!({
                "serial_number": format!("01:0D:{number:04X}"),
                "disabled": false,
                "interfaces": [{"identifier": 0, "role_id": 4}]
            })
        }))
        .collect();
    server.create_on_simulator(name, &devices);
}

fn state_is(state: &'static str) -> impl Fn(&Value) -> bool {
    move |data| data["state"] == state
}

#[test]
fn each_event_comes_on_its_trigger() {
    let server = Server::start();
    let mut events = server.events("/events", &[]);

    configuration_with_tags(&server, "site", 2);
    let (created, _) = events.until("state", state_is("created"));
    assert_eq!(created.data, json!({"net": "site", "state": "created"}));
    let (change, _) = events.until("change", |data| data["path"] == "/nets/site/devices");
    assert_eq!(
        change.data,
        json!({"net": "site", "resource": "/nets/{net_name}/devices", "method": "POST", "path": "/nets/site/devices"})
    );

    act(&server, "site", "start");
    let seen = events.until_each(&["state", "notification", "device", "position"]);
    let started = &seen["state"];
    assert_eq!(started.data, json!({"net": "site", "state": "started"}));
    let notification = &seen["notification"];
    let stored = server
        .send(&Request::get("/nets/site/notifications"))
        .expect(200)["notifications"][0]
        .clone();
    assert_eq!(notification.data["net"], "site");
    assert_eq!(notification.data["identifier"], stored["identifier"]);
    assert_eq!(notification.data["message"], stored["message"]);
    assert_eq!(
        notification.id.as_deref(),
        Some(format!("site:{}", stored["identifier"]).as_str()),
        "on /events a notification's id is {{net}}:{{identifier}}"
    );
    let device = &seen["device"];
    assert_eq!(device.data["net"], "site");
    assert_eq!(device.data["event"], "joined");
    let joined = device.data["serial_number"].as_str().unwrap();
    assert!(
        joined.starts_with("01:0D:") || joined.starts_with("01:04:"),
        "{joined}"
    );
    let position = &seen["position"];
    assert_eq!(position.data["net"], "site");
    let first = &position.data["positions"][0];
    for field in POSITION_FIELDS.into_iter().chain(["network_time"]) {
        assert!(!first[field].is_null(), "a position has {field}: {first}");
    }

    act(&server, "site", "stop");
    events.until("state", state_is("stopped"));
    server
        .send(&Request::json(
            "PATCH",
            "/nets/site",
            &json!({"name": "yard", "instance": "sim"}),
        ))
        .expect(200);
    let (renamed, _) = events.until("state", state_is("renamed"));
    assert_eq!(renamed.data["renamed_to"], "yard");
    copy(&server, "yard", "annex");
    let (copied, _) = events.until("state", state_is("created"));
    assert_eq!(copied.data["net"], "annex");
    let deleted = server.send(&Request::new("DELETE", "/nets/yard"));
    assert_eq!(deleted.status, 204);
    let (deleted, _) = events.until("state", state_is("deleted"));
    assert_eq!(deleted.data["net"], "yard");
}

/// The identifiers of the notification events among `events`.
fn identifiers(events: &[SseEvent]) -> Vec<u64> {
    events
        .iter()
        .filter(|event| event.name == "notification")
        .map(|event| {
            let id: u64 = event.id.as_deref().unwrap().parse().unwrap();
            assert_eq!(event.data["identifier"], id, "the id is the identifier");
            id
        })
        .collect()
}

/// Every stored notification identifier of `net`.
fn stored_identifiers(server: &Server, net: &str) -> Vec<u64> {
    server
        .send(&Request::get(&format!("/nets/{net}/notifications")))
        .expect(200)["notifications"]
        .as_array()
        .unwrap()
        .iter()
        .map(|notification| notification["identifier"].as_u64().unwrap())
        .collect()
}

/// Reads notification events until one with `last` has come.
fn notifications_until(events: &mut EventClient, last: u64) -> Vec<u64> {
    let mut seen = Vec::new();
    while seen.last() != Some(&last) {
        seen.extend(identifiers(&[events.next()]));
    }
    seen
}

#[test]
fn last_event_id_resumes_with_no_gap_and_no_duplicate() {
    let server = Server::start();
    configuration_with_tags(&server, "site", 3);
    let mut first = server.events("/nets/site/events?types=notification", &[]);
    act(&server, "site", "start");
    let early = identifiers(&[first.next(), first.next()]);
    first.close();
    let resume_after = early[1];

    // Missed while away: the rest of the start, a stop and a start.
    act(&server, "site", "stop");
    act(&server, "site", "start");
    let mut resumed = server.events(
        "/nets/site/events?types=notification",
        &[("Last-Event-ID", &resume_after.to_string())],
    );
    // And more while the replay is read.
    act(&server, "site", "stop");
    let stored = stored_identifiers(&server, "site");
    let newest = *stored.last().unwrap();
    let seen = notifications_until(&mut resumed, newest);
    let expected: Vec<u64> = stored
        .into_iter()
        .filter(|identifier| *identifier > resume_after)
        .collect();
    assert_eq!(
        seen, expected,
        "every notification after {resume_after}, once, in order"
    );

    // On /events the id names the configuration too.
    let mut all = server.events(
        "/events?types=notification",
        &[("Last-Event-ID", &format!("site:{}", newest - 1))],
    );
    let event = all.next();
    assert_eq!(event.id.as_deref(), Some(format!("site:{newest}").as_str()));

    let bad = server.send(&Request::get("/nets/site/events").header("Last-Event-ID", "site:3"));
    assert_eq!(bad.expect(400)["problems"][0]["field"], "Last-Event-ID");
}

#[test]
fn types_selects_events_and_max_rate_caps_position_batches() {
    let server = Server::start();
    configuration_with_tags(&server, "site", 20);
    let mut states = server.events("/nets/site/events?types=state", &[]);
    let mut slow = server.events("/nets/site/events?types=position&max_rate=2", &[]);
    let mut default = server.events("/nets/site/events?types=position,change", &[]);
    act(&server, "site", "start");

    let window = Duration::from_secs(3);
    let slow_batches = slow.collect_for(window);
    let default_batches = default.collect_for(Duration::from_secs(1));
    act(&server, "site", "stop");
    let names: BTreeSet<String> = states
        .collect_for(Duration::from_millis(500))
        .into_iter()
        .map(|event| event.name)
        .collect();
    assert_eq!(names, BTreeSet::from(["state".to_owned()]));
    assert!(slow_batches.iter().all(|event| event.name == "position"));
    // At most two a second, in any second: over three seconds at most six
    // (and a batch may straddle the window's edges).
    assert!(
        (2..=7).contains(&slow_batches.len()),
        "{} batches in {window:?} at max_rate=2",
        slow_batches.len()
    );
    // What a slow client gets is each tag's newest position: none is lost.
    let tags: BTreeSet<&str> = slow_batches
        .iter()
        .skip(1)
        .flat_map(|event| event.data["positions"].as_array().unwrap())
        .map(|position| position["serial_number"].as_str().unwrap())
        .collect();
    assert_eq!(tags.len(), 20, "every tag is in the batches: {tags:?}");
    assert!(
        default_batches.len() > 2,
        "the default rate sends more: {}",
        default_batches.len()
    );

    let bad = server.send(&Request::get("/events?types=positions&max_rate=fast"));
    let problems = bad.expect(400)["problems"].clone();
    assert_eq!(problems[0]["field"], "types");
    assert_eq!(problems[1]["field"], "max_rate");
}

/// One position: serial_number, x, y, z, quality, error_mm,
/// network_time, vx and vy (tracked tags only).
type PositionRow = (
    String,
    i64,
    i64,
    i64,
    i64,
    i64,
    i64,
    Option<i64>,
    Option<i64>,
);

/// Each position of a batch, in either form.
fn positions_of(data: &Value) -> BTreeSet<PositionRow> {
    let number = |value: &Value| value.as_i64().unwrap();
    if let Some(rows) = data.get("rows") {
        let columns: Vec<&str> = data["columns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|column| column.as_str().unwrap())
            .collect();
        assert_eq!(
            columns,
            [&POSITION_FIELDS[..], &["network_time_offset", "vx", "vy"]].concat()
        );
        let base = number(&data["network_time"]);
        rows.as_array()
            .unwrap()
            .iter()
            .map(|row| {
                (
                    row[0].as_str().unwrap().to_owned(),
                    number(&row[1]),
                    number(&row[2]),
                    number(&row[3]),
                    number(&row[4]),
                    number(&row[5]),
                    base + number(&row[6]),
                    row[7].as_i64(),
                    row[8].as_i64(),
                )
            })
            .collect()
    } else {
        data["positions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|position| {
                (
                    position["serial_number"].as_str().unwrap().to_owned(),
                    number(&position["x"]),
                    number(&position["y"]),
                    number(&position["z"]),
                    number(&position["quality"]),
                    number(&position["error_mm"]),
                    number(&position["network_time"]),
                    position.get("vx").and_then(Value::as_i64),
                    position.get("vy").and_then(Value::as_i64),
                )
            })
            .collect()
    }
}

#[test]
fn compact_batches_carry_the_same_positions_in_fewer_bytes() {
    let server = Server::start();
    configuration_with_tags(&server, "site", 20);
    let mut objects = server.events("/nets/site/events?types=position", &[]);
    let mut compact = server.events("/nets/site/events?types=position&positions=compact", &[]);
    act(&server, "site", "start");
    let window = Duration::from_secs(2);
    let object_batches = objects.collect_for(window);
    let compact_batches = compact.collect_for(window);
    act(&server, "site", "stop");

    let object_sets: Vec<_> = object_batches
        .iter()
        .map(|event| positions_of(&event.data))
        .collect();
    let compact_sets: Vec<_> = compact_batches
        .iter()
        .map(|event| positions_of(&event.data))
        .collect();
    // Both clients get the same frames. The compact stream is read after
    // the other (it covers the objects' window and more): every batch of
    // objects is one of its batches, but for one that a late read may have
    // merged with the next.
    let shared = object_sets
        .iter()
        .filter(|batch| compact_sets.contains(batch))
        .count();
    assert!(
        shared >= 5 && shared + 1 >= object_sets.len(),
        "{shared} of {} batches of objects are compact batches too",
        object_sets.len()
    );
    assert!(compact_sets.iter().flatten().count() >= 100);
    let bytes = |batches: &[SseEvent]| -> usize {
        batches
            .iter()
            .map(|event| event.data.to_string().len())
            .sum()
    };
    let (object_bytes, compact_bytes) = (
        bytes(&object_batches) / object_batches.len(),
        bytes(&compact_batches) / compact_batches.len(),
    );
    assert!(
        compact_bytes * 10 < object_bytes * 6,
        "a compact batch of {compact_bytes} bytes against {object_bytes}"
    );

    let bad = server.send(&Request::get("/nets/site/events?positions=short"));
    let problems = bad.expect(400)["problems"].clone();
    assert_eq!(problems[0]["field"], "positions");
}

/// `netcfg_event_subscribers` of `/metrics`.
fn subscribers(server: &Server) -> u64 {
    let response = server.send(&Request::get("/metrics"));
    String::from_utf8_lossy(&response.body)
        .lines()
        .find_map(|line| line.strip_prefix("netcfg_event_subscribers "))
        .and_then(|value| value.trim().parse().ok())
        .expect("the subscribers' gauge")
}

#[test]
fn a_client_that_closes_leaves_at_once_not_at_its_next_keep_alive() {
    let server = Server::start();
    configuration_with_tags(&server, "site", 1);
    // Idle streams: nothing is written to them before the keep-alive, 15 s
    // away, so only reading the client's close can end them sooner.
    let streams: Vec<EventClient> = (0..20)
        .map(|_| server.events("/nets/site/events?types=state", &[]))
        .collect();
    assert_eq!(subscribers(&server), 20);
    for stream in streams {
        stream.close();
    }
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while subscribers(&server) > 0 && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(
        subscribers(&server),
        0,
        "streams of closed clients still held 5 s after they closed"
    );
}

#[test]
fn unknown_configurations_and_version_5_0_answer_404() {
    let server = Server::start();
    let missing = server.send(&Request::get("/nets/nowhere/events"));
    assert_eq!(missing.expect(404)["code"], "configuration_not_found");
    for path in ["/events", "/nets/nowhere/events"] {
        let old = server.send(&Request::get(path).header("Api-Version", "5.0"));
        assert_eq!(old.status, 404, "{path}");
        assert_eq!(old.json()["code"], "route_in_other_version", "{path}");
    }
}

/// A subscription whose client never reads: a tiny receive window, so
/// the server's socket fills at once.
fn never_reading(server: &Server, path: &str) -> TcpStream {
    let socket =
        socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).expect("a socket");
    socket.set_recv_buffer_size(2048).expect("a small window");
    socket
        .connect(&server.address.into())
        .expect("a connection");
    let stream: TcpStream = socket.into();
    std::io::Write::write_all(
        &mut &stream,
        format!("GET {path} HTTP/1.1\r\nHost: x\r\n\r\n").as_bytes(),
    )
    .expect("the request is sent");
    stream
}

#[test]
fn clients_that_never_read_delay_no_one_and_hold_bounded_memory() {
    let server = Server::start();
    configuration_with_tags(&server, "site", 300);
    let stalled: Vec<TcpStream> = (0..8)
        .map(|_| never_reading(&server, "/nets/site/events"))
        .collect();
    let mut reader = server.events("/nets/site/events?types=change,position", &[]);
    act(&server, "site", "start");
    reader.until("position", |_| true);

    // Many writes while eight clients read nothing: the reader sees every
    // one of them.
    let write = |number: u32| {
        server
            .send(&Request::json(
                "PATCH",
                "/nets/site/notifications",
                &json!({"read": number.is_multiple_of(2)}),
            ))
            .expect(200);
    };
    for number in 0..100 {
        write(number);
    }
    let settled_kib = server.memory_kib("VmRSS");
    for number in 100..1_200 {
        write(number);
    }
    let mut changes = 0;
    while changes < 1_200 {
        let event = reader.next();
        if event.name == "change" {
            changes += 1;
        }
    }
    assert!(
        reader
            .collect_for(Duration::from_millis(500))
            .iter()
            .any(|event| event.name == "position"),
        "positions keep coming to a client that reads"
    );
    let grown_kib = server.memory_kib("VmRSS").saturating_sub(settled_kib);
    assert!(
        grown_kib < 16 * 1024,
        "1,100 more events and positions for 8 stalled clients grew the server by {grown_kib} KiB"
    );

    // They are kept, not dropped: each holds a bounded queue (the hub's
    // tests count it; the stream's test shows `resync` coming first).
    for socket in &stalled {
        socket.set_nonblocking(true).unwrap();
        let mut byte = [0; 1];
        match socket.peek(&mut byte) {
            Ok(read) => assert_eq!(read, 1, "a stalled client's stream was closed"),
            Err(error) => assert_eq!(error.kind(), std::io::ErrorKind::WouldBlock),
        }
    }
}

#[test]
fn shutdown_ends_every_stream_cleanly() {
    let mut server = Server::start();
    configuration_with_tags(&server, "site", 1);
    let mut one = server.events("/nets/site/events", &[]);
    let mut all = server.events("/events?types=state", &[]);
    let status = server.terminate();
    assert!(status.success(), "the server exits cleanly: {status}");
    assert!(
        one.ends_cleanly(),
        "the configuration's stream ended with its last chunk"
    );
    assert!(
        all.ends_cleanly(),
        "the stream of every configuration ended with its last chunk"
    );
}
