//! Live events under load (`GET /nets/{net_name}/events`): 1,000
//! subscribers to one configuration running 330 tags at 10 Hz on the
//! simulator (about 3,300 positions a second, ten position batches a second
//! to each subscriber at `max_rate=10`).
//!
//! Measured for each form of position batch (`positions=compact`, the web
//! front end's, then the default `objects`), each beside its goal
//! (docs/benchmarks.md):
//! - REST reads (`GET /nets/live/devices`, wrk) with the subscribers
//!   connected and reading, divided by the same without them (the
//!   configuration runs in both);
//! - the server's resident memory per subscriber: with the subscribers
//!   connected and warmed up, minus before they connected, over their count;
//! - the share of position batches each subscriber received over a window
//!   that spans the loaded read run: batches counted over ten a second.
//!
//! Then the memory given back: [`ROUNDS`] rounds of the subscribers
//! connecting, reading and leaving; the server's resident memory after the
//! last, over after the first.
//!
//! The subscribers are one thread's event loop (subscribers.rs).

mod subscribers;

use std::{
    fs,
    io::{Read, Write},
    net::TcpStream,
    path::Path,
    process::Command,
    thread,
    time::{Duration, Instant},
};

use anyhow::{Context, Result, bail};

use super::{
    checked, create_net, growth, net_action,
    report::{CpuSplit, EventFigures, EventRun},
    step, wrk,
};
use crate::server::{Launch, Server, Value};
use subscribers::{BATCH_PATTERN, Counter, Subscribers};

/// The configuration the subscribers listen to.
const NET: &str = "live";
/// How many subscribers connect.
pub(crate) const SUBSCRIBERS: usize = 1_000;
/// How many tags the configuration runs.
pub(crate) const TAGS: usize = 330;
/// DEFAULT TAG's `network_period`: 100 ms, in 1/975,000 s.
pub(crate) const TAG_PERIOD_UNITS: u64 = 97_500;
/// Each subscriber's `max_rate`.
pub(crate) const MAX_RATE: u32 = 10;
/// wrk's connections for the REST reads.
pub(crate) const READ_CONNECTIONS: u32 = 8;
/// How long the subscribers read before their memory is measured.
const WARM_UP: Duration = Duration::from_secs(2);
/// How long the probe stream is counted.
const PROBE: Duration = Duration::from_secs(2);
/// The fewest positions a second the probe accepts (90% of 330 at 10 Hz).
#[allow(clippy::cast_precision_loss)]
const PROBE_MINIMUM: f64 = 0.9 * (TAGS as f64) * 10.0;
/// How long a stream may take to bring its first batch.
const FIRST_BATCH_TIMEOUT: Duration = Duration::from_secs(30);
/// The most bytes the probe reads at once.
const READ_BYTES: usize = 64 * 1024;
/// What starts each position in the default form.
const POSITION_PATTERN: &[u8] = b"\"serial_number\"";
/// Open files beyond the subscribers' (the server's own, wrk's).
const SPARE_FILES: u64 = 512;
/// The forms measured, the front end's first.
const FORMS: [&str; 2] = ["compact", "objects"];
/// Rounds of reads without and with the subscribers, for each form.
const READ_ROUNDS: usize = 3;
/// Rounds of the subscribers connecting and leaving.
pub(crate) const ROUNDS: usize = 10;
/// How long the subscribers of a round read.
const ROUND_READING: Duration = Duration::from_secs(1);
/// How long after they left the memory is read (the allocator gives freed
/// pages back within a second).
const ROUND_SETTLE: Duration = Duration::from_secs(2);

