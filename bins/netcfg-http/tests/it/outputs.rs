//! Outputs through the real server (decisions §14), against a real broker
//! (mosquitto) and a real subscriber (Eclipse Paho): positions, zone events
//! and the retained state arrive with their topics and payloads; a broker
//! outage loses no zone event; a webhook receives signed events; the
//! credentials never come back out.

use std::{
    io::Write,
    net::TcpListener,
    sync::mpsc,
    thread,
    time::{Duration, Instant},
};

use hmac::{Hmac, KeyInit, Mac};
use serde_json::{Value, json};
use sha2::Sha256;

use crate::{
    site::{room, set_instance},
    support::{
        HUNG, Request, Server, act, copy, header,
        mqtt::{Broker, Message, Subscriber},
        read_http_request,
    },
};

const DESK: [[i32; 2]; 4] = [[6000, 5000], [8000, 5000], [8000, 7000], [6000, 7000]];
const STANDING: &str = "01:05:0002";
const PASSWORD: &str = "not-for-your-eyes";

fn status_in(server: &Server, net: &str, output: &str) -> Value {
    server
        .send(&Request::get(&format!(
            "/nets/{net}/outputs/{output}/status"
        )))
        .expect(200)["status"]
        .clone()
}

pub(crate) fn status(server: &Server, output: &str) -> Value {
    status_in(server, "room", output)
}

/// Polls the output's status until `wanted` holds.
pub(crate) fn status_until(
    server: &Server,
    output: &str,
    wanted: impl Fn(&Value) -> bool,
) -> Value {
    status_until_in(server, "room", output, wanted)
}

fn status_until_in(
    server: &Server,
    net: &str,
    output: &str,
    wanted: impl Fn(&Value) -> bool,
) -> Value {
    let deadline = Instant::now() + HUNG;
    loop {
        let now = status_in(server, net, output);
        if wanted(&now) {
            return now;
        }
        assert!(Instant::now() < deadline, "the status never came: {now}");
        thread::sleep(Duration::from_millis(50));
    }
}

fn zone_message(event: &'static str) -> impl Fn(&Message) -> bool {
    move |message| {
        message.topic == "netcfg/room/zones/desk"
            && message.payload["serial_number"] == STANDING
            && message.payload["event"] == event
    }
}

pub(crate) fn site_with_desk(server: &Server) {
    server.create_on_simulator("room", &room());
    set_instance(server, "room", "sim?toa_noise_mm=20&seed=4");
    server
        .send(&Request::json(
            "POST",
            "/nets/room/zones",
            &json!({"name": "desk", "polygon": DESK}),
        ))
        .expect(201);
}

/// Moves the zone "desk" to a corner of the room: the tag standing on it
/// leaves it (an exit decided by the change).
pub(crate) fn move_the_desk_away(server: &Server) {
    server
        .send(&Request::json(
            "PATCH",
            "/nets/room/zones/desk",
            &json!({"polygon": [[0, 0], [1000, 0], [1000, 1000], [0, 1000]]}),
        ))
        .expect(200);
}

/// Adds the output `body` to `room`; returns it as created.
pub(crate) fn add_output(server: &Server, body: &Value) -> Value {
    server
        .send(&Request::json("POST", "/nets/room/outputs", body))
        .expect(201)["output"]
        .clone()
}

/// Adds the output "broker" with credentials; it is not running before
/// the configuration is.
fn add_the_broker_output(server: &Server, broker: &Broker) {
    let created = add_output(
        server,
        &json!({"name": "broker", "url": broker.url(),
                "events": ["position", "zone", "state", "notification"],
                "username": "netcfg", "password": PASSWORD}),
    );
    assert_eq!(created["topic_prefix"], "netcfg/{net_name}");
    assert_eq!(
        (
            created["username_set"].clone(),
            created["password_set"].clone()
        ),
        (json!(true), json!(true))
    );
    assert_eq!(status(server, "broker")["running"], false);
}

