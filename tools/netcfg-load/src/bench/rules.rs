//! Alert rules and schedules (issue 30): what the site watching itself
//! costs and how promptly it acts, on the real server.
//!
//! - CPU: [`NETS`] configurations of [`events::TAGS`] tags at 10 Hz on the
//!   simulator (33,000 positions a second), measured alternately with no
//!   alert rule and with [`RULES`] rules each (including the two that
//!   count positions), [`ROUNDS`] times each, in one run: the difference
//!   is what evaluating rules costs.
//! - Alert latency: a `positions_below` rule with an unreachable threshold
//!   holds from its creation; the figure is how long after its creation +
//!   `for_s` its notification was stored. Twice: when it is the rule that
//!   makes the watch count positions (which then needs nearly a second of
//!   them before a rate means anything), and beside a rule that counts them
//!   already (the watch's own delay).
//! - Schedule lateness: a schedule every second for [`SCHEDULE_SECONDS`]:
//!   each run's end (`last_run.at_ms`) minus its time (`due_ms`); then a
//!   run due a few seconds after the server is stopped and started again.

use std::{
    collections::BTreeMap,
    path::Path,
    thread,
    time::{Duration, Instant},
};

use anyhow::{Context, Result, bail};

use super::{events, net_action, step};
use crate::server::{Client, Launch, Server, Value};

/// Configurations running at once.
const NETS: usize = 10;
/// Alternations of the CPU measurement (without rules, then with).
const ROUNDS: usize = 3;
/// Alert rules of each configuration in the "with" phases.
const RULES: [&str; 6] = [
    r#"{"name": "offline", "condition": "anchor_offline", "for_s": 30, "level": 1}"#,
    r#"{"name": "unsynced", "condition": "anchor_unsynced", "for_s": 30, "level": 1}"#,
    r#"{"name": "silent", "condition": "tag_silent", "for_s": 5}"#,
    r#"{"name": "battery", "condition": "battery_below", "threshold": 20, "for_s": 60}"#,
    r#"{"name": "loss", "condition": "packet_loss_above", "threshold": 10, "for_s": 60}"#,
    r#"{"name": "rate", "condition": "positions_below", "threshold": 1000, "for_s": 5}"#,
];
/// Rules added for the alert latency figure.
const ALERT_TRIALS: usize = 5;
/// `for_s` of those rules.
const ALERT_FOR_S: u64 = 2;
/// Seconds the every-second schedule runs.
const SCHEDULE_SECONDS: u64 = 15;

/// The figures of this part.
struct Figures {
    positions_per_second: f64,
    /// Server cores used without rules and with, each round.
    cpu: Vec<(f64, f64)>,
    /// Alert notifications' delay after creation + for_s (ms), as the
    /// first rule to count positions.
    alert_ms: Vec<i64>,
    /// The same beside a rule that counts them already.
    alert_counted_ms: Vec<i64>,
    /// Each scheduled run's end minus its time (ms).
    schedule_ms: Vec<i64>,
    /// The run due after a restart: its end minus its time (ms).
    after_restart_ms: i64,
}