pub(crate) fn measure(binary: &Path, dir: &Path, seconds: u32) -> Result<EventFigures> {
    raise_open_files(SUBSCRIBERS as u64 + SPARE_FILES)?;
    let launch = Launch::new(binary, &dir.join("events"), &dir.join("server-events.log"));
    step(&format!(
        "events: a configuration of {TAGS} tags at 10 Hz on the simulator"
    ));
    let server = launch.start()?;
    let client = server.client();
    create_site(&server, NET)?;
    let tag_period = client
        .expect_ok("GET", &format!("/nets/{NET}/roles/4"), None)?
        .payload("role")?
        .get("network_period")
        .and_then(Value::as_u64);
    if tag_period != Some(TAG_PERIOD_UNITS) {
        bail!("role 4's network_period is {tag_period:?}, not {TAG_PERIOD_UNITS} (10 Hz)");
    }
    net_action(&client, NET, "start")?;
    drop(client);

    step("events: one stream, to check the positions a second");
    let probe = probe(server.port())?;
    eprintln!(
        "    {:.0} positions a second in {:.1} batches a second",
        probe.positions_per_second, probe.batches_per_second
    );
    if probe.positions_per_second < PROBE_MINIMUM {
        bail!(
            "one stream of {NET} carried {:.0} positions a second, not about {} ({TAGS} tags at 10 Hz)",
            probe.positions_per_second,
            TAGS * 10
        );
    }

    let get = wrk::get_script(dir)?;
    let devices_url = format!("{}/nets/{NET}/devices", server.url());
    wrk::run(&get, &devices_url, READ_CONNECTIONS, 2)?;

    let mut runs = Vec::new();
    for form in FORMS {
        let run = measure_form(&server, form, &get, &devices_url, seconds)?;
        eprintln!(
            "    {form}: ratio of the medians {:.3}; position batches over {:.1} s: min {:.1}%, median {:.1}%, mean {:.1}%",
            run.read_ratio(),
            run.window_seconds,
            100.0 * run.share_min(),
            100.0 * run.share_median(),
            100.0 * run.share_mean(),
        );
        runs.push(run);
    }

    step(&format!(
        "events: {ROUNDS} rounds of {SUBSCRIBERS} subscribers (compact) connecting, reading {ROUND_READING:?} and leaving"
    ));
    let rounds_rss_kb = rounds(&server)?;
    server.stop()?;

    Ok(EventFigures {
        subscribers: SUBSCRIBERS,
        tags: TAGS,
        max_rate: MAX_RATE,
        read_connections: READ_CONNECTIONS,
        positions_per_second: probe.positions_per_second,
        batches_per_second: probe.batches_per_second,
        runs,
        rounds_rss_kb,
    })
}

/// The events' path for `form`.
fn events_path(form: &str) -> String {
    format!("/nets/{NET}/events?types=position&max_rate={MAX_RATE}&positions={form}")
}

