//! End to end: the real `netcfg-http` binary on a free loopback port with a
//! temporary data directory, driven over real HTTP through a configuration's
//! whole life (create, devices, streams to our own UDP sockets, start on the
//! simulator, device commands, datagrams, stop, download, delete, upload),
//! and stopped with SIGTERM while a configuration runs.

use std::{
    net::{Ipv4Addr, UdpSocket},
    time::{Duration, Instant},
};

use crate::support::{HUNG, Request, Response, Server};
use netcfg_engine::cdp::{Item, Packet};
use netcfg_model::SerialNumber;
use serde_json::{Value, json};

const NAME: &str = "site-e2e";
const TAG: &str = "01:05:0001";
const TAG_SERIAL: u32 = 0x0105_0001;

/// A seeder, three anchors around it, and a tag.
fn devices() -> Vec<Value> {
    let anchor = |serial: &str, role_id: u32, x: i32, y: i32| {
        json!({"serial_number": serial, "disabled": false,
               "interfaces": [{"identifier": 0, "role_id": role_id, "x": x, "y": y, "z": 2500}]})
    };
    vec![
        anchor("01:04:0001", 3, 0, 0),
        anchor("01:04:0002", 2, 10_000, 0),
        anchor("01:04:0003", 2, 10_000, 10_000),
        anchor("01:04:0004", 2, 0, 10_000),
        json!({"serial_number": TAG, "disabled": false, "name": "Tag 1",
               "interfaces": [{"identifier": 0, "role_id": 4}]}),
    ]
}

fn serials(devices: &Value) -> Vec<String> {
    let mut serials: Vec<String> = devices
        .as_array()
        .expect("an array of devices")
        .iter()
        .map(|device| {
            device["serial_number"]
                .as_str()
                .expect("a serial")
                .to_owned()
        })
        .collect();
    serials.sort();
    serials
}

/// A UDP socket on 127.0.0.1 for a stream to send to.
fn listener() -> UdpSocket {
    let socket = UdpSocket::bind((Ipv4Addr::LOCALHOST, 0)).expect("a UDP socket");
    socket
        .set_read_timeout(Some(Duration::from_millis(500)))
        .expect("a read timeout");
    socket
}

/// The body that points stream `name` at `socket`.
fn stream_to(name: &str, socket: &UdpSocket) -> Value {
    json!({"name": name, "destination_ip": "127.0.0.1",
           "destination_port": socket.local_addr().expect("bound").port(),
           "interface": "127.0.0.1", "interface_port": 0, "time_to_live": 1})
}

/// Receives datagrams on `socket` until `wanted` accepts one (at most
/// [`HUNG`]); each must be a CDP packet (docs/engine-protocol.md, section 2)
/// of at most 1,472 bytes, and sequence numbers rise by one.
fn receive_until(socket: &UdpSocket, mut wanted: impl FnMut(&Packet) -> bool) -> Packet {
    let deadline = Instant::now() + HUNG;
    let mut buffer = [0_u8; 2048];
    let mut last_sequence = None;
    while Instant::now() < deadline {
        let Ok(length) = socket.recv(&mut buffer) else {
            continue;
        };
        assert!(length <= 1_472, "a datagram fits one Ethernet frame");
        let packet = Packet::decode(&buffer[..length]).expect("a CDP packet");
        if let Some(last) = last_sequence {
            assert_eq!(packet.sequence, last + 1, "sequence after {last}");
        }
        last_sequence = Some(packet.sequence);
        if wanted(&packet) {
            return packet;
        }
    }
    panic!("no wanted datagram arrived on {:?}", socket.local_addr());
}

fn check_api_version(response: &Response) {
    assert_eq!(
        response.header("Api-Version"),
        Some("5.1.0"),
        "{response:?}"
    );
}

/// Sends `request`; every answer names its API version.
fn send(server: &Server, request: Request) -> Response {
    let response = server.send(&request);
    check_api_version(&response);
    response
}