pub(crate) fn measure(binary: &Path, dir: &Path, seconds: u32) -> Result<()> {
    let launch = Launch::new(binary, &dir.join("rules"), &dir.join("server-rules.log"));
    step(&format!(
        "rules: {NETS} configurations of {} tags at 10 Hz on the simulator",
        events::TAGS
    ));
    let server = launch.start()?;
    let client = server.client();
    let nets = start_sites(&server, "rules", NETS)?;
    for net in &nets {
        set_rules(&client, net, &[])?;
    }
    thread::sleep(Duration::from_secs(3));
    let positions_per_second = positions_a_second(&client, &nets[0])? * NETS as f64;

    let mut cpu = Vec::new();
    for round in 1..=ROUNDS {
        step(&format!("rules: round {round}, no rules"));
        for net in &nets {
            set_rules(&client, net, &[])?;
        }
        let without = server_cores(&server, seconds)?;
        step(&format!("rules: round {round}, {} rules each", RULES.len()));
        for net in &nets {
            set_rules(&client, net, &RULES)?;
        }
        let with = server_cores(&server, seconds)?;
        eprintln!("    server CPU {without:.3} cores without rules, {with:.3} with");
        cpu.push((without, with));
    }

    step("rules: alert latency");
    let (alert_ms, alert_counted_ms) = alert_latency(&client, &nets[0])?;
    step("rules: schedule lateness");
    let schedule_ms = schedule_lateness(&client, &nets[1])?;
    drop(client);

    step("rules: a run due just after a restart of the server");
    let (server, after_restart_ms) = run_after_restart(server, &launch, &nets[2])?;
    server.stop()?;

    print(&Figures {
        positions_per_second,
        cpu,
        alert_ms,
        alert_counted_ms,
        schedule_ms,
        after_restart_ms,
    });
    Ok(())
}

/// Creates and starts `count` configurations named `{prefix}1`, ... of
/// the live events' site on the simulator; returns their names.
pub(crate) fn start_sites(server: &Server, prefix: &str, count: usize) -> Result<Vec<String>> {
    let client = server.client();
    let nets: Vec<String> = (1..=count)
        .map(|index| format!("{prefix}{index}"))
        .collect();
    for net in &nets {
        events::create_site(server, net)?;
        net_action(&client, net, "start")?;
    }
    Ok(nets)
}

/// Leaves `net` with exactly `rules`.
fn set_rules(client: &Client, net: &str, rules: &[&str]) -> Result<()> {
    let listed = client
        .expect_ok("GET", &format!("/nets/{net}/alert_rules"), None)?
        .payload("alert_rules")?;
    for rule in listed.as_array().context("a list of rules")? {
        let name = rule["name"].as_str().context("a rule's name")?;
        client.expect_ok("DELETE", &format!("/nets/{net}/alert_rules/{name}"), None)?;
    }
    for rule in rules {
        client.expect_ok("POST", &format!("/nets/{net}/alert_rules"), Some(rule))?;
    }
    Ok(())
}

