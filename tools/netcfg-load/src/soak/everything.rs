//! `soak --everything` (issue 50): the soak with every feature of a site
//! on, beside the workers' reads and writes. The server runs with access
//! control (an admin token every request carries), and:
//! - [`SITE`], a simulated site with a grid of zones, an output of every
//!   event kind at QoS 1 to a persistent mosquitto that is restarted every
//!   [`Paces::broker`], a recording started again every
//!   [`Paces::recording`], an alert rule, and 100 SSE subscribers
//!   ([`super::listeners`]);
//! - [`CRON`], a small simulated network that a schedule restarts every
//!   [`Paces::schedule`], with an alert rule that fires at each restart;
//! - [`REPLAY`], a looping replay of the site's first recording;
//! - people: a user made, given a key that is used, revoked and refused,
//!   and deleted, over and over.
//!
//! Its verdicts: every zone event the server told its own event stream
//! delivered to the broker's persistent subscriber, every recording a whole
//! pcap with as many records as its summary, every schedule run `ok`, the
//! replay looping, every people request answered as it should be.

use std::{
    collections::BTreeSet,
    path::Path,
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, Ordering},
    },
    thread,
    time::{Duration, Instant},
};

use anyhow::{Context, Result, bail};

use super::listeners::Listeners;
use crate::{
    bench::{
        events,
        outputs::peers::{Broker, EventStream, Subscriber},
        zones,
    },
    crash::capture::whole_records,
    server::{Client, Value, object},
};

/// The site with zones, an output, recordings and subscribers.
pub(super) const SITE: &str = "every-site";
/// The network a schedule restarts.
pub(super) const CRON: &str = "every-cron";
/// The replay of the site's first recording.
pub(super) const REPLAY: &str = "every-replay";
/// The admin token of the run (`auth.tokens`): access control is on.
pub(super) const TOKEN: &str = "soak-run-admin-token-0123456789abcdef";
/// The site's tags (the simulator walks them inside its anchors' square).
const TAGS: usize = 30;
/// Zones on a side of the site's grid.
const ZONE_GRID: usize = 4;
/// The output's name on the site.
const OUTPUT: &str = "broker";
/// The longest wait for the output to hand the broker what it queued.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(60);

/// The configurations this mode owns (the workers' model leaves them out).
pub(super) fn names() -> BTreeSet<String> {
    [SITE, CRON, REPLAY].map(str::to_owned).into()
}

/// How often each thing happens in a run of `duration`: an hour's run
/// restarts the broker every 10 minutes, a minute's every 20 s.
#[derive(Debug, Clone)]
pub(super) struct Paces {
    pub(super) broker: Duration,
    pub(super) recording: Duration,
    /// The schedule's cron expression and its period.
    pub(super) schedule: (&'static str, Duration),
}

impl Paces {
    pub(super) fn of(duration: Duration) -> Paces {
        let schedule = if duration >= Duration::from_secs(600) {
            ("0 */2 * * * *", Duration::from_secs(120))
        } else {
            ("*/20 * * * * *", Duration::from_secs(20))
        };
        Paces {
            broker: (duration / 3).min(Duration::from_secs(600)),
            // A sixth: the replay of the first recording starts within the
            // memory verdict's warm-up (a quarter of the run).
            recording: (duration / 6).min(Duration::from_secs(300)),
            schedule,
        }
    }
}

/// What the mode's threads counted and found wrong.
#[derive(Debug, Default)]
struct Tally {
    broker_restarts: u32,
    recordings: Vec<String>,
    people_rounds: u64,
    errors: Vec<String>,
}

/// The running mode: its listeners and threads.
pub(super) struct Everything {
    client: Client,
    started: Instant,
    paces: Paces,
    reference: EventStream,
    subscriber: Subscriber,
    listeners: Listeners,
    broker: Arc<Mutex<Broker>>,
    tally: Arc<Mutex<Tally>>,
    stop: Arc<AtomicBool>,
    threads: Vec<thread::JoinHandle<()>>,
}

/// What the mode reports once it has stopped: lines for the summary, and
/// the verdicts that failed.
#[derive(Debug)]
pub(super) struct Report {
    pub(super) lines: Vec<String>,
    pub(super) failures: Vec<String>,
}

impl Everything {
    /// Sets everything up on the server at `port` and starts it.
    pub(super) fn start(port: u16, scratch: &Path, duration: Duration) -> Result<Everything> {
        let client = Client::new(port).with_bearer(TOKEN);
        let paces = Paces::of(duration);
        let broker = Broker::start(scratch, "mosquitto-soak", true)?;
        create_site(&client, broker.port())?;
        create_cron(&client, paces.schedule.0)?;
        let subscriber = Subscriber::start(
            broker.port(),
            &[format!("netcfg/{SITE}/#")],
            Some("netcfg-soak"),
            false,
            &scratch.join("mosquitto_sub-soak.log"),
        )?;
        let reference = EventStream::open_as(
            port,
            &format!("/nets/{SITE}/events?types=zone,notification,state"),
            Some(TOKEN),
        )?;
        let listeners = Listeners::open(port, SITE, TOKEN)?;
        action(&client, SITE, "start")?;
        action(&client, CRON, "start")?;
        start_recording(&client, "rec-0")?;
        let mut everything = Everything {
            client,
            started: Instant::now(),
            paces,
            reference,
            subscriber,
            listeners,
            broker: Arc::new(Mutex::new(broker)),
            tally: Arc::new(Mutex::new(Tally {
                recordings: vec!["rec-0".to_owned()],
                ..Tally::default()
            })),
            stop: Arc::new(AtomicBool::new(false)),
            threads: Vec::new(),
        };
        everything.spawn(port);
        Ok(everything)
    }

