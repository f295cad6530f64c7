//! Recordings through the real server (decisions §15), read by tools that
//! are not ours: tcpdump opens every capture whole, dpkt reads its records
//! and cdp-py decodes every payload. A recording stops whole at its size
//! limit, at the total limit and before the disk is full; uploads are
//! checked; recordings move with a rename and go with a delete.

use std::{
    path::Path,
    process::Command,
    thread,
    time::{Duration, Instant},
};

use serde_json::{Value, json};

use crate::{
    site::room,
    support::{
        HUNG, Request, Server, act,
        disk::{SmallDisk, is_root},
    },
};

/// A site that sends plenty: the room's anchors and 30 moving tags.
fn busy_site(server: &Server, net: &str) {
    let mut devices = room();
    for number in 0x10..0x10 + 30 {
        devices.push(
            json!({"serial_number": format!("01:05:{number:04X}"), "disabled": false,
                            "interfaces": [{"identifier": 0, "role_id": 4}]}),
        );
    }
    server.create_on_simulator(net, &devices);
    act(server, net, "start");
}

fn start_recording(server: &Server, net: &str, body: &Value) -> Value {
    server
        .send(&Request::json(
            "POST",
            &format!("/nets/{net}/recordings"),
            body,
        ))
        .expect(201)["recording"]
        .clone()
}

fn recording(server: &Server, net: &str, name: &str) -> Value {
    server
        .send(&Request::get(&format!("/nets/{net}/recordings/{name}")))
        .expect(200)["recording"]
        .clone()
}

/// Polls a recording until it has ended.
fn ended(server: &Server, net: &str, name: &str) -> Value {
    let deadline = Instant::now() + HUNG;
    loop {
        let now = recording(server, net, name);
        if now["active"] == false {
            return now;
        }
        assert!(
            Instant::now() < deadline,
            "the recording never ended: {now}"
        );
        thread::sleep(Duration::from_millis(100));
    }
}

fn download(server: &Server, net: &str, name: &str, into: &Path) -> Vec<u8> {
    let response = server.send(&Request::get(&format!(
        "/nets/{net}/recordings/{name}/download"
    )));
    assert_eq!(response.status, 200);
    assert_eq!(
        response.header("content-type"),
        Some("application/vnd.tcpdump.pcap")
    );
    std::fs::write(into, &response.body).expect("the downloaded capture");
    response.body
}

/// What tcpdump prints of a capture: its lines, and what it complained of.
fn tcpdump(path: &Path) -> (Vec<String>, String) {
    let output = Command::new("tcpdump")
        .args(["-nn", "-r"])
        .arg(path)
        .output()
        .expect("tcpdump runs (apt-get install tcpdump)");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "tcpdump failed: {stderr}");
    let lines = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(str::to_owned)
        .collect();
    (lines, stderr)
}

