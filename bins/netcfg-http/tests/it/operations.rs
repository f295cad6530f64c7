//! What operators read, through the real server (decisions.md §10):
//! `/metrics` parses as the Prometheus text format and its counters move
//! with the requests; `/healthz` answers; `/readyz` turns 503 when the data
//! directory is full or read-only and back to 200 when it is writable again.
//!
//! The full disk is a small tmpfs mounted on the data directory, which
//! needs root (CI runs as root); without root, only the read-only case runs,
//! with the directory's permissions taken away.

use std::{
    fs,
    io::Write,
    path::Path,
    process::{Command, Stdio},
};

use serde_json::{Value, json};

use crate::support::{
    Request, Server,
    disk::{fill, is_root, server_on_small_disk},
};

/// The Prometheus client the scrapes are parsed with (PyPI).
const PROMETHEUS_CLIENT: &str = "0.26.0";

/// The samples of a scrape, parsed by the Prometheus project's Python
/// client (`tests/prometheus/parse.py`), as `name{label="value",...}` →
/// value, labels sorted by name. The test fails, never skips, without it:
/// `pip install prometheus-client==0.26.0` (`cargo xtask ci` does).
fn scrape(server: &Server) -> Vec<(String, f64)> {
    let response = server.send(&Request::get("/metrics"));
    assert_eq!(response.status, 200);
    assert_eq!(
        response.header("content-type"),
        Some("text/plain; version=0.0.4")
    );
    let python = std::env::var("NETCFG_PYTHON").unwrap_or_else(|_| "python3".to_owned());
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/prometheus/parse.py");
    let mut child = Command::new(&python)
        .arg(&script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|error| {
            panic!("cannot run `{python}` ({error}): this test needs Python 3 with prometheus-client {PROMETHEUS_CLIENT}")
        });
    child
        .stdin
        .take()
        .expect("piped")
        .write_all(&response.body)
        .expect("writing the scrape");
    let output = child.wait_with_output().expect("the parser ends");
    assert!(
        output.status.success(),
        "the scrape is not the Prometheus text format, or the parser is missing (pip install prometheus-client=={PROMETHEUS_CLIENT}): {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let mut lines = std::str::from_utf8(&output.stdout)
        .expect("UTF-8")
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).expect("a JSON line"));
    let version = lines.next().expect("the parser prints its version first");
    assert_eq!(version["prometheus_client"], PROMETHEUS_CLIENT);
    lines
        .map(|sample| {
            let labels = sample[1].as_object().expect("labels");
            let mut labels: Vec<String> = labels
                .iter()
                .map(|(name, value)| {
                    format!("{name}=\"{}\"", value.as_str().expect("a label value"))
                })
                .collect();
            labels.sort();
            let value = sample[2].as_f64().expect("a value");
            let name = sample[0].as_str().expect("a name");
            (format!("{name}{{{}}}", labels.join(",")), value)
        })
        .collect()
}

fn value(samples: &[(String, f64)], key: &str) -> f64 {
    samples
        .iter()
        .find(|(name, _)| name == key)
        .map_or(0.0, |(_, value)| *value)
}

#[test]
fn metrics_parse_and_move_with_the_requests() {
    let server = Server::start();
    let before = scrape(&server);
    for family in [
        "netcfg_store_commits_total{}",
        "netcfg_store_commit_seconds_total{}",
        "netcfg_engine_positions_received_total{}",
        "netcfg_engine_positions_sent_total{}",
        "netcfg_engine_datagrams_dropped_total{}",
        "netcfg_event_subscribers{}",
        "netcfg_configurations_running{}",
        "netcfg_notifications_total{level=\"1\"}",
    ] {
        assert!(
            before.iter().any(|(name, _)| name == family),
            "{family} is not published: {before:?}"
        );
    }
    let lists = "netcfg_http_requests_total{method=\"GET\",route=\"/nets\",status=\"200\"}";
    let missing =
        "netcfg_http_requests_total{method=\"GET\",route=\"/nets/{net_name}\",status=\"404\"}";
    for _ in 0..3 {
        server.send(&Request::get("/nets")).expect(200);
    }
    server.send(&Request::get("/nets/nowhere")).expect(404);
    server
        .send(&Request::json(
            "POST",
            "/nets",
            &json!({"name": "site", "instance": "sim"}),
        ))
        .expect(201);
    let after = scrape(&server);
    assert_eq!(value(&after, lists) - value(&before, lists), 3.0);
    assert_eq!(
        value(&after, missing) - value(&before, missing),
        1.0,
        "{after:?}"
    );
    let commits = "netcfg_store_commits_total{}";
    assert!(value(&after, commits) >= value(&before, commits));
    let latency = "netcfg_http_request_duration_seconds_count{method=\"GET\",route=\"/nets\"}";
    assert!(
        after.iter().any(|(name, _)| name == latency),
        "the latency histogram of GET /nets: {after:?}"
    );
    // Labels are the routes' templates, never the paths clients send.
    assert!(!after.iter().any(|(name, _)| name.contains("nowhere")));
}

