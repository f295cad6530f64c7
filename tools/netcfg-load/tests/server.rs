//! The harnesses' server launcher, HTTP client and memory reader against
//! real processes and sockets: a small HTTP server written here on a std
//! `TcpListener`, this test's own process, and stand-ins for the server
//! binary (a program that exits at once, a Python script that serves).

use std::{
    fs,
    io::{BufRead, BufReader, Read, Write},
    net::{TcpListener, TcpStream},
    os::unix::fs::PermissionsExt,
    path::Path,
    sync::{Arc, Mutex},
    thread,
};

use netcfg_load::server::{Client, Launch, RssSampler, Value, object, rss_kib};

/// One request as the test server read it.
#[derive(Debug, Clone)]
struct Seen {
    method: String,
    path: String,
    /// Header names in lower case, with their values.
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        header(&self.headers, name)
    }
}

/// The value of the first of `headers` (lower-case names) called `name`.
fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(key, _)| key == name)
        .map(|(_, value)| value.as_str())
}

/// A server on a free loopback port that records every request and
/// answers `/missing` with 404, anything else with 200 and `{"seen": n}`
/// (how many requests it has read), on kept-alive connections.
fn recording_server() -> (u16, Arc<Mutex<Vec<Seen>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = seen.clone();
    thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            let record = record.clone();
            thread::spawn(move || serve(stream, &record));
        }
    });
    (port, seen)
}

fn serve(stream: TcpStream, record: &Mutex<Vec<Seen>>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut writer = stream;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let mut words = line.split_whitespace();
        let (method, path) = (
            words.next().unwrap().to_owned(),
            words.next().unwrap().to_owned(),
        );
        let mut headers = Vec::new();
        loop {
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            if line == "\r\n" {
                break;
            }
            let (name, value) = line.split_once(':').unwrap();
            headers.push((name.to_ascii_lowercase(), value.trim().to_owned()));
        }
        let length = header(&headers, "content-length").map_or(0, |value| value.parse().unwrap());
        let mut body = vec![0; length];
        reader.read_exact(&mut body).unwrap();
        let count = {
            let mut record = record.lock().unwrap();
            record.push(Seen {
                method,
                path: path.clone(),
                headers,
                body,
            });
            record.len()
        };
        let (status, answer) = if path == "/missing" {
            ("404 Not Found", r#"{"error": "no such thing"}"#.to_owned())
        } else {
            ("200 OK", format!(r#"{{"seen": {count}}}"#))
        };
        let _ = write!(
            writer,
            "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{answer}",
            answer.len()
        );
    }
}

#[test]
fn the_client_sends_json_and_takes_any_status_as_an_answer() {
    let (port, seen) = recording_server();
    let client = Client::new(port);

    let answer = client.send("GET", "/nets", None).unwrap();
    assert_eq!(answer.status, 200);
    assert_eq!(answer.json().unwrap(), object([("seen", Value::from(1))]));

    let body = object([
        ("name", Value::from("demo")),
        ("instance", Value::from("sim")),
    ]);
    assert_eq!(
        client
            .send("PATCH", "/nets/demo", Some(&body))
            .unwrap()
            .status,
        200
    );

    // A 4xx is an answer to look at, not a failed request...
    let missing = client.send("GET", "/missing", None).unwrap();
    assert_eq!(missing.status, 404);
    assert_eq!(missing.payload("error").unwrap(), "no such thing");
    // ...unless the caller expects success.
    let error = client
        .expect_ok("DELETE", "/missing", None)
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with("DELETE /missing answered 404: {"),
        "{error}"
    );

    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 4);
    let (get, patch) = (&seen[0], &seen[1]);
    assert_eq!((get.method.as_str(), get.path.as_str()), ("GET", "/nets"));
    // A GET goes without a body, not with an empty one.
    assert_eq!(get.header("content-type"), None);
    assert!(get.body.is_empty());
    assert_eq!(patch.method, "PATCH");
    assert_eq!(patch.header("content-type"), Some("application/json"));
    let sent: Value = serde_json::from_slice(&patch.body).unwrap();
    assert_eq!(sent, body);
}

#[test]
fn an_upload_is_a_multipart_form_with_the_name_and_the_file() {
    let (port, seen) = recording_server();
    let file: Vec<u8> = b"SQLite format 3\0"
        .iter()
        .copied()
        .chain([0xFF, 0x00, b'\r', b'\n'])
        .collect();
    let answer = Client::new(port).upload("copy-1", &file).unwrap();
    assert_eq!(answer.status, 200);

    let request = seen.lock().unwrap()[0].clone();
    assert_eq!(
        (request.method.as_str(), request.path.as_str()),
        ("POST", "/nets/upload")
    );
    let content_type = request.header("content-type").unwrap();
    let boundary = content_type
        .strip_prefix("multipart/form-data; boundary=")
        .unwrap_or_else(|| panic!("{content_type}"));
    let body = &request.body;
    let text = String::from_utf8_lossy(body);
    assert!(text.starts_with(&format!("--{boundary}\r\n")), "{text}");
    assert!(
        text.contains("Content-Disposition: form-data; name=\"name\"\r\n\r\ncopy-1\r\n"),
        "{text}"
    );
    assert!(
        text.contains("name=\"net_file\"; filename=\"copy-1.sqlite\""),
        "{text}"
    );
    assert!(
        body.windows(file.len()).any(|window| window == file),
        "the file's bytes, as they are"
    );
    assert!(text.ends_with(&format!("\r\n--{boundary}--\r\n")), "{text}");
}

