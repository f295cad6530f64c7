//! What runs around the server in the outputs' bench: a mosquitto broker
//! with its own configuration file ([`broker`]), a subscriber
//! (`mosquitto_sub`, whose lines this process counts: [`subscriber`], each
//! tag's positions followed in [`track`]), the Python bridge a user would
//! write (`scripts/mqtt_bridge.py`: [`bridge`]), and the server's own event
//! stream (SSE: [`event_stream`]), the reference for the zone, notification
//! and state events it emitted. Here: what they share, to start, watch and
//! stop a process.

mod bridge;
mod broker;
mod event_stream;
mod subscriber;
mod track;

use std::{
    fs::{self, OpenOptions},
    net::{TcpListener, UdpSocket},
    path::Path,
    process::{Child, Command},
    thread,
    time::{Duration, Instant},
};

use anyhow::{Context, Result, bail};

pub(crate) use self::{
    bridge::Bridge,
    broker::Broker,
    event_stream::{EventStream, Heard, keep, parse_event},
    subscriber::{Received, Subscriber, zone_key},
    track::Track,
};

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
    crate::bench::events::process_ticks(&format!("/proc/{pid}/stat"))
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
