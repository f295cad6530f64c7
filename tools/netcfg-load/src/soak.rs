//! `cargo xtask soak [--minutes N] [--threads T] [--everything]` (`netcfg-load soak`): mixed
//! reads and writes from several clients against the real server for N
//! minutes (default 1); with `--everything`, a site with every feature on
//! beside them (`soak/everything.rs`).
//!
//! Three verdicts, each of which must pass: no error (no unexpected status,
//! no 5xx, no answer that differs from the acknowledged writes), memory
//! (RSS) growth from the end of the warm-up to the end under 10%, and the
//! server's final state equal to a model of every acknowledged write; and
//! `--everything`'s own. `NETCFG_SOAK_SEED` replays the operations'
//! choices (not their timing).

mod everything;
mod listeners;
mod model;
mod worker;

use std::{
    collections::{BTreeMap, BTreeSet},
    sync::{Arc, Mutex, atomic::Ordering},
    thread,
    time::{Duration, Instant},
};

use anyhow::{Context, Result, bail};
use clap::builder::RangedU64ValueParser;

use self::{
    model::{Model, Net},
    worker::{Shared, Worker},
};
use crate::server::{self, Client, Launch, Profile, Rng, Value, object};

/// The configurations every worker writes into.
const SHARED_NETS: [&str; 3] = ["soak-a", "soak-b", "soak-c"];
/// Memory may grow this much (percent) from the end of the warm-up.
const MAX_GROWTH_PERCENT: f64 = 10.0;

/// Clients by default.
pub const THREADS: usize = 6;

/// `cargo xtask soak`'s options (and `netcfg-load soak`'s).
#[derive(Debug, Clone, clap::Args)]
pub struct Options {
    /// How long to run, in minutes
    #[arg(long, default_value_t = 1.0, value_parser = positive)]
    pub minutes: f64,
    /// Client threads (1 to 15)
    #[arg(long, default_value_t = THREADS, value_parser = RangedU64ValueParser::<usize>::new().range(1..=15))]
    pub threads: usize,
    /// Every feature of a site on as well, with access control: zones, an
    /// output to a broker restarted now and then, recordings, a replay,
    /// alert rules, a schedule that restarts a configuration, 100 SSE
    /// subscribers, users and keys
    #[arg(long)]
    pub everything: bool,
}

impl Options {
    /// The options spelt out as the command line reads them.
    pub(crate) fn to_args(&self) -> Vec<String> {
        let mut args = vec![
            "--minutes".to_owned(),
            self.minutes.to_string(),
            "--threads".to_owned(),
            self.threads.to_string(),
        ];
        if self.everything {
            args.push("--everything".to_owned());
        }
        args
    }
}

fn positive(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(minutes) if minutes > 0.0 => Ok(minutes),
        _ => Err(format!("{text}: not a positive number")),
    }
}

