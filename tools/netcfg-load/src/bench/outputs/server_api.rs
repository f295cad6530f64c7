//! The server under test as the outputs' bench drives and reads it: a
//! configuration's site, its output and User stream, start and stop; the
//! output's status, the positions `/metrics` counts, and the lines of its
//! log that say the outputs fell behind.

use std::{
    fs,
    path::{Path, PathBuf},
    thread,
    time::{Duration, Instant},
};

use anyhow::{Context, Result};

use super::{LAG_MESSAGE, OUTPUT};
use crate::server::{Client, Launch, Value};

/// An output's status (`GET /nets/{net}/outputs/{output}/status`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Status {
    pub(super) running: bool,
    pub(super) connected: bool,
    pub(super) sent: u64,
    pub(super) queued: u64,
    pub(super) dropped: u64,
    pub(super) dropped_events: u64,
    pub(super) last_error: Option<String>,
}

impl Status {
    fn from_json(status: &Value) -> Result<Status> {
        let count = |field: &str| {
            status[field]
                .as_u64()
                .with_context(|| format!("no `{field}` in the status {status}"))
        };
        Ok(Status {
            running: status["running"].as_bool().context("no `running`")?,
            connected: status["connected"].as_bool().context("no `connected`")?,
            sent: count("sent")?,
            queued: count("queued")?,
            dropped: count("dropped")?,
            dropped_events: count("dropped_events")?,
            last_error: status["last_error"].as_str().map(str::to_owned),
        })
    }
}

pub(super) fn status(client: &Client, net: &str) -> Result<Status> {
    let status = client
        .expect_ok("GET", &format!("/nets/{net}/outputs/{OUTPUT}/status"), None)?
        .payload("status")?;
    Status::from_json(&status)
}

/// The value of a metric in the Prometheus text format: `name` is the
/// metric's name with its labels as the server writes them, if any.
pub(in crate::bench) fn metric(text: &str, name: &str) -> Option<f64> {
    text.lines().find_map(|line| {
        let rest = line.strip_prefix(name)?;
        let value = rest.strip_prefix(' ').or_else(|| {
            rest.strip_prefix("{}")
                .and_then(|rest| rest.strip_prefix(' '))
        })?;
        value.split_whitespace().next()?.parse().ok()
    })
}

/// `netcfg_engine_positions_received_total`: every position the running
/// configurations produced.
pub(crate) fn positions_produced(client: &Client) -> Result<u64> {
    let text = client.expect_ok("GET", "/metrics", None)?.body;
    let text = String::from_utf8_lossy(&text);
    let value = metric(&text, "netcfg_engine_positions_received_total")
        .context("no netcfg_engine_positions_received_total in /metrics")?;
    Ok(value as u64)
}

/// Lines of a server log saying its outputs fell behind the live feed, and
/// the events they say went by.
fn lagged(log: &str) -> (usize, u64) {
    log.lines()
        .filter_map(|line| {
            let at = line.find(LAG_MESSAGE)?;
            let before = line[..at].trim_end();
            let number = before.rsplit(' ').next()?;
            Some(number.parse::<u64>().unwrap_or(0))
        })
        .fold((0, 0), |(lines, events), missed| {
            (lines + 1, events + missed)
        })
}

/// [`lagged`] of the log file at `log` (none when it cannot be read).
pub(super) fn lagged_in(log: &Path) -> (usize, u64) {
    lagged(&fs::read_to_string(log).unwrap_or_default())
}

/// Part `part`'s server: its data in `dir/outputs-{part}`, its log in
/// `dir/server-outputs-{part}.log` (returned, for [`lagged_in`]).
pub(super) fn launch(binary: &Path, dir: &Path, part: &str) -> (Launch, PathBuf) {
    let log = dir.join(format!("server-outputs-{part}.log"));
    let launch = Launch::new(binary, &dir.join(format!("outputs-{part}")), &log);
    (launch, log)
}