/// The server says where it listens and has no configuration yet.
fn assert_listening_and_empty(server: &Server) {
    assert!(
        server
            .log
            .text()
            .contains(&format!("netcfg listening on http://{}", server.address)),
        "{}",
        server.log.text()
    );
    let listed = send(server, Request::get("/nets")).expect(200);
    assert_eq!(listed["configurations"], json!([]));
}

/// Creates the configuration with its devices; returns their serials.
fn create_with_devices(server: &Server) -> Vec<String> {
    let created = send(
        server,
        Request::json("POST", "/nets", &json!({"name": NAME, "instance": "sim"})),
    )
    .expect(201);
    assert_eq!(created["configuration"]["name"], NAME);
    assert_eq!(created["configuration"]["instance"], "sim");
    assert_eq!(created["configuration"]["state"], "stopped");
    for device in devices() {
        let answer = send(
            server,
            Request::json("POST", &format!("/nets/{NAME}/devices"), &device),
        )
        .expect(201);
        assert_eq!(answer["device"]["serial_number"], device["serial_number"]);
    }
    let listed = send(server, Request::get(&format!("/nets/{NAME}/devices"))).expect(200);
    let expected_serials = serials(&Value::Array(devices()));
    assert_eq!(serials(&listed["devices"]), expected_serials);
    expected_serials
}

/// Points the User stream (positions) and the Config stream
/// (announcements) at sockets of ours; returns the User stream's port.
fn point_the_streams(server: &Server, user: &UdpSocket, config: &UdpSocket) -> u16 {
    let user_port = user.local_addr().expect("bound").port();
    let patched = send(
        server,
        Request::json(
            "PATCH",
            &format!("/nets/{NAME}/data-streams/3"),
            &stream_to("User", user),
        ),
    )
    .expect(200);
    assert_eq!(patched["stream"]["destination_port"], user_port);
    send(
        server,
        Request::json(
            "PATCH",
            &format!("/nets/{NAME}/data-streams/1"),
            &stream_to("Config", config),
        ),
    )
    .expect(200);
    user_port
}

/// Sends the device command `action` to the tag.
fn command(server: &Server, action: &Value) -> Response {
    send(
        server,
        Request::json(
            "POST",
            &format!("/nets/{NAME}/devices/{TAG}/action"),
            action,
        ),
    )
}

/// Starts or stops the configuration; it is then in `state` (as the
/// action's status says: `status_state`).
fn act_and_see(server: &Server, action: &str, status_state: &str, state: &str) {
    let answer = send(
        server,
        Request::json("POST", &format!("/nets/{NAME}"), &json!({"action": action})),
    )
    .expect(200);
    assert_eq!(answer["status"]["state"], status_state, "{answer}");
    let got = send(server, Request::get(&format!("/nets/{NAME}"))).expect(200);
    assert_eq!(got["configuration"]["state"], state);
}

/// Device commands and their replies; an unknown device is not found.
fn assert_the_device_commands(server: &Server) {
    let set = command(
        server,
        &json!({"action": "set_property", "property_id": 9, "value": 42}),
    )
    .expect(200);
    assert_eq!(
        set["status"]["replies"],
        json!([{"serial_number": TAG, "action": "set_property",
                "outcome": {"result": "property", "property_id": 9, "value": 42}}]),
        "{set}"
    );
    let get = command(server, &json!({"action": "get_property", "property_id": 9})).expect(200);
    assert_eq!(
        get["status"]["replies"][0]["outcome"],
        json!({"result": "property", "property_id": 9, "value": 42}),
        "{get}"
    );
    assert_eq!(get["status"]["failures"], json!([]));
    send(
        server,
        Request::json(
            "POST",
            &format!("/nets/{NAME}/devices/01:05:0FFF/action"),
            &json!({"action": "soft_reset"}),
        ),
    )
    .expect(404);
}