/// The subscribers of one form, in [`READ_ROUNDS`] rounds: reads without
/// them, then with them connected and reading (their batches counted over
/// that run); the first round also measures their memory. Without and with
/// alternate, so that the machine's drift over the minute falls on both.
fn measure_form(
    server: &Server,
    form: &'static str,
    get: &Path,
    devices_url: &str,
    seconds: u32,
) -> Result<EventRun> {
    let mut run = EventRun {
        form,
        without: Vec::new(),
        with: Vec::new(),
        rss_before_kb: 0,
        rss_with_kb: 0,
        rss_after_kb: 0,
        window_seconds: 0.0,
        frames_by_clock: 0,
        shares: Vec::new(),
        received_bytes: 0,
        ended_early: 0,
        catch_ups: 0,
    };
    for round in 1..=READ_ROUNDS {
        step(&format!(
            "events: positions={form}, round {round} of {READ_ROUNDS}: reads without subscribers"
        ));
        let (without, cpu) = reads(server, get, devices_url, seconds)?;
        eprintln!("    {}; CPU {}", load_text(&without), cpu.text());
        run.without.push((without, cpu));

        thread::sleep(Duration::from_secs(1));
        let rss_before_kb = server.rss_kib()?;
        let subscribers = Subscribers::connect(server.port(), &events_path(form), SUBSCRIBERS)?;
        subscribers.wait_for_first_batches(FIRST_BATCH_TIMEOUT)?;
        thread::sleep(WARM_UP);
        if round == 1 {
            let rss_with_kb = server.rss_kib()?;
            eprintln!(
                "    server RSS {} kB before {SUBSCRIBERS} subscribers, {} kB with them: {:.1} KiB each",
                rss_before_kb,
                rss_with_kb,
                rss_with_kb.saturating_sub(rss_before_kb) as f64 / SUBSCRIBERS as f64
            );
            (run.rss_before_kb, run.rss_with_kb) = (rss_before_kb, rss_with_kb);
        }
        step(&format!(
            "events: positions={form}, round {round} of {READ_ROUNDS}: reads with {SUBSCRIBERS} subscribers reading"
        ));
        let catch_ups_before = catch_ups_sent(server)?;
        let window = subscribers.start_window()?;
        let (with, cpu) = reads(server, get, devices_url, seconds)?;
        let counted = subscribers.end_window(window);
        let catch_ups = catch_ups_sent(server)?.saturating_sub(catch_ups_before);
        run.catch_ups += catch_ups;
        eprintln!("    {}; CPU {}", load_text(&with), cpu.text());
        run.with.push((with, cpu));
        run.ended_early += subscribers.stop();
        if round == 1 {
            thread::sleep(Duration::from_secs(1));
            run.rss_after_kb = server.rss_kib()?;
        }
        // The frames the server cut in the window: ten a second by the
        // clock, unless its frame timer ran late at the window's edge (then
        // every subscriber counts one fewer or one more). The frames are
        // shared, so the most any subscriber counted is what was cut; a
        // subscriber's share is its batches over that.
        let most = counted.batches.iter().copied().max().unwrap_or(0);
        if most.abs_diff(u64::from(counted.frames)) > 1 {
            eprintln!(
                "    the most batches a subscriber counted, {most}, is not the {} frames of the window",
                counted.frames
            );
        }
        // Each subscriber's share: the frames it received of those cut
        // within the window (by their keys; catch-up batches are not frames).
        let expected = counted.window_batches.max(1) as f64;
        run.window_seconds += f64::from(counted.frames) / 10.0;
        run.frames_by_clock += counted.frames;
        run.received_bytes += counted.bytes;
        run.shares.extend(
            counted
                .received
                .iter()
                .map(|&received| received as f64 / expected),
        );
        let fewest = counted.batches.iter().copied().min().unwrap_or(0);
        let fewest_received = counted.received.iter().copied().min().unwrap_or(0);
        eprintln!(
            "    {} frames by the clock; by the clock the most a subscriber counted {most}, the fewest {fewest}; by their keys {} frames in the window, the fewest a subscriber received {fewest_received}; {catch_ups} catch-up batches sent about the window",
            counted.frames, counted.window_batches
        );
    }
    Ok(run)
}

/// Catch-up batches the server has sent since it started (`/metrics`).
fn catch_ups_sent(server: &Server) -> Result<u64> {
    let text = server.client().expect_ok("GET", "/metrics", None)?.body;
    let name = r#"netcfg_event_position_batches_total{kind="catch_up"}"#;
    let value = super::outputs::server_api::metric(&String::from_utf8_lossy(&text), name)
        .context("no catch-up batches in /metrics")?;
    Ok(value as u64)
}

/// A load's rate and latencies, for the console.
fn load_text(load: &wrk::Load) -> String {
    format!(
        "{:.0} req/s (p50 {:.2} ms, p99 {:.2} ms)",
        load.rate(),
        load.p50_ms,
        load.p99_ms
    )
}

/// The server's resident memory after each of [`ROUNDS`] rounds of the
/// subscribers connecting, reading and leaving.
fn rounds(server: &Server) -> Result<Vec<u64>> {
    let mut after = Vec::with_capacity(ROUNDS);
    for round in 1..=ROUNDS {
        let subscribers = Subscribers::connect(server.port(), &events_path(FORMS[0]), SUBSCRIBERS)?;
        subscribers.wait_for_first_batches(FIRST_BATCH_TIMEOUT)?;
        thread::sleep(ROUND_READING);
        let with_kb = server.rss_kib()?;
        let ended_early = subscribers.stop();
        if ended_early > 0 {
            bail!("round {round}: {ended_early} subscribers ended early");
        }
        thread::sleep(ROUND_SETTLE);
        let rss = server.rss_kib()?;
        eprintln!("    round {round}: server RSS {with_kb} kB with them, {rss} kB after");
        after.push(rss);
    }
    Ok(after)
}

