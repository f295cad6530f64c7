//! People (issue 47): what access control costs a read. Two servers of the
//! same build and the same configuration (100 devices): one with access
//! control off, one with a user whose API key every request carries (the
//! key found by its SHA-256 in the server's memory, its use noted). Reads of
//! one device at 64 connections, in [`ORDER`] (off, key, key, off, off, key:
//! a drift of the machine during the run weighs on both alike), so both
//! meet the same machine; the goal: all reads with a key ≥ 0.95 × all reads
//! with access control off, in the run. Each pair's own ratio is printed
//! beside it: their spread is the machine's, a few percent either way.

use std::path::Path;

use anyhow::{Context, Result, bail};
use serde_json::json;

use super::{step, wrk};
use crate::server::{Client, Launch, Server};

/// Which server each stretch of reads goes to (true: the keyed one).
const ORDER: [bool; 6] = [false, true, true, false, false, true];
/// Connections of the reads.
const CONNECTIONS: u32 = 64;
/// Devices of the configuration read.
const DEVICES: usize = 100;
/// The goal: reads with a key over reads with access control off.
const GOAL: f64 = 0.95;
/// The keyed server's user, and its password.
const USER: &str = "bench";
const PASSWORD: &str = "a password for the bench";
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
    let (mut off, mut on) = (Vec::new(), Vec::new());
    for keyed_turn in ORDER {
        if keyed_turn {
            on.push(reads(&with_key, &keyed, seconds)?);
        } else {
            off.push(reads(&plain, &open, seconds)?);
        }
        if let (Some(last_off), Some(last_on)) = (off.last(), on.last())
            && off.len() == on.len()
        {
            println!(
                "people: pair {}: {last_off:.0} reads/s off, {last_on:.0} with a key: {:.3}",
                on.len(),
                last_on / last_off
            );
        }
    }
    let ratio = on.iter().sum::<f64>() / off.iter().sum::<f64>();
    let verdict = if ratio >= GOAL { "met" } else { "NOT met" };
    println!(
        "people: reads with a key / off, all {} stretches: {ratio:.3} ({verdict}, goal >= {GOAL})",
        ORDER.len()
    );
    let read_one = format!("/nets/people/devices/{}", serials[0]);
    super::sign_in::measure(&keyed.client(), USER, PASSWORD, &key, &read_one)
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
    let user = json!({"name": USER, "role": "viewer", "password": PASSWORD});
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
