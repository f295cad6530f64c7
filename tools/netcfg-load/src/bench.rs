//! `cargo xtask bench` (`netcfg-load bench`): load benchmarks of the real server (issues 8 and
//! 12), on loopback, with wrk. Every figure is a ratio or a distribution
//! from one run; goals are reported beside them, never enforced (the
//! command fails only when something could not run). What each figure
//! means: docs/benchmarks.md.
//!
//! The steps, in order, over `target/bench/`:
//! 1. start-up of the server on an empty data directory (several runs);
//! 2. load the site (`fixtures/bench/site.jsonl`) with concurrent POSTs, and
//!    save the rendered `GET /nets/bench/devices` as the baseline's bytes;
//! 3. growth: single adds timed at the 10th and the 10,000th device
//!    (bench/growth.rs);
//! 4. restart with the baseline route, then reads (devices and baseline, at
//!    1, 8, 32, 64 connections); the disk's fdatasync in the data directory
//!    (bench/disk.rs); durable writes (PATCH of the full device body at 1
//!    and 32 connections); memory sampled throughout;
//! 5. copy the site into 100 configurations; start-up over them (several
//!    runs) and idle memory;
//! 6. live events: 1,000 subscribers to a configuration of 330 tags at
//!    10 Hz, reads with and without them, memory per subscriber, the share
//!    of position batches each received (bench/events.rs; alone with
//!    `--only events`);
//! 7. print the figures beside their goals; write report.md and report.json;
//! 8. the web front end in headless Chromium: first render, 10,000 devices,
//!    1,000 tags on the floor plan (bench/front_end.rs; alone with
//!    `--only front-end`), printed by its script;
//! 9. floods (bench/floods.rs, `--only floods`), then alert rules and
//!    schedules (bench/rules.rs, `--only rules`): their CPU at 33,000
//!    positions a second, how soon a rule fires and a schedule runs;
//! 10. solved locations (bench/accuracy.rs, `--only accuracy`): reference
//!     tags against the Cramér–Rao bound, noise, NLOS, coverage, survey;
//! 11. zones (bench/zones.rs, `--only zones`): their CPU at 33,000
//!     positions a second, and how soon an event reaches a subscriber.
//! 12. outputs to MQTT (bench/outputs.rs, `--only outputs`): every
//!     position delivered one by one and batched, the CPU of a position
//!     beside a Python bridge, and a broker outage of 60 s.
//! 13. recordings and replays (bench/recordings.rs, `--only recordings`):
//!     the CPU of recording 33,000 positions a second, the bytes of a
//!     position on disk, a replay at ten times against its recording, and
//!     the server's memory during a 64 MiB upload.
//! 14. tracks (bench/tracking.rs, `--only tracking`), then people
//!     (bench/people.rs, `--only people`): reads of one device with an API
//!     key against access control off.
//! 15. retention (bench/retention.rs, `--only retention`): a year of a busy
//!     site in minutes, and PATCHes while the history is pruned.

mod accuracy;
mod disk;
pub(crate) mod events;
mod fixture;
mod floods;
mod front_end;
mod growth;
pub(crate) mod outputs;
mod people;
mod recordings;
mod report;
mod retention;
mod rules;
mod sign_in;
pub(crate) mod sse;
mod tracking;
mod wrk;
pub(crate) mod zones;

use std::{
    fs,
    path::{Path, PathBuf},
    thread,
    time::{Duration, Instant},
};

use anyhow::{Context, Result, bail};
use clap::ValueEnum as _;

use self::{
    report::{Figures, Footprint, Growth, ReadPoint, Report},
    wrk::Load,
};
use crate::{
    server::{self, Client, Launch, Profile, Server, Value},
    tools,
};

/// The site's configuration.
const NET: &str = "bench";
/// Connection counts of the read runs (the chart's x axis).
const READ_CONNECTIONS: [u32; 4] = [1, 8, 32, 64];
/// Configurations of the start-up figure.
const FLEET: usize = 100;
/// Start-ups timed for each start-up median.
const STARTUPS: usize = 5;
/// Timed fdatasyncs of the disk figure.
const FDATASYNC_ROUNDS: usize = 400;
/// Client threads that load fixtures (their adds share commits).
const LOADERS: usize = 8;

