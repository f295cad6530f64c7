//! People (issue 47), sign-ins: what a sign-in with the right password
//! costs (Argon2id, 19 MiB, two passes; goal p50 < 150 ms), and what 200
//! wrong passwords a second from one address for 10 s do to another
//! client of the same address reading with its API key (goal: p99 < 50 ms,
//! never refused: the lockout slows sign-ins, never a live key).

use std::{
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    thread,
    time::{Duration, Instant},
};

use anyhow::{Result, bail};

use super::report::percentile;
use crate::server::Client;

/// Sign-ins with the right password measured one after another.
const SIGN_INS: usize = 20;
/// The goal for their p50, in ms.
const SIGN_IN_GOAL_MS: f64 = 150.0;
/// Wrong passwords a second, and for how long.
const FLOOD_RATE: u32 = 200;
const FLOOD_FOR: Duration = Duration::from_secs(10);
/// The goal for the other client's p99 during the flood, in ms.
const FLOODED_GOAL_MS: f64 = 50.0;

/// Both measurements against the keyed server (`client`, no credential):
/// `user`/`password` sign in; `key` reads `path`.
pub(crate) fn measure(
    client: &Client,
    user: &str,
    password: &str,
    key: &str,
    path: &str,
) -> Result<()> {
    let body = serde_json::json!({"name": user, "password": password}).to_string();
    let mut took = Vec::new();
    for _ in 0..SIGN_INS {
        let begun = Instant::now();
        let answer = client.expect_ok("POST", "/session", Some(&body))?;
        took.push(begun.elapsed().as_secs_f64() * 1e3);
        drop(answer);
    }
    let p50 = percentile(&took, 50);
    let verdict = if p50 < SIGN_IN_GOAL_MS {
        "met"
    } else {
        "NOT met"
    };
    println!(
        "people: a sign-in with the right password: p50 {p50:.1} ms, p99 {:.1} ms of {SIGN_INS} ({verdict}, goal p50 < {SIGN_IN_GOAL_MS:.0} ms)",
        percentile(&took, 99)
    );

    let stop = Arc::new(AtomicBool::new(false));
    let flood = {
        let (client, stop) = (client.clone(), stop.clone());
        let wrong = serde_json::json!({"name": user, "password": "not the password at all"});
        thread::spawn(move || flood(&client, &wrong, &stop))
    };
    let reader = client.clone().with_bearer(key);
    let (mut latencies, mut refused) = (Vec::new(), 0u32);
    let ends = Instant::now() + FLOOD_FOR;
    while Instant::now() < ends {
        let begun = Instant::now();
        let answer = reader.send("GET", path, None)?;
        latencies.push(begun.elapsed().as_secs_f64() * 1e3);
        if answer.status != 200 {
            refused += 1;
        }
        thread::sleep(Duration::from_millis(2));
    }
    stop.store(true, Ordering::SeqCst);
    let Ok(counts) = flood.join() else {
        bail!("people: the flooding thread panicked");
    };
    let counts = counts?;
    let p99 = percentile(&latencies, 99);
    let verdict = if p99 < FLOODED_GOAL_MS && refused == 0 {
        "met"
    } else {
        "NOT met"
    };
    println!(
        "people: {} wrong passwords in {:.0} s from one address ({} answered 401, {} 429): the key's reads p50 {:.2} ms, p99 {p99:.2} ms, {refused} refused of {} ({verdict}, goal p99 < {FLOODED_GOAL_MS:.0} ms and none refused)",
        counts.sent,
        FLOOD_FOR.as_secs_f64(),
        counts.unauthorized,
        counts.too_many,
        percentile(&latencies, 50),
        latencies.len()
    );
    Ok(())
}

/// What the flood was answered.
#[derive(Debug, Default)]
struct FloodCounts {
    sent: u32,
    unauthorized: u32,
    too_many: u32,
}

/// Wrong passwords at [`FLOOD_RATE`] a second until `stop`.
fn flood(client: &Client, wrong: &serde_json::Value, stop: &AtomicBool) -> Result<FloodCounts> {
    let period = Duration::from_secs(1) / FLOOD_RATE;
    let mut counts = FloodCounts::default();
    let mut next = Instant::now();
    while !stop.load(Ordering::SeqCst) {
        let answer = client.send("POST", "/session", Some(wrong))?;
        counts.sent += 1;
        match answer.status {
            401 => counts.unauthorized += 1,
            429 => counts.too_many += 1,
            other => bail!("people: a wrong password answered {other}"),
        }
        next += period;
        if let Some(wait) = next.checked_duration_since(Instant::now()) {
            thread::sleep(wait);
        }
    }
    Ok(counts)
}
