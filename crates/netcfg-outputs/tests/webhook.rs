//! Webhook outputs against a small HTTP server on a thread: signatures,
//! retries of 5xx in order, no retry of a 4xx, a server that is down.

mod common;

use std::{
    io::{BufRead, BufReader, Read, Write},
    net::{TcpListener, TcpStream},
    sync::{Arc, Mutex},
};

use common::*;
use hmac::{Hmac, KeyInit, Mac};
use netcfg_model::{
    BatchMs, ConfigName, Output, OutputEventKind, OutputPlan, OutputSecrets, Qos, RateHz,
};
use netcfg_outputs::Outputs;
use sha2::Sha256;

const SECRET: &str = "s3cret";

/// One request the server got.
#[derive(Debug, Clone)]
struct Request {
    headers: Vec<(String, String)>,
    body: String,
    answered: u16,
}

impl Request {
    fn header(&self, name: &str) -> Option<&str> {
        header(&self.headers, name)
    }

    fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap()
    }
}

/// The value of the first of `headers` called `name` (any case).
fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

/// A server answering each request with the next status of `script`
/// (then 200), checking signatures, recording everything.
struct Server {
    port: u16,
    requests: Arc<Mutex<Vec<Request>>>,
}

impl Server {
    fn start(script: Vec<u16>) -> Self {
        Self::start_on(TcpListener::bind("127.0.0.1:0").unwrap(), script)
    }

    fn start_on(listener: TcpListener, script: Vec<u16>) -> Self {
        let port = listener.local_addr().unwrap().port();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let recorded = requests.clone();
        std::thread::spawn(move || {
            let mut script = script.into_iter();
            for stream in listener.incoming() {
                let Ok(stream) = stream else { break };
                serve(stream, &mut script, &recorded);
            }
        });
        Self { port, requests }
    }

    fn requests(&self) -> Vec<Request> {
        self.requests.lock().unwrap().clone()
    }

    /// The bodies answered 2xx, in order.
    fn delivered(&self) -> Vec<serde_json::Value> {
        self.requests()
            .iter()
            .filter(|r| r.answered == 200)
            .map(Request::json)
            .collect()
    }
}

/// Serves the requests of one connection (ureq keeps it alive).
fn serve(
    stream: TcpStream,
    script: &mut impl Iterator<Item = u16>,
    recorded: &Mutex<Vec<Request>>,
) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut writer = stream;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        assert!(line.starts_with("POST "), "{line}");
        let mut headers = Vec::new();
        loop {
            let mut header = String::new();
            reader.read_line(&mut header).unwrap();
            let header = header.trim_end();
            if header.is_empty() {
                break;
            }
            let (name, value) = header.split_once(':').unwrap();
            headers.push((name.trim().to_owned(), value.trim().to_owned()));
        }
        let length: usize = header(&headers, "content-length")
            .map(|v| v.parse().unwrap())
            .expect("a content length");
        let mut body = vec![0; length];
        reader.read_exact(&mut body).unwrap();
        let request = Request {
            headers,
            body: String::from_utf8(body).unwrap(),
            answered: script.next().unwrap_or(200),
        };
        // The signature is the HMAC of the exact body.
        let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(SECRET.as_bytes()).unwrap();
        mac.update(request.body.as_bytes());
        let expected = format!("sha256={}", hex::encode(mac.finalize().into_bytes()));
        assert_eq!(request.header("Netcfg-Signature"), Some(expected.as_str()));
        assert_eq!(request.header("Content-Type"), Some("application/json"));
        let status = request.answered;
        recorded.lock().unwrap().push(request);
        let reason = if status == 200 { "OK" } else { "Nope" };
        write!(
            writer,
            "HTTP/1.1 {status} {reason}\r\nContent-Length: 2\r\n\r\nok"
        )
        .unwrap();
        writer.flush().unwrap();
    }
}

fn webhook_plan(name: &str, port: u16, events: Vec<OutputEventKind>) -> OutputPlan {
    OutputPlan {
        output: Output {
            name: item(name),
            url: format!("http://127.0.0.1:{port}/hook").parse().unwrap(),
            events,
            enabled: true,
            topic_prefix: None,
            qos: None::<Qos>,
            max_rate_hz: RateHz::try_from(0.0).unwrap(),
            batch_ms: BatchMs::try_from(0).unwrap(),
            ca_file: None,
            username_set: false,
            password_set: false,
            secret_set: true,
        },
        secrets: OutputSecrets {
            secret: Some(SECRET.into()),
            ..OutputSecrets::default()
        },
    }
}

fn zones(server: &Server) -> Vec<i64> {
    server
        .delivered()
        .iter()
        .filter(|b| b.get("zone").is_some())
        .map(|b| b["x"].as_i64().unwrap())
        .collect()
}