/// dpkt's and cdp-py's reading of a capture (`tests/pcap/decode.py`).
pub(crate) fn decode(path: &Path) -> Value {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/pcap/decode.py");
    let output = Command::new("python3")
        .arg(script)
        .arg(path)
        .output()
        .expect("python3 runs");
    assert!(
        output.status.success(),
        "decode.py failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("decode.py prints JSON")
}

/// Every record of a capture is a whole UDP datagram tcpdump shows and
/// cdp-py decodes; returns dpkt's summary.
fn assert_readable(path: &Path, datagrams: u64) -> Value {
    let (lines, complaints) = tcpdump(path);
    assert!(
        !complaints.contains("truncated"),
        "tcpdump found the capture cut: {complaints}"
    );
    assert_eq!(lines.len() as u64, datagrams, "tcpdump's records");
    for line in &lines {
        assert!(line.contains(": UDP, length"), "{line}");
    }
    let summary = decode(path);
    assert_eq!(summary["errors"], json!([]), "{summary}");
    assert_eq!(summary["records"], datagrams);
    assert_eq!(summary["cdp"], datagrams);
    summary
}

#[test]
fn a_recording_opens_in_tcpdump_and_every_payload_decodes_with_cdp_py() {
    let server = Server::start();
    busy_site(&server, "room");
    let started = start_recording(&server, "room", &json!({"name": "short", "duration_s": 2}));
    assert_eq!(started["active"], true);
    assert_eq!(
        server
            .send(&Request::get("/nets/room/recordings"))
            .expect(200)["recordings"][0]["name"],
        "short"
    );
    let first_look = server.send(&Request::get("/nets/room/recordings/short"));
    let tag = first_look.header("etag").expect("an ETag").to_owned();
    let finished = ended(&server, "room", "short");
    assert_eq!(finished["ended"], "duration", "{finished}");
    // Tagged by what it says, not by the configuration's content: a
    // client holding the first look gets the news, not a 304.
    let again =
        server.send(&Request::get("/nets/room/recordings/short").header("If-None-Match", &tag));
    assert_eq!(again.status, 200);
    let current = again.header("etag").expect("an ETag").to_owned();
    let unchanged =
        server.send(&Request::get("/nets/room/recordings/short").header("If-None-Match", &current));
    assert_eq!(unchanged.status, 304);
    let datagrams = finished["datagrams"].as_u64().expect("a count");
    assert!(datagrams > 20, "{finished}");
    let duration = finished["duration_ms"].as_u64().expect("a duration");
    assert!((1_000..=2_100).contains(&duration), "{finished}");

    let file = server.root().join("short.pcap");
    let bytes = download(&server, "room", "short", &file);
    assert_eq!(&bytes[..4], &[0xD4, 0xC3, 0xB2, 0xA1], "pcap, microseconds");
    assert_eq!(bytes[20], 101, "link type raw IP");
    assert_eq!(bytes.len() as u64, finished["size"].as_u64().unwrap());
    let summary = assert_readable(&file, datagrams);
    // Positions on the User stream; announcements on the Config stream, at
    // once when a recording starts.
    assert!(summary["ports"]["7667"].as_u64().unwrap() > 0, "{summary}");
    assert!(summary["ports"]["7671"].as_u64().unwrap() > 0, "{summary}");
    assert!(
        summary["positions"].as_array().unwrap().len() > 100,
        "{summary}"
    );
    assert_eq!(
        summary["serials"].as_array().unwrap().len(),
        1,
        "one sender"
    );
}

#[test]
fn recordings_stop_whole_at_their_limits_and_say_why() {
    let server = Server::start_prepared(|_| {
        vec![
            ("NETCFG_RECORDING_LIMIT".to_owned(), "16KiB".to_owned()),
            ("NETCFG_RECORDINGS_LIMIT".to_owned(), "24KiB".to_owned()),
        ]
    });
    busy_site(&server, "room");
    start_recording(&server, "room", &json!({"name": "first"}));
    let first = ended(&server, "room", "first");
    assert_eq!(first["ended"], "recording_limit", "{first}");
    let size = first["size"].as_u64().unwrap();
    assert!(size <= 16 << 10 && size > 8 << 10, "{first}");
    assert_readable(
        &{
            let file = server.root().join("first.pcap");
            download(&server, "room", "first", &file);
            file
        },
        first["datagrams"].as_u64().unwrap(),
    );

    start_recording(&server, "room", &json!({"name": "second"}));
    let second = ended(&server, "room", "second");
    assert_eq!(second["ended"], "total_limit", "{second}");
    let total = size + second["size"].as_u64().unwrap();
    assert!(total <= 24 << 10, "{total}");

    let refused = server.send(&Request::json("POST", "/nets/room/recordings", &json!({})));
    assert_eq!(refused.status, 409);
    assert_eq!(refused.json()["code"], "no_room");
    // Room again once one is deleted.
    let deleted = server.send(&Request::new("DELETE", "/nets/room/recordings/first"));
    assert_eq!(deleted.status, 204);
    start_recording(&server, "room", &json!({"name": "third"}));
    let stopped = server
        .send(&Request::new("DELETE", "/nets/room/recordings/third"))
        .expect(200)["recording"]
        .clone();
    assert!(
        ["stopped", "total_limit"].contains(&stopped["ended"].as_str().unwrap()),
        "{stopped}"
    );
}

#[test]
fn a_recording_stops_before_the_disk_is_full() {
    if !is_root() {
        return no_recording_starts_on_a_disk_below_what_it_keeps_free();
    }
    let mut disk = None;
    let server = Server::start_prepared(|data_dir| {
        disk = Some(SmallDisk::mount(data_dir));
        vec![("NETCFG_RECORDING_KEEP_FREE".to_owned(), "1MiB".to_owned())]
    });
    let _disk = disk.expect("mounted");
    busy_site(&server, "room");
    // Leave the recordings a little more than the free space they keep.
    let data_dir = server.root().join("data");
    let free = free_bytes(&data_dir);
    let filler = free.saturating_sub((1 << 20) + (400 << 10));
    std::fs::write(data_dir.join("filler"), vec![0u8; filler as usize]).expect("the filler");
    start_recording(&server, "room", &json!({"name": "squeezed"}));
    let squeezed = ended(&server, "room", "squeezed");
    assert_eq!(squeezed["ended"], "disk", "{squeezed}");
    assert!(free_bytes(&data_dir) >= 1 << 20, "the free space it keeps");
    let file = server.root().join("squeezed.pcap");
    download(&server, "room", "squeezed", &file);
    assert_readable(&file, squeezed["datagrams"].as_u64().unwrap());
    // Nothing starts below the free space a recording keeps.
    let refused = server.send(&Request::json("POST", "/nets/room/recordings", &json!({})));
    assert_eq!(refused.status, 409, "{:?}", refused.json());
    assert_eq!(refused.json()["code"], "no_room");
}

/// Without root (no small disk to mount): a recording that would have to
/// keep more free than the disk has does not start.
fn no_recording_starts_on_a_disk_below_what_it_keeps_free() {
    let server = Server::start_prepared(|_| {
        vec![(
            "NETCFG_RECORDING_KEEP_FREE".to_owned(),
            "1048576GiB".to_owned(),
        )]
    });
    busy_site(&server, "room");
    let refused = server.send(&Request::json("POST", "/nets/room/recordings", &json!({})));
    assert_eq!(refused.status, 409);
    assert_eq!(refused.json()["code"], "no_room");
}

fn free_bytes(path: &Path) -> u64 {
    let output = Command::new("df")
        .args(["--output=avail", "-B1"])
        .arg(path)
        .output()
        .expect("df runs");
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .nth(1)
        .and_then(|line| line.trim().parse().ok())
        .expect("df's free bytes")
}

fn upload(server: &Server, net: &str, name: &str, bytes: Vec<u8>) -> crate::support::Response {
    server.send(
        &Request::new("PUT", &format!("/nets/{net}/recordings/{name}"))
            .header("Content-Type", "application/vnd.tcpdump.pcap")
            .body(bytes),
    )
}

#[test]
fn uploads_are_checked_and_recordings_follow_their_configuration() {
    let server = Server::start();
    busy_site(&server, "room");
    start_recording(&server, "room", &json!({"name": "kept", "duration_s": 1}));
    let kept = ended(&server, "room", "kept");
    let file = server.root().join("kept.pcap");
    let bytes = download(&server, "room", "kept", &file);

    // A pcapng file, a capture of other traffic, a capture cut short.
    let pcapng = [0x0A, 0x0D, 0x0D, 0x0A, 0x1C, 0, 0, 0].repeat(4);
    let refused = upload(&server, "room", "ng", pcapng);
    assert_eq!(refused.status, 400);
    assert!(
        refused.json()["message"]
            .as_str()
            .unwrap()
            .contains("pcapng")
    );
    let mut other = bytes[..24].to_vec();
    other.extend_from_slice(&[0u8; 16]);
    let dns = [
        0x45, 0, 0, 33, 0, 0, 0x40, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2, 0, 53, 0, 53, 0, 13,
        0, 0, b'h', b'e', b'l', b'l', b'o',
    ];
    other[24 + 8..24 + 12].copy_from_slice(&(dns.len() as u32).to_le_bytes());
    other[24 + 12..24 + 16].copy_from_slice(&(dns.len() as u32).to_le_bytes());
    other.extend_from_slice(&dns);
    let refused = upload(&server, "room", "dns", other);
    assert_eq!(refused.status, 400);
    assert!(
        refused.json()["message"]
            .as_str()
            .unwrap()
            .contains("no CDP datagram"),
        "{:?}",
        refused.json()
    );
    let refused = upload(&server, "room", "cut", bytes[..bytes.len() - 5].to_vec());
    assert_eq!(refused.status, 400);
    assert!(
        refused.json()["message"]
            .as_str()
            .unwrap()
            .contains("ends inside record")
    );
    let listed = server
        .send(&Request::get("/nets/room/recordings"))
        .expect(200);
    assert_eq!(
        listed["recordings"].as_array().unwrap().len(),
        1,
        "{listed}"
    );

    // What netcfg wrote comes back in whole.
    let copy = upload(&server, "room", "copy", bytes).expect(201)["recording"].clone();
    assert_eq!(copy["ended"], "uploaded");
    assert_eq!(copy["datagrams"], kept["datagrams"]);
    assert_eq!(copy["duration_ms"], kept["duration_ms"]);

    // A rename takes the recordings along; a delete removes them.
    act(&server, "room", "stop");
    server
        .send(&Request::json(
            "PATCH",
            "/nets/room",
            &json!({"name": "hall", "instance": "sim"}),
        ))
        .expect(200);
    let moved = server
        .send(&Request::get("/nets/hall/recordings"))
        .expect(200);
    assert_eq!(moved["recordings"].as_array().unwrap().len(), 2, "{moved}");
    assert_eq!(
        server.send(&Request::new("DELETE", "/nets/hall")).status,
        204
    );
    assert!(!server.root().join("data/recordings/hall").exists());
    assert!(!server.root().join("data/recordings/room").exists());
}

fn replay(server: &Server, net: &str) -> Value {
    server
        .send(&Request::get(&format!("/nets/{net}/replay")))
        .expect(200)["replay"]
        .clone()
}

fn control(server: &Server, net: &str, body: &Value) -> Value {
    server
        .send(&Request::json(
            "PATCH",
            &format!("/nets/{net}/replay"),
            body,
        ))
        .expect(200)["replay"]
        .clone()
}

#[test]
fn a_replay_at_ten_times_sends_the_recorded_positions_in_their_order() {
    let server = Server::start();
    busy_site(&server, "room");
    start_recording(&server, "room", &json!({"name": "source", "duration_s": 3}));
    let source = ended(&server, "room", "source");
    act(&server, "room", "stop");

    // A configuration of its own, with no devices, plays the recording.
    server
        .send(&Request::json(
            "POST",
            "/nets",
            &json!({"name": "again", "instance": "replay:room/source?speed=10"}),
        ))
        .expect(201);
    // Its own zone, over the whole room: the replayed tags enter it.
    server
        .send(&Request::json(
            "POST",
            "/nets/again/zones",
            &json!({"name": "everywhere",
                    "polygon": [[-1000, -1000], [21000, -1000], [21000, 16000], [-1000, 16000]]}),
        ))
        .expect(201);
    let mut events = server.events("/nets/again/events?types=zone", &[]);
    act(&server, "again", "start");
    let paused = control(&server, "again", &json!({"paused": true, "position_ms": 0}));
    assert_eq!(
        (paused["paused"].as_bool(), paused["position_ms"].as_u64()),
        (Some(true), Some(0))
    );
    assert_eq!(paused["duration_ms"], source["duration_ms"]);
    // The replay's own streams, recorded from its first datagram.
    start_recording(&server, "again", &json!({"name": "echo"}));
    control(&server, "again", &json!({"paused": false}));
    let deadline = Instant::now() + HUNG;
    let done = loop {
        let now = replay(&server, "again");
        if now["finished"] == true {
            break now;
        }
        assert!(
            Instant::now() < deadline,
            "the replay never finished: {now}"
        );
        thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(done["position_ms"], source["duration_ms"], "{done}");
    let (entered, _) = events.until("zone", |data| data["event"] == "enter");
    assert_eq!(entered.data["zone"], "everywhere", "{:?}", entered.data);
    let inside = server
        .send(&Request::get("/nets/again/zones/everywhere/occupancy"))
        .expect(200);
    assert!(
        !inside["occupancy"].as_array().unwrap().is_empty(),
        "{inside}"
    );
    let echo = server
        .send(&Request::new("DELETE", "/nets/again/recordings/echo"))
        .expect(200)["recording"]
        .clone();

    let (source_file, echo_file) = (
        server.root().join("source.pcap"),
        server.root().join("echo.pcap"),
    );
    download(&server, "room", "source", &source_file);
    download(&server, "again", "echo", &echo_file);
    let played = assert_readable(&echo_file, echo["datagrams"].as_u64().unwrap());
    let recorded = decode(&source_file);
    let positions = recorded["positions"].as_array().unwrap();
    assert!(positions.len() > 500, "{} positions", positions.len());
    assert_eq!(
        played["positions"], recorded["positions"],
        "the same positions (serial, network time, x, y, z) in the same order"
    );
    // Sent as the replay's own: another header serial than the source's.
    assert_ne!(played["serials"], recorded["serials"]);
    // Ten times as fast: about a tenth of the recording's time.
    let source_ms = source["duration_ms"].as_u64().unwrap();
    let echo_ms = echo["duration_ms"].as_u64().unwrap();
    assert!(echo_ms < source_ms / 4, "{echo_ms} ms for {source_ms} ms");
}
