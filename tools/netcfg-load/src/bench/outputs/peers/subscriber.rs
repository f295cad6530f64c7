//! `mosquitto_sub` on a broker, its lines counted by a thread of this
//! process as they come: messages, positions (one by one or in batches),
//! zone events, notifications and states, by topic prefix; single
//! positions followed tag by tag ([`Track`]) when asked.

use std::{
    collections::{BTreeMap, HashMap},
    io::{BufRead, BufReader},
    path::Path,
    process::{Child, Command, Stdio},
    sync::{Arc, Mutex, MutexGuard},
    thread,
    time::{Duration, Instant},
};

use anyhow::{Context, Result, bail};

use super::{READY_TIMEOUT, Track, append_to, terminate};
use crate::server::Value;

/// The topic every subscriber also listens to, to tell when it is ready.
const PROBE_TOPIC: &str = "bench/probe";
/// What marks a position inside a batch (`{prefix}/positions`): each
/// position carries its serial number once.
const SERIAL_PATTERN: &[u8] = b"\"serial_number\"";

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
                    Ok(_) => crate::sync::lock(&counting).record(&line),
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

    fn lock(&self) -> MutexGuard<'_, Tally> {
        crate::sync::lock(&self.tally)
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
}
