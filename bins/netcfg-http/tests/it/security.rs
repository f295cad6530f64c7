//! Security, against the real binary: names that try to leave the data
//! directory are refused and touch nothing; oversized bodies get 413 and the
//! server keeps serving; unknown API versions are refused; every response
//! carries `Api-Version`.

use std::path::PathBuf;

use crate::support::{Request, Response, Server, act, tree};
use serde_json::json;

/// A configuration that exists, with a log file, for traversals to aim beside.
const VICTIM: &str = "victim";
const SENTINEL: &str = "sentinel.txt";
const SENTINEL_TEXT: &[u8] = b"outside the data directory\n";

/// A server with the configuration [`VICTIM`] (run once, so it has a log
/// file) and a sentinel file beside the data directory.
fn prepared_server() -> Server {
    let server = Server::start();
    std::fs::write(server.root().join(SENTINEL), SENTINEL_TEXT).expect("the sentinel is written");
    server.create_on_simulator(
        VICTIM,
        &[json!({"serial_number": "01:05:0001", "disabled": false,
                 "interfaces": [{"identifier": 0, "role_id": 4}]})],
    );
    act(&server, VICTIM, "start");
    act(&server, VICTIM, "stop");
    server
}

/// What may not change: every path under the root (the data directory and
/// the sentinel beside it), and the sentinel's content.
fn snapshot(server: &Server) -> (Vec<PathBuf>, Vec<u8>) {
    (
        tree(server.root()),
        std::fs::read(server.root().join(SENTINEL)).expect("the sentinel is readable"),
    )
}

/// Asserts a refusal: 400 or 404, the 5.1 error envelope (level 1), and
/// the `Api-Version` header.
fn assert_refused(what: &str, response: &Response) {
    assert!(
        matches!(response.status, 400 | 404),
        "{what}: status {} (expected 400 or 404); body: {}",
        response.status,
        response.text()
    );
    let body = response.expect(response.status);
    assert_eq!(body["Classification"], 1, "{what}: {body}");
    assert!(
        body["code"].is_string(),
        "{what}: an error has a code: {body}"
    );
    let mut keys: Vec<&str> = body
        .as_object()
        .map(|object| object.keys().map(String::as_str).collect())
        .unwrap_or_default();
    keys.sort_unstable();
    let expected: &[&str] = if response.status == 400 {
        &["Classification", "code", "message", "problems"]
    } else {
        &["Classification", "code", "message"]
    };
    assert_eq!(keys, expected, "{what}: the error envelope: {body}");
    assert_eq!(response.header("Api-Version"), Some("5.1.0"), "{what}");
}

/// Configuration names, as path segments, that try to leave the data
/// directory or name something that is not a configuration.
fn hostile_segments() -> Vec<String> {
    let mut segments: Vec<String> = [
        "..",
        "%2e%2e",
        "%2E%2E",
        ".%2e",
        "..%2f",
        "..%2F..%2F..%2Fetc%2Fpasswd",
        "..%5c..%5cwindows",
        "%2Ftmp%2Fevil",
        "%2fetc%2fpasswd",
        ".hidden",
        ".tmp",
        "logs%2F..%2F..%2Fsentinel.txt",
        "a%2Fb",
        "victim%00",
        "victim%00.sqlite",
        "%00",
        "victim.sqlite-wal%2F..",
        "%252e%252e",
        "%c0%ae%c0%ae",
    ]
    .into_iter()
    .map(str::to_owned)
    .collect();
    segments.push("a".repeat(65));
    segments.push("b".repeat(300));
    segments.push("c".repeat(4000));
    segments
}

