//! The topics and JSON bodies of what outputs publish (docs/outputs.md).

use netcfg_model::{
    OutputEventKind, SerialNumber,
    event::{NotificationEvent, StateChange, StateEvent},
};
use serde::Serialize;

use crate::queue::{QueuedEvent, QueuedPosition};

/// A position as published: on `{prefix}/tags/{serial_number}/position`
/// without its serial number (the topic has it), in a batch or a webhook
/// with it.
#[derive(Debug, Serialize)]
struct PositionBody<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    net: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    serial_number: Option<SerialNumber>,
    x: i32,
    y: i32,
    z: i32,
    quality: u16,
    error_mm: u32,
    network_time: u64,
    time_ms: u64,
    /// Velocity, mm/s, of a tracked tag (decisions §18).
    #[serde(skip_serializing_if = "Option::is_none")]
    vx: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    vy: Option<i32>,
}

impl<'a> PositionBody<'a> {
    fn new(position: &QueuedPosition, net: Option<&'a str>, with_serial: bool) -> Self {
        Self {
            net,
            serial_number: with_serial.then_some(position.entry.serial_number),
            x: position.entry.x,
            y: position.entry.y,
            z: position.entry.z,
            quality: position.entry.quality,
            error_mm: position.entry.error_mm,
            network_time: position.entry.network_time,
            time_ms: position.time_ms,
            vx: position.entry.vx,
            vy: position.entry.vy,
        }
    }
}

fn to_json<T: Serialize>(value: &T) -> Vec<u8> {
    // Our own plain structs: serialising them cannot fail.
    serde_json::to_vec(value).unwrap_or_default()
}

/// The body of one position on MQTT (no serial number, no net).
pub(crate) fn mqtt_position(position: &QueuedPosition) -> Vec<u8> {
    to_json(&PositionBody::new(position, None, false))
}

/// The body of one position POSTed to a webhook: with `net` and
/// `serial_number`, which no topic carries there.
pub(crate) fn webhook_position(net: &str, position: &QueuedPosition) -> Vec<u8> {
    to_json(&PositionBody::new(position, Some(net), true))
}

/// A batch: an array of positions, each with its serial number.
pub(crate) fn position_batch(positions: &[QueuedPosition]) -> Vec<u8> {
    let bodies: Vec<_> = positions
        .iter()
        .map(|p| PositionBody::new(p, None, true))
        .collect();
    to_json(&bodies)
}

/// An event's JSON: the same objects as the server's event stream.
pub(crate) fn event_body(net: &str, event: &QueuedEvent) -> Vec<u8> {
    match event {
        QueuedEvent::Zone(zone) => to_json(&**zone),
        QueuedEvent::Notification(notification) => {
            to_json(&NotificationEvent { net, notification })
        }
        QueuedEvent::Device(device) => to_json(&**device),
        QueuedEvent::State(state) => to_json(state),
    }
}

/// The kind of an event, for `Netcfg-Event`.
pub(crate) fn event_kind(event: &QueuedEvent) -> OutputEventKind {
    match event {
        QueuedEvent::Zone(_) => OutputEventKind::Zone,
        QueuedEvent::Notification(_) => OutputEventKind::Notification,
        QueuedEvent::Device(_) => OutputEventKind::Device,
        QueuedEvent::State(_) => OutputEventKind::State,
    }
}

/// The state event that stands for a configuration's state `change`.
pub(crate) fn state_event(net: &str, change: StateChange) -> StateEvent {
    StateEvent {
        net: net.to_owned(),
        state: change,
        renamed_to: None,
    }
}

/// The last will's body: `{"net": ..., "state": "offline"}` (not a
/// [`StateChange`]: only the broker ever says it).
pub(crate) fn offline_body(net: &str) -> Vec<u8> {
    to_json(&serde_json::json!({"net": net, "state": "offline"}))
}

/// A zone name made fit for one topic level: `+`, `#` (wildcards), `/`
/// (a level separator) and NUL become `_`.
pub(crate) fn topic_level(name: &str) -> String {
    name.chars()
        .map(|c| match c {
            '+' | '#' | '/' | '\0' => '_',
            c => c,
        })
        .collect()
}

/// The MQTT topics of one output, under its prefix.
#[derive(Debug, Clone)]
pub(crate) struct Topics {
    prefix: String,
}

impl Topics {
    pub(crate) fn new(prefix: String) -> Self {
        Self { prefix }
    }

    pub(crate) fn position(&self, serial_number: SerialNumber) -> String {
        format!("{}/tags/{serial_number}/position", self.prefix)
    }

    pub(crate) fn positions(&self) -> String {
        format!("{}/positions", self.prefix)
    }

    pub(crate) fn state(&self) -> String {
        format!("{}/state", self.prefix)
    }

    pub(crate) fn event(&self, event: &QueuedEvent) -> String {
        match event {
            QueuedEvent::Zone(zone) => format!("{}/zones/{}", self.prefix, topic_level(&zone.zone)),
            QueuedEvent::Notification(_) => format!("{}/notifications", self.prefix),
            QueuedEvent::Device(device) => {
                format!("{}/devices/{}", self.prefix, device.serial_number)
            }
            QueuedEvent::State(_) => self.state(),
        }
    }
}

#[cfg(test)]
mod tests {
    use netcfg_model::event::PositionEntry;

    use super::*;

    fn queued() -> QueuedPosition {
        QueuedPosition {
            entry: PositionEntry {
                serial_number: SerialNumber::from_u32(0x0123_4567),
                x: 1,
                y: -2,
                z: 3,
                quality: 9000,
                error_mm: 55,
                network_time: 975_000,
                vx: None,
                vy: None,
            },
            time_ms: 1_700_000_000_000,
        }
    }

    #[test]
    fn position_bodies() {
        let single: serde_json::Value = serde_json::from_slice(&mqtt_position(&queued())).unwrap();
        assert_eq!(
            single,
            serde_json::json!({"x": 1, "y": -2, "z": 3, "quality": 9000, "error_mm": 55,
                "network_time": 975_000, "time_ms": 1_700_000_000_000u64})
        );
        let mut tracked = queued();
        (tracked.entry.vx, tracked.entry.vy) = (Some(1_200), Some(-300));
        let single: serde_json::Value = serde_json::from_slice(&mqtt_position(&tracked)).unwrap();
        assert_eq!(
            (single["vx"].as_i64(), single["vy"].as_i64()),
            (Some(1_200), Some(-300))
        );
        let batch: serde_json::Value =
            serde_json::from_slice(&position_batch(&[queued()])).unwrap();
        assert_eq!(batch[0]["serial_number"], "01:23:4567");
        let webhook: serde_json::Value =
            serde_json::from_slice(&webhook_position("site", &queued())).unwrap();
        assert_eq!(webhook["net"], "site");
        assert_eq!(webhook["serial_number"], "01:23:4567");
    }

    #[test]
    fn zone_names_fit_one_topic_level() {
        assert_eq!(topic_level("a/b+c#d\0e f"), "a_b_c_d_e f");
        let topics = Topics::new("netcfg/site".into());
        assert_eq!(
            topics.position(SerialNumber::from_u32(0x0123_4567)),
            "netcfg/site/tags/01:23:4567/position"
        );
    }

    #[test]
    fn offline_will() {
        assert_eq!(offline_body("n"), br#"{"net":"n","state":"offline"}"#);
    }
}