/// `cargo xtask bench`'s options (and `netcfg-load bench`'s).
#[derive(Debug, Clone, clap::Args)]
pub struct Options {
    /// Seconds per load point
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..))]
    pub seconds: u32,
    /// Rewrite fixtures/bench/site.jsonl from the code and stop
    #[arg(long)]
    pub write_fixture: bool,
    /// Run only one part of the bench (every part when left out)
    #[arg(long, value_enum)]
    pub only: Option<Only>,
}

impl Options {
    /// The options spelt out as the command line reads them.
    pub(crate) fn to_args(&self) -> Vec<String> {
        let mut args = vec!["--seconds".to_owned(), self.seconds.to_string()];
        if self.write_fixture {
            args.push("--write-fixture".to_owned());
        }
        if let Some(only) = self.only.and_then(|only| only.to_possible_value()) {
            args.extend(["--only".to_owned(), only.get_name().to_owned()]);
        }
        args
    }

    /// Whether the run measures the part `only`.
    fn runs(&self, only: Only) -> bool {
        !self.write_fixture && self.only.is_none_or(|chosen| chosen == only)
    }

    /// Whether the run drives wrk (the site's steps and the live events).
    pub fn uses_wrk(&self) -> bool {
        self.runs(Only::Site)
            || self.runs(Only::Events)
            || self.runs(Only::People)
            || self.runs(Only::Retention)
    }

    /// Whether the run drives Chromium (the front end's step).
    pub fn uses_chromium(&self) -> bool {
        self.runs(Only::FrontEnd)
    }

    /// Whether the run needs mosquitto, its clients, paho-mqtt and cdp-py
    /// (the outputs' step).
    pub fn uses_mqtt(&self) -> bool {
        self.runs(Only::Outputs)
    }
}

/// Steps that run alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Only {
    /// The site's steps: start-up, reads, disk, writes, growth, footprint
    Site,
    /// Live events: 1,000 subscribers, reads with and without them
    Events,
    /// The web front end in Chromium: first render, 10,000 devices, the
    /// floor plan at 1,000 tags
    FrontEnd,
    /// A client's reads beside 5,000 idle and 500 trickling connections,
    /// and beside 64 writers
    Floods,
    /// Alert rules and schedules: their CPU at 33,000 positions a second,
    /// how soon a rule fires and a schedule runs
    Rules,
    /// Solved locations: reference tags against the Cramér–Rao bound,
    /// ten times the noise, NLOS, coverage, the survey
    Accuracy,
    /// Zones: their CPU at 33,000 positions a second against 1,000 and
    /// 10,240 zones, and how soon an event reaches a subscriber
    Zones,
    /// Outputs to MQTT: every position delivered (one by one, and batched
    /// at 33,000 a second), the CPU of a position beside a Python bridge,
    /// and what a broker outage of 60 s loses
    Outputs,
    /// Recordings and replays: the CPU of a recording of each of ten
    /// configurations (33,000 positions a second), the bytes of a position
    /// on disk, a replay at ten times, the server's memory during an upload
    Recordings,
    /// Tracks: standing and walking tags, tracked against per fix, against
    /// the simulator's truth
    Tracking,
    /// People: reads of one device with an API key against access control off
    People,
    /// Retention: a year of a busy site in minutes (the file's size), and
    /// PATCHes while the history is pruned against after
    Retention,
}

/// A part of the bench that measures on its own servers and prints its
/// own figures: `measure(binary, dir, seconds)`.
type Part = fn(&Path, &Path, u32) -> Result<()>;