#[test]
fn hostile_configuration_and_log_file_names_are_refused_and_touch_nothing() {
    let server = prepared_server();
    let before = snapshot(&server);
    // The snapshot sees what a traversal would hit.
    for expected in ["sentinel.txt", "data/victim.sqlite", "data/logs/victim"] {
        assert!(
            before.0.contains(&PathBuf::from(expected)),
            "{expected} in {:?}",
            before.0
        );
    }
    let mut requests = Vec::new();
    for name in hostile_segments() {
        let net = format!("/nets/{name}");
        requests.push(Request::get(&net));
        requests.push(Request::get(&format!("{net}/download")));
        requests.push(Request::get(&format!("{net}/logs")));
        requests.push(Request::get(&format!("{net}/logs/{VICTIM}.log")));
        requests.push(Request::get(&format!("{net}/devices")));
        requests.push(Request::new("DELETE", &net));
        requests.push(Request::json("POST", &net, &json!({"action": "delete"})));
        requests.push(Request::json("POST", &net, &json!({"action": "start"})));
        requests.push(Request::json(
            "POST",
            &net,
            &json!({"action": "copy", "name": "stolen"}),
        ));
        requests.push(Request::json(
            "PATCH",
            &net,
            &json!({"name": "renamed", "instance": "sim"}),
        ));
        // Log file names of a configuration that exists.
        requests.push(Request::get(&format!("/nets/{VICTIM}/logs/{name}")));
    }
    // Names in bodies: create, rename, copy, with the decoded forms.
    for name in [
        "..",
        "../evil",
        "../../sentinel.txt",
        "/tmp/evil",
        ".hidden",
        "a/b",
        "a\\b",
        "victim\u{0}",
        "victim/../../x",
        &"d".repeat(65),
        &"e".repeat(5000),
        "",
    ] {
        requests.push(Request::json(
            "POST",
            "/nets",
            &json!({"name": name, "instance": "sim"}),
        ));
        requests.push(Request::json(
            "PATCH",
            &format!("/nets/{VICTIM}"),
            &json!({"name": name, "instance": "sim"}),
        ));
        requests.push(Request::json(
            "POST",
            &format!("/nets/{VICTIM}"),
            &json!({"action": "copy", "name": name}),
        ));
    }
    // Raw, unencoded traversal in the request target.
    for target in [
        "/nets/../sentinel.txt",
        "/nets/./../../sentinel.txt",
        "/nets/victim/logs/../../victim.sqlite",
        "/nets/victim/logs/../../../sentinel.txt",
        "/nets/%2e%2e/%2e%2e/sentinel.txt",
    ] {
        requests.push(Request::get(target));
        requests.push(Request::new("DELETE", target));
    }
    for request in &requests {
        let response = server.send(request);
        let what = format!("{} {}", request.method, request.path);
        assert_refused(&what, &response);
        assert_eq!(snapshot(&server), before, "{what} changed the files");
    }
    // The configuration aimed beside is intact.
    server
        .send(&Request::get(&format!("/nets/{VICTIM}")))
        .expect(200);
    assert_eq!(snapshot(&server), before);
}

#[test]
fn uploads_with_hostile_names_are_refused_and_touch_nothing() {
    let server = prepared_server();
    let file = server.send(&Request::get(&format!("/nets/{VICTIM}/download")));
    assert_eq!(file.status, 200);
    assert!(file.body.starts_with(b"SQLite format 3\0"));
    let before = snapshot(&server);
    for name in [
        "..",
        "../evil",
        "../../sentinel",
        "/tmp/evil",
        ".hidden",
        "a/b",
        "..\\..\\evil",
        "evil\u{0}",
        &"f".repeat(65),
    ] {
        let response = server.send(&Request::multipart(
            "/nets/upload",
            &[("name", name)],
            &[("net_file", "fine.sqlite", &file.body)],
        ));
        assert_refused(&format!("upload named {name:?}"), &response);
        assert_eq!(snapshot(&server), before, "upload named {name:?}");
    }
    for file_name in ["..", ".sqlite", ".hidden.sqlite", "/", "../"] {
        let response = server.send(&Request::multipart(
            "/nets/upload",
            &[],
            &[("net_file", file_name, &file.body)],
        ));
        assert_refused(&format!("upload of file {file_name:?}"), &response);
        assert_eq!(snapshot(&server), before, "upload of file {file_name:?}");
    }
    // A file name with directories in it is reduced to its last component:
    // the configuration lands in the data directory, never outside it.
    let outside: Vec<PathBuf> = before
        .0
        .iter()
        .filter(|path| !path.starts_with("data"))
        .cloned()
        .collect();
    let response = server.send(&Request::multipart(
        "/nets/upload",
        &[],
        &[("net_file", "../../escaped.sqlite", &file.body)],
    ));
    if response.status == 201 {
        assert_eq!(response.json()["configuration"]["name"], "escaped");
        assert!(server.data_dir.join("escaped.sqlite").is_file());
    } else {
        assert_refused("upload of ../../escaped.sqlite", &response);
    }
    let after = snapshot(&server);
    let outside_after: Vec<PathBuf> = after
        .0
        .iter()
        .filter(|path| !path.starts_with("data"))
        .cloned()
        .collect();
    assert_eq!(outside_after, outside);
    assert_eq!(after.1, SENTINEL_TEXT);
}

