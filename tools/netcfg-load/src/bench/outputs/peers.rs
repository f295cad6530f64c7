//! What runs around the server in the outputs' bench: a mosquitto broker
//! with its own configuration file, a subscriber (`mosquitto_sub`, whose
//! lines this process counts), the Python bridge a user would write
//! (`scripts/mqtt_bridge.py`), and the server's own event stream (SSE), the
//! reference for the zone, notification and state events it emitted.

use std::{
    collections::{BTreeMap, HashMap, HashSet, hash_map::DefaultHasher},
    fs::{self, OpenOptions},
    hash::{Hash, Hasher},
    io::{BufRead, BufReader, Write},
    net::{TcpListener, TcpStream, UdpSocket},
    os::unix::fs::PermissionsExt,
    path::{Path, PathBuf},
    process::{Child, ChildStdin, Command, Stdio},
    sync::{
        Arc, Mutex, PoisonError,
        mpsc::{self, Receiver},
    },
    thread,
    time::{Duration, Instant},
};

use anyhow::{Context, Result, bail};

use super::super::{events, zones};
use crate::server::Value;

/// Where Debian's mosquitto package puts the broker.
const MOSQUITTO: &str = "/usr/sbin/mosquitto";
/// The topic every subscriber also listens to, to tell when it is ready.
const PROBE_TOPIC: &str = "bench/probe";
/// What marks a position inside a batch (`{prefix}/positions`): each
/// position carries its serial number once.
const SERIAL_PATTERN: &[u8] = b"\"serial_number\"";
/// The longest wait for a broker to listen or a subscriber to hear.
const READY_TIMEOUT: Duration = Duration::from_secs(15);

/// A free TCP port of the loopback interface.
pub(crate) fn free_port() -> Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// A free UDP port of the loopback interface (a data stream's destination).
pub(crate) fn free_udp_port() -> Result<u16> {
    Ok(UdpSocket::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// Clock ticks (100 a second) a process has used, user and system.
pub(crate) fn ticks(pid: u32) -> Result<u64> {
    super::super::events::process_ticks(&format!("/proc/{pid}/stat"))
}

/// SIGTERM to `child`, then waits (at most 20 s) for it to exit.
fn terminate(child: &mut Child, what: &str) -> Result<()> {
    if child.try_wait()?.is_some() {
        return Ok(());
    }
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        if child.try_wait()?.is_some() {
            return Ok(());
        }
        thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    bail!("{what} did not stop within 20 s of SIGTERM")
}

fn append_to(log: &Path) -> Result<fs::File> {
    OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .with_context(|| format!("could not open {}", log.display()))
}

/// The last lines of a log, for an error message.
fn tail(log: &Path) -> String {
    let text = fs::read_to_string(log).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(10)..].join("\n")
}

/// A mosquitto on a free loopback port, stopped with SIGTERM and started
/// again on the same port with the same configuration.
#[derive(Debug)]
pub(crate) struct Broker {
    child: Option<Child>,
    port: u16,
    config: PathBuf,
    log: PathBuf,
}

impl Broker {
    /// Writes `dir/{name}.conf` and starts the broker. It never drops QoS 0
    /// messages for a subscriber that falls behind (`max_queued_messages
    /// 0`: its default of 1,000 would measure the broker, not netcfg). With
    /// `persistent`, it keeps sessions and retained messages across a
    /// restart in `dir/{name}-store` (mode 0777: run as root, mosquitto
    /// drops to its own user), and queues QoS 0 messages for a persistent
    /// subscriber that is away.
    pub(crate) fn start(dir: &Path, name: &str, persistent: bool) -> Result<Broker> {
        let port = free_port()?;
        let config = dir.join(format!("{name}.conf"));
        let mut text =
            format!("listener {port} 127.0.0.1\nallow_anonymous true\nmax_queued_messages 0\n");
        if persistent {
            let store = dir.join(format!("{name}-store"));
            fs::create_dir_all(&store)?;
            fs::set_permissions(&store, fs::Permissions::from_mode(0o777))?;
            text.push_str(&format!(
                "persistence true\npersistence_location {}/\nqueue_qos0_messages true\n",
                store.display()
            ));
        } else {
            text.push_str("persistence false\n");
        }
        fs::write(&config, text)?;
        let mut broker = Broker {
            child: None,
            port,
            config,
            log: dir.join(format!("{name}.log")),
        };
        broker.restart()?;
        Ok(broker)
    }

    /// Starts the broker (again) and waits until it listens.
    pub(crate) fn restart(&mut self) -> Result<()> {
        if self.child.is_some() {
            bail!("the broker runs already");
        }
        let mut child = Command::new(MOSQUITTO)
            .arg("-c")
            .arg(&self.config)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(append_to(&self.log)?)
            .spawn()
            .with_context(|| format!("could not start {MOSQUITTO}"))?;
        let deadline = Instant::now() + READY_TIMEOUT;
        loop {
            if let Some(status) = child.try_wait()? {
                bail!(
                    "mosquitto exited at start with {status}; {} ends:\n{}",
                    self.log.display(),
                    tail(&self.log)
                );
            }
            if TcpStream::connect(("127.0.0.1", self.port)).is_ok() {
                break;
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                bail!("mosquitto did not listen on {} within 15 s", self.port);
            }
            thread::sleep(Duration::from_millis(10));
        }
        self.child = Some(child);
        Ok(())
    }

    /// Stops it with SIGTERM (it saves its store first when persistent).
    pub(crate) fn stop(&mut self) -> Result<()> {
        match self.child.take() {
            Some(mut child) => terminate(&mut child, "mosquitto"),
            None => Ok(()),
        }
    }

    pub(crate) fn port(&self) -> u16 {
        self.port
    }

    /// Its process id while it runs.
    pub(crate) fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }
}

