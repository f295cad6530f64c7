//! Single sign-on through the real binary (decisions §17, `auth.oidc`):
//! what needs no provider, or one that is not there. The sign-in itself is
//! proven against a real OpenID provider in the browser
//! (`tests/browser/test_sign_on.py`).

use std::process::Command;

use serde_json::json;

use crate::support::{Request, Server, free_port};

fn settings(issuer: &str) -> String {
    format!(
        "[auth.oidc]\nissuer = \"{issuer}\"\nclient_id = \"netcfg\"\nclient_secret = \"a-secret\"\nrole_claim = \"groups\"\nroles = {{ \"rtls-admins\" = \"admin\" }}\n"
    )
}

#[test]
fn a_provider_that_is_not_there_is_a_502_naming_it_and_an_unknown_sign_in_is_refused() {
    let issuer = format!("http://127.0.0.1:{}", free_port());
    let server = Server::start_with_config(&settings(&issuer));

    let oidc = server.send(&Request::get("/session/oidc")).expect(200)["oidc"].clone();
    assert_eq!(oidc, json!({"enabled": true, "issuer": issuer}));
    // Single sign-on alone leaves the API open (no user, no token).
    server
        .send(&Request::get("/nets"))
        .assert_status(200, "the API stays open");

    let begun = server.send(&Request::new("POST", "/session/oidc"));
    let body = begun.expect(502);
    assert_eq!(body["code"], "sign_on_provider_failed", "{body}");
    let message = body["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("discovery document") && message.contains(&issuer),
        "{message}"
    );

    let finished = server.send(&Request::json(
        "POST",
        "/session/oidc/callback",
        &json!({"code": "a-code", "state": "never-begun"}),
    ));
    let body = finished.expect(401);
    assert_eq!(body["code"], "sign_on_refused", "{body}");
    assert!(
        body["message"]
            .as_str()
            .unwrap_or_default()
            .contains("unknown or older than 10 minutes"),
        "{body}"
    );
}

#[test]
fn settings_that_would_let_nobody_in_stop_the_server_naming_the_key() {
    let root = tempfile::tempdir().expect("a temporary directory");
    let file = root.path().join("netcfg.toml");
    for (text, words) in [
        (
            "[auth.oidc]\nissuer = \"https://id.example\"\nclient_id = \"netcfg\"\n",
            "give role_claim (with roles) or default_role",
        ),
        (
            "[auth.oidc]\nissuer = \"https://id.example\"\nclient_id = \"netcfg\"\ndefault_role = \"chief\"\n",
            "auth.oidc.default_role",
        ),
        (
            "[auth.oidc]\nissuer = \"id.example\"\nclient_id = \"netcfg\"\ndefault_role = \"viewer\"\n",
            "auth.oidc.issuer",
        ),
    ] {
        std::fs::write(&file, text).expect("the file is written");
        let output = Command::new(env!("CARGO_BIN_EXE_netcfg-http"))
            .args(["--bind", "127.0.0.1", "--port", &free_port().to_string()])
            .arg("--data-dir")
            .arg(root.path().join("data"))
            .arg("--config")
            .arg(&file)
            .output()
            .expect("the binary runs");
        let said = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{text}: the server started");
        assert!(said.contains(words), "{text}: {said}");
    }
}
