//! Live events under load (`GET /nets/{net_name}/events`): 1,000
//! subscribers to one configuration running 330 tags at 10 Hz on the
//! simulator (about 3,300 positions a second, ten position batches a second
//! to each subscriber at `max_rate=10`).
//!
//! Three figures, each beside its goal (docs/benchmarks.md):
//! - REST reads (`GET /nets/live/devices`, wrk) with the subscribers
//!   connected and reading, divided by the same without them (the
//!   configuration runs in both);
//! - the server's resident memory per subscriber: with the subscribers
//!   connected and warmed up, minus before they connected, over their count;
//! - the share of position batches each subscriber received over a window
//!   that spans the loaded read run: batches counted over ten a second.
//!
//! The subscribers are plain threads with small stacks, one blocking
//! `TcpStream` each, that send a raw HTTP/1.1 GET, check the status line and
//! then read all the time, counting `event: position` lines in the bytes as
//! they come (a pattern split between two reads is still counted once).

use std::{
    fs,
    io::{BufRead, ErrorKind, Read, Write},
    net::TcpStream,
    path::Path,
    process::Command,
    sync::{
        Arc, Mutex, PoisonError,
        atomic::{AtomicBool, AtomicU64, Ordering},
    },
    thread::{self, JoinHandle},
    time::{Duration, Instant},
};

use anyhow::{Context, Result, bail};

use super::{
    checked, create_net, growth,
    report::{CpuSplit, EventFigures},
    step, wrk,
};
use crate::server::{Launch, Server, Value};

/// The configuration the subscribers listen to.
const NET: &str = "live";
/// Subscribers to its events.
pub(crate) const SUBSCRIBERS: usize = 1_000;
/// Tags (role 4, DEFAULT TAG: a 100 ms beacon period, 10 Hz).
pub(crate) const TAGS: usize = 330;
/// The beacon period of role 4 that gives 10 Hz, in network time units.
pub(crate) const TAG_PERIOD_UNITS: u64 = 97_500;
/// Position batches a second each subscriber asks for (the default).
pub(crate) const MAX_RATE: u32 = 10;
/// Position frames the server cuts a second.
const FRAMES_PER_SECOND: u32 = 10;
/// wrk connections of the REST read runs.
pub(crate) const READ_CONNECTIONS: u32 = 8;
/// Connected subscribers read this long before anything is measured.
const WARM_UP: Duration = Duration::from_secs(2);
/// The probe stream measures this long, after one second of warming up.
const PROBE: Duration = Duration::from_secs(2);
/// Positions a second the probe must see at least (90% of 330 at 10 Hz),
/// or the configuration does not run as the figures claim.
const PROBE_MINIMUM: f64 = 0.9 * (TAGS as f64) * 10.0;
/// The longest wait for a stream's first position batch.
const FIRST_BATCH_TIMEOUT: Duration = Duration::from_secs(30);
/// A subscriber looks at the stop flag at least this often.
const READ_TIMEOUT: Duration = Duration::from_secs(1);
/// A subscriber thread's stack: it only loops over reads.
const STACK_BYTES: usize = 128 * 1024;
/// A subscriber's read buffer (the server writes up to 64 KiB at a time).
const READ_BYTES: usize = 64 * 1024;
/// What starts each position batch on the wire. Every event line follows a
/// newline (the previous event's blank line, or a chunk-size line).
const BATCH_PATTERN: &[u8] = b"\nevent: position\n";
/// What each position in a batch carries once.
const POSITION_PATTERN: &[u8] = b"\"serial_number\"";
/// File descriptors the bench process and the server each need beyond the
/// subscribers' sockets.
const SPARE_FILES: u64 = 512;