/// Adds the output `mqtt` to `net`.
pub(super) fn add_output(
    client: &Client,
    net: &str,
    port: u16,
    events: &[&str],
    batch_ms: u32,
    qos: u8,
) -> Result<()> {
    let events: Vec<String> = events.iter().map(|kind| format!("\"{kind}\"")).collect();
    client.expect_ok(
        "POST",
        &format!("/nets/{net}/outputs"),
        Some(&format!(
            r#"{{"name": "{OUTPUT}", "url": "mqtt://127.0.0.1:{port}", "events": [{}], "qos": {qos}, "batch_ms": {batch_ms}}}"#,
            events.join(", ")
        )),
    )?;
    Ok(())
}

pub(super) fn set_enabled(client: &Client, net: &str, enabled: bool) -> Result<()> {
    client.expect_ok(
        "PATCH",
        &format!("/nets/{net}/outputs/{OUTPUT}"),
        Some(&format!(r#"{{"enabled": {enabled}}}"#)),
    )?;
    Ok(())
}

/// Aims `net`'s User stream at `127.0.0.1:port` (where the bridge reads it).
pub(super) fn aim_user_stream(client: &Client, net: &str, port: u16) -> Result<()> {
    let streams = client
        .expect_ok("GET", &format!("/nets/{net}/data-streams"), None)?
        .payload("streams")?;
    let id = streams
        .as_array()
        .context("a list of streams")?
        .iter()
        .find(|stream| stream["name"] == "User")
        .and_then(|stream| stream["id"].as_u64())
        .with_context(|| format!("{net} has no User stream: {streams}"))?;
    client.expect_ok(
        "PATCH",
        &format!("/nets/{net}/data-streams/{id}"),
        Some(&format!(
            r#"{{"destination_ip": "127.0.0.1", "destination_port": {port}, "interface": "0.0.0.0", "interface_port": 0, "name": "User", "time_to_live": 1}}"#
        )),
    )?;
    Ok(())
}

/// Waits (10 s at most) until the outputs of `nets` have let their broker
/// go: after a stop, they flush (2 s at most) and disconnect.
pub(super) fn wait_disconnected(client: &Client, nets: &[String]) -> Result<()> {
    let deadline = Instant::now() + Duration::from_secs(10);
    for net in nets {
        while status(client, net)?.connected && Instant::now() < deadline {
            thread::sleep(Duration::from_millis(50));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_status() {
        let value: Value = serde_json::from_str(
            r#"{"running": true, "connected": false, "sent": 12, "queued": 65536, "dropped": 7, "dropped_events": 0, "rejected": 0, "last_error": "broker mqtt://127.0.0.1:1: refused"}"#,
        )
        .unwrap();
        let status = Status::from_json(&value).unwrap();
        assert_eq!(
            status,
            Status {
                running: true,
                connected: false,
                sent: 12,
                queued: 65_536,
                dropped: 7,
                dropped_events: 0,
                last_error: Some("broker mqtt://127.0.0.1:1: refused".to_owned()),
            }
        );
        let value: Value = serde_json::from_str(r#"{"running": true, "connected": true}"#).unwrap();
        assert!(Status::from_json(&value).is_err());
    }

    #[test]
    fn reads_metrics() {
        let text = "# HELP netcfg_engine_positions_received_total tag positions\n\
                    # TYPE netcfg_engine_positions_received_total counter\n\
                    netcfg_engine_positions_received_total 123456\n\
                    netcfg_engine_positions_received_total_other 1\n\
                    netcfg_engine_positions_sent_total{} 99\n";
        assert_eq!(
            metric(text, "netcfg_engine_positions_received_total"),
            Some(123_456.0)
        );
        assert_eq!(
            metric(text, "netcfg_engine_positions_sent_total"),
            Some(99.0)
        );
        assert_eq!(metric(text, "netcfg_missing"), None);
    }

    #[test]
    fn reads_lag_lines() {
        let log = format!(
            "[2026-11-26T10:00:00Z WARN netcfg_service::outputs] 12 {LAG_MESSAGE}\n\
             other line\n\
             [2026-11-26T10:00:01Z WARN netcfg_service::outputs] 3 {LAG_MESSAGE}\n"
        );
        assert_eq!(lagged(&log), (2, 15));
        assert_eq!(lagged("nothing"), (0, 0));
    }
}