impl Drop for Broker {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// What a subscriber received under one prefix (`netcfg/{net}`,
/// `bridge/{net}`: a topic's first two levels).
#[derive(Debug, Default, Clone)]
pub(crate) struct Received {
    /// Every message.
    pub(crate) messages: u64,
    /// Messages on `{prefix}/tags/{serial_number}/position`.
    pub(crate) positions: u64,
    /// Messages on `{prefix}/positions`.
    pub(crate) batches: u64,
    /// Positions in those.
    pub(crate) batch_positions: u64,
    /// Zone events by [`zone_key`], with how many times each came.
    pub(crate) zones: HashMap<String, u32>,
    /// Notifications by identifier, with how many times each came.
    pub(crate) notifications: HashMap<u64, u32>,
    /// State messages in arrival order: whether the broker marked it
    /// retained (sent because of a new subscription), and the state.
    pub(crate) states: Vec<(bool, String)>,
    /// Anything else (device events).
    pub(crate) other: u64,
}

/// The single-position messages of each tag, followed: repeats, and gaps
/// in each tag's sequence of network times (a tag reports every
/// [`events::TAG_PERIOD_UNITS`]).
///
/// A position's network time is that of the simulator's tick that made it
/// (every 10 ms): a tick that comes late can hold two positions of a tag,
/// with one network time (and a hole before them, which the second one
/// fills). So a repeat is the same tag with the same payload, byte for
/// byte; another position of a tag at its last network time is one of
/// those and closes that hole.
#[derive(Debug, Default, Clone)]
pub(crate) struct Track {
    /// Each tag's last network time and `time_ms`, and the gap that led
    /// to it.
    last: HashMap<String, (u64, u64, Option<usize>)>,
    /// A hash of each (tag, payload) received.
    seen: HashSet<u64>,
    /// Positions received again (same tag, same payload).
    pub(crate) repeats: u64,
    /// The `time_ms` of each of those.
    pub(crate) repeated_at: Vec<u64>,
    /// Positions older than their tag's last one (not repeats).
    pub(crate) out_of_order: u64,
    /// Positions with the network time of their tag's last one (two in one
    /// late tick).
    pub(crate) same_tick: u64,
    /// Each gap: the `time_ms` of the positions either side of it, and
    /// how many positions are missing between them.
    pub(crate) gaps: Vec<(u64, u64, u64)>,
    /// The tag of each gap.
    pub(crate) gap_tags: Vec<String>,
    /// Payloads without a network time or `time_ms`.
    pub(crate) unreadable: u64,
}

impl Track {
    /// Follows one position of `serial` (its message's payload).
    pub(crate) fn record(&mut self, serial: &str, payload: &[u8]) {
        let (Some(network_time), Some(time_ms)) = (
            field_u64(payload, "network_time"),
            field_u64(payload, "time_ms"),
        ) else {
            self.unreadable += 1;
            return;
        };
        let mut hasher = DefaultHasher::new();
        (serial, payload).hash(&mut hasher);
        if !self.seen.insert(hasher.finish()) {
            self.repeats += 1;
            self.repeated_at.push(time_ms);
            return;
        }
        match self.last.get_mut(serial) {
            Some(last) if network_time < last.0 => self.out_of_order += 1,
            Some(last) if network_time == last.0 => {
                self.same_tick += 1;
                if let Some(index) = last.2
                    && let Some(gap) = self.gaps.get_mut(index)
                    && gap.2 > 0
                {
                    gap.2 -= 1;
                }
            }
            Some(last) => {
                let periods = ((network_time - last.0) as f64 / events::TAG_PERIOD_UNITS as f64)
                    .round() as u64;
                let mut gap = None;
                if periods > 1 {
                    gap = Some(self.gaps.len());
                    self.gaps.push((last.1, time_ms, periods - 1));
                    self.gap_tags.push(serial.to_owned());
                }
                *last = (network_time, time_ms, gap);
            }
            None => {
                self.last
                    .insert(serial.to_owned(), (network_time, time_ms, None));
            }
        }
    }

