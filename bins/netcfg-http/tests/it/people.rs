//! People through the real binary and a real socket (decisions §17): the
//! first admin from `netcfg-http users`, seen by the running server; the
//! session cookie and its CSRF token; the history's origins; sessions that
//! end when their user changes; keys revoked at once; sign-ins slowed;
//! users kept across a restart.

use std::{
    io::Write,
    process::{Command, Output, Stdio},
};

use serde_json::{Value, json};

use crate::support::{Request, Server, wait_until};

const PASSWORD: &str = "correct horse battery";

/// Runs `netcfg-http users <args>` on the server's data directory with
/// `stdin` as its standard input (not a terminal: one line is the password).
fn users(server: &Server, args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_netcfg-http"))
        .arg("users")
        .args(args)
        .arg("--data-dir")
        .arg(server.root().join("data"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    child
        .stdin
        .take()
        .expect("piped stdin")
        .write_all(stdin.as_bytes())
        .expect("the password is written");
    child.wait_with_output().expect("the command ends")
}

fn said(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// A session: its cookie (as sent back) and CSRF token.
struct Session {
    cookie: String,
    csrf: String,
}

impl Session {
    fn sign_in(server: &Server, name: &str, password: &str) -> Self {
        let response = server.send(&Request::json(
            "POST",
            "/session",
            &json!({"name": name, "password": password}),
        ));
        let body = response.expect(200);
        let set_cookie = response.header("set-cookie").expect("a cookie").to_owned();
        assert!(
            set_cookie.starts_with("netcfg_session=")
                && set_cookie.contains("HttpOnly")
                && set_cookie.contains("SameSite=Strict")
                && set_cookie.contains("Path=/")
                && !set_cookie.contains("Secure"),
            "{set_cookie}"
        );
        Self {
            cookie: set_cookie.split(';').next().unwrap_or_default().to_owned(),
            csrf: body["session"]["csrf_token"]
                .as_str()
                .expect("a CSRF token")
                .to_owned(),
        }
    }

    fn get(&self, path: &str) -> Request {
        Request::get(path).header("Cookie", &self.cookie)
    }

    fn change(&self, method: &str, path: &str, body: &Value) -> Request {
        Request::json(method, path, body)
            .header("Cookie", &self.cookie)
            .header("X-CSRF-Token", &self.csrf)
    }
}

/// Makes the admin `ada` from the server's own machine (no user exists yet).
fn first_admin(server: &Server) {
    let first = Request::json(
        "POST",
        "/users",
        &json!({"name": "ada", "role": "admin", "password": PASSWORD}),
    );
    server.send(&first).expect(201);
}

fn with_key(key: &str, request: Request) -> Request {
    request.header("Authorization", &format!("Bearer {key}"))
}

#[test]
fn the_first_admin_comes_from_the_command_line_and_the_history_names_people() {
    let server = Server::start();
    server.send(&Request::get("/nets")).expect(200);
    let refused = users(&server, &["add", "bob", "--role", "root"], "x\n");
    assert!(!refused.status.success());
    assert!(said(&refused).contains("not a role"), "{}", said(&refused));
    let short = users(&server, &["add", "bob", "--role", "viewer"], "short\n");
    assert!(!short.status.success());
    assert!(said(&short).contains("at least 12"), "{}", said(&short));
    let added = users(
        &server,
        &["add", "ada", "--role", "admin"],
        &format!("{PASSWORD}\n"),
    );
    assert!(added.status.success(), "{}", said(&added));
    assert!(said(&added).contains("user ada added (admin)"));
    // The running server reads the file again within a second or two.
    let status = wait_until(
        || server.send(&Request::get("/nets")).status,
        |status| *status == 401,
    );
    assert_eq!(status, 401);

    let ada = Session::sign_in(&server, "ada", PASSWORD);
    server.send(&ada.get("/nets")).expect(200);
    let create = json!({"name": "site", "instance": "sim"});
    let without = Request::json("POST", "/nets", &create).header("Cookie", &ada.cookie);
    assert_eq!(server.send(&without).expect(403)["code"], "csrf");
    server
        .send(&ada.change("POST", "/nets", &create))
        .expect(201);
    let key = server
        .send(&ada.change(
            "POST",
            "/users/ada/keys",
            &json!({"name": "ci", "role": "editor"}),
        ))
        .expect(201)["api_key"]["key"]
        .as_str()
        .expect("the secret")
        .to_owned();
    let device = json!({
        "serial_number": "01:05:0001", "disabled": false,
        "interfaces": [{"identifier": 0, "role_id": 4}]
    });
    server
        .send(&with_key(
            &key,
            Request::json("POST", "/nets/site/devices", &device),
        ))
        .expect(201);
    // The key's use is noted (written within a second; a read of the
    // list writes what waits first).
    let keys = server.send(&ada.get("/users/ada/keys")).expect(200)["api_keys"].clone();
    assert!(keys[0]["last_used_ms"].is_i64(), "{keys}");
    let entries = server.send(&ada.get("/nets/site/history")).expect(200)["history"].clone();
    assert_eq!(entries[0]["origin"], "key:ada/ci", "{entries}");
    assert_eq!(entries[1]["origin"], "user:ada", "{entries}");

    // A new password from the command line ends the sessions.
    let changed = users(&server, &["passwd", "ada"], "another horse battery\n");
    assert!(changed.status.success(), "{}", said(&changed));
    let status = wait_until(
        || server.send(&ada.get("/session")).status,
        |status| *status == 401,
    );
    assert_eq!(status, 401);
    let last = users(&server, &["delete", "ada"], "");
    assert!(!last.status.success());
    assert!(
        said(&last).contains("last enabled admin"),
        "{}",
        said(&last)
    );
    let listed = users(&server, &["list"], "");
    assert!(said(&listed).contains("ada\tadmin"), "{}", said(&listed));

    // Users outlive a restart; sessions do not; keys do.
    let server = server.restart(|_| {});
    assert_eq!(server.send(&ada.get("/nets")).status, 401);
    server
        .send(&with_key(&key, Request::get("/nets")))
        .expect(200);
    Session::sign_in(&server, "ada", "another horse battery");
}

#[test]
fn sessions_and_keys_end_when_their_user_changes_and_sign_ins_are_slowed() {
    let server = Server::start();
    first_admin(&server);
    let ada = Session::sign_in(&server, "ada", PASSWORD);
    let elsewhere = Session::sign_in(&server, "ada", PASSWORD);
    server
        .send(&ada.change(
            "POST",
            "/users",
            &json!({"name": "op", "role": "operator", "password": "operators password"}),
        ))
        .expect(201);
    let op = Session::sign_in(&server, "op", "operators password");
    let op_key = server
        .send(&op.change(
            "POST",
            "/users/op/keys",
            &json!({"name": "floor", "role": "operator"}),
        ))
        .expect(201)["api_key"]["key"]
        .as_str()
        .expect("the secret")
        .to_owned();
    server
        .send(&ada.change("POST", "/nets", &json!({"name": "site", "instance": "sim"})))
        .expect(201);
    let start = json!({"action": "start"});
    server
        .send(&with_key(
            &op_key,
            Request::json("POST", "/nets/site", &start),
        ))
        .expect(200);

    // Demoted: the session ends at once; the key acts as a viewer now.
    server
        .send(&ada.change("PATCH", "/users/op", &json!({"role": "viewer"})))
        .expect(200);
    assert_eq!(server.send(&op.get("/session")).status, 401);
    let stop = json!({"action": "stop"});
    let refused = server.send(&with_key(
        &op_key,
        Request::json("POST", "/nets/site", &stop),
    ));
    assert_eq!(refused.expect(403)["code"], "forbidden");
    // Disabled: the key stops working, and it cannot sign in.
    server
        .send(&ada.change("PATCH", "/users/op", &json!({"disabled": true})))
        .expect(200);
    assert_eq!(
        server
            .send(&with_key(&op_key, Request::get("/nets")))
            .status,
        401
    );
    let disabled = server.send(&Request::json(
        "POST",
        "/session",
        &json!({"name": "op", "password": "operators password"}),
    ));
    assert_eq!(
        disabled.expect(401)["message"],
        "this user is disabled: ask an admin"
    );

    // One's own new password keeps this session and ends the others.
    let wrong = json!({"password": "a brand new password", "current_password": "not it at all"});
    let answer = server
        .send(&ada.change("PATCH", "/users/ada", &wrong))
        .expect(400);
    assert_eq!(answer["problems"][0]["field"], "current_password");
    let right = json!({"password": "a brand new password", "current_password": PASSWORD});
    server
        .send(&ada.change("PATCH", "/users/ada", &right))
        .expect(200);
    server.send(&ada.get("/session")).expect(200);
    assert_eq!(server.send(&elsewhere.get("/session")).status, 401);

    // A revoked key is refused at its next request.
    let key = server
        .send(&ada.change(
            "POST",
            "/users/ada/keys",
            &json!({"name": "tmp", "role": "viewer"}),
        ))
        .expect(201)["api_key"]["key"]
        .as_str()
        .expect("the secret")
        .to_owned();
    server
        .send(&with_key(&key, Request::get("/nets")))
        .expect(200);
    server
        .send(&ada.change("DELETE", "/users/ada/keys/tmp", &json!({})))
        .assert_status(204, "revoked");
    assert_eq!(
        server.send(&with_key(&key, Request::get("/nets"))).status,
        401
    );

    // Wrong passwords: at most ten (the address's earlier unknown keys
    // count too), then it waits; a live session from the same address is
    // never slowed.
    let guess = json!({"name": "ada", "password": "wrong guess number"});
    let mut refused = 0;
    let slowed = loop {
        let answer = server.send(&Request::json("POST", "/session", &guess));
        if answer.status != 401 {
            break answer;
        }
        refused += 1;
        assert!(refused <= 10, "an eleventh wrong password was checked");
    };
    assert!(refused >= 1);
    assert_eq!(slowed.expect(429)["code"], "too_many_sign_in_failures");
    assert!(slowed.header("retry-after").is_some());
    server.send(&ada.get("/nets")).expect(200);

    let audit = server.send(&ada.get("/audit?limit=1000")).expect(200)["audit"].clone();
    let events: Vec<&str> = audit["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .filter_map(|entry| entry["event"].as_str())
        .collect();
    for event in [
        "sign_in",
        "sign_in_failed",
        "user_created",
        "user_changed",
        "key_created",
        "key_revoked",
        "refused",
    ] {
        assert!(events.contains(&event), "no {event} in {events:?}");
    }
}

#[test]
fn an_unused_session_ends_after_session_idle() {
    let server =
        Server::start_prepared(|_| vec![("NETCFG_SESSION_IDLE".to_owned(), "1s".to_owned())]);
    first_admin(&server);
    let ada = Session::sign_in(&server, "ada", PASSWORD);
    server.send(&ada.get("/session")).expect(200);
    std::thread::sleep(std::time::Duration::from_millis(1_500));
    let ended = server.send(&ada.get("/session")).expect(401);
    assert_eq!(ended["message"], "the session ended: sign in again");
}