/// Creates `net` on the simulator with the live events' site
/// ([`site_bodies`]), not started: the events', rules', zones', outputs'
/// and recordings' configurations.
pub(crate) fn create_site(server: &Server, net: &str) -> Result<()> {
    create_net(&server.client(), net)?;
    let devices: Vec<_> = site_bodies()
        .into_iter()
        .map(|body| ("POST", format!("/nets/{net}/devices"), body))
        .collect();
    growth::send_concurrently(server.port(), super::LOADERS, &devices)
}

/// The devices of a configuration of the live events: a seeder and three
/// anchors around a 30 m square (the simulator locates tags inside the
/// anchors' area), and the tags.
pub(crate) fn site_bodies() -> Vec<String> {
    let anchors = [
        (3, 0, 0),
        (2, 30_000, 0),
        (2, 30_000, 30_000),
        (2, 0, 30_000),
    ];
    let mut bodies: Vec<String> = anchors
        .iter()
        .enumerate()
        .map(|(index, (role, x, y))| {
            format!(
                r#"{{"serial_number":"01:04:{:04X}","name":"Anchor {}","disabled":false,"interfaces":[{{"identifier":0,"role_id":{role},"x":{x},"y":{y},"z":2500}}]}}"#,
                index + 1,
                index + 1
            )
        })
        .collect();
    bodies.extend((1..=TAGS).map(|number| {
        super::fixture::tag_body(&format!("01:0D:{number:04X}"), &format!("Tag {number}"))
    }));
    bodies
}

/// What one stream carried.
struct Probe {
    positions_per_second: f64,
    batches_per_second: f64,
}

/// One stream of the default form, counted for [`PROBE`] after a second.
fn probe(port: u16) -> Result<Probe> {
    let mut stream = open_stream(port)?;
    stream.set_read_timeout(Some(FIRST_BATCH_TIMEOUT))?;
    let body = read_head(&mut stream)?;
    let mut batches = Counter::new(BATCH_PATTERN);
    let mut positions = Counter::new(POSITION_PATTERN);
    batches.feed(&body);
    positions.feed(&body);
    let mut buffer = vec![0; READ_BYTES];
    let mut read = |batches: &mut Counter, positions: &mut Counter| -> Result<()> {
        let read = stream
            .read(&mut buffer)
            .context("reading the probe stream")?;
        if read == 0 {
            bail!("the server ended the probe stream");
        }
        batches.feed(&buffer[..read]);
        positions.feed(&buffer[..read]);
        Ok(())
    };
    while batches.count == 0 {
        read(&mut batches, &mut positions)?;
    }
    let warm = Instant::now() + Duration::from_secs(1);
    while Instant::now() < warm {
        read(&mut batches, &mut positions)?;
    }
    let (batches_before, positions_before) = (batches.count, positions.count);
    let started = Instant::now();
    while started.elapsed() < PROBE {
        read(&mut batches, &mut positions)?;
    }
    let seconds = started.elapsed().as_secs_f64();
    Ok(Probe {
        positions_per_second: (positions.count - positions_before) as f64 / seconds,
        batches_per_second: (batches.count - batches_before) as f64 / seconds,
    })
}

/// wrk on `url` for `seconds`, and the CPU split over the middle of the run.
fn reads(server: &Server, script: &Path, url: &str, seconds: u32) -> Result<(wrk::Load, CpuSplit)> {
    let pid = server.pid();
    let margin = (f64::from(seconds) / 4.0).min(0.5);
    let span = f64::from(seconds) - 2.0 * margin;
    let cpu = thread::spawn(move || -> Result<CpuSplit> {
        thread::sleep(Duration::from_secs_f64(margin));
        let before = CpuSample::take(pid)?;
        thread::sleep(Duration::from_secs_f64(span));
        Ok(CpuSample::take(pid)?.since(&before))
    });
    let load = checked(wrk::run(script, url, READ_CONNECTIONS, seconds)?)?;
    let cpu = cpu
        .join()
        .map_err(|_| anyhow::anyhow!("the CPU sampler panicked"))??;
    Ok((load, cpu))
}