/// Asserts a 413 with the envelope, then that the server still answers.
fn assert_too_large_and_still_serving(server: &Server, what: &str, response: &Response) {
    response.assert_status(413, what);
    let body = response.expect(413);
    assert_eq!(body["Classification"], 1, "{what}: {body}");
    assert_eq!(response.header("Api-Version"), Some("5.1.0"), "{what}");
    let next = server.send(&Request::get("/nets"));
    next.expect(200);
    let created = server.send(&Request::json(
        "POST",
        "/nets",
        &json!({"name": format!("after-{}", what.len()), "instance": "sim"}),
    ));
    created.expect(201);
}

/// The bytes of a request head to `server`, closing the connection, with
/// `headers` (whole lines without their line ends).
fn raw_head(server: &Server, method: &str, path: &str, headers: &[&str]) -> Vec<u8> {
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n",
        server.address
    );
    for header in headers {
        head.push_str(header);
        head.push_str("\r\n");
    }
    head.push_str("\r\n");
    head.into_bytes()
}

/// The largest JSON body the server takes.
const JSON_LIMIT: usize = 1 << 20;

/// A JSON body over 1 MiB.
fn oversized_json() -> Vec<u8> {
    let mut json_body = br#"{"name": "big", "instance": ""#.to_vec();
    json_body.resize(JSON_LIMIT + 100, b'x');
    json_body.extend_from_slice(br#""}"#);
    json_body
}

/// A chunked JSON body, framed chunk by chunk, that grows past the limit.
fn oversized_chunks() -> Vec<Vec<u8>> {
    let chunk = vec![b'y'; 64 * 1024];
    let mut chunks = vec![b"10\r\n{\"name\": \"big\", \r\n".to_vec()];
    for _ in 0..(JSON_LIMIT / chunk.len() + 4) {
        let mut framed = format!("{:x}\r\n", chunk.len()).into_bytes();
        framed.extend_from_slice(&chunk);
        framed.extend_from_slice(b"\r\n");
        chunks.push(framed);
    }
    chunks.push(b"0\r\n\r\n".to_vec());
    chunks
}

/// Sends `body` to `path` as JSON with its length declared.
fn send_json_with_length(server: &Server, path: &str, body: &[u8]) -> Response {
    server.send_raw(
        raw_head(
            server,
            "POST",
            path,
            &[
                "Content-Type: application/json",
                &format!("Content-Length: {}", body.len()),
            ],
        ),
        vec![body.to_vec()],
    )
}

/// The chunked body on a kept-alive connection, followed by another
/// request: the server answers 413, then the next request (it reads past
/// the rest of the refused body, never into it).
fn assert_a_pipelined_request_after_a_refused_body_is_answered(
    server: &Server,
    chunks: &[Vec<u8>],
) {
    let pipelined = raw_head(
        server,
        "POST",
        "/nets",
        &[
            "Content-Type: application/json",
            "Transfer-Encoding: chunked",
        ],
    );
    let pipelined = String::from_utf8(pipelined)
        .expect("an ASCII head")
        .replace("Connection: close", "Connection: keep-alive")
        .into_bytes();
    let mut stream_bytes = pipelined;
    for chunk in chunks {
        stream_bytes.extend_from_slice(chunk);
    }
    stream_bytes.extend_from_slice(
        format!(
            "GET /nets/after HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
            server.address
        )
        .as_bytes(),
    );
    let answers = String::from_utf8_lossy(&server.send_raw_to_end(&stream_bytes)).into_owned();
    let too_large = answers.find("HTTP/1.1 413").expect("a 413 first");
    let next = answers
        .find("HTTP/1.1 404")
        .expect("then the next request's answer");
    assert!(too_large < next, "{answers}");
    assert!(answers[next..].contains("after"), "{answers}");
    assert_eq!(answers.matches("HTTP/1.1 ").count(), 2, "{answers}");
}

/// An upload that declares more than 64 MiB (sent only in part: the
/// server must refuse from the declaration).
fn send_an_oversized_upload(server: &Server) -> Response {
    server.send_raw(
        raw_head(
            server,
            "POST",
            "/nets/upload",
            &[
                "Content-Type: multipart/form-data; boundary=xyz",
                &format!("Content-Length: {}", (64 << 20) + 1),
            ],
        ),
        vec![b"--xyz\r\n".to_vec(); 16],
    )
}

/// Nothing of the refused bodies was created.
fn assert_nothing_big_was_created(server: &Server) {
    let names: Vec<String> = server.send(&Request::get("/nets")).expect(200)["configurations"]
        .as_array()
        .expect("a list")
        .iter()
        .map(|configuration| configuration["name"].as_str().unwrap_or("").to_owned())
        .collect();
    assert!(!names.iter().any(|name| name == "big"), "{names:?}");
}

#[test]
fn oversized_bodies_get_413_and_the_server_keeps_serving() {
    let server = Server::start();
    let json_body = oversized_json();
    let response = send_json_with_length(&server, "/nets", &json_body);
    assert_too_large_and_still_serving(&server, "json with Content-Length", &response);

    let chunks = oversized_chunks();
    let response = server.send_raw(
        raw_head(
            &server,
            "POST",
            "/nets",
            &[
                "Content-Type: application/json",
                "Transfer-Encoding: chunked",
            ],
        ),
        chunks.clone(),
    );
    assert_too_large_and_still_serving(&server, "chunked json", &response);
    assert_a_pipelined_request_after_a_refused_body_is_answered(&server, &chunks);

    // The same on a JSON route with a path parameter (a device).
    server
        .send(&Request::json(
            "POST",
            "/nets",
            &json!({"name": "small", "instance": "sim"}),
        ))
        .expect(201);
    let response = send_json_with_length(&server, "/nets/small/devices", &json_body);
    assert_too_large_and_still_serving(&server, "device json with Content-Length", &response);

    let response = send_an_oversized_upload(&server);
    assert_too_large_and_still_serving(&server, "upload over 64 MiB", &response);
    assert_nothing_big_was_created(&server);
}

#[test]
fn unknown_api_versions_are_refused_and_every_response_names_its_version() {
    let server = Server::start();
    for version in ["4.0", "5.2", "6", "latest", "", "5.1.0.0", "5.0.2"] {
        let response = server.send(&Request::get("/nets").header("Api-Version", version));
        let body = response.expect(400);
        let message = body["message"].as_str().unwrap_or("");
        assert!(
            message.contains("5.1") && message.contains("5.0"),
            "the message names the supported versions: {message}"
        );
        assert!(
            response.header("Api-Version").is_some(),
            "Api-Version {version:?}: {response:?}"
        );
    }
    // Each accepted spelling answers with the full version of its table.
    for (asked, full) in [
        (None, "5.1.0"),
        (Some("5.1"), "5.1.0"),
        (Some("5.1.0"), "5.1.0"),
        (Some("5.0"), "5.0.1"),
        (Some("5.0.0"), "5.0.1"),
        (Some("5.0.1"), "5.0.1"),
    ] {
        let mut requests = vec![
            Request::get("/nets"),
            Request::get("/nets/missing"),
            Request::get("/no/such/route"),
            Request::new("PUT", "/nets"),
            Request::json("POST", "/nets", &json!({"name": "v"})),
            Request::new("POST", "/nets")
                .header("Content-Type", "application/json")
                .body(b"{not json".to_vec()),
            Request::get("/api.json"),
            Request::get("/api/"),
            Request::get("/api"),
            Request::new("DELETE", "/nets/missing"),
        ];
        for request in &mut requests {
            if let Some(asked) = asked {
                request
                    .headers
                    .push(("Api-Version".to_owned(), asked.to_owned()));
            }
            let response = server.send(request);
            assert_eq!(
                response.header("Api-Version"),
                Some(full),
                "{} {} with Api-Version {asked:?}: {response:?}",
                request.method,
                request.path
            );
            if response.status >= 400 {
                let body = response.json();
                assert!(body["message"].is_string(), "{body}");
                assert_eq!(
                    body.get("Classification").is_some(),
                    full == "5.1.0",
                    "{body}"
                );
            }
        }
    }
}
