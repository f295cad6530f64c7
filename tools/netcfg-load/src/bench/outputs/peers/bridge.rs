//! The Python bridge a user would write (`scripts/mqtt_bridge.py`:
//! cdp-py reads the User stream, paho-mqtt publishes), driven over its
//! standard input: pause, resume, count.

use std::{
    io::{BufRead, BufReader, Write},
    path::Path,
    process::{Child, ChildStdin, Command, Stdio},
    sync::mpsc::{self, Receiver},
    thread,
};

use anyhow::{Context, Result};

use super::{READY_TIMEOUT, append_to, terminate};

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

#[cfg(test)]
mod tests {
    use super::*;

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
}