/// The tag's positions arrive on the User stream, the configuration's
/// announcements on the Config stream.
fn assert_the_datagrams(user: &UdpSocket, config: &UdpSocket) {
    let tag = SerialNumber::from_u32(TAG_SERIAL);
    let position = receive_until(user, |packet| {
        packet
            .items
            .iter()
            .any(|item| matches!(item, Item::PositionV3(position) if position.serial_number == tag))
    });
    for item in &position.items {
        if let Item::PositionV3(position) = item {
            assert!(position.quality <= 10_000, "quality {}", position.quality);
        }
    }
    let announcement = receive_until(config, |packet| {
        matches!(packet.items.first(), Some(Item::InstanceAnnounce(_)))
    });
    assert_eq!(
        announcement.items[0],
        Item::InstanceAnnounce(NAME.to_owned())
    );
    assert!(matches!(announcement.items[1], Item::HostnameAnnounce(_)));
    let streams = announcement.items[2..]
        .iter()
        .filter(|item| matches!(item, Item::StreamInformation(_)))
        .count();
    assert_eq!(streams, 4, "one CDPStreamInformation per stream");
    assert_eq!(announcement.serial_number, position.serial_number);
}

/// The run left a log file, served as text.
fn assert_the_run_log(server: &Server) {
    let logs = send(server, Request::get(&format!("/nets/{NAME}/logs"))).expect(200);
    let log_files = logs["logs"].as_array().expect("a list of log files");
    assert_eq!(log_files.len(), 1, "{logs}");
    let log_file = log_files[0].as_str().expect("a file name");
    let log = send(
        server,
        Request::get(&format!("/nets/{NAME}/logs/{log_file}")),
    );
    assert_eq!(log.status, 200);
    assert!(
        log.header("Content-Type")
            .is_some_and(|value| value.starts_with("text/plain")),
        "{log:?}"
    );
    assert!(!log.body.is_empty(), "an empty log file");
}

/// Download: the saved-state file, an SQLite database.
fn download(server: &Server) -> Response {
    let download = send(server, Request::get(&format!("/nets/{NAME}/download")));
    assert_eq!(download.status, 200);
    assert_eq!(
        download.header("Content-Type"),
        Some("application/vnd.sqlite3")
    );
    assert!(
        download.body.starts_with(b"SQLite format 3\0"),
        "not an SQLite file: {:?}",
        &download.body[..download.body.len().min(32)]
    );
    assert!(
        download
            .header("Content-Disposition")
            .is_some_and(|value| value.contains(&format!("{NAME}.sqlite"))),
        "{download:?}"
    );
    download
}

/// Delete: 204, no body, the message in a header; then it is gone.
fn delete_and_see_it_gone(server: &Server) {
    let deleted = send(server, Request::new("DELETE", &format!("/nets/{NAME}")));
    assert_eq!(deleted.status, 204);
    assert!(deleted.body.is_empty());
    assert!(deleted.header("Netcfg-Message").is_some(), "{deleted:?}");
    send(server, Request::get(&format!("/nets/{NAME}"))).expect(404);
    assert_eq!(
        send(server, Request::get("/nets")).expect(200)["configurations"],
        json!([])
    );
}

/// Uploads the downloaded file back: the name comes from the file name,
/// the devices and streams come back with it.
fn upload_back(server: &Server, file: &[u8], expected_serials: &[String], user_port: u16) {
    let uploaded = send(
        server,
        Request::multipart(
            "/nets/upload",
            &[],
            &[("net_file", &format!("{NAME}.sqlite"), file)],
        ),
    )
    .expect(201);
    assert_eq!(uploaded["configuration"]["name"], NAME, "{uploaded}");
    assert_eq!(uploaded["configuration"]["state"], "stopped");
    let listed = send(server, Request::get(&format!("/nets/{NAME}/devices"))).expect(200);
    assert_eq!(serials(&listed["devices"]), expected_serials);
    let stream = send(
        server,
        Request::get(&format!("/nets/{NAME}/data-streams/3")),
    )
    .expect(200);
    assert_eq!(stream["stream"]["destination_port"], user_port);
    assert!(
        server.data_dir.join(format!("{NAME}.sqlite")).is_file(),
        "the uploaded configuration is a file of the data directory"
    );
}