pub(crate) fn bench(options: &Options) -> Result<()> {
    if options.write_fixture {
        return fixture::write();
    }
    let started = Instant::now();
    let runs = |only| options.runs(only);
    // A stale fixture stops the bench before the build.
    let site = runs(Only::Site).then(fixture::load).transpose()?;
    if options.uses_wrk() {
        tools::wrk()?;
    }
    if options.uses_chromium() {
        tools::chromium()?;
    }
    if options.uses_mqtt() {
        tools::mqtt()?;
    }
    let binary = server::build(Profile::Release)?;

    // Emptied: the reports, the logs and the data directories of the last
    // run go.
    let dir = server::scratch_dir("bench")?;
    let load_before = load_average();
    let site = match site {
        Some(site) => Some(site_figures(options, &site, &binary, &dir)?),
        None => None,
    };
    let events = if runs(Only::Events) {
        Some(events::measure(&binary, &dir, options.seconds)?)
    } else {
        None
    };
    if site.is_some() || events.is_some() {
        let report = Report {
            seconds_per_point: options.seconds,
            load_average: [load_before, load_average()],
            site,
            events,
        };
        write_reports(&dir, &report)?;
        println!(
            "bench: figures of this run (target/bench/report.md; {:.0} s in all):",
            started.elapsed().as_secs_f64()
        );
        print!("{}", report.text());
    }
    // The parts that print their own figures, in the order of the steps
    // above.
    let parts: [(Only, Part); 10] = [
        (Only::FrontEnd, front_end::measure),
        (Only::Floods, floods::measure),
        (Only::Rules, rules::measure),
        (Only::Accuracy, accuracy::measure),
        (Only::Zones, zones::measure),
        (Only::Outputs, outputs::measure),
        (Only::Recordings, recordings::measure),
        (Only::Tracking, tracking::measure),
        (Only::People, people::measure),
        (Only::Retention, retention::measure),
    ];
    for (only, measure) in parts {
        if runs(only) {
            measure(&binary, &dir, options.seconds)?;
        }
    }
    Ok(())
}

/// The site's steps (1 to 5).
fn site_figures(options: &Options, site: &[String], binary: &Path, dir: &Path) -> Result<Figures> {
    let empty = Launch::new(binary, &dir.join("empty"), &dir.join("server-empty.log"));
    let site_data = Launch::new(binary, &dir.join("data"), &dir.join("server-data.log"));

    step("start-up on an empty data directory");
    let mut rss_idle_empty_kb = 0;
    let startup_empty_ms = startups(|| {
        let server = empty.start()?;
        thread::sleep(Duration::from_secs(1));
        rss_idle_empty_kb = server.rss_kib()?;
        Ok(server)
    })?;

    let (rendered, baseline_file, growth) = load_site(&site_data, site, dir)?;
    let server = site_data.clone().baseline(&baseline_file).start()?;
    check_baseline(&server, &rendered)?;
    thread::sleep(Duration::from_millis(500));
    let rss_idle_before_kb = server.rss_kib()?;
    let sampler = server.sample_rss();
    let reads = reads(options, dir, &server)?;
    let writes = disk_and_writes(options, site, dir, &server)?;
    let rss_load_peak_kb = sampler.finish();
    thread::sleep(Duration::from_secs(1));
    let rss_idle_after_kb = server.rss_kib()?;
    copy_site(&server)?;
    server.stop()?;

    step(&format!("start-up with {FLEET} configurations"));
    let mut rss_idle_full_kb = 0;
    let startup_full_ms = startups(|| {
        let server = site_data.start()?;
        let listed =
            String::from_utf8_lossy(&server.client().expect_ok("GET", "/nets", None)?.body)
                .matches(&format!("\"{NET}-copy-"))
                .count();
        if listed != FLEET - 1 {
            bail!("GET /nets listed {listed} copies, not {}", FLEET - 1);
        }
        thread::sleep(Duration::from_secs(1));
        rss_idle_full_kb = server.rss_kib()?;
        Ok(server)
    })?;

    Ok(Figures {
        devices: site.len(),
        response_bytes: rendered.len(),
        reads,
        writes,
        growth,
        footprint: Footprint {
            configurations: FLEET,
            devices_each: site.len(),
            startup_empty_ms,
            startup_full_ms,
            rss_idle_full_kb,
            rss_idle_empty_kb,
            rss_idle_before_kb,
            rss_idle_after_kb,
            rss_load_peak_kb,
        },
    })
}