    fn spawn(&mut self, port: u16) {
        let (broker, tally, stop) = (self.broker.clone(), self.tally.clone(), self.stop.clone());
        let period = self.paces.broker;
        self.threads.push(thread::spawn(move || {
            while pause(&stop, period) {
                let restarted = {
                    let mut broker = crate::sync::lock(&broker);
                    broker.stop().and_then(|()| broker.restart())
                };
                let mut tally = crate::sync::lock(&tally);
                match restarted {
                    Ok(()) => tally.broker_restarts += 1,
                    Err(error) => tally.errors.push(format!("broker restart: {error:#}")),
                }
            }
        }));
        let (tally, stop) = (self.tally.clone(), self.stop.clone());
        let period = self.paces.recording;
        self.threads.push(thread::spawn(move || {
            rotate_recordings(&Client::new(port).with_bearer(TOKEN), &tally, &stop, period);
        }));
        let (tally, stop) = (self.tally.clone(), self.stop.clone());
        self.threads.push(thread::spawn(move || {
            people_rounds(port, &tally, &stop);
        }));
    }

    /// Stops the threads and the site, waits for the output to drain, and
    /// judges.
    pub(super) fn finish(self) -> Result<Report> {
        self.stop.store(true, Ordering::Relaxed);
        for thread in self.threads {
            thread
                .join()
                .map_err(|_| anyhow::anyhow!("a thread of --everything panicked"))?;
        }
        let elapsed = self.started.elapsed();
        let mut tally = std::mem::take(&mut *crate::sync::lock(&self.tally));
        if let Some(current) = tally.recordings.last()
            && let Err(error) = stop_recording(&self.client, current)
        {
            tally
                .errors
                .push(format!("stopping recording {current}: {error:#}"));
        }
        // Connected while the site runs (a restart of the broker may have
        // just ended), then stopped: the output flushes what it queued to
        // a broker that is there, then lets it go.
        let connected = wait_output(&self.client, |status| status["connected"] == true)?;
        action(&self.client, SITE, "stop")?;
        let let_go = wait_output(&self.client, |status| {
            status["connected"] == false && status["queued"] == 0
        })?;
        // The subscriber's last messages, on their way.
        thread::sleep(Duration::from_secs(2));
        let drained = connected && let_go;
        let listened = self.listeners.close();
        let mut report = Report {
            lines: Vec::new(),
            failures: std::mem::take(&mut tally.errors),
        };
        let zone_events =
            judge_zone_events(&self.reference, &self.subscriber, drained, &mut report);
        listened.judge(&zone_events, &mut report);
        judge_recordings(&self.client, &tally.recordings, &mut report)?;
        judge_schedule(&self.client, elapsed, &self.paces, &mut report)?;
        judge_replay(&self.client, &mut report)?;
        report.lines.push(format!(
            "broker restarts {}, people rounds {} (user, key, key used, revoked and refused, user deleted)",
            tally.broker_restarts, tally.people_rounds
        ));
        if tally.broker_restarts == 0 {
            report
                .failures
                .push("the broker was never restarted".to_owned());
        }
        crate::sync::lock(&self.broker).stop()?;
        Ok(report)
    }
}

/// Every zone event of the server's own stream delivered (QoS 1, through
/// the broker's restarts) to the persistent subscriber; the zone keys the
/// stream heard.
fn judge_zone_events(
    reference: &EventStream,
    subscriber: &Subscriber,
    drained: bool,
    report: &mut Report,
) -> BTreeSet<String> {
    let told = reference.heard();
    if told.iter().any(|event| event.kind == "resync") {
        report
            .failures
            .push("the reference stream fell behind (resync): it cannot judge".to_owned());
    }
    let heard: BTreeSet<String> = told
        .into_iter()
        .filter(|event| event.kind == "zone")
        .map(|event| event.key)
        .collect();
    let received = subscriber.received(&format!("netcfg/{SITE}"));
    let missing: Vec<&String> = heard
        .iter()
        .filter(|key| !received.zones.contains_key(*key))
        .collect();
    report.lines.push(format!(
            "zone events {} told, {} delivered to the broker's subscriber, {} missing; positions delivered {}",
            heard.len(),
            received.zones.len(),
            missing.len(),
            received.positions + received.batch_positions
        ));
    if !drained {
        report.failures.push(format!(
            "the output did not drain, or let the broker go, within {} s",
            DRAIN_TIMEOUT.as_secs()
        ));
    }
    if heard.is_empty() {
        report.failures.push("no zone event was told".to_owned());
    }
    if !missing.is_empty() {
        report.failures.push(format!(
            "{} zone events not delivered at QoS 1, the first {}",
            missing.len(),
            missing[0]
        ));
    }
    heard
}

/// Sleeps `period` unless told to stop first; true when the period passed.
fn pause(stop: &AtomicBool, period: Duration) -> bool {
    let until = Instant::now() + period;
    while Instant::now() < until {
        if stop.load(Ordering::Relaxed) {
            return false;
        }
        thread::sleep(Duration::from_millis(100).min(until - Instant::now()));
    }
    !stop.load(Ordering::Relaxed)
}

fn action(client: &Client, net: &str, action: &str) -> Result<()> {
    let body = object([("action", Value::from(action))]);
    let answer = client.send("POST", &format!("/nets/{net}"), Some(&body))?;
    if !matches!(answer.status, 200 | 409) {
        bail!("{action} {net}: {} {}", answer.status, answer.text());
    }
    Ok(())
}

fn create_net(client: &Client, net: &str, devices: &[String]) -> Result<()> {
    let body = object([("name", Value::from(net)), ("instance", Value::from("sim"))]);
    client.expect_ok("POST", "/nets", Some(&body.to_string()))?;
    for device in devices {
        client.expect_ok("POST", &format!("/nets/{net}/devices"), Some(device))?;
    }
    Ok(())
}

/// [`SITE`]: the live events' anchors and [`TAGS`] of their tags, a grid
/// of zones, the output and an alert rule that fires when positions fall
/// below what the site makes (once, while the site runs).
fn create_site(client: &Client, broker: u16) -> Result<()> {
    let devices: Vec<String> = events::site_bodies().into_iter().take(4 + TAGS).collect();
    create_net(client, SITE, &devices)?;
    let zones: Vec<_> = zones::grid(ZONE_GRID)
        .into_iter()
        .map(|body| ("POST", format!("/nets/{SITE}/zones"), body))
        .collect();
    for (method, path, body) in &zones {
        client.expect_ok(method, path, Some(body))?;
    }
    client.expect_ok(
        "POST",
        &format!("/nets/{SITE}/outputs"),
        Some(&format!(
            r#"{{"name": "{OUTPUT}", "url": "mqtt://127.0.0.1:{broker}", "events": ["position", "zone", "notification", "state"], "qos": 1}}"#
        )),
    )?;
    client.expect_ok(
        "POST",
        &format!("/nets/{SITE}/alert_rules"),
        Some(r#"{"name": "busy", "condition": "positions_below", "threshold": 100000, "for_s": 5, "level": 3}"#),
    )?;
    Ok(())
}

/// [`CRON`]: four anchors and two tags, restarted by a schedule, with a
/// rule that fires when a tag falls silent (a restart makes them so).
fn create_cron(client: &Client, cron: &str) -> Result<()> {
    let devices: Vec<String> = events::site_bodies().into_iter().take(6).collect();
    create_net(client, CRON, &devices)?;
    client.expect_ok(
        "POST",
        &format!("/nets/{CRON}/schedules"),
        Some(&format!(
            r#"{{"name": "restart", "cron": "{cron}", "action": "restart"}}"#
        )),
    )?;
    client.expect_ok(
        "POST",
        &format!("/nets/{CRON}/alert_rules"),
        Some(r#"{"name": "silent", "condition": "tag_silent", "for_s": 1, "level": 3}"#),
    )?;
    Ok(())
}

fn start_recording(client: &Client, name: &str) -> Result<()> {
    client.expect_ok(
        "POST",
        &format!("/nets/{SITE}/recordings"),
        Some(&object([("name", Value::from(name))]).to_string()),
    )?;
    Ok(())
}

fn stop_recording(client: &Client, name: &str) -> Result<()> {
    client.expect_ok("DELETE", &format!("/nets/{SITE}/recordings/{name}"), None)?;
    Ok(())
}

/// Every `period`: the current recording stopped and the next started;
/// after the first, the replay of it made and started (looping).
fn rotate_recordings(client: &Client, tally: &Mutex<Tally>, stop: &AtomicBool, period: Duration) {
    let mut number = 0;
    while pause(stop, period) {
        let current = crate::sync::lock(tally)
            .recordings
            .last()
            .cloned()
            .unwrap_or_default();
        number += 1;
        let next = format!("rec-{number}");
        let rotated =
            stop_recording(client, &current).and_then(|()| start_recording(client, &next));
        {
            let mut tally = crate::sync::lock(tally);
            match rotated {
                Ok(()) => tally.recordings.push(next),
                Err(error) => tally.errors.push(format!("recording {next}: {error:#}")),
            }
        }
        if number == 1
            && let Err(error) = start_replay(client)
        {
            crate::sync::lock(tally)
                .errors
                .push(format!("replay: {error:#}"));
        }
    }
}

fn start_replay(client: &Client) -> Result<()> {
    let body = object([
        ("name", Value::from(REPLAY)),
        (
            "instance",
            Value::from(format!("replay:{SITE}/rec-0?speed=10&loop=1")),
        ),
    ]);
    client.expect_ok("POST", "/nets", Some(&body.to_string()))?;
    action(client, REPLAY, "start")
}

/// A user made, given a key; the key used (its session, a read), revoked
/// and refused; the user deleted. Once a second until told to stop.
fn people_rounds(port: u16, tally: &Mutex<Tally>, stop: &AtomicBool) {
    let admin = Client::new(port).with_bearer(TOKEN);
    let mut round = 0_u64;
    while pause(stop, Duration::from_secs(1)) {
        let done = people_round(&admin, port, round);
        let mut tally = crate::sync::lock(tally);
        match done {
            Ok(()) => tally.people_rounds += 1,
            Err(error) => tally
                .errors
                .push(format!("people round {round}: {error:#}")),
        }
        round += 1;
    }
}

fn people_round(admin: &Client, port: u16, round: u64) -> Result<()> {
    let user = format!("soak-p{round}");
    let body = object([
        ("name", Value::from(user.as_str())),
        ("role", Value::from("viewer")),
        ("password", Value::from("a soak's password, long enough")),
    ]);
    admin.expect_ok("POST", "/users", Some(&body.to_string()))?;
    let key = admin
        .expect_ok(
            "POST",
            &format!("/users/{user}/keys"),
            Some(r#"{"name": "reader", "role": "viewer"}"#),
        )?
        .payload("api_key")?;
    let secret = key["key"].as_str().context("the key's secret")?;
    let reader = Client::new(port).with_bearer(secret);
    let session = reader
        .expect_ok("GET", "/session", None)?
        .payload("session")?;
    if session["user"] != user.as_str() || session["via"] != "key" {
        bail!("GET /session with the key: {session}");
    }
    reader.expect_ok("GET", "/nets", None)?;
    admin.expect_ok("DELETE", &format!("/users/{user}/keys/reader"), None)?;
    // 429 once the address has failed too often: refused all the same.
    let refused = reader.send("GET", "/nets", None)?.status;
    if !matches!(refused, 401 | 429) {
        bail!("GET /nets with a revoked key answered {refused}, not 401 or 429");
    }
    admin.expect_ok("DELETE", &format!("/users/{user}"), None)?;
    Ok(())
}

/// Waits until the site's output status is `ready`; false when it was not
/// within [`DRAIN_TIMEOUT`].
fn wait_output(client: &Client, ready: impl Fn(&Value) -> bool) -> Result<bool> {
    let deadline = Instant::now() + DRAIN_TIMEOUT;
    loop {
        let status = client
            .expect_ok(
                "GET",
                &format!("/nets/{SITE}/outputs/{OUTPUT}/status"),
                None,
            )?
            .payload("status")?;
        if ready(&status) {
            return Ok(true);
        }
        if Instant::now() > deadline {
            return Ok(false);
        }
        thread::sleep(Duration::from_millis(200));
    }
}

/// Every recording listed as ended, and its download a whole capture with
/// as many records as its summary's datagrams.
fn judge_recordings(client: &Client, names: &[String], report: &mut Report) -> Result<()> {
    let mut records = 0;
    for name in names {
        let summary = client
            .expect_ok("GET", &format!("/nets/{SITE}/recordings/{name}"), None)?
            .payload("recording")?;
        let capture = client
            .expect_ok(
                "GET",
                &format!("/nets/{SITE}/recordings/{name}/download"),
                None,
            )?
            .body;
        let datagrams = summary["datagrams"].as_u64().unwrap_or(u64::MAX);
        match whole_records(&capture) {
            Ok(count) if count > 0 && count == datagrams && summary["active"] == false => {
                records += count;
            }
            Ok(count) => report.failures.push(format!(
                "recording {name}: {count} records, its summary says {datagrams} (active {})",
                summary["active"]
            )),
            Err(why) => report
                .failures
                .push(format!("recording {name}: not a whole capture: {why}")),
        }
    }
    report.lines.push(format!(
        "recordings {}, each a whole pcap as its summary says ({records} records)",
        names.len()
    ));
    Ok(())
}

/// The schedule's runs: one each period, each `ok`.
fn judge_schedule(
    client: &Client,
    elapsed: Duration,
    paces: &Paces,
    report: &mut Report,
) -> Result<()> {
    let notifications = client
        .expect_ok("GET", &format!("/nets/{CRON}/notifications"), None)?
        .payload("notifications")?;
    let runs: Vec<&Value> = notifications
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .filter(|notification| {
            notification["message"]
                .as_str()
                .is_some_and(|message| message.starts_with("Schedule restart (restart)"))
        })
        .collect();
    // A run that did its action is level 3; a failed or missed one 1 or 2.
    let ok = runs
        .iter()
        .filter(|notification| notification["level"] == 3)
        .count();
    let expected = (elapsed.as_secs() / paces.schedule.1.as_secs()).saturating_sub(1);
    report.lines.push(format!(
        "schedule runs {} ({ok} ok), at least {expected} expected",
        runs.len()
    ));
    if ok != runs.len() || (ok as u64) < expected {
        let messages: Vec<String> = runs
            .iter()
            .map(|notification| notification["message"].to_string())
            .collect();
        report.failures.push(format!(
            "schedule: {ok} runs ok of {}, at least {expected} expected: {messages:?}",
            runs.len(),
        ));
    }
    Ok(())
}

/// The replay runs and has looped.
fn judge_replay(client: &Client, report: &mut Report) -> Result<()> {
    let replay = client.send("GET", &format!("/nets/{REPLAY}/replay"), None)?;
    if replay.status != 200 {
        report.failures.push(format!(
            "replay: GET answered {} {}",
            replay.status,
            replay.text()
        ));
        return Ok(());
    }
    let replay = replay.payload("replay")?;
    report.lines.push(format!(
        "replay {} loops, {} datagrams",
        replay["loops"], replay["datagrams"]
    ));
    if replay["loops"].as_u64().unwrap_or(0) == 0 || replay["datagrams"].as_u64().unwrap_or(0) == 0
    {
        report.failures.push(format!(
            "replay: it never looped, or played nothing: {replay}"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_hour_restarts_the_broker_every_ten_minutes_a_minute_every_twenty_seconds() {
        let hour = Paces::of(Duration::from_secs(3_600));
        assert_eq!(hour.broker, Duration::from_secs(600));
        assert_eq!(hour.recording, Duration::from_secs(300));
        assert_eq!(hour.schedule.1, Duration::from_secs(120));
        let minute = Paces::of(Duration::from_secs(60));
        assert_eq!(minute.broker, Duration::from_secs(20));
        assert_eq!(minute.recording, Duration::from_secs(10));
        assert_eq!(minute.schedule, ("*/20 * * * * *", Duration::from_secs(20)));
    }
}