/// Runs the live-events benchmark with its own server over `dir/events`.
pub(crate) fn measure(binary: &Path, dir: &Path, seconds: u32) -> Result<EventFigures> {
    raise_open_files(SUBSCRIBERS as u64 + SPARE_FILES)?;
    let launch = Launch::new(binary, &dir.join("events"), &dir.join("server-events.log"));
    step(&format!(
        "events: a configuration of {TAGS} tags at 10 Hz on the simulator"
    ));
    let server = launch.start()?;
    let client = server.client();
    create_net(&client, NET)?;
    growth::send_concurrently(server.port(), super::LOADERS, &site())?;
    let tag_period = client
        .expect_ok("GET", &format!("/nets/{NET}/roles/4"), None)?
        .payload("role")?
        .get("network_period")
        .and_then(Value::as_u64);
    if tag_period != Some(TAG_PERIOD_UNITS) {
        bail!("role 4's network_period is {tag_period:?}, not {TAG_PERIOD_UNITS} (10 Hz)");
    }
    client.expect_ok(
        "POST",
        &format!("/nets/{NET}"),
        Some(r#"{"action": "start"}"#),
    )?;
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
    step("events: reads without subscribers");
    wrk::run(&get, &devices_url, READ_CONNECTIONS, 2)?;
    let (without, cpu_without) = reads(&server, &get, &devices_url, seconds)?;
    eprintln!(
        "    {:.0} req/s (p50 {:.2} ms, p99 {:.2} ms); CPU {}",
        without.rate(),
        without.p50_ms,
        without.p99_ms,
        cpu_without.text()
    );

    thread::sleep(Duration::from_secs(1));
    let rss_before_kb = server.rss_kib()?;
    step(&format!("events: connecting {SUBSCRIBERS} subscribers"));
    let subscribers = Subscribers::connect(server.port(), SUBSCRIBERS)?;
    subscribers.wait_for_first_batches()?;
    thread::sleep(WARM_UP);
    let rss_with_kb = server.rss_kib()?;
    eprintln!(
        "    server RSS {} kB before, {} kB with them: {:.1} KiB each",
        rss_before_kb,
        rss_with_kb,
        rss_with_kb.saturating_sub(rss_before_kb) as f64 / SUBSCRIBERS as f64
    );

    step(&format!(
        "events: reads with {SUBSCRIBERS} subscribers reading"
    ));
    let window = subscribers.start_window()?;
    let (with, cpu_with) = reads(&server, &get, &devices_url, seconds)?;
    let counted = subscribers.end_window(window);
    eprintln!(
        "    {:.0} req/s (p50 {:.2} ms, p99 {:.2} ms); CPU {}; ratio {:.3}",
        with.rate(),
        with.p50_ms,
        with.p99_ms,
        cpu_with.text(),
        with.rate() / without.rate()
    );
    let ended_early = subscribers.stop();
    thread::sleep(Duration::from_secs(1));
    let rss_after_kb = server.rss_kib()?;
    server.stop()?;

    let expected = f64::from(counted.frames);
    let figures = EventFigures {
        subscribers: SUBSCRIBERS,
        tags: TAGS,
        max_rate: MAX_RATE,
        read_connections: READ_CONNECTIONS,
        positions_per_second: probe.positions_per_second,
        batches_per_second: probe.batches_per_second,
        without,
        with,
        cpu_without,
        cpu_with,
        rss_before_kb,
        rss_with_kb,
        rss_after_kb,
        window_seconds: expected / f64::from(FRAMES_PER_SECOND),
        shares: counted
            .batches
            .iter()
            .map(|&batches| batches as f64 / expected)
            .collect(),
        received_bytes: counted.bytes,
        ended_early,
    };
    eprintln!(
        "    position batches over {:.1} s: min {:.1}%, median {:.1}%, mean {:.1}% of {}",
        figures.window_seconds,
        100.0 * figures.share_min(),
        100.0 * figures.share_median(),
        100.0 * figures.share_mean(),
        counted.frames
    );
    Ok(figures)
}

/// The configuration's devices, as POSTs.
fn site() -> Vec<(&'static str, String, String)> {
    site_bodies()
        .into_iter()
        .map(|body| ("POST", format!("/nets/{NET}/devices"), body))
        .collect()
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

/// Reads one stream: after its first batch and a second more, counts
/// positions and batches for [`PROBE`].
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

/// `GET /nets/live/events?types=position` sent on a new connection.
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
/// `text/event-stream`. Returns the body's first bytes, from the newline
/// that ends the head.
fn read_head(stream: &mut TcpStream) -> Result<Vec<u8>> {
    let mut head = Vec::new();
    let mut buffer = [0; 4096];
    loop {
        let read = stream
            .read(&mut buffer)
            .context("reading the answer's head")?;
        if read == 0 {
            bail!(
                "the server closed the stream before its head ended: {}",
                String::from_utf8_lossy(&head)
            );
        }
        head.extend_from_slice(&buffer[..read]);
        if let Some(end) = head.windows(4).position(|window| window == b"\r\n\r\n") {
            let text = String::from_utf8_lossy(&head[..end]).to_ascii_lowercase();
            let status = text.lines().next().unwrap_or_default();
            if !status.starts_with("http/1.1 200") {
                bail!("GET /nets/{NET}/events answered `{status}`");
            }
            if !text.contains("content-type: text/event-stream") {
                bail!("GET /nets/{NET}/events did not answer text/event-stream: {text}");
            }
            return Ok(head.split_off(end + 3));
        }
        if head.len() > 16 * 1024 {
            bail!("the answer's head is longer than 16 KiB");
        }
    }
}

/// Counts a pattern in a byte stream read in pieces: the last bytes of each
/// piece are kept, so that a pattern split between two reads is counted
/// (once).
pub(crate) struct Counter {
    pattern: &'static [u8],
    /// The kept bytes, then room for one read.
    buffer: Vec<u8>,
    kept: usize,
    pub(crate) count: u64,
}

impl Counter {
    pub(crate) fn new(pattern: &'static [u8]) -> Counter {
        Counter {
            pattern,
            buffer: vec![0; READ_BYTES + pattern.len()],
            kept: 0,
            count: 0,
        }
    }

    /// Where the next read goes.
    fn space(&mut self) -> &mut [u8] {
        &mut self.buffer[self.kept..]
    }

    /// `read` bytes were read into [`Counter::space`]: counts the patterns
    /// that end in them and returns how many.
    fn filled(&mut self, read: usize) -> u64 {
        let end = self.kept + read;
        let found = count_in(&self.buffer[..end], self.pattern);
        // Fewer bytes than the pattern cannot hold a whole one: no pattern
        // is counted twice.
        let keep = (self.pattern.len() - 1).min(end);
        self.buffer.copy_within(end - keep..end, 0);
        self.kept = keep;
        self.count += found;
        found
    }

    /// Counts the patterns that end in `bytes`.
    pub(crate) fn feed(&mut self, bytes: &[u8]) -> u64 {
        let mut found = 0;
        for piece in bytes.chunks(READ_BYTES) {
            self.space()[..piece.len()].copy_from_slice(piece);
            found += self.filled(piece.len());
        }
        found
    }
}

/// Occurrences of `pattern` in `haystack`.
fn count_in(haystack: &[u8], pattern: &[u8]) -> u64 {
    let Some(&first) = pattern.first() else {
        return 0;
    };
    let (mut count, mut at) = (0, 0);
    while let Some(found) = find_byte(&haystack[at..], first) {
        let start = at + found;
        if haystack[start..].starts_with(pattern) {
            count += 1;
        }
        at = start + 1;
    }
    count
}

/// The index of the first `byte` in `bytes`. `BufRead::skip_until` on a
/// slice runs the standard library's memchr, which is built optimised
/// whatever the profile: `cargo xtask bench` builds this crate in release,
/// but a debug build (`cargo run -p netcfg-load`) with a byte loop would
/// make the subscribers, not the server, the bottleneck at some 300 MB a
/// second.
fn find_byte(bytes: &[u8], byte: u8) -> Option<usize> {
    let mut rest = bytes;
    let skipped = rest.skip_until(byte).ok()?;
    (skipped > 0 && bytes[skipped - 1] == byte).then(|| skipped - 1)
}

/// What one subscriber has counted so far.
#[derive(Default)]
struct Tally {
    batches: AtomicU64,
    bytes: AtomicU64,
    /// Nanoseconds from the subscribers' epoch to the last read that held a
    /// batch.
    last_batch_ns: AtomicU64,
    opened: AtomicBool,
    ended: AtomicBool,
    error: Mutex<Option<String>>,
}

/// The subscribers, each on its own thread.
struct Subscribers {
    tallies: Vec<Arc<Tally>>,
    threads: Vec<JoinHandle<()>>,
    stop: Arc<AtomicBool>,
    epoch: Instant,
}

/// Where a measured window starts.
struct Window {
    at: Instant,
    batches: Vec<u64>,
    bytes: u64,
}

/// What the subscribers received over a window.
struct Counted {
    /// Frames the server cut over the window (ten a second).
    frames: u32,
    /// Batches each subscriber received over it.
    batches: Vec<u64>,
    /// Bytes all received over it.
    bytes: u64,
}

impl Subscribers {
    /// Opens `count` streams, one after the other (the server's listen
    /// queue is not flooded), each read by its own thread.
    fn connect(port: u16, count: usize) -> Result<Subscribers> {
        let stop = Arc::new(AtomicBool::new(false));
        let epoch = Instant::now();
        let mut subscribers = Subscribers {
            tallies: Vec::with_capacity(count),
            threads: Vec::with_capacity(count),
            stop: Arc::clone(&stop),
            epoch,
        };
        for number in 0..count {
            let stream =
                open_stream(port).with_context(|| format!("subscriber {number} of {count}"))?;
            stream.set_read_timeout(Some(FIRST_BATCH_TIMEOUT))?;
            let tally = Arc::new(Tally::default());
            let (thread_tally, stop) = (Arc::clone(&tally), Arc::clone(&stop));
            let thread = thread::Builder::new()
                .name(format!("subscriber-{number}"))
                .stack_size(STACK_BYTES)
                .spawn(move || subscribe(stream, &thread_tally, &stop, epoch))
                .context("could not start a subscriber thread")?;
            subscribers.tallies.push(tally);
            subscribers.threads.push(thread);
        }
        Ok(subscribers)
    }

    /// The first error of a subscriber that ended, if one did.
    fn first_error(&self) -> Option<String> {
        self.tallies.iter().enumerate().find_map(|(number, tally)| {
            let error = tally.error.lock().unwrap_or_else(PoisonError::into_inner);
            error
                .as_ref()
                .map(|error| format!("subscriber {number}: {error}"))
        })
    }

    /// Waits until every stream answered 200 and brought a position batch.
    fn wait_for_first_batches(&self) -> Result<()> {
        let deadline = Instant::now() + FIRST_BATCH_TIMEOUT;
        loop {
            if let Some(error) = self.first_error() {
                bail!("{error}");
            }
            let waiting = self
                .tallies
                .iter()
                .filter(|tally| {
                    !tally.opened.load(Ordering::Relaxed)
                        || tally.batches.load(Ordering::Relaxed) == 0
                })
                .count();
            if waiting == 0 {
                return Ok(());
            }
            if Instant::now() > deadline {
                bail!(
                    "{waiting} of {} subscribers had no position batch after {FIRST_BATCH_TIMEOUT:?}",
                    self.tallies.len()
                );
            }
            thread::sleep(Duration::from_millis(50));
        }
    }

    /// Starts a window halfway between two frames, as the first subscriber
    /// receives them: every subscriber that gets each frame within 50 ms of
    /// it then counts exactly the frames cut in a window of whole tenths of
    /// a second.
    fn start_window(&self) -> Result<Window> {
        let last_ns = self.tallies[0].last_batch_ns.load(Ordering::Relaxed);
        let period_ns = 1_000_000_000 / u64::from(FRAMES_PER_SECOND);
        let now_ns = u64::try_from(self.epoch.elapsed().as_nanos())?;
        let mut at_ns = last_ns + period_ns / 2;
        while at_ns <= now_ns {
            at_ns += period_ns;
        }
        let at = self.epoch + Duration::from_nanos(at_ns);
        thread::sleep(at.saturating_duration_since(Instant::now()));
        let (batches, bytes) = self.snapshot();
        Ok(Window { at, batches, bytes })
    }

    /// Ends `window` at its first whole tenth of a second from now.
    fn end_window(&self, window: Window) -> Counted {
        let period = Duration::from_secs(1) / FRAMES_PER_SECOND;
        let mut frames = 1;
        while window.at + period * frames <= Instant::now() {
            frames += 1;
        }
        thread::sleep((window.at + period * frames).saturating_duration_since(Instant::now()));
        let (batches, bytes) = self.snapshot();
        Counted {
            frames,
            batches: batches
                .iter()
                .zip(&window.batches)
                .map(|(now, then)| now - then)
                .collect(),
            bytes: bytes - window.bytes,
        }
    }

    fn snapshot(&self) -> (Vec<u64>, u64) {
        let batches = self
            .tallies
            .iter()
            .map(|tally| tally.batches.load(Ordering::Relaxed))
            .collect();
        let bytes = self
            .tallies
            .iter()
            .map(|tally| tally.bytes.load(Ordering::Relaxed))
            .sum();
        (batches, bytes)
    }

    /// Stops every subscriber (each closes its connection) and returns how
    /// many had ended before, with their first error printed.
    fn stop(mut self) -> usize {
        let ended_early = self
            .tallies
            .iter()
            .filter(|tally| tally.ended.load(Ordering::Relaxed))
            .count();
        if let Some(error) = self.first_error() {
            eprintln!("    {ended_early} subscribers ended early; {error}");
        }
        self.join();
        ended_early
    }

    fn join(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

impl Drop for Subscribers {
    fn drop(&mut self) {
        self.join();
    }
}

/// A subscriber's thread: the head, then reads until told to stop.
fn subscribe(mut stream: TcpStream, tally: &Tally, stop: &AtomicBool, epoch: Instant) {
    let mut read = || -> Result<()> {
        let body = read_head(&mut stream)?;
        tally.opened.store(true, Ordering::Relaxed);
        stream.set_read_timeout(Some(READ_TIMEOUT))?;
        let mut counter = Counter::new(BATCH_PATTERN);
        let record = |found: u64, bytes: usize| {
            if found > 0 {
                tally.batches.fetch_add(found, Ordering::Relaxed);
                let ns = u64::try_from(epoch.elapsed().as_nanos()).unwrap_or(u64::MAX);
                tally.last_batch_ns.store(ns, Ordering::Relaxed);
            }
            tally.bytes.fetch_add(bytes as u64, Ordering::Relaxed);
        };
        record(counter.feed(&body), body.len());
        while !stop.load(Ordering::Relaxed) {
            match stream.read(counter.space()) {
                Ok(0) => bail!("the server ended the stream"),
                Ok(read) => record(counter.filled(read), read),
                // Quiet for a while (a busy server): it reads on, as a
                // real client does.
                Err(error)
                    if matches!(
                        error.kind(),
                        ErrorKind::WouldBlock | ErrorKind::TimedOut | ErrorKind::Interrupted
                    ) => {}
                Err(error) => return Err(error.into()),
            }
        }
        Ok(())
    };
    if let Err(error) = read() {
        *tally.error.lock().unwrap_or_else(PoisonError::into_inner) = Some(format!("{error:#}"));
        tally.ended.store(true, Ordering::Relaxed);
    }
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

    const STREAM: &[u8] = b"HTTP/1.1 200 OK\r\n\r\n1d\r\n: netcfg events\nretry: 3000\n\n\r\n40\r\nevent: position\ndata: {\"net\":\"live\",\"positions\":[]}\n\nevent: position\ndata: {}\n\n\r\n";

    #[test]
    fn counts_every_pattern_however_the_stream_is_cut() {
        let whole = count_in(STREAM, BATCH_PATTERN);
        assert_eq!(whole, 2);
        for piece in 1..STREAM.len() {
            let mut counter = Counter::new(BATCH_PATTERN);
            let found: u64 = STREAM.chunks(piece).map(|bytes| counter.feed(bytes)).sum();
            assert_eq!((found, counter.count), (2, 2), "pieces of {piece} bytes");
        }
    }

    #[test]
    fn counts_back_to_back_patterns_and_nothing_else() {
        assert_eq!(
            count_in(b"\nevent: position\nevent: position\n", BATCH_PATTERN),
            2
        );
        assert_eq!(count_in(b"\nevent: positions\n", BATCH_PATTERN), 0);
        assert_eq!(count_in(b"event: position\n", BATCH_PATTERN), 0);
        assert_eq!(count_in(b"", BATCH_PATTERN), 0);
        assert_eq!(
            count_in(
                br#"[{"serial_number":1},{"serial_number":2}]"#,
                POSITION_PATTERN
            ),
            2
        );
    }

    #[test]
    fn finds_bytes() {
        assert_eq!(find_byte(b"abc\n", b'\n'), Some(3));
        assert_eq!(find_byte(b"\nabc", b'\n'), Some(0));
        assert_eq!(find_byte(b"abc", b'\n'), None);
        assert_eq!(find_byte(b"", b'\n'), None);
    }

    #[test]
    fn reads_the_open_file_limits() {
        let (soft, hard) = open_file_limits().unwrap();
        assert!(soft > 0 && soft <= hard);
    }
}
