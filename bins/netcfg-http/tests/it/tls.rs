//! HTTPS through the real server (decisions.md §11): with `tls_cert` and
//! `tls_key` it speaks TLS 1.2 and 1.3 on its port and nothing else (a
//! plain HTTP request gets no HTTP answer); a certificate made for the test
//! by rcgen, trusted by a rustls client; a key that does not go with the
//! certificate, or only one of the two settings, stops it at start.

use std::{
    io::{Read, Write},
    net::TcpStream,
    path::Path,
    process::Command,
    sync::Arc,
    time::Duration,
};

use rustls::{
    ClientConfig, ClientConnection, RootCertStore, StreamOwned,
    pki_types::{CertificateDer, ServerName},
};

use crate::support::{HUNG, Server};

/// A self-signed certificate for 127.0.0.1 and its key, as PEM files in
/// `directory`; the certificate's DER for the client to trust.
fn certificate(directory: &Path) -> (String, String, CertificateDer<'static>) {
    let made =
        rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_owned(), "localhost".to_owned()])
            .expect("a certificate");
    let cert = directory.join("cert.pem");
    let key = directory.join("key.pem");
    std::fs::write(&cert, made.cert.pem()).expect("writing the certificate");
    std::fs::write(&key, made.signing_key.serialize_pem()).expect("writing the key");
    (
        cert.display().to_string(),
        key.display().to_string(),
        made.cert.der().clone(),
    )
}

fn https_server(directory: &Path) -> (Server, CertificateDer<'static>) {
    let (cert, key, der) = certificate(directory);
    let server = Server::start_prepared(|_| {
        vec![
            ("NETCFG_TLS_CERT".to_owned(), cert),
            ("NETCFG_TLS_KEY".to_owned(), key),
        ]
    });
    (server, der)
}

/// `GET path` over TLS restricted to `versions`; the status line and the
/// body.
fn get_over_tls(
    server: &Server,
    trusted: &CertificateDer<'static>,
    versions: &[&'static rustls::SupportedProtocolVersion],
    path: &str,
) -> (String, String) {
    let mut roots = RootCertStore::empty();
    roots.add(trusted.clone()).expect("a trusted root");
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = ClientConfig::builder_with_provider(provider)
        .with_protocol_versions(versions)
        .expect("protocol versions")
        .with_root_certificates(roots)
        .with_no_client_auth();
    let name = ServerName::try_from("127.0.0.1").expect("a server name");
    let connection = ClientConnection::new(Arc::new(config), name).expect("a TLS client");
    let socket = TcpStream::connect(server.address).expect("a connection");
    socket.set_read_timeout(Some(HUNG)).expect("a timeout");
    let mut stream = StreamOwned::new(connection, socket);
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    )
    .expect("the request");
    let mut answer = Vec::new();
    // A server may end a TLS connection without close_notify after
    // Connection: close; what was read by then is the answer.
    let _ = stream.read_to_end(&mut answer);
    let version = stream.conn.protocol_version();
    let text = String::from_utf8_lossy(&answer).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    assert!(version.is_some(), "no TLS session: {text}");
    (
        head.lines().next().unwrap_or("").to_owned(),
        body.to_owned(),
    )
}

#[test]
fn the_server_speaks_tls_1_2_and_1_3_and_nothing_else() {
    let directory = tempfile::tempdir().expect("a temporary directory");
    let (server, trusted) = https_server(directory.path());
    for versions in [
        &[&rustls::version::TLS13][..],
        &[&rustls::version::TLS12][..],
    ] {
        let (status, body) = get_over_tls(&server, &trusted, versions, "/nets");
        assert_eq!(status, "HTTP/1.1 200 OK", "{versions:?}: {body}");
        assert!(body.contains("\"configurations\""), "{body}");
    }
    let (status, body) = get_over_tls(&server, &trusted, &[&rustls::version::TLS13], "/");
    assert_eq!(status, "HTTP/1.1 200 OK");
    assert!(
        body.contains("/ui/app.js"),
        "the front end over HTTPS: {body}"
    );

    // Plain HTTP on the same port gets no HTTP answer.
    let mut plain = TcpStream::connect(server.address).expect("a connection");
    plain
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("a timeout");
    plain
        .write_all(b"GET /nets HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        .expect("a request");
    let mut answer = Vec::new();
    let _ = plain.read_to_end(&mut answer);
    assert!(
        !answer.starts_with(b"HTTP/"),
        "plain HTTP was answered: {}",
        String::from_utf8_lossy(&answer)
    );
}

/// Runs the binary to its exit with `args`; its standard error.
fn refused_start(args: &[&str]) -> String {
    let data = tempfile::tempdir().expect("a temporary directory");
    let output = Command::new(env!("CARGO_BIN_EXE_netcfg-http"))
        .args(["--bind", "127.0.0.1", "--port", "0", "--data-dir"])
        .arg(data.path())
        .args(args)
        .env_remove("NETCFG_TLS_CERT")
        .env_remove("NETCFG_TLS_KEY")
        .output()
        .expect("the binary runs");
    assert!(!output.status.success(), "the server started with {args:?}");
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn bad_tls_settings_stop_the_server_at_start() {
    let directory = tempfile::tempdir().expect("a temporary directory");
    let (cert, key, _) = certificate(directory.path());
    let other = directory.path().join("other");
    std::fs::create_dir(&other).expect("a directory");
    let (_, other_key, _) = certificate(&other);

    let alone = refused_start(&["--tls-cert", &cert]);
    assert!(
        alone.contains("tls_cert is set but tls_key is not"),
        "{alone}"
    );
    let mismatched = refused_start(&["--tls-cert", &cert, "--tls-key", &other_key]);
    assert!(mismatched.contains("does not go with"), "{mismatched}");
    let not_pem = refused_start(&["--tls-cert", &key, "--tls-key", &key]);
    assert!(not_pem.contains("tls_cert"), "{not_pem}");
    let missing = refused_start(&["--tls-cert", "/nonexistent/cert.pem", "--tls-key", &key]);
    assert!(missing.contains("cannot read it"), "{missing}");
}