    /// Missing positions whose time falls in `[from_ms, to_ms)`, each
    /// placed evenly between the positions either side of its gap.
    pub(crate) fn missing(&self, from_ms: u64, to_ms: u64) -> u64 {
        let mut count = 0;
        for &(before, after, missing) in &self.gaps {
            let span = after.saturating_sub(before) as f64;
            for index in 1..=missing {
                let at = before as f64 + span * index as f64 / (missing + 1) as f64;
                if (from_ms as f64..to_ms as f64).contains(&at) {
                    count += 1;
                }
            }
        }
        count
    }

    /// Repeated positions whose time falls in `[from_ms, to_ms)`.
    pub(crate) fn repeated(&self, from_ms: u64, to_ms: u64) -> u64 {
        self.repeated_at
            .iter()
            .filter(|at| (from_ms..to_ms).contains(at))
            .count() as u64
    }
}

/// The number after `"name":` in a JSON object's text.
pub(crate) fn field_u64(json: &[u8], name: &str) -> Option<u64> {
    let pattern = format!("\"{name}\":");
    let start = json
        .windows(pattern.len())
        .position(|window| window == pattern.as_bytes())?
        + pattern.len();
    let digits: &[u8] = &json[start..];
    let end = digits
        .iter()
        .position(|byte| !byte.is_ascii_digit())
        .unwrap_or(digits.len());
    std::str::from_utf8(&digits[..end]).ok()?.parse().ok()
}

/// What a subscriber has received so far.
#[derive(Debug, Default, Clone)]
pub(crate) struct Tally {
    pub(crate) by_prefix: BTreeMap<String, Received>,
    /// Single positions followed tag by tag, by prefix (when asked for).
    tracks: Option<BTreeMap<String, Track>>,
    /// Messages on [`PROBE_TOPIC`].
    pub(crate) probes: u64,
    /// Lines that were not `retained topic payload`.
    pub(crate) unreadable: u64,
}

impl Tally {
    /// Counts one line of `mosquitto_sub -F '%r %t %p'`.
    pub(crate) fn record(&mut self, line: &[u8]) {
        let Some((retained, topic, payload)) = parse_line(line) else {
            self.unreadable += 1;
            return;
        };
        if topic == PROBE_TOPIC {
            self.probes += 1;
            return;
        }
        let mut levels = topic.splitn(3, '/');
        let (Some(first), Some(second), Some(rest)) = (levels.next(), levels.next(), levels.next())
        else {
            self.unreadable += 1;
            return;
        };
        let prefix = format!("{first}/{second}");
        if let Some(tracks) = &mut self.tracks
            && let Some(serial) = rest
                .strip_prefix("tags/")
                .and_then(|rest| rest.strip_suffix("/position"))
        {
            tracks
                .entry(prefix.clone())
                .or_default()
                .record(serial, payload);
        }
        let received = self.by_prefix.entry(prefix).or_default();
        received.messages += 1;
        if rest.starts_with("tags/") && rest.ends_with("/position") {
            received.positions += 1;
        } else if rest == "positions" {
            received.batches += 1;
            received.batch_positions += count_positions(payload);
        } else if rest.starts_with("zones/") {
            match zone_key(payload) {
                Some(key) => *received.zones.entry(key).or_default() += 1,
                None => self.unreadable += 1,
            }
        } else if rest == "notifications" {
            match serde_json::from_slice::<Value>(payload)
                .ok()
                .and_then(|event| event["identifier"].as_u64())
            {
                Some(identifier) => *received.notifications.entry(identifier).or_default() += 1,
                None => self.unreadable += 1,
            }
        } else if rest == "state" {
            let state = serde_json::from_slice::<Value>(payload)
                .ok()
                .and_then(|event| event["state"].as_str().map(str::to_owned))
                .unwrap_or_else(|| "?".to_owned());
            received.states.push((retained, state));
        } else {
            received.other += 1;
        }
    }