pub(crate) fn soak(options: &Options) -> Result<()> {
    let seed = match std::env::var("NETCFG_SOAK_SEED") {
        Ok(seed) => seed.parse().context("NETCFG_SOAK_SEED: a number")?,
        Err(_) => Rng::seed_from_clock(),
    };
    eprintln!(
        "soak: {} minute(s), {} clients, seed {seed} (NETCFG_SOAK_SEED={seed} replays the choices)",
        options.minutes, options.threads
    );
    let binary = server::build(Profile::Debug)?;
    let scratch = server::scratch_dir("soak")?;
    let log = scratch.join("server.log");
    let mut launch = Launch::new(&binary, &scratch.join("data"), &log);
    if options.everything {
        launch = launch.config(&server::admin_token_settings(
            &scratch,
            everything::TOKEN,
            "soak",
        )?);
    }
    let mut server = launch.start()?;
    eprintln!(
        "soak: server pid {} on port {}, data and log in {}",
        server.pid(),
        server.port(),
        scratch.display()
    );

    let bearer = options.everything.then(|| everything::TOKEN.to_owned());
    let mut client = Client::new(server.port());
    if let Some(secret) = &bearer {
        client = client.with_bearer(secret);
    }
    let model = setup(&mut client)?;
    let duration = Duration::from_secs_f64(options.minutes * 60.0);
    let everything = if options.everything {
        eprintln!("soak: everything on: {:?}", everything::Paces::of(duration));
        Some(everything::Everything::start(
            server.port(),
            &scratch,
            duration,
        )?)
    } else {
        None
    };
    let shared = Arc::new(Shared {
        model: Mutex::new(model),
        errors: Mutex::new(Vec::new()),
        stop: std::sync::atomic::AtomicBool::new(false),
        port: server.port(),
        bearer,
        shared_nets: SHARED_NETS.iter().map(|name| (*name).to_owned()).collect(),
    });
    let started = Instant::now();
    let workers = spawn_workers(options.threads, &mut Rng::new(seed), &shared);
    let memory = watch_memory(&server, started, duration)?;
    shared.stop.store(true, Ordering::Relaxed);
    let counts = join_workers(workers)?;
    let elapsed = started.elapsed();
    // The level at the end, as at the start: the allocator gives freed
    // pages back now and then, and one sample may fall in such a dip.
    let rss_end = level(&memory.series[memory.series.len().saturating_sub(SAMPLES_A_LEVEL)..])
        .max(server.rss_kib()?);
    if let Some(status) = server.exited() {
        bail!(
            "the server exited during the soak with {status} (see {})",
            log.display()
        );
    }
    let everything = everything.map(everything::Everything::finish).transpose()?;

    let model = std::mem::take(&mut *shared.model());
    let (differences, items) = compare(&mut client, &model, &everything::names())?;
    let errors = std::mem::take(&mut *crate::sync::lock(&shared.errors));
    let outcome = Outcome {
        threads: options.threads,
        elapsed,
        counts,
        errors,
        memory,
        rss_end,
        configurations: model.nets.len(),
        items,
        differences,
        everything,
    };
    outcome.print();
    let failed = outcome.failures();
    drop(server);
    if !failed.is_empty() {
        bail!("soak failed: {}", failed.join("; "));
    }
    println!("soak: passed");
    Ok(())
}

/// Starts one thread a worker; the first workers each own the lifecycle
/// of one shared configuration.
fn spawn_workers(
    threads: usize,
    rng: &mut Rng,
    shared: &Arc<Shared>,
) -> Vec<thread::JoinHandle<Worker>> {
    (0..threads)
        .map(|id| {
            let lifecycle = SHARED_NETS
                .get(id)
                .map(|net| vec![(*net).to_owned()])
                .unwrap_or_default();
            let worker = Worker::new(id, rng.fork(), shared.clone(), lifecycle);
            thread::spawn(move || worker.run())
        })
        .collect()
}

/// The requests every worker sent, by operation, once they have stopped.
fn join_workers(workers: Vec<thread::JoinHandle<Worker>>) -> Result<BTreeMap<&'static str, u64>> {
    let mut counts: BTreeMap<&str, u64> = BTreeMap::new();
    for handle in workers {
        let worker = handle
            .join()
            .map_err(|_| anyhow::anyhow!("a worker panicked"))?;
        for (op, count) in &worker.counts {
            *counts.entry(op).or_default() += count;
        }
    }
    Ok(counts)
}

/// The server's memory over the soak, sampled every second.
#[derive(Debug)]
struct Memory {
    warm_up: Duration,
    /// RSS (KiB) at the end of the warm-up, the most seen, and every sample.
    start: u64,
    peak: u64,
    series: Vec<u64>,
}

/// Samples taken together for one level of memory.
const SAMPLES_A_LEVEL: usize = 5;

/// The memory level of `samples` from their start: the most of the first
/// [`SAMPLES_A_LEVEL`]. With everything on, the allocator's returns of
/// freed pages (jemalloc, every second) make dips of a fifth; one sample
/// in a dip made a one-minute run read +25% (2026-11-29).
fn level(samples: &[u64]) -> u64 {
    samples
        .iter()
        .take(SAMPLES_A_LEVEL)
        .copied()
        .max()
        .unwrap_or_default()
}

/// Samples the server's RSS every second until `duration` has passed since
/// `started`.
fn watch_memory(server: &server::Server, started: Instant, duration: Duration) -> Result<Memory> {
    // Warm-up: the first quarter (at least 10 s), while the workers fill
    // the configurations up to their steady sizes.
    let warm_up = (duration / 4).max(Duration::from_secs(10)).min(duration);
    let mut warm_index = None;
    let mut series = Vec::new();
    while started.elapsed() < duration {
        thread::sleep(Duration::from_secs(1).min(duration.saturating_sub(started.elapsed())));
        let rss = server.rss_kib()?;
        series.push(rss);
        if warm_index.is_none() && started.elapsed() >= warm_up {
            warm_index = Some(series.len() - 1);
        }
    }
    let warm_index = warm_index.context("no memory sample after the warm-up")?;
    let start = level(&series[warm_index..]);
    let peak = series.iter().copied().max().unwrap_or(start);
    Ok(Memory {
        warm_up,
        start,
        peak,
        series,
    })
}