/// `GET /nets/live/events?types=position` (the default form) sent on a
/// new connection, read blocking: the probe.
fn open_stream(port: u16) -> Result<TcpStream> {
    let mut stream = TcpStream::connect(("127.0.0.1", port))
        .with_context(|| format!("could not connect to port {port}"))?;
    stream.set_nodelay(true)?;
    let request = format!(
        "GET /nets/{NET}/events?types=position&max_rate={MAX_RATE} HTTP/1.1\r\n\
         Host: 127.0.0.1:{port}\r\nAccept: text/event-stream\r\n\r\n"
    );
    stream.write_all(request.as_bytes())?;
    Ok(stream)
}

/// Reads the answer's head; fails unless it is a 200 of
/// `text/event-stream`. Returns the body's first bytes.
fn read_head(stream: &mut TcpStream) -> Result<Vec<u8>> {
    let mut head = Vec::new();
    let mut buffer = [0; 4096];
    loop {
        let read = stream
            .read(&mut buffer)
            .context("reading the answer's head")?;
        if let Some(body) = extend_head(&mut head, &buffer[..read])? {
            return Ok(body);
        }
    }
}

/// Adds the bytes just `read` to `head` (none: the server closed the
/// stream, an error) and returns the body's first bytes once the head is
/// whole ([`split_head`]); the one step of the blocking and the async
/// readers of a head.
pub(crate) fn extend_head(head: &mut Vec<u8>, read: &[u8]) -> Result<Option<Vec<u8>>> {
    if read.is_empty() {
        bail!(
            "the server closed the stream before its head ended: {}",
            String::from_utf8_lossy(head)
        );
    }
    head.extend_from_slice(read);
    split_head(head)
}

/// When `head` holds a whole answer's head: fails unless it is a 200 of
/// `text/event-stream`, and returns the bytes after it, from the newline
/// that ends the head.
fn split_head(head: &mut Vec<u8>) -> Result<Option<Vec<u8>>> {
    let Some(end) = head.windows(4).position(|window| window == b"\r\n\r\n") else {
        if head.len() > 16 * 1024 {
            bail!("the answer's head is longer than 16 KiB");
        }
        return Ok(None);
    };
    let text = String::from_utf8_lossy(&head[..end]).to_ascii_lowercase();
    let status = text.lines().next().unwrap_or_default();
    if !status.starts_with("http/1.1 200") {
        bail!("GET /nets/{NET}/events answered `{status}`");
    }
    if !text.contains("content-type: text/event-stream") {
        bail!("GET /nets/{NET}/events did not answer text/event-stream: {text}");
    }
    Ok(Some(head.split_off(end + 3)))
}

/// CPU time so far, in clock ticks (100 a second): the server's, this
/// process's (the subscribers'), and the machine's busy time.
struct CpuSample {
    at: Instant,
    server: u64,
    client: u64,
    machine_busy: u64,
}

impl CpuSample {
    fn take(server_pid: u32) -> Result<CpuSample> {
        Ok(CpuSample {
            at: Instant::now(),
            server: process_ticks(&format!("/proc/{server_pid}/stat"))?,
            client: process_ticks("/proc/self/stat")?,
            machine_busy: machine_busy_ticks()?,
        })
    }

    /// Cores used by each since `before`.
    fn since(&self, before: &CpuSample) -> CpuSplit {
        let seconds = self.at.duration_since(before.at).as_secs_f64().max(1e-3);
        let cores = |now: u64, then: u64| now.saturating_sub(then) as f64 / 100.0 / seconds;
        let server = cores(self.server, before.server);
        let client = cores(self.client, before.client);
        let busy = cores(self.machine_busy, before.machine_busy);
        CpuSplit {
            server,
            client,
            rest: (busy - server - client).max(0.0),
        }
    }
}