    /// What came under `prefix` (nothing yet: all zero).
    pub(crate) fn of(&self, prefix: &str) -> Received {
        self.by_prefix.get(prefix).cloned().unwrap_or_default()
    }
}

/// A line of `mosquitto_sub -F '%r %t %p'`: the retained flag, the topic
/// and the payload (which starts with `{` or `[`: every payload here is
/// JSON).
pub(crate) fn parse_line(line: &[u8]) -> Option<(bool, &str, &[u8])> {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let retained = match line.get(..2)? {
        b"0 " => false,
        b"1 " => true,
        _ => return None,
    };
    let rest = &line[2..];
    let end = rest
        .windows(2)
        .position(|pair| pair == b" {" || pair == b" [")?;
    let topic = std::str::from_utf8(&rest[..end]).ok()?;
    Some((retained, topic, &rest[end + 1..]))
}

/// Positions in a batch payload (an array of positions, each with its
/// serial number).
pub(crate) fn count_positions(payload: &[u8]) -> u64 {
    payload
        .windows(SERIAL_PATTERN.len())
        .filter(|window| *window == SERIAL_PATTERN)
        .count() as u64
}

/// What tells one zone event from another, in an MQTT payload or an SSE
/// `data:` line alike: its zone, tag, enter or exit, and network time.
pub(crate) fn zone_key(json: &[u8]) -> Option<String> {
    let event: Value = serde_json::from_slice(json).ok()?;
    Some(format!(
        "{}|{}|{}|{}",
        event["zone"].as_str()?,
        event["serial_number"].as_str()?,
        event["event"].as_str()?,
        event["network_time"].as_u64()?
    ))
}

/// `mosquitto_sub` on a broker, its lines counted by a thread of this
/// process as they come.
#[derive(Debug)]
pub(crate) struct Subscriber {
    child: Child,
    tally: Arc<Mutex<Tally>>,
}

impl Subscriber {
    /// Subscribes to `topics` (and the probe). With `persistent`, it is the
    /// client `persistent` with a persistent session (`-c`) at QoS 1, so
    /// what is published while it is away waits for it at the broker; it
    /// connects again by itself when the broker comes back. With `track`,
    /// single positions are followed tag by tag ([`Track`]). Returns once
    /// it hears the probe.
    pub(crate) fn start(
        port: u16,
        topics: &[String],
        persistent: Option<&str>,
        track: bool,
        log: &Path,
    ) -> Result<Subscriber> {
        let mut command = Command::new("mosquitto_sub");
        command.args([
            "-h",
            "127.0.0.1",
            "-p",
            &port.to_string(),
            "-F",
            "%r %t %p",
            "-t",
            PROBE_TOPIC,
        ]);
        if let Some(id) = persistent {
            command.args(["-c", "-i", id, "-q", "1"]);
        }
        for topic in topics {
            command.args(["-t", topic]);
        }
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(append_to(log)?)
            .spawn()
            .context("could not start mosquitto_sub")?;
        let stdout = child.stdout.take().context("mosquitto_sub's output")?;
        let tally = Arc::new(Mutex::new(Tally {
            tracks: track.then(BTreeMap::new),
            ..Tally::default()
        }));
        let counting = Arc::clone(&tally);
        thread::spawn(move || {
            let mut reader = BufReader::with_capacity(1 << 20, stdout);
            let mut line = Vec::with_capacity(64 * 1024);
            loop {
                line.clear();
                match reader.read_until(b'\n', &mut line) {
                    Ok(0) | Err(_) => return,
                    Ok(_) => counting
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .record(&line),
                }
            }
        });
        let subscriber = Subscriber { child, tally };
        subscriber.wait_ready(port)?;
        Ok(subscriber)
    }