/// What the soak saw, for its summary and its verdicts.
#[derive(Debug)]
struct Outcome {
    threads: usize,
    elapsed: Duration,
    counts: BTreeMap<&'static str, u64>,
    errors: Vec<String>,
    memory: Memory,
    rss_end: u64,
    configurations: usize,
    items: usize,
    differences: Vec<String>,
    /// What `--everything` found (none without it).
    everything: Option<everything::Report>,
}

impl Outcome {
    /// Memory growth (percent) from the end of the warm-up to the end.
    fn growth(&self) -> f64 {
        #[allow(clippy::cast_precision_loss, reason = "figures for people")]
        let (end, start) = (self.rss_end as f64, self.memory.start as f64);
        (end - start) * 100.0 / start
    }

    fn print(&self) {
        let requests: u64 = self.counts.values().sum();
        #[allow(clippy::cast_precision_loss, reason = "figures for people")]
        let rate = requests as f64 / self.elapsed.as_secs_f64();
        let (memory, rss_end, growth) = (&self.memory, self.rss_end, self.growth());
        println!("soak summary");
        println!(
            "  duration          {:.1} s, {} clients",
            self.elapsed.as_secs_f64(),
            self.threads
        );
        println!("  requests          {requests} ({rate:.0}/s)");
        for (op, count) in &self.counts {
            println!("    {op:<16} {count}");
        }
        println!("  errors            {}", self.errors.len());
        for error in &self.errors {
            println!("    {error}");
        }
        println!(
            "  memory (RSS)      {} KiB after the {} s warm-up, {rss_end} KiB at the end ({growth:+.1}%), peak {} KiB",
            memory.start,
            memory.warm_up.as_secs(),
            memory.peak
        );
        let every_5_s: Vec<String> = memory
            .series
            .iter()
            .skip(4)
            .step_by(5)
            .map(|kib| {
                format!(
                    "{:.1}",
                    f64::from(u32::try_from(*kib).unwrap_or(u32::MAX)) / 1024.0
                )
            })
            .collect();
        println!("    every 5 s (MiB) {}", every_5_s.join(" "));
        println!(
            "  final state       {} configurations, {} items compared, {} differences",
            self.configurations,
            self.items,
            self.differences.len()
        );
        for difference in &self.differences {
            println!("    {difference}");
        }
        if let Some(report) = &self.everything {
            println!("  everything on");
            for line in &report.lines {
                println!("    {line}");
            }
            for failure in &report.failures {
                println!("    FAILED: {failure}");
            }
        }
    }

    /// The verdicts that failed (none: the soak passed).
    fn failures(&self) -> Vec<String> {
        let growth = self.growth();
        let mut failed = Vec::new();
        if !self.errors.is_empty() {
            failed.push(format!("{} errors", self.errors.len()));
        }
        if growth >= MAX_GROWTH_PERCENT {
            failed.push(format!(
                "memory grew {growth:.1}% (limit {MAX_GROWTH_PERCENT}%)"
            ));
        }
        if !self.differences.is_empty() {
            failed.push(format!(
                "{} differences from the model",
                self.differences.len()
            ));
        }
        if let Some(report) = &self.everything {
            failed.extend(report.failures.iter().cloned());
        }
        failed
    }
}

/// Creates the shared configurations; what a new configuration holds is
/// read from the first one before anyone writes to it.
fn setup(client: &mut Client) -> Result<Model> {
    let mut model = Model::default();
    for name in SHARED_NETS {
        let body = object([
            ("name", Value::from(name)),
            ("instance", Value::from("sim")),
        ]);
        let response = client.send("POST", "/nets", Some(&body))?;
        if response.status != 201 {
            bail!("POST /nets {body}: {} {}", response.status, response.text());
        }
        if model.nets.is_empty() {
            model.template = Net::fetch(client, name)?;
        }
        model.nets.insert(name.to_owned(), model.template.clone());
    }
    Ok(model)
}

