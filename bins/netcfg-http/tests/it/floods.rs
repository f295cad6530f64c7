//! Floods through the real server (docs/configuration.md, "Limits"):
//! thousands of idle and trickling connections and a crowd of writers
//! leave a legitimate client answered; a client that does not send its
//! request's head in time is answered 408 and disconnected; a head over
//! the framework's limit is refused. (The legitimate client's latencies
//! are figures of `cargo xtask bench --only floods`, not verdicts here.)

use std::{
    io::{Read, Write},
    net::TcpStream,
    thread,
    time::{Duration, Instant},
};

use serde_json::json;

use crate::support::{Request, Server};

/// Idle connections that never send a byte.
const IDLE: usize = 5_000;
/// Connections that send a request's head one byte at a time.
const TRICKLING: usize = 200;

fn server_with_a_short_request_timeout() -> Server {
    Server::start_prepared(|_| vec![("NETCFG_REQUEST_TIMEOUT".to_owned(), "2".to_owned())])
}

/// `count` reads of a small list by a client that opens a connection for
/// each (so it competes with the flood for accepting, too): every one must
/// be answered 200.
fn legitimate_reads(server: &Server, count: usize) {
    for _ in 0..count {
        let response = server.send(&Request::get("/nets/site/roles"));
        assert_eq!(response.status, 200, "a legitimate read was refused");
    }
}

#[test]
fn idle_and_trickling_connections_leave_a_client_answered_and_are_cut_off() {
    let server = server_with_a_short_request_timeout();
    server.create_on_simulator("site", &[]);
    let mut idle = Vec::with_capacity(IDLE);
    for _ in 0..IDLE {
        idle.push(TcpStream::connect(server.address).expect("an idle connection"));
    }
    let trickling: Vec<TcpStream> = (0..TRICKLING)
        .map(|_| {
            let stream = TcpStream::connect(server.address).expect("a trickling connection");
            stream
                .set_read_timeout(Some(Duration::from_secs(20)))
                .unwrap();
            stream
        })
        .collect();
    let head = b"GET /nets HTTP/1.1\r\nHost: x\r\nX-Slow: ";
    let trickler = {
        let streams: Vec<TcpStream> = trickling
            .iter()
            .map(|stream| stream.try_clone().unwrap())
            .collect();
        thread::spawn(move || {
            for byte in head.iter().cycle().take(40) {
                for mut stream in &streams {
                    let _ = stream.write_all(&[*byte]);
                }
                thread::sleep(Duration::from_millis(100));
            }
        })
    };

    legitimate_reads(&server, 200);
    trickler.join().unwrap();

    // Past the request timeout (2 s here) a trickling client is told so
    // and disconnected, and so is an idle one.
    for mut stream in trickling.into_iter().take(20) {
        let mut answer = Vec::new();
        let _ = stream.read_to_end(&mut answer);
        let text = String::from_utf8_lossy(&answer);
        assert!(
            text.starts_with("HTTP/1.1 408"),
            "a trickling client gets 408, got {text:?}"
        );
    }
    for mut stream in idle.into_iter().take(20) {
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        let mut answer = Vec::new();
        assert!(
            stream.read_to_end(&mut answer).is_ok(),
            "an idle connection is closed"
        );
    }
    // The server still answers.
    server.send(&Request::get("/nets")).expect(200);
}

#[test]
fn sixty_four_writers_leave_a_reader_answered() {
    let server = Server::start();
    server.create_on_simulator("site", &[]);
    let deadline = Instant::now() + Duration::from_secs(3);
    let written = thread::scope(|scope| {
        let writers: Vec<_> = (0..64)
            .map(|writer| {
                let server = &server;
                scope.spawn(move || {
                    let mut written = 0u32;
                    let body = json!({"setting_key": format!("w{writer}"), "value": 0});
                    while Instant::now() < deadline {
                        let request = Request::json("PUT", "/nets/site/settings", &body);
                        let status = server.send(&request).status;
                        assert!(status == 200 || status == 201, "a write answered {status}");
                        written += 1;
                    }
                    written
                })
            })
            .collect();
        legitimate_reads(&server, 100);
        writers
            .into_iter()
            .map(|writer| writer.join().unwrap())
            .sum::<u32>()
    });
    assert!(written >= 64, "every writer wrote");
}

#[test]
fn a_request_head_over_the_limit_is_refused() {
    let server = Server::start();
    let huge = format!(
        "GET /nets HTTP/1.1\r\nHost: x\r\nX-Big: {}\r\n\r\n",
        "a".repeat(200 * 1024)
    );
    let mut stream = TcpStream::connect(server.address).expect("a connection");
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    // The server may stop reading (and close) before the head is all sent.
    let _ = stream.write_all(huge.as_bytes());
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    let text = String::from_utf8_lossy(&answer);
    assert!(
        text.starts_with("HTTP/1.1 431"),
        "a head over 128 KiB is refused, got {:?}",
        text.chars().take(80).collect::<String>()
    );
    server.send(&Request::get("/nets")).expect(200);
}