/// Steps 2 and 3: loads the site into [`NET`], saves its rendered device
/// list as the baseline's bytes (returned with the file's path), and
/// times the growth's single adds on the same server.
fn load_site(launch: &Launch, site: &[String], dir: &Path) -> Result<(Vec<u8>, PathBuf, Growth)> {
    step("loading the site: 50 anchors, 1,000 tags");
    let server = launch.start()?;
    let client = server.client();
    create_net(&client, NET)?;
    let adds: Vec<_> = site
        .iter()
        .map(|body| ("POST", format!("/nets/{NET}/devices"), body.clone()))
        .collect();
    growth::send_concurrently(server.port(), LOADERS, &adds)?;
    let rendered = client
        .expect_ok("GET", &format!("/nets/{NET}/devices"), None)?
        .body;
    let baseline_file = dir.join("baseline.json");
    fs::write(&baseline_file, &rendered)?;

    step("growth: single adds at the 10th and at the 10,000th device");
    let growth = growth::measure(server.port(), LOADERS)?;
    eprintln!(
        "    median add {:.2} ms at device {}, {:.2} ms at device {}: ratio {:.2}",
        report::median(&growth.early_ms),
        growth.early_at,
        report::median(&growth.late_ms),
        growth.late_at,
        growth.ratio()
    );
    drop(client);
    server.stop()?;
    Ok((rendered, baseline_file, growth))
}

/// The baseline route must answer the very bytes of the devices route (and
/// of the list saved before the restart), or the reads' ratio compares
/// different work.
fn check_baseline(server: &Server, rendered: &[u8]) -> Result<()> {
    let client = server.client();
    let baseline_bytes = client.expect_ok("GET", "/_bench/baseline", None)?.body;
    let devices_bytes = client
        .expect_ok("GET", &format!("/nets/{NET}/devices"), None)?
        .body;
    if baseline_bytes != devices_bytes || devices_bytes != rendered {
        bail!("the baseline route does not answer the bytes of GET /nets/{NET}/devices");
    }
    Ok(())
}

/// Step 4's reads: the devices route and the baseline at each of
/// [`READ_CONNECTIONS`], after a warm-up.
fn reads(options: &Options, dir: &Path, server: &Server) -> Result<Vec<ReadPoint>> {
    let base_url = server.url();
    let get = wrk::get_script(dir)?;
    let devices_url = format!("{base_url}/nets/{NET}/devices");
    let baseline_url = format!("{base_url}/_bench/baseline");
    step("reads: warming up");
    wrk::run(&get, &devices_url, 8, 2)?;
    wrk::run(&get, &baseline_url, 8, 2)?;
    let mut reads = Vec::new();
    for connections in READ_CONNECTIONS {
        step(&format!("reads at {connections} connections"));
        let devices = checked(wrk::run(&get, &devices_url, connections, options.seconds)?)?;
        let baseline = checked(wrk::run(&get, &baseline_url, connections, options.seconds)?)?;
        let point = ReadPoint { devices, baseline };
        eprintln!(
            "    devices {:.0} req/s (p50 {:.2} ms, p99 {:.2} ms), baseline {:.0} req/s: ratio {:.3}",
            point.devices.rate(),
            point.devices.p50_ms,
            point.devices.p99_ms,
            point.baseline.rate(),
            point.ratio()
        );
        reads.push(point);
    }
    Ok(reads)
}

