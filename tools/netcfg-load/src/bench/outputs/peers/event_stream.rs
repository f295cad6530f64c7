//! The server's own event stream (SSE), read by a thread: the reference
//! for the zone, notification and state events it emitted.

use std::{
    sync::{Arc, Mutex},
    thread,
    time::Instant,
};

use anyhow::Result;

use super::zone_key;
use crate::{bench::sse, server::Value};

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
pub(crate) fn keep(kind: &str, data: &str, at: Instant) -> Heard {
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
        Self::open_as(port, path, None)
    }

    /// [`EventStream::open`] with a bearer secret (access control on).
    pub(crate) fn open_as(port: u16, path: &str, bearer: Option<&str>) -> Result<EventStream> {
        let mut reader = sse::open_as(port, path, bearer)?;
        let heard = Arc::new(Mutex::new(Vec::new()));
        let keeping = Arc::clone(&heard);
        thread::spawn(move || {
            sse::each_event(&mut reader, Instant::now, |text, at| {
                if let Some((kind, data)) = parse_event(text) {
                    crate::sync::lock(&keeping).push(keep(kind, data, at));
                }
            });
        });
        Ok(EventStream { heard })
    }

    /// Every event heard so far.
    pub(crate) fn heard(&self) -> Vec<Heard> {
        crate::sync::lock(&self.heard).clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