    /// Publishes the probe until the subscriber hears it.
    fn wait_ready(&self, port: u16) -> Result<()> {
        let deadline = Instant::now() + READY_TIMEOUT;
        while self.lock().probes == 0 {
            if Instant::now() > deadline {
                bail!("mosquitto_sub did not hear the probe within 15 s");
            }
            Command::new("mosquitto_pub")
                .args(["-h", "127.0.0.1", "-p", &port.to_string()])
                .args(["-t", PROBE_TOPIC, "-m", "{}"])
                .output()
                .context("could not run mosquitto_pub")?;
            thread::sleep(Duration::from_millis(200));
        }
        Ok(())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Tally> {
        self.tally.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// What it received so far under `prefix`.
    pub(crate) fn received(&self, prefix: &str) -> Received {
        self.lock().of(prefix)
    }

    /// The single positions under `prefix`, followed tag by tag (empty
    /// unless it was started with `track`).
    pub(crate) fn track(&self, prefix: &str) -> Track {
        self.lock()
            .tracks
            .as_ref()
            .and_then(|tracks| tracks.get(prefix))
            .cloned()
            .unwrap_or_default()
    }
}

impl Drop for Subscriber {
    fn drop(&mut self) {
        let _ = terminate(&mut self.child, "mosquitto_sub");
    }
}

/// The bridge's counts (see `scripts/mqtt_bridge.py`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct BridgeCount {
    pub(crate) published: u64,
    pub(crate) datagrams: u64,
    pub(crate) positions: u64,
    pub(crate) errors: u64,
    pub(crate) gaps: u64,
}

/// Reads `bridge published=N datagrams=N positions=N errors=N gaps=N`.
pub(crate) fn parse_bridge_count(line: &str) -> Option<BridgeCount> {
    let rest = line.trim().strip_prefix("bridge ")?;
    let mut count = BridgeCount::default();
    let mut seen = 0;
    for pair in rest.split_whitespace() {
        let (key, value) = pair.split_once('=')?;
        let value: u64 = value.parse().ok()?;
        let field = match key {
            "published" => &mut count.published,
            "datagrams" => &mut count.datagrams,
            "positions" => &mut count.positions,
            "errors" => &mut count.errors,
            "gaps" => &mut count.gaps,
            _ => continue,
        };
        *field = value;
        seen += 1;
    }
    (seen == 5).then_some(count)
}

/// The Python bridge: cdp-py reads the User stream, paho-mqtt publishes.
#[derive(Debug)]
pub(crate) struct Bridge {
    child: Child,
    stdin: Option<ChildStdin>,
    answers: Receiver<String>,
}

impl Bridge {
    /// Starts `scripts/mqtt_bridge.py` (paused) on the stream at
    /// `address:port`, publishing under `prefix`; returns once it answers.
    pub(crate) fn start(
        broker_port: u16,
        stream: (&str, u16),
        prefix: &str,
        log: &Path,
    ) -> Result<Bridge> {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/mqtt_bridge.py");
        let mut child = Command::new("python3")
            .arg(&script)
            .args([
                "127.0.0.1",
                &broker_port.to_string(),
                stream.0,
                &stream.1.to_string(),
                prefix,
            ])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(append_to(log)?)
            .spawn()
            .with_context(|| format!("could not run python3 {}", script.display()))?;
        let stdout = child.stdout.take().context("the bridge's output")?;
        let (sender, answers) = mpsc::channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if line.starts_with("bridge ") && sender.send(line).is_err() {
                    return;
                }
            }
        });
        let stdin = child.stdin.take();
        let mut bridge = Bridge {
            child,
            stdin,
            answers,
        };
        bridge
            .count()
            .with_context(|| format!("the bridge did not start (see {})", log.display()))?;
        Ok(bridge)
    }

    fn command(&mut self, command: &str) -> Result<String> {
        let stdin = self.stdin.as_mut().context("the bridge is closed")?;
        writeln!(stdin, "{command}")?;
        stdin.flush()?;
        self.answers
            .recv_timeout(READY_TIMEOUT)
            .with_context(|| format!("the bridge did not answer `{command}`"))
    }

    /// Its counts so far.
    pub(crate) fn count(&mut self) -> Result<BridgeCount> {
        let line = self.command("count")?;
        parse_bridge_count(&line).with_context(|| format!("the bridge answered {line:?}"))
    }

    /// Decode and publish from now on.
    pub(crate) fn resume(&mut self) -> Result<()> {
        self.command("resume").map(drop)
    }

    /// Read and throw away from now on.
    pub(crate) fn pause(&mut self) -> Result<()> {
        self.command("pause").map(drop)
    }

    /// Its process id.
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Bridge {
    fn drop(&mut self) {
        // The end of its input ends it.
        drop(self.stdin.take());
        let _ = terminate(&mut self.child, "the bridge");
    }
}