/// utime + stime of `/proc/<pid>/stat` (fields 14 and 15).
pub(crate) fn process_ticks(path: &str) -> Result<u64> {
    let stat = fs::read_to_string(path).with_context(|| format!("could not read {path}"))?;
    let after_name = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    // After the name, the state is field 3 (index 0): utime is 14, stime 15.
    let field = |index: usize| -> Result<u64> {
        fields
            .get(index)
            .and_then(|value| value.parse().ok())
            .with_context(|| format!("no field {} in {path}", index + 3))
    };
    Ok(field(11)? + field(12)?)
}

/// Busy ticks of every core (`/proc/stat` without idle and iowait).
fn machine_busy_ticks() -> Result<u64> {
    let stat = fs::read_to_string("/proc/stat").context("could not read /proc/stat")?;
    let line = stat
        .lines()
        .find(|line| line.starts_with("cpu "))
        .context("no cpu line in /proc/stat")?;
    let values: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .take(8)
        .filter_map(|value| value.parse().ok())
        .collect();
    let total: u64 = values.iter().sum();
    let idle = values.get(3).copied().unwrap_or(0) + values.get(4).copied().unwrap_or(0);
    Ok(total - idle)
}

/// The soft limit on open files (this process's; the server inherits it)
/// is raised to `needed` if it is lower, with prlimit (util-linux): the
/// standard library cannot call setrlimit, and this crate has no unsafe
/// code.
fn raise_open_files(needed: u64) -> Result<()> {
    let (soft, hard) = open_file_limits()?;
    if soft >= needed {
        return Ok(());
    }
    if hard < needed {
        bail!(
            "the open-file limit is {soft} (hard {hard}); the events benchmark needs {needed}: \
             raise it (`ulimit -n {needed}`, the hard limit as root) and run it again"
        );
    }
    let target = needed.max(4096).min(hard);
    let status = Command::new("prlimit")
        .arg(format!("--pid={}", std::process::id()))
        .arg(format!("--nofile={target}:{hard}"))
        .status()
        .context("could not run prlimit (util-linux) to raise the open-file limit")?;
    let (raised, _) = open_file_limits()?;
    if !status.success() || raised < needed {
        bail!(
            "could not raise the open-file limit from {soft} to {needed}: run `ulimit -n {needed}` first"
        );
    }
    eprintln!("bench: raised the open-file limit from {soft} to {raised}");
    Ok(())
}

/// Soft and hard `Max open files` of `/proc/self/limits`.
fn open_file_limits() -> Result<(u64, u64)> {
    let limits =
        fs::read_to_string("/proc/self/limits").context("could not read /proc/self/limits")?;
    let line = limits
        .lines()
        .find_map(|line| line.strip_prefix("Max open files"))
        .context("no `Max open files` in /proc/self/limits")?;
    let value = |text: Option<&str>| match text {
        Some("unlimited") => Some(u64::MAX),
        Some(text) => text.parse().ok(),
        None => None,
    };
    let mut words = line.split_whitespace();
    match (value(words.next()), value(words.next())) {
        (Some(soft), Some(hard)) => Ok((soft, hard)),
        _ => bail!("could not read `Max open files{line}`"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_the_positions_of_the_default_form() {
        assert_eq!(
            subscribers::count_in(
                br#"[{"serial_number":1},{"serial_number":2}]"#,
                POSITION_PATTERN
            ),
            2
        );
    }

    #[test]
    fn splits_the_head_from_the_body() {
        let mut head = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\nbody".to_vec();
        assert_eq!(split_head(&mut head).unwrap().unwrap(), b"\nbody");
        let mut partial = b"HTTP/1.1 200 OK\r\n".to_vec();
        assert!(split_head(&mut partial).unwrap().is_none());
        let mut refused = b"HTTP/1.1 404 Not Found\r\n\r\n".to_vec();
        assert!(split_head(&mut refused).is_err());
    }

    #[test]
    fn reads_the_open_file_limits() {
        let (soft, hard) = open_file_limits().unwrap();
        assert!(soft > 0 && soft <= hard);
    }
}