/// Step 4's disk and writes: the data directory's fdatasyncs, then at 1
/// and 32 connections reads of one device and durable writes of the same
/// devices (full-body PATCHes of the site's tags), the store's commits and
/// changes counted over the writes.
fn disk_and_writes(
    options: &Options,
    site: &[String],
    dir: &Path,
    server: &Server,
) -> Result<report::WritePath> {
    let serials = fixture::tag_serials(site);
    check_full_body_patch(&server.client(), &serials)?;
    let get_one = wrk::get_one_script(dir, NET, &serials)?;
    let patch = wrk::patch_script(
        dir,
        NET,
        &serials,
        &fixture::tag_body("%s", "Tag %s rev %d"),
    )?;
    step(&format!(
        "disk: {FDATASYNC_ROUNDS} fdatasyncs of a {} KiB block in the data directory",
        disk::BLOCK_BYTES / 1024
    ));
    let fdatasync_ms = disk::fdatasync_ms(&dir.join("data"), FDATASYNC_ROUNDS)?;
    eprintln!(
        "    p50 {:.3} ms, p99 {:.3} ms",
        report::median(&fdatasync_ms),
        report::percentile(&fdatasync_ms, 99)
    );
    let mut points = Vec::new();
    for connections in [1, 32] {
        step(&format!(
            "reads of one device and durable writes at {connections} connections"
        ));
        let get = checked(wrk::run(
            &get_one,
            &server.url(),
            connections,
            options.seconds,
        )?)?;
        let before = store_counts(server)?;
        let patch = checked(wrk::run(
            &patch,
            &server.url(),
            connections,
            options.seconds,
        )?)?;
        let after = store_counts(server)?;
        let (commits, changes) = (after.0 - before.0, after.1 - before.1);
        eprintln!(
            "    {:.0} GET/s (p50 {:.3} ms); {:.0} PATCH/s (p50 {:.3} ms, p99 {:.3} ms); {changes} changes in {commits} commits",
            get.rate(),
            get.p50_ms,
            patch.rate(),
            patch.p50_ms,
            patch.p99_ms
        );
        points.push(report::WritePoint {
            get,
            patch,
            commits,
            changes,
        });
    }
    let [one, many] = <[report::WritePoint; 2]>::try_from(points)
        .map_err(|_| anyhow::anyhow!("two write runs expected"))?;
    Ok(report::WritePath {
        fdatasync_ms,
        one,
        many,
    })
}

/// The store's commits and committed changes since the server started.
fn store_counts(server: &Server) -> Result<(u64, u64)> {
    let text = server.client().expect_ok("GET", "/metrics", None)?.body;
    let text = String::from_utf8_lossy(&text);
    let count = |name: &str| {
        outputs::server_api::metric(&text, name)
            .map(|value| value as u64)
            .with_context(|| format!("no {name} in /metrics"))
    };
    Ok((
        count("netcfg_store_commits_total")?,
        count("netcfg_store_changes_total")?,
    ))
}

/// Step 5's fleet: the site copied into [`FLEET`] configurations in all.
fn copy_site(server: &Server) -> Result<()> {
    step(&format!(
        "footprint: copying the site into {FLEET} configurations"
    ));
    let client = server.client();
    for number in 1..FLEET {
        client.expect_ok(
            "POST",
            &format!("/nets/{NET}"),
            Some(&format!(
                r#"{{"action": "copy", "name": "{NET}-copy-{number:03}"}}"#
            )),
        )?;
    }
    Ok(())
}