#[test]
fn health_answers_while_the_process_serves() {
    let server = Server::start();
    let response = server.send(&Request::get("/healthz"));
    assert_eq!(response.status, 200);
    assert_eq!(response.body, b"ok\n");
}

fn readiness(server: &Server) -> (u16, String) {
    let response = server.send(&Request::get("/readyz"));
    (
        response.status,
        String::from_utf8_lossy(&response.body).into_owned(),
    )
}

#[test]
fn readiness_follows_the_data_directory() {
    if !is_root() {
        // Without root: the directory's permissions taken away.
        let server = Server::start();
        assert_eq!(readiness(&server).0, 200);
        let temporary = server.data_dir.join(".tmp");
        let mut permissions = fs::metadata(&temporary)
            .expect("the data directory")
            .permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o555);
        fs::set_permissions(&temporary, permissions.clone()).expect("chmod");
        let (status, body) = readiness(&server);
        std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
        fs::set_permissions(&temporary, permissions).expect("chmod");
        assert_eq!(
            (status, body.contains("cannot be written")),
            (503, true),
            "{body}"
        );
        assert_eq!(readiness(&server).0, 200);
        return;
    }
    let (server, disk) = server_on_small_disk();
    assert_eq!(readiness(&server), (200, "ready\n".to_owned()));

    let filler = server.data_dir.join("filler");
    fill(&filler);
    let (status, body) = readiness(&server);
    assert_eq!(status, 503, "{body}");
    assert!(body.contains("the data directory is full"), "{body}");
    assert_eq!(value(&scrape(&server), "netcfg_ready{}"), 0.0);
    // Reads still work on a full disk.
    server.send(&Request::get("/nets")).expect(200);
    fs::remove_file(&filler).expect("freeing the space");
    assert_eq!(readiness(&server).0, 200);
    assert_eq!(value(&scrape(&server), "netcfg_ready{}"), 1.0);

    disk.remount("ro");
    let (status, body) = readiness(&server);
    disk.remount("rw");
    assert_eq!(status, 503, "{body}");
    assert!(body.contains("cannot be written"), "{body}");
    assert_eq!(readiness(&server).0, 200);
    drop(server);
    drop(disk);
}

/// systemd's side of `Type=notify`: a datagram socket in `NOTIFY_SOCKET`
/// and a watchdog period in `WATCHDOG_USEC`. The server says READY=1 once
/// it answers, pings WATCHDOG=1 every half period, and says STOPPING=1 on
/// SIGTERM.
#[test]
fn systemd_hears_ready_the_watchdog_and_stopping() {
    let directory = tempfile::tempdir().expect("a temporary directory");
    let socket_path = directory.path().join("notify.sock");
    let socket = std::os::unix::net::UnixDatagram::bind(&socket_path).expect("a notify socket");
    socket
        .set_read_timeout(Some(std::time::Duration::from_secs(30)))
        .expect("a timeout");
    let mut server = Server::start_prepared(|_| {
        vec![
            (
                "NOTIFY_SOCKET".to_owned(),
                socket_path.display().to_string(),
            ),
            // 200 ms: a ping every 100 ms.
            ("WATCHDOG_USEC".to_owned(), "200000".to_owned()),
        ]
    });
    let mut heard = Vec::new();
    let mut buffer = [0_u8; 256];
    let mut receive = |heard: &mut Vec<String>| {
        let length = socket
            .recv(&mut buffer)
            .expect("a notification within 30 s");
        heard.push(String::from_utf8_lossy(&buffer[..length]).trim().to_owned());
    };
    while heard
        .iter()
        .filter(|message| *message == "WATCHDOG=1")
        .count()
        < 3
    {
        receive(&mut heard);
    }
    assert_eq!(heard[0], "READY=1", "{heard:?}");
    assert_eq!(server.send(&Request::get("/healthz")).status, 200);
    assert!(server.terminate().success());
    while !heard.iter().any(|message| message == "STOPPING=1") {
        receive(&mut heard);
    }
}