/// Compares every configuration the server holds with the model: the
/// differences, and how many items were compared.
fn compare(
    client: &mut Client,
    model: &Model,
    others: &BTreeSet<String>,
) -> Result<(Vec<String>, usize)> {
    let mut differences = Vec::new();
    let response = client.send("GET", "/nets", None)?;
    let listed: BTreeSet<String> = response
        .payload("configurations")?
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .filter_map(|net| net.get("name").and_then(Value::as_str).map(str::to_owned))
        .filter(|name| !others.contains(name))
        .collect();
    let expected: BTreeSet<String> = model.nets.keys().cloned().collect();
    for name in listed.difference(&expected) {
        differences.push(format!("{name}: a configuration the model does not hold"));
    }
    for name in expected.difference(&listed) {
        differences.push(format!("{name}: missing from GET /nets"));
    }
    let mut items = 0;
    for (name, net) in &model.nets {
        items += net.len();
        match Net::fetch(client, name) {
            Ok(actual) => differences.extend(net.differences(name, &actual)),
            Err(error) => differences.push(format!("{name}: {error:#}")),
        }
    }
    Ok((differences, items))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{model::Kind, *};
    use crate::server::fake;

    #[test]
    fn the_comparison_reads_every_collection_and_reports_each_difference() {
        let port = fake::serve(|method, path, _| {
            assert_eq!(method, "GET");
            let body = match path {
                "/nets" => json!({"configurations": [{"name": "soak-a"}, {"name": "stray"}]}),
                "/nets/soak-a" => json!({"configuration": {"name": "soak-a", "state": "running"}}),
                "/nets/soak-a/devices" => json!({"devices": [
                    {"serial_number": "01:00:0001", "name": "after"},
                ]}),
                "/nets/soak-a/roles" => json!({"roles": []}),
                "/nets/soak-a/data-streams" => json!({"streams": []}),
                "/nets/soak-a/position_limits" => json!({"position_limits": []}),
                "/nets/soak-a/settings" => json!({"settings": [{"setting_key": "k", "value": 1}]}),
                _ => return (404, json!({"error": path}).to_string()),
            };
            (200, body.to_string())
        });
        let mut expected = Net::default();
        expected
            .put(
                Kind::Devices,
                json!({"serial_number": "01:00:0001", "name": "before"}),
            )
            .unwrap();
        expected
            .put(Kind::Settings, json!({"setting_key": "k", "value": 1}))
            .unwrap();
        let mut model = Model::default();
        model.nets.insert("soak-a".to_owned(), expected.clone());
        model.nets.insert("soak-b".to_owned(), Net::default());

        let (differences, items) =
            compare(&mut Client::new(port), &model, &BTreeSet::new()).unwrap();
        assert_eq!(items, 2);
        assert_eq!(
            differences,
            [
                "stray: a configuration the model does not hold",
                "soak-b: missing from GET /nets",
                "soak-a: running expected false, found true",
                r#"soak-a/devices/01:00:0001: expected {"name":"before","serial_number":"01:00:0001"}, found {"name":"after","serial_number":"01:00:0001"}"#,
                // A configuration that cannot be read is a difference too.
                r#"soak-b: GET /nets/soak-b/devices: 404 {"error":"/nets/soak-b/devices"}"#,
            ]
        );

        // What the server holds, fetched, is what it answered.
        let fetched = Net::fetch(&mut Client::new(port), "soak-a").unwrap();
        assert_eq!(fetched.len(), 2);
        assert!(fetched.running);
        // A configuration it cannot read is an error, not an empty one.
        assert!(Net::fetch(&mut Client::new(port), "soak-b").is_err());
    }

    #[test]
    fn a_level_of_memory_is_not_read_in_a_dip() {
        assert_eq!(level(&[110, 91, 112, 111, 109, 80]), 112);
        assert_eq!(level(&[95]), 95);
        assert_eq!(level(&[]), 0);
    }

    #[test]
    fn minutes_must_be_positive() {
        assert_eq!(positive("0.25"), Ok(0.25));
        assert!(positive("0").is_err());
        assert!(positive("-2").is_err());
        assert!(positive("NaN").is_err());
        assert!(positive("").is_err());
    }
}