/// The machine's load averages (1, 5, 15 minutes), to judge the noise.
fn load_average() -> String {
    fs::read_to_string("/proc/loadavg")
        .map(|text| {
            text.split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_default()
}

fn step(what: &str) {
    eprintln!("bench: {what}");
}

/// A load run that saw errors measured something else than it claims.
fn checked(load: Load) -> Result<Load> {
    if load.errors > 0 {
        bail!(
            "{} of {} requests at {} connections failed (see target/bench/server-*.log)",
            load.errors,
            load.requests,
            load.connections
        );
    }
    Ok(load)
}

/// Start-up times in ms of `STARTUPS` servers started by `start`, each
/// stopped before the next.
fn startups(mut start: impl FnMut() -> Result<Server>) -> Result<Vec<f64>> {
    let mut times = Vec::new();
    for _ in 0..STARTUPS {
        let server = start()?;
        times.push(server.startup.as_secs_f64() * 1_000.0);
        server.stop()?;
    }
    Ok(times)
}

fn create_net(client: &Client, name: &str) -> Result<()> {
    client.expect_ok(
        "POST",
        "/nets",
        Some(&format!(r#"{{"name": "{name}", "instance": "sim"}}"#)),
    )?;
    Ok(())
}

/// Sends `action` (`start`, `stop`) to the configuration `net`.
fn net_action(client: &Client, net: &str, action: &str) -> Result<()> {
    client.expect_ok(
        "POST",
        &format!("/nets/{net}"),
        Some(&format!(r#"{{"action": "{action}"}}"#)),
    )?;
    Ok(())
}

/// A part's long span in seconds: `reported`, or a shorter one from the
/// environment `variable` for quick tries, said on stderr so that no one
/// takes its figures for the reported ones (`what`: the part and its span,
/// as in "outputs: a broker outage").
fn shortened_seconds(variable: &str, reported: u64, what: &str) -> Result<u64> {
    let Ok(value) = std::env::var(variable) else {
        return Ok(reported);
    };
    let seconds: u64 = value
        .parse()
        .with_context(|| format!("{variable}={value:?} is not a whole number"))?;
    eprintln!("bench: {what} of {seconds} s ({variable}), not the reported {reported} s");
    Ok(seconds.max(1))
}

/// A goal's verdict as the printed figures say it.
fn met(held: bool) -> &'static str {
    if held { "met" } else { "NOT met" }
}

/// The write benchmark's body is the seed's full `device_body` (its
/// required `serial_number`, `interfaces` and `disabled`, and a `name`):
/// one PATCH of it must answer 200 and the device must then read back as
/// sent, or the write figures would measure something else.
fn check_full_body_patch(client: &Client, serials: &[String]) -> Result<()> {
    let serial = serials.first().context("the site has no tags")?;
    let body = fixture::tag_body(serial, &format!("Tag {serial} rev 0"));
    let path = format!("/nets/{NET}/devices/{serial}");
    client.expect_ok("PATCH", &path, Some(&body))?;
    let sent: Value = serde_json::from_str(&body)?;
    let stored = client.expect_ok("GET", &path, None)?.payload("device")?;
    for field in ["serial_number", "name", "disabled", "interfaces"] {
        if stored.get(field) != sent.get(field) {
            bail!(
                "PATCH {path} {body}: the device reads back with {field} {}",
                stored.get(field).unwrap_or(&Value::Null)
            );
        }
    }
    Ok(())
}

fn write_reports(dir: &Path, report: &Report) -> Result<()> {
    let files: [(PathBuf, String); 2] = [
        (dir.join("report.json"), report.json()),
        (dir.join("report.md"), report.markdown()),
    ];
    for (path, text) in files {
        fs::write(&path, text).with_context(|| format!("could not write {}", path.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(only: Option<Only>, write_fixture: bool) -> Options {
        Options {
            seconds: 5,
            write_fixture,
            only,
        }
    }

    #[test]
    fn each_part_says_which_tools_it_needs() {
        let uses = |only, write_fixture| {
            let options = options(only, write_fixture);
            (
                options.uses_wrk(),
                options.uses_chromium(),
                options.uses_mqtt(),
            )
        };
        assert_eq!(uses(None, false), (true, true, true));
        assert_eq!(uses(Some(Only::Site), false), (true, false, false));
        assert_eq!(uses(Some(Only::Events), false), (true, false, false));
        assert_eq!(uses(Some(Only::FrontEnd), false), (false, true, false));
        assert_eq!(uses(Some(Only::Floods), false), (false, false, false));
        assert_eq!(uses(Some(Only::Accuracy), false), (false, false, false));
        assert_eq!(uses(Some(Only::Zones), false), (false, false, false));
        assert_eq!(uses(Some(Only::Outputs), false), (false, false, true));
        assert_eq!(uses(Some(Only::Recordings), false), (false, false, false));
        // Writing the fixture measures nothing.
        assert_eq!(uses(None, true), (false, false, false));
    }

    #[test]
    fn a_load_run_with_errors_is_refused() {
        let load = Load {
            connections: 8,
            requests: 100,
            seconds: 1.0,
            errors: 0,
            p50_ms: 1.0,
            p90_ms: 1.0,
            p99_ms: 1.0,
            max_ms: 1.0,
        };
        assert!(checked(load.clone()).is_ok());
        let error = checked(Load { errors: 3, ..load }).unwrap_err().to_string();
        assert!(
            error.starts_with("3 of 100 requests at 8 connections failed"),
            "{error}"
        );
    }
}