#[test]
fn a_configuration_lives_its_whole_life_over_http() {
    let server = Server::start();
    assert_listening_and_empty(&server);
    let expected_serials = create_with_devices(&server);
    let (user, config) = (listener(), listener());
    let user_port = point_the_streams(&server, &user, &config);

    // A device command before the start is refused.
    let list_properties = json!({"action": "get_property_list"});
    command(&server, &list_properties).expect(400);
    act_and_see(&server, "start", "running", "running");
    assert_the_device_commands(&server);
    assert_the_datagrams(&user, &config);
    act_and_see(&server, "stop", "stopped", "stopped");
    command(&server, &list_properties).expect(400);

    assert_the_run_log(&server);
    let download = download(&server);
    delete_and_see_it_gone(&server);
    upload_back(&server, &download.body, &expected_serials, user_port);
}

#[test]
fn sigterm_stops_the_running_configuration_and_exits_cleanly() {
    let mut server = Server::start();
    let name = "running-at-sigterm";
    server.create_on_simulator(name, &devices());
    let started = server
        .send(&Request::json(
            "POST",
            &format!("/nets/{name}"),
            &json!({"action": "start"}),
        ))
        .expect(200);
    assert_eq!(started["status"]["state"], "running");

    let status = server.terminate();
    let log = server.log.text();
    assert!(status.success(), "exit status {status}; log:\n{log}");
    assert!(
        log.contains(&format!("stopping configuration {name}")),
        "no line about stopping {name}:\n{log}"
    );
    assert!(log.contains("netcfg stopped"), "{log}");
    assert!(!server.is_running());
    // The configuration survives, stopped, for the next start.
    assert!(server.data_dir.join(format!("{name}.sqlite")).is_file());
}

/// How much the server's peak resident memory rises (in MiB) while
/// `uploads` run, from its resident memory when they start.
fn peak_rise_mib(server: &Server, uploads: impl FnOnce()) -> u64 {
    // Writing 5 resets the peak (VmHWM) to what is resident now.
    std::fs::write(format!("/proc/{}/clear_refs", server.pid()), "5")
        .expect("the server's peak memory can be reset");
    let before = server.memory_kib("VmRSS");
    uploads();
    server.memory_kib("VmHWM").saturating_sub(before) / 1024
}

#[test]
fn uploads_go_to_disk_as_they_arrive_not_into_memory() {
    let server = Server::start();
    let send = |request: Request| server.send(&request);
    send(Request::json(
        "POST",
        "/nets",
        &json!({"name": "seed", "instance": "sim"}),
    ))
    .expect(201);
    let download = send(Request::get("/nets/seed/download"));
    assert_eq!(download.status, 200);
    // A valid file padded to 63 MiB: SQLite reads the size its header gives,
    // so the padding travels and is stored without harm.
    let mut file = download.body;
    file.resize(63 << 20, 0);
    let upload = |name: &str| {
        Request::multipart(
            "/nets/upload",
            &[("name", name)],
            &[("net_file", "big.sqlite", file.as_slice())],
        )
    };

    let one = peak_rise_mib(&server, || {
        send(upload("big-0")).expect(201);
    });
    assert!(
        one < 16,
        "one 63 MiB upload raised the server's memory by {one} MiB"
    );

    let requests: Vec<Request> = (1..=10).map(|n| upload(&format!("big-{n}"))).collect();
    let ten = peak_rise_mib(&server, || {
        std::thread::scope(|scope| {
            for request in &requests {
                scope.spawn(|| server.send(request).expect(201));
            }
        });
    });
    assert!(
        ten < 64,
        "ten concurrent 63 MiB uploads raised the server's memory by {ten} MiB"
    );
    let stored = std::fs::metadata(server.data_dir.join("big-10.sqlite"))
        .expect("the last upload is a file of the data directory")
        .len();
    assert_eq!(stored, 63 << 20);
}