/// One event of the server's event stream, as this bench keeps it.
#[derive(Debug, Clone)]
pub(crate) struct Heard {
    /// When its last byte was read.
    pub(crate) at: Instant,
    /// Its kind (`zone`, `notification`, `state`, `resync`...).
    pub(crate) kind: String,
    /// Its zone key, a notification's identifier, or the state.
    pub(crate) key: String,
    /// A notification's message (for the report of a missing one).
    pub(crate) message: String,
}

/// The event text between two blank lines: its `event:` and `data:`.
pub(crate) fn parse_event(text: &str) -> Option<(&str, &str)> {
    let mut kind = None;
    let mut data = None;
    for line in text.lines() {
        if let Some(value) = line.strip_prefix("event: ") {
            kind = Some(value);
        } else if let Some(value) = line.strip_prefix("data: ") {
            data = Some(value);
        }
    }
    Some((kind?, data.unwrap_or("")))
}

/// What the bench keeps of one event.
fn keep(kind: &str, data: &str, at: Instant) -> Heard {
    let json: Value = serde_json::from_str(data).unwrap_or(Value::Null);
    let (key, message) = match kind {
        "zone" => (zone_key(data.as_bytes()).unwrap_or_default(), String::new()),
        "notification" => (
            json["identifier"]
                .as_u64()
                .map(|identifier| identifier.to_string())
                .unwrap_or_default(),
            json["message"].as_str().unwrap_or_default().to_owned(),
        ),
        "state" => (
            json["state"].as_str().unwrap_or_default().to_owned(),
            String::new(),
        ),
        _ => (String::new(), String::new()),
    };
    Heard {
        at,
        kind: kind.to_owned(),
        key,
        message,
    }
}

/// `GET {path}` of the server's event stream, read by a thread until the
/// server ends it.
#[derive(Debug)]
pub(crate) struct EventStream {
    heard: Arc<Mutex<Vec<Heard>>>,
}

impl EventStream {
    pub(crate) fn open(port: u16, path: &str) -> Result<EventStream> {
        let mut socket = TcpStream::connect(("127.0.0.1", port)).context("the event stream")?;
        write!(
            socket,
            "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n"
        )?;
        let mut reader = BufReader::new(socket);
        let mut status = String::new();
        reader.read_line(&mut status)?;
        if !status.starts_with("HTTP/1.1 200") {
            bail!("GET {path} answered {}", status.trim());
        }
        let mut line = String::new();
        loop {
            line.clear();
            reader.read_line(&mut line)?;
            if line == "\r\n" || line.is_empty() {
                break;
            }
        }
        let heard = Arc::new(Mutex::new(Vec::new()));
        let keeping = Arc::clone(&heard);
        thread::spawn(move || {
            let mut pending = String::new();
            while let Some(chunk) = zones::read_chunk(&mut reader) {
                pending.push_str(&chunk);
                let at = Instant::now();
                while let Some(end) = pending.find("\n\n") {
                    let text: String = pending.drain(..end + 2).collect();
                    if let Some((kind, data)) = parse_event(&text) {
                        keeping
                            .lock()
                            .unwrap_or_else(PoisonError::into_inner)
                            .push(keep(kind, data, at));
                    }
                }
            }
        });
        Ok(EventStream { heard })
    }