/// The standing tag's first position, its entering the desk and the
/// start's notification. A batch's crossings may leave before its
/// positions, and the start's notification before or after them: take all
/// three in whichever order they come. (The notification must not be lost
/// to a race with the start that led to it.)
fn position_entry_and_start_note(subscriber: &Subscriber) -> (Message, Message, Message) {
    let position_topic = format!("netcfg/room/tags/{STANDING}/position");
    let is_start_note = |message: &Message| {
        message.topic == "netcfg/room/notifications"
            && message.payload["message"]
                .as_str()
                .is_some_and(|text| text.starts_with("network started"))
    };
    let (mut position, mut entered, mut started_note) = (None, None, None);
    while position.is_none() || entered.is_none() || started_note.is_none() {
        let (message, _) = subscriber.until(|message| {
            message.topic == position_topic
                || zone_message("enter")(message)
                || is_start_note(message)
        });
        if message.topic == position_topic {
            position.get_or_insert(message);
        } else if is_start_note(&message) {
            started_note.get_or_insert(message);
        } else {
            entered.get_or_insert(message);
        }
    }
    (position.unwrap(), entered.unwrap(), started_note.unwrap())
}

/// Starts the configuration: its state, a position, a zone entry and the
/// start's notification reach the broker, and the output runs connected.
fn start_and_see_it_published(server: &Server, subscriber: &Subscriber) {
    act(server, "room", "start");
    let (started, _) = subscriber.until(|message| message.topic == "netcfg/room/state");
    assert_eq!(started.payload, json!({"net": "room", "state": "started"}));
    assert_eq!(started.qos, 1);
    let (position, entered, started_note) = position_entry_and_start_note(subscriber);
    assert_eq!(started_note.payload["net"], "room");
    let x = position.payload["x"].as_i64().unwrap();
    assert!((x - 7_000).abs() < 500, "{:?}", position.payload);
    for field in ["y", "z", "quality", "error_mm", "network_time", "time_ms"] {
        assert!(
            position.payload[field].is_number(),
            "{field}: {:?}",
            position.payload
        );
    }
    assert_eq!(entered.qos, 1, "zone events use QoS 1");
    assert_eq!(entered.payload["net"], "room");
    let running = status_until(server, "broker", |status| {
        status["connected"] == true && status["sent"].as_u64() > Some(2)
    });
    assert_eq!(running["running"], true, "{running}");
}

/// The outage: the broker goes away; the tag leaves its zone meanwhile;
/// once the broker is back the exit reaches it.
fn an_outage_loses_no_zone_event(server: &Server, broker: &mut Broker, subscriber: &Subscriber) {
    broker.stop();
    status_until(server, "broker", |status| status["connected"] == false);
    let mut events = server.events("/nets/room/events?types=zone", &[]);
    move_the_desk_away(server);
    events.until("zone", |data| {
        data["serial_number"] == STANDING && data["event"] == "exit"
    });
    events.close();
    let down = status(server, "broker");
    assert!(down["last_error"].is_string(), "{down}");
    broker.restart();
    let (left, _) = subscriber.until(zone_message("exit"));
    assert_eq!(left.payload["network_time"], 0, "decided by the change");
    status_until(server, "broker", |status| status["connected"] == true);
}

/// Stops the configuration; the broker hears it stopped.
fn stop_and_see_it_published(server: &Server, subscriber: &Subscriber) {
    act(server, "room", "stop");
    let (stopped, _) = subscriber.until(|message| {
        message.topic == "netcfg/room/state" && message.payload["state"] != "started"
    });
    assert_eq!(stopped.payload, json!({"net": "room", "state": "stopped"}));
}

/// The credentials never come back out: not in a GET, the history or the
/// saved-state file.
fn assert_the_credentials_stay_in(server: &Server) {
    let shown = server
        .send(&Request::get("/nets/room/outputs/broker"))
        .expect(200)
        .to_string();
    let history = server
        .send(&Request::get("/nets/room/history"))
        .expect(200)
        .to_string();
    let file = server.send(&Request::get("/nets/room/download"));
    assert_eq!(file.status, 200);
    assert!(!shown.contains(PASSWORD) && !history.contains(PASSWORD));
    assert!(crate::support::find(&file.body, PASSWORD.as_bytes()).is_none());
    assert!(history.contains("output broker added"), "{history}");
}