/// Positions a second of `net`, from its `positions_below` rule's view: a
/// rule with an unreachable threshold fires with the count in its message.
fn positions_a_second(client: &Client, net: &str) -> Result<f64> {
    client.expect_ok(
        "POST",
        &format!("/nets/{net}/alert_rules"),
        Some(r#"{"name": "probe", "condition": "positions_below", "threshold": 1000000, "for_s": 0, "level": 4}"#),
    )?;
    let message = wait_for_message(client, net, "alert rule probe:")?;
    client.expect_ok("DELETE", &format!("/nets/{net}/alert_rules/probe"), None)?;
    let text = message["message"].as_str().unwrap_or_default();
    let count = text
        .split_once(": ")
        .and_then(|(_, rest)| rest.split_whitespace().next())
        .and_then(|number| number.parse::<f64>().ok())
        .with_context(|| format!("no count in {text:?}"))?;
    eprintln!("    {count:.0} positions a second in {net}");
    Ok(count)
}

/// Server cores used over `seconds`.
pub(crate) fn server_cores(server: &Server, seconds: u32) -> Result<f64> {
    // Let the watch read the new rules, and the counts settle.
    thread::sleep(Duration::from_secs(2));
    let path = format!("/proc/{}/stat", server.pid());
    let (started, before) = (Instant::now(), events::process_ticks(&path)?);
    thread::sleep(Duration::from_secs(u64::from(seconds)));
    let after = events::process_ticks(&path)?;
    Ok(after.saturating_sub(before) as f64 / 100.0 / started.elapsed().as_secs_f64())
}

/// The newest notification of `net` whose message starts with `prefix`,
/// waited for (a minute at most).
fn wait_for_message(client: &Client, net: &str, prefix: &str) -> Result<Value> {
    let until = Instant::now() + Duration::from_secs(60);
    while Instant::now() < until {
        let listed = client
            .expect_ok("GET", &format!("/nets/{net}/notifications"), None)?
            .payload("notifications")?;
        let found = listed
            .as_array()
            .context("a list of notifications")?
            .iter()
            .filter(|notification| {
                notification["message"]
                    .as_str()
                    .is_some_and(|message| message.starts_with(prefix))
            })
            .max_by_key(|notification| notification["identifier"].as_u64())
            .cloned();
        if let Some(found) = found {
            return Ok(found);
        }
        thread::sleep(Duration::from_millis(20));
    }
    bail!("no notification of {net} starting {prefix:?} within a minute")
}

/// For each trial, a `positions_below` rule that always holds: how long
/// after its creation + `for_s` its notification was stored; the first
/// [`ALERT_TRIALS`] as the only rule that reads positions, the next beside
/// one that counts them already (and never fires).
fn alert_latency(client: &Client, net: &str) -> Result<(Vec<i64>, Vec<i64>)> {
    let mut first = Vec::new();
    let mut counted = Vec::new();
    set_rules(client, net, &[])?;
    for trial in 1..=2 * ALERT_TRIALS {
        if trial <= ALERT_TRIALS {
            // Two looks with no rule that reads positions: the count stops.
            thread::sleep(Duration::from_millis(1_200));
        }
        if trial == ALERT_TRIALS + 1 {
            client.expect_ok(
                "POST",
                &format!("/nets/{net}/alert_rules"),
                Some(r#"{"name": "counting", "condition": "positions_below", "threshold": 0}"#),
            )?;
            thread::sleep(Duration::from_secs(2));
        }
        let name = format!("latency{trial}");
        let body = format!(
            r#"{{"name": "{name}", "condition": "positions_below", "threshold": 1000000, "for_s": {ALERT_FOR_S}}}"#
        );
        let created = crate::sync::wall_clock_whole_ms() as i64;
        client.expect_ok("POST", &format!("/nets/{net}/alert_rules"), Some(&body))?;
        let fired = wait_for_message(client, net, &format!("alert rule {name}:"))?;
        let stored = fired["timestamp_ms"].as_i64().context("a timestamp")?;
        let delay = stored - created - i64::try_from(ALERT_FOR_S * 1_000)?;
        eprintln!("    trial {trial}: fired {delay} ms after creation + {ALERT_FOR_S} s");
        if trial <= ALERT_TRIALS {
            first.push(delay);
        } else {
            counted.push(delay);
        }
        client.expect_ok("DELETE", &format!("/nets/{net}/alert_rules/{name}"), None)?;
    }
    client.expect_ok("DELETE", &format!("/nets/{net}/alert_rules/counting"), None)?;
    Ok((first, counted))
}

/// A schedule every second (a start of the running network: skipped, so
/// the figure is the scheduler's own): each run's end minus its time.
fn schedule_lateness(client: &Client, net: &str) -> Result<Vec<i64>> {
    client.expect_ok(
        "POST",
        &format!("/nets/{net}/schedules"),
        Some(r#"{"name": "tick", "cron": "* * * * * *", "action": "start"}"#),
    )?;
    let mut runs = BTreeMap::new();
    let until = Instant::now() + Duration::from_secs(SCHEDULE_SECONDS);
    while Instant::now() < until {
        let schedule = client
            .expect_ok("GET", &format!("/nets/{net}/schedules/tick"), None)?
            .payload("schedule")?;
        let run = &schedule["last_run"];
        if let (Some(due), Some(at), Some("skipped")) = (
            run["due_ms"].as_i64(),
            run["at_ms"].as_i64(),
            run["outcome"].as_str(),
        ) {
            runs.insert(due, at - due);
        }
        thread::sleep(Duration::from_millis(50));
    }
    client.expect_ok("DELETE", &format!("/nets/{net}/schedules/tick"), None)?;
    if runs.len() + 2 < SCHEDULE_SECONDS as usize {
        bail!(
            "the every-second schedule ran {} times in {SCHEDULE_SECONDS} s",
            runs.len()
        );
    }
    Ok(runs.into_values().collect())
}

/// A stop schedule due 6 s from now: the server is stopped and started
/// again before it; the run's end minus its time.
fn run_after_restart(server: Server, launch: &Launch, net: &str) -> Result<(Server, i64)> {
    let due = (crate::sync::wall_clock_whole_ms() as i64 / 1_000 + 6) * 1_000;
    let secs = due / 1_000;
    let cron = format!(
        "{} {} {} * * *",
        secs % 60,
        secs / 60 % 60,
        secs / 3_600 % 24
    );
    let body =
        format!(r#"{{"name": "later", "cron": "{cron}", "timezone": "UTC", "action": "stop"}}"#);
    server
        .client()
        .expect_ok("POST", &format!("/nets/{net}/schedules"), Some(&body))?;
    server.stop()?;
    let server = launch.start()?;
    let client = server.client();
    let until = Instant::now() + Duration::from_secs(30);
    while Instant::now() < until {
        let schedule = client
            .expect_ok("GET", &format!("/nets/{net}/schedules/later"), None)?
            .payload("schedule")?;
        let run = &schedule["last_run"];
        if run["due_ms"].as_i64() == Some(due) && run["outcome"].as_str() != Some("running") {
            let late = run["at_ms"].as_i64().context("at_ms")? - due;
            eprintln!(
                "    the run after the restart: {} ({late} ms after its time)",
                run["outcome"]
            );
            return Ok((server, late));
        }
        thread::sleep(Duration::from_millis(50));
    }
    bail!("the schedule due after the restart did not run")
}

fn print(figures: &Figures) {
    let cores = |pick: fn(&(f64, f64)) -> f64| {
        figures
            .cpu
            .iter()
            .map(pick)
            .map(|value| format!("{value:.3}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let extra: Vec<String> = figures
        .cpu
        .iter()
        .map(|(without, with)| format!("{:+.3}", with - without))
        .collect();
    let spread = |values: &[i64]| {
        let mut sorted = values.to_vec();
        sorted.sort_unstable();
        format!(
            "min {} ms, median {} ms, max {} ms over {}",
            sorted.first().unwrap_or(&0),
            sorted.get(sorted.len() / 2).unwrap_or(&0),
            sorted.last().unwrap_or(&0),
            sorted.len()
        )
    };
    println!("bench: alert rules and schedules");
    println!(
        "  positions a second, all configurations: {:.0}",
        figures.positions_per_second
    );
    println!(
        "  server cores without rules, each round: {}",
        cores(|pair| pair.0)
    );
    println!(
        "  server cores with {} rules each: {}",
        RULES.len(),
        cores(|pair| pair.1)
    );
    println!(
        "  rules' cost, each round (cores; goal: nothing measurable): {}",
        extra.join(", ")
    );
    let without: Vec<f64> = figures.cpu.iter().map(|pair| pair.0).collect();
    let with: Vec<f64> = figures.cpu.iter().map(|pair| pair.1).collect();
    let noise = without.iter().copied().fold(f64::MIN, f64::max)
        - without.iter().copied().fold(f64::MAX, f64::min);
    let mean = |values: &[f64]| values.iter().sum::<f64>() / values.len().max(1) as f64;
    println!(
        "  mean cost {:+.3} cores; the rounds without rules differ by {noise:.3} among themselves",
        mean(&with) - mean(&without)
    );
    println!(
        "  alert fired after creation + for_s, the rule that starts the count: {}",
        spread(&figures.alert_ms)
    );
    println!(
        "  alert fired after creation + for_s, positions counted already (goal: within 1 s): {}",
        spread(&figures.alert_counted_ms)
    );
    println!(
        "  every-second schedule, run's end after its time (goal: within 1 s): {}",
        spread(&figures.schedule_ms)
    );
    println!(
        "  a run due 6 s after its schedule, across a restart: {} ms after its time",
        figures.after_restart_ms
    );
}