    /// Every event heard so far.
    pub(crate) fn heard(&self) -> Vec<Heard> {
        self.heard
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_subscriber_lines() {
        let (retained, topic, payload) =
            parse_line(b"0 netcfg/a/tags/01:0D:0001/position {\"x\":1}\n").unwrap();
        assert!(!retained);
        assert_eq!(topic, "netcfg/a/tags/01:0D:0001/position");
        assert_eq!(payload, b"{\"x\":1}");
        // A topic level with a space (a zone's name) stays in the topic.
        let (retained, topic, payload) =
            parse_line(b"1 netcfg/a/zones/Loading dock {\"zone\":\"Loading dock\"}").unwrap();
        assert!(retained);
        assert_eq!(topic, "netcfg/a/zones/Loading dock");
        assert_eq!(payload, b"{\"zone\":\"Loading dock\"}");
        assert_eq!(parse_line(b"0 netcfg/a/positions [{}]").unwrap().2, b"[{}]");
        for bad in [&b""[..], b"0", b"2 a/b {}", b"0 a/b no json", b"0a/b {}"] {
            assert!(
                parse_line(bad).is_none(),
                "{:?}",
                String::from_utf8_lossy(bad)
            );
        }
    }

    #[test]
    fn counts_positions_in_a_batch() {
        let batch =
            br#"[{"serial_number":"01:0D:0001","x":1},{"serial_number":"01:0D:0002","x":2}]"#;
        assert_eq!(count_positions(batch), 2);
        assert_eq!(count_positions(b"[]"), 0);
        assert_eq!(count_positions(br#"{"serial":"x"}"#), 0);
    }

    #[test]
    fn tallies_by_prefix_and_kind() {
        let mut tally = Tally::default();
        let lines: [&[u8]; 10] = [
            b"0 bench/probe {}\n",
            b"0 netcfg/a/tags/01:0D:0001/position {\"x\":1}\n",
            b"0 netcfg/a/tags/01:0D:0002/position {\"x\":1}\n",
            b"0 bridge/a/tags/01:0D:0002/position {\"x\":1}\n",
            br#"0 netcfg/b/positions [{"serial_number":"01:0D:0001"},{"serial_number":"01:0D:0002"}]"#,
            br#"0 netcfg/a/zones/z1-2 {"net":"a","zone":"z1-2","serial_number":"01:0D:0001","event":"enter","network_time":5,"time_ms":9}"#,
            br#"0 netcfg/a/zones/z1-2 {"net":"a","zone":"z1-2","serial_number":"01:0D:0001","event":"enter","network_time":5,"time_ms":9}"#,
            br#"0 netcfg/a/notifications {"net":"a","identifier":7,"message":"m"}"#,
            br#"1 netcfg/a/state {"net":"a","state":"started"}"#,
            b"garbage\n",
        ];
        for line in lines {
            tally.record(line);
        }
        assert_eq!((tally.probes, tally.unreadable), (1, 1));
        let a = tally.of("netcfg/a");
        assert_eq!((a.positions, a.messages), (2, 6));
        assert_eq!(a.zones.get("z1-2|01:0D:0001|enter|5"), Some(&2));
        assert_eq!(a.notifications.get(&7), Some(&1));
        assert_eq!(a.states, [(true, "started".to_owned())]);
        assert_eq!(tally.of("bridge/a").positions, 1);
        let b = tally.of("netcfg/b");
        assert_eq!((b.batches, b.batch_positions), (1, 2));
        assert_eq!(tally.of("netcfg/c").positions, 0);
    }

    #[test]
    fn finds_numbers_in_json_text() {
        let payload = br#"{"x":-5,"network_time":1234567,"time_ms":1764150000123}"#;
        assert_eq!(field_u64(payload, "network_time"), Some(1_234_567));
        assert_eq!(field_u64(payload, "time_ms"), Some(1_764_150_000_123));
        assert_eq!(field_u64(payload, "x"), None);
        assert_eq!(field_u64(payload, "quality"), None);
    }

    #[test]
    fn follows_each_tags_positions() {
        let period = events::TAG_PERIOD_UNITS;
        let position = |network_time: u64, time_ms: u64| {
            format!(r#"{{"x":1,"network_time":{network_time},"time_ms":{time_ms}}}"#)
        };
        let mut track = Track::default();
        // Tag a: 0, 1, (2, 3 missing), 4 a little late, 4 again, then 1.
        for (network_time, time_ms) in [
            (0, 1_000),
            (period, 1_100),
            (4 * period + period / 10, 1_400),
            (4 * period + period / 10, 1_400),
            (period, 1_100),
        ] {
            track.record("01:0D:0001", position(network_time, time_ms).as_bytes());
        }
        // Tag c: a late tick holds two positions (beacons 1 and 2, told
        // apart by their coordinates); nothing is missing.
        for (x, network_time) in [
            (1, 0),
            (2, 2 * period + period / 5),
            (3, 2 * period + period / 5),
            (4, 3 * period),
        ] {
            let payload = format!(r#"{{"x":{x},"network_time":{network_time},"time_ms":5}}"#);
            track.record("01:0D:0003", payload.as_bytes());
        }
        // Tag b: steady, a tick early or late.
        for (index, jitter) in [0u64, 9_750, 0, 9_750].into_iter().enumerate() {
            let network_time = index as u64 * period + jitter;
            track.record("01:0D:0002", position(network_time, 1_000).as_bytes());
        }
        track.record("01:0D:0002", b"{}");
        assert_eq!(track.gaps, [(1_100, 1_400, 2), (5, 5, 0)]);
        assert_eq!(
            (
                track.repeats,
                track.out_of_order,
                track.same_tick,
                track.unreadable
            ),
            (2, 0, 1, 1)
        );
        // The two missing ones sit at 1,200 and 1,300.
        assert_eq!(track.missing(1_000, 1_200), 0);
        assert_eq!(track.missing(1_200, 1_250), 1);
        assert_eq!(track.missing(1_250, 2_000), 1);
        assert_eq!(track.missing(0, u64::MAX), 2);
        assert_eq!(track.repeated(1_400, 1_401), 1);
        assert_eq!(track.repeated(0, u64::MAX), 2);
    }

    #[test]
    fn tracks_only_when_asked() {
        let line = b"0 netcfg/a/tags/01:0D:0001/position {\"network_time\":1,\"time_ms\":2}";
        let mut tally = Tally::default();
        tally.record(line);
        assert!(tally.tracks.is_none());
        let mut tally = Tally {
            tracks: Some(BTreeMap::new()),
            ..Tally::default()
        };
        tally.record(line);
        tally.record(line);
        let tracks = tally.tracks.unwrap();
        assert_eq!(tracks["netcfg/a"].repeats, 1);
    }

    #[test]
    fn reads_the_bridges_counts() {
        assert_eq!(
            parse_bridge_count("bridge published=10 datagrams=3 positions=11 errors=1 gaps=0\n"),
            Some(BridgeCount {
                published: 10,
                datagrams: 3,
                positions: 11,
                errors: 1,
                gaps: 0
            })
        );
        assert_eq!(parse_bridge_count("bridge published=10"), None);
        assert_eq!(parse_bridge_count("bridge unknown command 'x'"), None);
        assert_eq!(parse_bridge_count("Type: 0x0135, Expected data size"), None);
    }

    #[test]
    fn reads_events_of_the_stream() {
        let text = "event: zone\ndata: {\"zone\":\"z\",\"serial_number\":\"01:0D:0001\",\"event\":\"exit\",\"network_time\":3}\n\n";
        let (kind, data) = parse_event(text).unwrap();
        assert_eq!(kind, "zone");
        let event = keep(kind, data, Instant::now());
        assert_eq!(event.key, "z|01:0D:0001|exit|3");
        let text = "event: notification\nid: 12\ndata: {\"net\":\"a\",\"identifier\":12,\"message\":\"hello\"}\n\n";
        let (kind, data) = parse_event(text).unwrap();
        let event = keep(kind, data, Instant::now());
        assert_eq!(
            (event.key.as_str(), event.message.as_str()),
            ("12", "hello")
        );
        assert!(parse_event(": netcfg events\nretry: 3000\n\n").is_none());
    }
}