/// The outputs running the webhook `hook` to `port` with `events` for the
/// network `site`.
fn run_hook(port: u16, events: Vec<OutputEventKind>) -> (Outputs, ConfigName) {
    let outputs = Outputs::new();
    let site = net("site");
    outputs.run(&site, vec![webhook_plan("hook", port, events)]);
    (outputs, site)
}

#[test]
fn server_errors_are_retried_in_order() {
    let server = Server::start(vec![500, 503, 500]);
    let (outputs, site) = run_hook(
        server.port,
        vec![OutputEventKind::Zone, OutputEventKind::State],
    );
    for x in 0..5 {
        outputs.send(&site, zone("site", "dock", x));
    }
    wait_until("every zone event", || zones(&server).len() == 5);
    assert_eq!(zones(&server), [0, 1, 2, 3, 4]);
    let requests = server.requests();
    // The state "started" was first, tried three times before it went.
    assert_eq!(requests.len(), 3 + 1 + 5);
    assert!(requests[..4].iter().all(|r| r.json()["state"] == "started"));
    assert_eq!(requests[0].header("Netcfg-Event"), Some("state"));
    assert_eq!(requests[4].header("Netcfg-Event"), Some("zone"));
    assert_eq!(requests[4].header("Netcfg-Net"), Some("site"));
    wait_until("counted", || status(&outputs, "site", "hook").sent == 6);
    let s = status(&outputs, "site", "hook");
    assert!(s.connected && s.running && s.last_error.is_none(), "{s:?}");
    assert_eq!(s.queued, 0);

    outputs.stop(&site);
    wait_until("stopped posted", || {
        server
            .delivered()
            .last()
            .is_some_and(|b| b["state"] == "stopped")
    });
    assert!(!status(&outputs, "site", "hook").running);
}

#[test]
fn a_client_error_is_not_retried() {
    let server = Server::start(vec![400]);
    let (outputs, site) = run_hook(server.port, vec![OutputEventKind::Zone]);
    outputs.send(&site, zone("site", "dock", 1));
    wait_until("the refusal", || {
        status(&outputs, "site", "hook")
            .last_error
            .is_some_and(|e| e.contains("HTTP 400"))
    });
    assert_eq!(
        outputs
            .status(&site, &item("hook"))
            .map(|status| status.rejected),
        Some(1)
    );
    outputs.send(&site, zone("site", "dock", 2));
    wait_until("the next event", || zones(&server) == [2]);
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "the refused event was not sent again");
    wait_until("the delivery counted", || {
        status(&outputs, "site", "hook").sent == 1
    });
    let s = status(&outputs, "site", "hook");
    assert_eq!(s.last_error, None, "cleared by the delivery that followed");
}

#[test]
fn a_server_that_is_down_is_retried_until_it_is_back() {
    // Reserve a port, then free it: nothing listens there for a while.
    let port = free_port();
    let (outputs, site) = run_hook(port, vec![OutputEventKind::Zone, OutputEventKind::Position]);
    for x in 0..50 {
        outputs.send(&site, zone("site", "dock", x));
        outputs.send(&site, positions(x as u64, &[(7, x)]));
    }
    wait_until("the failure noticed", || {
        status(&outputs, "site", "hook").last_error.is_some()
    });
    let s = status(&outputs, "site", "hook");
    assert!(!s.connected);
    assert_eq!(s.queued, 100, "{s:?}");
    let server = Server::start_on(TcpListener::bind(("127.0.0.1", port)).unwrap(), vec![]);
    wait_until("everything delivered", || server.delivered().len() == 100);
    let delivered = server.delivered();
    for (x, pair) in delivered.chunks(2).enumerate() {
        assert_eq!(pair[0]["zone"], "dock");
        assert_eq!(pair[0]["x"], x as i64);
        assert_eq!(pair[1]["serial_number"], "00:00:0007");
        assert_eq!(pair[1]["net"], "site");
        assert_eq!(pair[1]["x"], x as i64);
    }
    wait_until("counted", || status(&outputs, "site", "hook").sent == 100);
}

#[test]
fn batched_positions_go_as_one_array() {
    let server = Server::start(vec![]);
    let outputs = Outputs::new();
    let site = net("site");
    let mut plan = webhook_plan("hook", server.port, vec![OutputEventKind::Position]);
    plan.output.batch_ms = BatchMs::try_from(200).unwrap();
    outputs.run(&site, vec![plan]);
    for i in 0..10u64 {
        outputs.send(&site, positions(i, &[(1, i as i32), (2, i as i32)]));
    }
    wait_until("the batch", || {
        server
            .delivered()
            .iter()
            .map(|b| b.as_array().unwrap().len())
            .sum::<usize>()
            == 20
    });
    let bodies = server.delivered();
    assert!(bodies.len() < 20, "batched: {} posts", bodies.len());
    let first = &bodies[0][0];
    assert_eq!(first["serial_number"], "00:00:0001");
    assert_eq!(
        server.requests()[0].header("Netcfg-Event"),
        Some("position")
    );
}