#[test]
fn a_client_follows_a_restarted_server_to_its_new_port() {
    let (first, first_seen) = recording_server();
    let (second, second_seen) = recording_server();
    let mut client = Client::new(first);
    client.expect_ok("GET", "/before", None).unwrap();
    client.set_port(second);
    client.expect_ok("GET", "/after", None).unwrap();
    assert_eq!(first_seen.lock().unwrap().len(), 1);
    assert_eq!(second_seen.lock().unwrap()[0].path, "/after");
    // Nothing listens on a port just freed.
    let closed = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    assert!(Client::new(closed).send("GET", "/nets", None).is_err());
}

#[test]
fn resident_memory_is_read_from_proc() {
    let pid = std::process::id();
    // 64 MiB, written (not only reserved), so resident.
    let block = vec![1_u8; 64 << 20];
    let rss = rss_kib(pid).unwrap();
    assert!(rss >= 64 * 1024, "{rss} KiB with a 64 MiB block");
    let peak = RssSampler::start(pid).finish();
    assert!(peak >= 60 * 1024, "peak {peak} KiB with a 64 MiB block");
    assert_eq!(
        block.iter().map(|byte| u64::from(*byte)).sum::<u64>(),
        64 << 20
    );
    let gone = rss_kib(u32::MAX).unwrap_err().to_string();
    assert!(gone.contains("/proc/4294967295/status"), "{gone}");
}

#[test]
fn a_server_that_exits_at_start_is_reported_with_its_log() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("server.log");
    let error = Launch::new(Path::new("/bin/false"), &dir.path().join("data"), &log)
        .start()
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with("the server exited at start with exit status: 1"),
        "{error}"
    );
    assert!(error.contains(&log.display().to_string()), "{error}");
    let missing = Path::new("/nonexistent/netcfg-http");
    let error = Launch::new(missing, dir.path(), &log).start().unwrap_err();
    assert_eq!(
        error.to_string(),
        "could not start /nonexistent/netcfg-http"
    );
}

/// A stand-in for netcfg-http: it takes the server's options, answers
/// `GET /nets` (the launcher's readiness check) and tells its environment
/// at `GET /env/<name>`; SIGTERM ends it.
const STAND_IN: &str = r#"#!/usr/bin/env python3
import http.server, json, os, sys
args = dict(zip(sys.argv[1::2], sys.argv[2::2]))
assert args["--bind"] == "127.0.0.1", args
os.makedirs(args["--data-dir"], exist_ok=True)
class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_GET(self):
        if self.path == "/nets":
            body = json.dumps({"configurations": []})
        elif self.path.startswith("/env/"):
            body = json.dumps({"value": os.environ.get(self.path[5:])})
        else:
            body = "{}"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body.encode())
    def log_message(self, *args):
        pass
http.server.ThreadingHTTPServer(("127.0.0.1", int(args["--port"])), Handler).serve_forever()
"#;

#[test]
fn the_launcher_starts_waits_for_the_first_answer_and_stops_with_sigterm() {
    let dir = tempfile::tempdir().unwrap();
    let binary = dir.path().join("stand-in");
    fs::write(&binary, STAND_IN).unwrap();
    fs::set_permissions(&binary, fs::Permissions::from_mode(0o755)).unwrap();
    let data = dir.path().join("data");
    let baseline = dir.path().join("baseline.json");
    let launch = Launch::new(&binary, &data, &dir.path().join("server.log")).baseline(&baseline);

    let mut server = launch.start().unwrap();
    assert!(data.is_dir(), "started over its data directory");
    assert!(server.startup > std::time::Duration::ZERO);
    assert_eq!(server.url(), format!("http://127.0.0.1:{}", server.port()));
    let client = server.client();
    let env = |name: &str| {
        client
            .expect_ok("GET", &format!("/env/{name}"), None)
            .unwrap()
            .payload("value")
            .unwrap()
    };
    assert_eq!(env("NETCFG_BENCH_BASELINE"), baseline.display().to_string());
    assert_eq!(env("RUST_LOG"), "warn");
    assert!(server.rss_kib().unwrap() > 0);
    assert!(server.exited().is_none());
    server.stop().unwrap();

    // Without the baseline, the variable is not passed on; killed, it ends.
    let server = Launch::new(&binary, &data, &dir.path().join("server.log"))
        .start()
        .unwrap();
    let value = server
        .client()
        .expect_ok("GET", "/env/NETCFG_BENCH_BASELINE", None)
        .unwrap()
        .payload("value")
        .unwrap();
    assert_eq!(value, Value::Null);
    server.kill().unwrap();
}