/// A copy carries no credentials: its output says what it lacks and stays
/// away from the broker.
fn assert_a_copy_lacks_the_credentials(server: &Server) {
    copy(server, "room", "room-copy");
    act(server, "room-copy", "start");
    let lacking = status_until_in(server, "room-copy", "broker", |status| {
        status["last_error"].is_string()
    });
    assert_eq!(lacking["connected"], false, "{lacking}");
    let error = lacking["last_error"].as_str().unwrap();
    assert!(error.contains("password"), "{error}");
    act(server, "room-copy", "stop");
}

#[test]
fn positions_zones_and_state_reach_a_real_broker_and_no_zone_event_is_lost_in_its_outage() {
    let mut broker = Broker::start();
    let subscriber = Subscriber::start(&broker, "netcfg/room/#", "netcfg-it-subscriber");
    let server = Server::start();
    site_with_desk(&server);
    add_the_broker_output(&server, &broker);
    start_and_see_it_published(&server, &subscriber);
    an_outage_loses_no_zone_event(&server, &mut broker, &subscriber);
    stop_and_see_it_published(&server, &subscriber);
    assert_the_credentials_stay_in(&server);
    assert_a_copy_lacks_the_credentials(&server);
}

/// One request the webhook receiver got: its headers (lower-case names)
/// and body.
struct Received {
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Received {
    fn header(&self, name: &str) -> Option<&str> {
        header(&self.headers, name)
    }
}

/// A web service on a free port that answers 503 to the first request and
/// 200 to the others, passing each request it got on.
fn webhook_receiver() -> (u16, mpsc::Receiver<Received>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (sender, received) = mpsc::channel();
    thread::spawn(move || {
        for (count, stream) in listener.incoming().enumerate() {
            let Ok(mut stream) = stream else { continue };
            let (headers, body) = read_http_request(&mut stream).expect("a whole request");
            let answer = if count == 0 {
                "HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
            } else {
                "HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
            };
            let _ = stream.write_all(answer.as_bytes());
            if sender.send(Received { headers, body }).is_err() {
                break;
            }
        }
    });
    (port, received)
}

#[test]
fn a_webhook_receives_signed_zone_events_and_a_5xx_is_retried() {
    let (port, received) = webhook_receiver();
    let server = Server::start();
    site_with_desk(&server);
    let created = add_output(
        &server,
        &json!({"name": "hook", "url": format!("http://127.0.0.1:{port}/netcfg"),
                "events": ["zone"], "secret": "k3y"}),
    );
    assert_eq!(created["secret_set"], true);
    assert!(created.get("secret").is_none());
    act(&server, "room", "start");

    let first = received.recv_timeout(HUNG).expect("a first try");
    let second = received.recv_timeout(HUNG).expect("the try after the 503");
    assert_eq!(first.body, second.body, "the same event, retried");
    let event: Value = serde_json::from_slice(&second.body).unwrap();
    assert_eq!(
        (
            event["net"].clone(),
            event["zone"].clone(),
            event["event"].clone()
        ),
        (json!("room"), json!("desk"), json!("enter"))
    );
    assert_eq!(second.header("netcfg-event"), Some("zone"));
    let mut mac = Hmac::<Sha256>::new_from_slice(b"k3y").unwrap();
    mac.update(&second.body);
    let expected = format!("sha256={}", hex::encode(mac.finalize().into_bytes()));
    assert_eq!(second.header("netcfg-signature"), Some(expected.as_str()));
    let delivered = status_until(&server, "hook", |status| status["sent"].as_u64() >= Some(1));
    assert_eq!(delivered["connected"], true, "{delivered}");
    act(&server, "room", "stop");
}
