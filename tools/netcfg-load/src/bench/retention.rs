//! Retention (issue 50, decisions §20): the two figures of
//! docs/retention.md.
//!
//! 1. A year of a busy site in minutes: the store's example
//!    `retention_year` (built in release, run on the store directly; this
//!    crate speaks only HTTP), whose goal is a file under 500 MB all year.
//! 2. A write while pruning: a configuration with a history of about
//!    [`FILLED`] changes is served again with `history_keep = 20000`, so
//!    its writer prunes some 180,000 changes in the background. PATCHes of
//!    its anchors at one connection are timed while it prunes, then after
//!    it is done, on the same server; the goal: p99 while pruning at most
//!    twice p99 after.

use std::{
    path::Path,
    thread,
    time::{Duration, Instant},
};

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

use super::{step, wrk};
use crate::{
    server::{Client, Launch, Server},
    workspace,
};

const NET: &str = "retention";
const ANCHORS: usize = 100;
/// Changes made before the server is told to keep fewer.
const FILLED: u64 = 200_000;
/// The bound the second server keeps.
const KEEP: u64 = 20_000;
/// The goal: p99 while pruning over p99 after.
const GOAL: f64 = 2.0;

pub(crate) fn measure(binary: &Path, dir: &Path, seconds: u32) -> Result<()> {
    year(dir)?;
    writes_while_pruning(binary, dir, seconds)
}

/// Figure 1: runs the store's year in release; it prints its own figures.
fn year(dir: &Path) -> Result<()> {
    step("retention: a year of a busy site (the store's example retention_year)");
    workspace::cargo(
        &[
            "build",
            "--release",
            "--package",
            "netcfg-store",
            "--example",
            "retention_year",
        ],
        &[],
    )?;
    let example = workspace::target_dir()?.join("release/examples/retention_year");
    let status = std::process::Command::new(&example)
        .arg(dir.join("retention-year"))
        .status()
        .with_context(|| format!("could not run {}", example.display()))?;
    if !status.success() {
        bail!("retention_year failed with {status}");
    }
    Ok(())
}

/// Figure 2: PATCH at one connection while the writer prunes, then after.
fn writes_while_pruning(binary: &Path, dir: &Path, seconds: u32) -> Result<()> {
    step(&format!(
        "retention: {FILLED} changes, then PATCHes while {} of them are pruned, and after",
        FILLED - KEEP
    ));
    let data = dir.join("retention");
    let log = dir.join("server-retention.log");
    let keep_all = settings(dir, "keep-all", FILLED * 10)?;
    let keep_few = settings(dir, "keep-few", KEEP)?;
    let server = Launch::new(binary, &data, &log).config(&keep_all).start()?;
    let serials = prepare(&server.client())?;
    let patch = wrk::patch_script(
        dir,
        NET,
        &serials,
        r#"{"serial_number": "%s", "name": "Anchor %s rev %d", "disabled": false, "interfaces": [{"identifier": 0, "role_id": 2, "x": 1000, "y": 2000, "z": 2500}]}"#,
    )?;
    while newest(&server.client())? < FILLED {
        let load = wrk::run(&patch, &server.url(), 32, 5)?;
        if load.errors > 0 {
            bail!("retention: {} errors filling the history", load.errors);
        }
    }
    let filled = newest(&server.client())?;
    server.stop()?;

    // The writer starts at the first PATCH and then prunes: timed from
    // there, while changes keep coming (at its pace, a tenth of its time).
    let server = Launch::new(binary, &data, &log).config(&keep_few).start()?;
    let during = timed(&patch, &server, seconds)?;
    let through = pruning_began(&server.client())?;
    let under_way = !older_than(&server.client(), through)?.is_empty();
    eprintln!("    {filled} changes; the server prunes changes 1 to {through}");
    let done_after = wait_until_pruned(&server.client(), through)?;
    // The pages go back after the rows: let the vacuum's steps end too.
    thread::sleep(Duration::from_secs(10));
    let after = timed(&patch, &server, seconds)?;
    server.stop()?;
    let ratio = during.p99_ms / after.p99_ms;
    let verdict = if ratio <= GOAL && under_way {
        "met"
    } else {
        "NOT met"
    };
    println!(
        "retention: PATCH at one connection while pruning: p50 {:.3} ms, p99 {:.3} ms ({:.0}/s); after: p50 {:.3} ms, p99 {:.3} ms ({:.0}/s); p99 while / after {ratio:.2} ({verdict}, goal <= {GOAL}; pruning under way to the end of the timing: {under_way}; done {:.0} s after it)",
        during.p50_ms,
        during.p99_ms,
        during.rate(),
        after.p50_ms,
        after.p99_ms,
        after.rate(),
        done_after.as_secs_f64(),
    );
    Ok(())
}

