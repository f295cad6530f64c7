//! Outputs over TLS with authentication, end to end (decisions §20): an
//! `mqtts://` output to a mosquitto that requires a username and password
//! and shows a certificate from a private authority given as `ca_file`,
//! read by a Paho subscriber over TLS; an `https://` webhook to a server
//! with such a certificate. A wrong password, an unknown authority and a
//! name the certificate was not made for are each a clear `last_error`,
//! not a retry that looks like "connecting".

use std::{
    io::Write,
    net::TcpListener,
    sync::{Arc, mpsc},
    thread,
};

use rustls::{
    ServerConfig, ServerConnection, StreamOwned,
    pki_types::{CertificateDer, PrivateKeyDer, pem::PemObject},
};
use serde_json::{Value, json};

use crate::{
    outputs::{add_output, site_with_desk, status, status_until},
    support::{
        HUNG, Request, Server, act,
        mqtt::{Broker, Subscriber},
        pki::Pki,
        read_http_request,
    },
};

const USER: &str = "site-a";
const PASSWORD: &str = "right horse battery";

/// Changes output `name` of `room` with `body`.
fn patch_output(server: &Server, name: &str, body: &Value) {
    server
        .send(&Request::json(
            "PATCH",
            &format!("/nets/room/outputs/{name}"),
            body,
        ))
        .expect(200);
}

/// Waits until the output's `last_error` names `what`; it is then not
/// connected.
fn error_naming(server: &Server, output: &str, what: &str) -> String {
    let failed = status_until(server, output, |status| {
        status["last_error"]
            .as_str()
            .is_some_and(|error| error.contains(what))
    });
    assert_eq!(failed["connected"], false, "{failed}");
    failed["last_error"].as_str().unwrap_or_default().to_owned()
}

#[test]
fn mqtts_with_a_password_and_a_private_authority_reaches_a_subscriber_and_each_misstep_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let pki = Pki::new(dir.path());
    let broker = Broker::start_secured(&pki, USER, PASSWORD);
    let subscriber = Subscriber::start_secured(
        &broker,
        "netcfg/room/#",
        "netcfg-it-secured",
        (&pki.ca, USER, PASSWORD),
    );
    let server = Server::start();
    site_with_desk(&server);
    let url = format!("mqtts://localhost:{}", broker.port);
    add_output(
        &server,
        &json!({"name": "secure", "url": url, "ca_file": pki.ca,
                "username": USER, "password": PASSWORD,
                "events": ["position", "zone", "state"]}),
    );
    act(&server, "room", "start");
    let (started, _) = subscriber.until(|message| message.topic == "netcfg/room/state");
    assert_eq!(started.payload, json!({"net": "room", "state": "started"}));
    subscriber.until(|message| message.topic.ends_with("/position"));
    let up = status_until(&server, "secure", |status| status["connected"] == true);
    assert!(up["last_error"].is_null(), "{up}");

    patch_output(&server, "secure", &json!({"password": "wrong horse"}));
    let refused = error_naming(&server, "secure", "NotAuthorized");
    assert!(!refused.contains(PASSWORD), "{refused}");

    patch_output(
        &server,
        "secure",
        &json!({"password": PASSWORD, "ca_file": pki.stranger_ca}),
    );
    error_naming(&server, "secure", "UnknownIssuer");

    let by_address = format!("mqtts://127.0.0.1:{}", broker.port);
    patch_output(
        &server,
        "secure",
        &json!({"url": by_address, "ca_file": pki.ca}),
    );
    error_naming(&server, "secure", "not valid for name");

    patch_output(&server, "secure", &json!({"url": url}));
    status_until(&server, "secure", |status| status["connected"] == true);
    act(&server, "room", "stop");
    let (stopped, _) = subscriber.until(|message| {
        message.topic == "netcfg/room/state" && message.payload["state"] != "started"
    });
    assert_eq!(stopped.payload["state"], "stopped");
}

/// A web service over TLS on a free port, with `pki`'s certificate for
/// `localhost`: it answers 200 to every request and passes each body on.
fn https_receiver(pki: &Pki) -> (u16, mpsc::Receiver<Vec<u8>>) {
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(&pki.cert)
        .expect("the certificate file")
        .collect::<Result<_, _>>()
        .expect("a certificate");
    let key = PrivateKeyDer::from_pem_file(&pki.key).expect("the key");
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = Arc::new(
        ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .expect("protocol versions")
            .with_no_client_auth()
            .with_single_cert(certs, key)
            .expect("a server configuration"),
    );
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (sender, received) = mpsc::channel();
    thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(socket) = stream else { continue };
            let _ = socket.set_read_timeout(Some(HUNG));
            let Ok(connection) = ServerConnection::new(Arc::clone(&config)) else {
                continue;
            };
            let mut tls = StreamOwned::new(connection, socket);
            let Some((_, body)) = read_http_request(&mut tls) else {
                // A client that refused our certificate: nothing to read.
                continue;
            };
            let _ =
                tls.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
            let _ = tls.flush();
            tls.conn.send_close_notify();
            let _ = tls.flush();
            if sender.send(body).is_err() {
                break;
            }
        }
    });
    (port, received)
}

#[test]
fn an_https_webhook_with_a_private_authority_receives_zone_events_and_a_stranger_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let pki = Pki::new(dir.path());
    let (port, received) = https_receiver(&pki);
    let server = Server::start();
    site_with_desk(&server);
    add_output(
        &server,
        &json!({"name": "hook", "url": format!("https://localhost:{port}/netcfg"),
                "ca_file": pki.ca, "events": ["zone"], "secret": "k3y"}),
    );
    add_output(
        &server,
        &json!({"name": "stranger", "url": format!("https://localhost:{port}/netcfg"),
                "ca_file": pki.stranger_ca, "events": ["zone"], "secret": "k3y"}),
    );
    act(&server, "room", "start");
    let body = received.recv_timeout(HUNG).expect("a zone event over TLS");
    let event: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(
        (event["zone"].clone(), event["event"].clone()),
        (json!("desk"), json!("enter"))
    );
    status_until(&server, "hook", |status| status["sent"].as_u64() >= Some(1));
    error_naming(&server, "stranger", "UnknownIssuer");
    assert_eq!(status(&server, "hook")["last_error"], Value::Null);
    act(&server, "room", "stop");
}
