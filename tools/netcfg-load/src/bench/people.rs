//! People (issue 47): what access control costs a read. Two servers of the
//! same build and the same configuration (100 devices): one with access
//! control off, one with a user whose API key every request carries (the
//! key found by its SHA-256 in the server's memory, its use noted). Reads of
//! one device at 64 connections, alternated [`ROUNDS`] times, so both meet
//! the same machine; the goal: with a key ≥ 0.95 × off, in every round.

use std::path::Path;

use anyhow::{Context, Result, bail};
use serde_json::json;

use super::{step, wrk};
use crate::server::{Client, Launch, Server};

/// Rounds of the two servers, alternated.
const ROUNDS: usize = 3;
/// Connections of the reads.
const CONNECTIONS: u32 = 64;
/// Devices of the configuration read.
const DEVICES: usize = 100;
/// The goal: reads with a key over reads with access control off.
const GOAL: f64 = 0.95;
/// The token of the keyed server's settings, to make its user and key.
const TOKEN: &str = "bench-people-admin-token-0123456789";

pub(crate) fn measure(binary: &Path, dir: &Path, seconds: u32) -> Result<()> {
    step("people: reads of one device at 64 connections, access control off and with an API key");
    let settings = dir.join("people.toml");
    std::fs::write(
        &settings,
        format!("[auth]\ntokens = [{{ token = \"{TOKEN}\", access = \"admin\" }}]\n"),
    )
    .context("could not write the keyed server's settings")?;
    let open = Launch::new(
        binary,
        &dir.join("people-open"),
        &dir.join("server-people-open.log"),
    )
    .start()?;
    let keyed = Launch::new(
        binary,
        &dir.join("people-key"),
        &dir.join("server-people-key.log"),
    )
    .config(&settings)
    .start()?;
    let serials = prepare(&open.client())?;
    prepare(&keyed.client().with_bearer(TOKEN))?;
    let key = make_key(&keyed.client().with_bearer(TOKEN))?;
    let plain = wrk::get_one_script(dir, "people", &serials)?;
    let with_key = wrk::get_one_script_as(dir, "people", &serials, &key)?;
    // Warm both (first reads open the configuration's file).
    wrk::run(&plain, &open.url(), CONNECTIONS, 1)?;
    wrk::run(&with_key, &keyed.url(), CONNECTIONS, 1)?;
    let mut ratios = Vec::new();
    for round in 1..=ROUNDS {
        let off = reads(&plain, &open, seconds)?;
        let on = reads(&with_key, &keyed, seconds)?;
        let ratio = on / off;
        ratios.push(ratio);
        println!(
            "people: round {round}: {off:.0} reads/s off, {on:.0} with a key: {ratio:.3} (goal >= {GOAL})"
        );
    }
    let worst = ratios.iter().copied().fold(f64::INFINITY, f64::min);
    let verdict = if worst >= GOAL { "met" } else { "NOT met" };
    println!(
        "people: reads with a key / off, worst of {ROUNDS} rounds: {worst:.3} ({verdict}, goal >= {GOAL})"
    );
    Ok(())
}

/// Reads a second at `CONNECTIONS`, failing on any error.
fn reads(script: &Path, server: &Server, seconds: u32) -> Result<f64> {
    let load = wrk::run(script, &server.url(), CONNECTIONS, seconds)?;
    if load.errors > 0 {
        bail!("people: {} errors of {} reads", load.errors, load.requests);
    }
    Ok(load.rate())
}

/// The configuration `people` with [`DEVICES`] anchors; their serial numbers.
fn prepare(client: &Client) -> Result<Vec<String>> {
    client.expect_ok(
        "POST",
        "/nets",
        Some(r#"{"name": "people", "instance": "sim"}"#),
    )?;
    let mut serials = Vec::new();
    for index in 0..DEVICES {
        let serial = format!("01:04:{:04X}", index + 1);
        let body = json!({
            "serial_number": serial, "disabled": false,
            "interfaces": [{"identifier": 0, "role_id": 4}]
        });
        client.expect_ok("POST", "/nets/people/devices", Some(&body.to_string()))?;
        serials.push(serial);
    }
    Ok(serials)
}

/// A user and its API key, made with the server's admin token.
fn make_key(admin: &Client) -> Result<String> {
    let user = json!({"name": "bench", "role": "viewer", "password": "a password for the bench"});
    admin.expect_ok("POST", "/users", Some(&user.to_string()))?;
    let answer = admin.expect_ok(
        "POST",
        "/users/bench/keys",
        Some(r#"{"name": "reads", "role": "viewer"}"#),
    )?;
    let body: serde_json::Value =
        serde_json::from_slice(&answer.body).context("the key's answer is not JSON")?;
    body["api_key"]["key"]
        .as_str()
        .map(str::to_owned)
        .context("the answer holds no key")
}