fn settings(dir: &Path, name: &str, history_keep: u64) -> Result<std::path::PathBuf> {
    let path = dir.join(format!("retention-{name}.toml"));
    std::fs::write(&path, format!("history_keep = {history_keep}\n"))
        .with_context(|| format!("could not write {}", path.display()))?;
    Ok(path)
}

/// The configuration [`NET`] with [`ANCHORS`] anchors; their serials.
fn prepare(client: &Client) -> Result<Vec<String>> {
    let net = json!({"name": NET, "instance": "sim"});
    client.expect_ok("POST", "/nets", Some(&net.to_string()))?;
    let mut serials = Vec::new();
    for index in 0..ANCHORS {
        let serial = format!("01:04:{:04X}", index + 1);
        let body = json!({
            "serial_number": serial, "disabled": false,
            "interfaces": [{"identifier": 0, "role_id": 2, "x": 1000, "y": 2000, "z": 2500}]
        });
        client.expect_ok(
            "POST",
            &format!("/nets/{NET}/devices"),
            Some(&body.to_string()),
        )?;
        serials.push(serial);
    }
    Ok(serials)
}

fn history(client: &Client, query: &str) -> Result<Vec<Value>> {
    let answer = client.expect_ok("GET", &format!("/nets/{NET}/history?{query}"), None)?;
    let body: Value = serde_json::from_slice(&answer.body).context("the history is not JSON")?;
    body["history"]
        .as_array()
        .cloned()
        .context("the answer holds no history")
}

fn newest(client: &Client) -> Result<u64> {
    history(client, "limit=1")?
        .first()
        .and_then(|entry| entry["id"].as_u64())
        .context("the history is empty")
}

/// The entries older than change `id` (at most one).
fn older_than(client: &Client, id: u64) -> Result<Vec<Value>> {
    history(client, &format!("limit=1&before={}", id + 1))
}

/// The last change the pruning's entry says it prunes ("(1 to N) went"),
/// found among the newest entries, a page of 1,000 at a time.
fn pruning_began(client: &Client) -> Result<u64> {
    let mut before = newest(client)? + 1;
    for _ in 0..100 {
        let entries = history(client, &format!("limit=1000&before={before}"))?;
        for entry in &entries {
            let summary = entry["summary"].as_str().unwrap_or_default();
            if entry["origin"] == "local" && summary.starts_with("History pruned") {
                return summary
                    .split_once(" to ")
                    .and_then(|(_, rest)| rest.split_once(')'))
                    .and_then(|(number, _)| number.parse().ok())
                    .context("the pruning's entry names no last change");
            }
        }
        match entries.last().and_then(|entry| entry["id"].as_u64()) {
            Some(oldest) => before = oldest,
            None => break,
        }
    }
    bail!("retention: no entry of a pruning in the history")
}

fn wait_until_pruned(client: &Client, through: u64) -> Result<Duration> {
    let began = Instant::now();
    while !older_than(client, through)?.is_empty() {
        if began.elapsed() > Duration::from_secs(600) {
            bail!("retention: the pruning did not end within 10 minutes");
        }
        thread::sleep(Duration::from_millis(200));
    }
    Ok(began.elapsed())
}

fn timed(script: &Path, server: &Server, seconds: u32) -> Result<wrk::Load> {
    let load = wrk::run(script, &server.url(), 1, seconds)?;
    if load.errors > 0 {
        bail!(
            "retention: {} errors of {} PATCHes",
            load.errors,
            load.requests
        );
    }
    Ok(load)
}
