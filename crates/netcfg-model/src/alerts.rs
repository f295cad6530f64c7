//! The evaluation of a configuration's alert rules (decisions §16), pure:
//! fed once a second with what is known of the running network ([`Facts`]),
//! it says which rules fire and which clear ([`AlertEvent`]). The caller
//! gathers the facts and raises the notifications.

use std::collections::HashMap;

use crate::{
    AlertCondition, AlertRule, HoldChange, ItemName, Level, SerialNumber, alert_rule::Hold,
};

/// What is known of one device of the configuration, now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceFacts {
    /// The device.
    pub serial_number: SerialNumber,
    /// An anchor or a seeder.
    pub anchor: bool,
    /// A tag.
    pub tag: bool,
    /// The network hears it.
    pub heard: bool,
    /// It takes part in network time.
    pub synchronised: bool,
    /// Its battery charge, when it has a battery and reported it.
    pub battery_percent: Option<u8>,
    /// The share of its packets lost lately, in hundredths of a percent
    /// (an anchor's beacons discarded or late), when known.
    pub packet_loss_basis_points: Option<u32>,
    /// A tag that sent no position in the last second.
    pub silent: bool,
}

/// What is known of a running configuration, now.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Facts {
    /// Now, in milliseconds since the Unix epoch.
    pub now_ms: u64,
    /// Positions solved in the last second, the whole configuration; `None`
    /// when they were not counted for a whole look (a rule that reads them
    /// was just added, or the network just started): such a rule waits.
    pub positions_per_second: Option<u32>,
    /// Its devices.
    pub devices: Vec<DeviceFacts>,
}

/// A rule that fired or cleared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AlertEvent {
    /// The rule.
    pub rule: ItemName,
    /// The level of its notification.
    pub level: Level,
    /// The device it concerns, for a rule about devices.
    pub serial_number: Option<SerialNumber>,
    /// Whether it fired or cleared.
    pub change: HoldChange,
    /// The notification's message.
    pub message: String,
}

/// A rule that fires now, with its subject and since when.
#[derive(
    Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct Firing {
    /// The rule.
    pub rule: ItemName,
    /// The device, for a rule about devices.
    pub serial_number: Option<SerialNumber>,
    /// Since when (ms since the Unix epoch).
    pub since_ms: u64,
}

/// The state of every rule of one configuration, for each subject.
#[derive(Debug, Clone, Default)]
pub struct AlertBook {
    /// Each rule's holds by subject (a device, or `None` for the whole
    /// configuration), each with the look that last saw it.
    holds: HashMap<ItemName, HashMap<Option<SerialNumber>, (Hold, u64)>>,
    /// Looks taken so far.
    looks: u64,
}

impl AlertBook {
    /// Takes one look at `facts`: what fired and what cleared. A subject
    /// gone (a rule deleted, a device removed) is forgotten without an
    /// event.
    ///
    /// What it costs: a map lookup per rule and per subject it concerns,
    /// no allocation unless a rule or subject is new; words are written
    /// only for an event.
    pub fn evaluate(&mut self, rules: &[AlertRule], facts: &Facts) -> Vec<AlertEvent> {
        self.looks += 1;
        let look = self.looks;
        let mut events = Vec::new();
        self.holds
            .retain(|name, _| rules.iter().any(|rule| &rule.name == name));
        for rule in rules {
            if !self.holds.contains_key(&rule.name) {
                self.holds.insert(rule.name.clone(), HashMap::new());
            }
            let Some(subjects) = self.holds.get_mut(&rule.name) else {
                continue;
            };
            let mut observe =
                |serial: Option<SerialNumber>, holds: bool, what: &dyn Fn(HoldChange) -> String| {
                    let (hold, seen) = subjects.entry(serial).or_default();
                    *seen = look;
                    if let Some(change) = hold.observe(holds, facts.now_ms, rule.for_s) {
                        events.push(AlertEvent {
                            rule: rule.name.clone(),
                            // A rule that clears is good news, whatever the
                            // rule's level when it fires.
                            level: match change {
                                HoldChange::Fired => rule.level,
                                HoldChange::Cleared => Level::Information,
                            },
                            serial_number: serial,
                            change,
                            message: message(rule, change, &what(change)),
                        });
                    }
                };
            if rule.condition.per_device() {
                for device in &facts.devices {
                    if let Some(holds) = device_holds(rule, device) {
                        observe(Some(device.serial_number), holds, &|change| {
                            device_words(rule, device, change)
                        });
                    }
                }
            } else {
                let threshold = rule.threshold.unwrap_or(0);
                match facts.positions_per_second {
                    Some(positions) => {
                        observe(None, positions < threshold, &|change| match change {
                            HoldChange::Fired => {
                                format!("{positions} positions a second, below {threshold}")
                            }
                            HoldChange::Cleared => format!(
                                "{positions} positions a second again, no longer below {threshold}"
                            ),
                        })
                    }
                    // Not counted yet: the rule keeps its state.
                    None => {
                        if let Some((_, seen)) = subjects.get_mut(&None) {
                            *seen = look;
                        }
                    }
                }
            }
            subjects.retain(|_, (_, seen)| *seen == look);
        }
        events
    }

    /// The rules that fire now, by rule and subject.
    pub fn firing(&self, rules: &[AlertRule]) -> Vec<Firing> {
        let mut firing: Vec<Firing> = rules
            .iter()
            .filter_map(|rule| Some((rule, self.holds.get(&rule.name)?)))
            .flat_map(|(rule, subjects)| {
                subjects.iter().filter_map(|(serial, (hold, _))| {
                    Some(Firing {
                        rule: rule.name.clone(),
                        serial_number: *serial,
                        since_ms: hold.firing_since_ms(rule.for_s)?,
                    })
                })
            })
            .collect();
        firing.sort_by(|one, other| {
            (one.rule.as_str(), one.serial_number).cmp(&(other.rule.as_str(), other.serial_number))
        });
        firing
    }
}

/// Whether `rule`'s condition holds for `device`; `None` when the rule is
/// not about such a device (or what it reads is not known).
fn device_holds(rule: &AlertRule, device: &DeviceFacts) -> Option<bool> {
    let threshold = rule.threshold.unwrap_or(0);
    match rule.condition {
        AlertCondition::AnchorOffline => device.anchor.then_some(!device.heard),
        AlertCondition::AnchorUnsynced => device
            .anchor
            .then_some(device.heard && !device.synchronised),
        AlertCondition::TagSilent => device.tag.then_some(device.silent),
        AlertCondition::BatteryBelow => device
            .battery_percent
            .map(|percent| u32::from(percent) < threshold),
        AlertCondition::PacketLossAbove => device
            .packet_loss_basis_points
            .map(|lost| lost > threshold.saturating_mul(100)),
        AlertCondition::PositionsBelow => None,
    }
}

/// The words for `rule`'s condition about `device` as it fired or
/// cleared, for a notification.
fn device_words(rule: &AlertRule, device: &DeviceFacts, change: HoldChange) -> String {
    let serial = device.serial_number;
    let threshold = rule.threshold.unwrap_or(0);
    let fired = change == HoldChange::Fired;
    let (above, below) = if fired {
        ("above", "below")
    } else {
        ("no longer above", "no longer below")
    };
    match rule.condition {
        AlertCondition::AnchorOffline if fired => format!("anchor {serial} is not heard"),
        AlertCondition::AnchorOffline => format!("anchor {serial} is heard again"),
        AlertCondition::AnchorUnsynced if fired => format!("anchor {serial} is not synchronised"),
        AlertCondition::AnchorUnsynced => format!("anchor {serial} is synchronised again"),
        AlertCondition::TagSilent if fired => format!("tag {serial} sends no position"),
        AlertCondition::TagSilent => format!("tag {serial} sends positions again"),
        AlertCondition::BatteryBelow => format!(
            "the battery of {serial} is at {}%, {below} {threshold}%",
            device.battery_percent.unwrap_or(0)
        ),
        AlertCondition::PacketLossAbove => {
            let lost = device.packet_loss_basis_points.unwrap_or(0);
            format!(
                "{serial} loses {}.{:02}% of its packets, {above} {threshold}%",
                lost / 100,
                lost % 100
            )
        }
        AlertCondition::PositionsBelow => String::new(),
    }
}

fn message(rule: &AlertRule, change: HoldChange, what: &str) -> String {
    match change {
        HoldChange::Fired => format!(
            "alert rule {}: {what} (for {} s)",
            rule.name,
            rule.for_s.get()
        ),
        HoldChange::Cleared => format!("alert rule {} cleared: {what}", rule.name),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{FromJson, body::AlertRulePostBody};

    fn rule(body: serde_json::Value) -> AlertRule {
        AlertRulePostBody::from_json(&body).unwrap().into_rule()
    }

    fn anchor(serial: u32, heard: bool) -> DeviceFacts {
        DeviceFacts {
            serial_number: SerialNumber::from_u32(serial),
            anchor: true,
            tag: false,
            heard,
            synchronised: heard,
            battery_percent: None,
            packet_loss_basis_points: None,
            silent: false,
        }
    }

    fn facts(now_ms: u64, devices: Vec<DeviceFacts>) -> Facts {
        Facts {
            now_ms,
            positions_per_second: Some(0),
            devices,
        }
    }

    #[test]
    fn an_anchor_offline_for_the_rules_time_fires_once_and_clears_when_heard() {
        let rules = AlertRule::defaults();
        let mut book = AlertBook::default();
        let lost = || vec![anchor(0x0104_0001, false), anchor(0x0104_0002, true)];
        assert!(book.evaluate(&rules, &facts(0, lost())).is_empty());
        assert!(book.evaluate(&rules, &facts(29_000, lost())).is_empty());
        let fired = book.evaluate(&rules, &facts(30_000, lost()));
        assert_eq!(fired.len(), 1, "{fired:?}");
        assert_eq!(fired[0].rule.as_str(), "anchor-offline");
        assert_eq!(
            fired[0].serial_number,
            Some(SerialNumber::from_u32(0x0104_0001))
        );
        assert_eq!(fired[0].level, Level::Error);
        assert!(
            fired[0].message.contains("01:04:0001"),
            "{}",
            fired[0].message
        );
        assert_eq!(book.firing(&rules).len(), 1);
        assert!(book.evaluate(&rules, &facts(31_000, lost())).is_empty());
        let back = vec![anchor(0x0104_0001, true), anchor(0x0104_0002, true)];
        let cleared = book.evaluate(&rules, &facts(32_000, back));
        assert_eq!(cleared.len(), 1);
        assert_eq!(cleared[0].change, HoldChange::Cleared);
        // Good news, in plain words.
        assert_eq!(cleared[0].level, Level::Information);
        assert_eq!(
            cleared[0].message,
            "alert rule anchor-offline cleared: anchor 01:04:0001 is heard again"
        );
        assert!(book.firing(&rules).is_empty());
    }

    #[test]
    fn thresholds_and_the_whole_configuration() {
        let rules = vec![
            rule(
                serde_json::json!({"name": "battery", "condition": "battery_below", "threshold": 20}),
            ),
            rule(
                serde_json::json!({"name": "rate", "condition": "positions_below", "threshold": 100}),
            ),
        ];
        let mut tag = anchor(0x0105_0001, true);
        tag.anchor = false;
        tag.tag = true;
        tag.battery_percent = Some(15);
        let mut book = AlertBook::default();
        let mut now = facts(0, vec![tag.clone()]);
        now.positions_per_second = Some(99);
        let events = book.evaluate(&rules, &now);
        let names: Vec<&str> = events.iter().map(|event| event.rule.as_str()).collect();
        assert_eq!(names, ["battery", "rate"]);
        assert_eq!(events[1].serial_number, None);
        now.positions_per_second = Some(100);
        tag.battery_percent = Some(20);
        now.devices = vec![tag];
        let cleared = book.evaluate(&rules, &now);
        assert_eq!(cleared.len(), 2);
        assert!(
            cleared
                .iter()
                .all(|event| event.change == HoldChange::Cleared)
        );
    }

    #[test]
    fn packet_loss_is_read_in_hundredths_of_a_percent() {
        let rules = vec![rule(
            serde_json::json!({"name": "loss", "condition": "packet_loss_above", "threshold": 1}),
        )];
        let mut lossy = anchor(0x0104_0001, true);
        lossy.packet_loss_basis_points = Some(100);
        let mut book = AlertBook::default();
        assert!(
            book.evaluate(&rules, &facts(0, vec![lossy.clone()]))
                .is_empty(),
            "1.00% is not above 1%"
        );
        lossy.packet_loss_basis_points = Some(150);
        let events = book.evaluate(&rules, &facts(500, vec![lossy]));
        assert_eq!(events.len(), 1);
        assert!(
            events[0]
                .message
                .contains("loses 1.50% of its packets, above 1%"),
            "{}",
            events[0].message
        );
    }

    #[test]
    fn positions_not_counted_yet_leave_a_rate_rule_as_it_was() {
        let rules = vec![rule(
            serde_json::json!({"name": "rate", "condition": "positions_below", "threshold": 100}),
        )];
        let mut book = AlertBook::default();
        let mut now = facts(0, Vec::new());
        now.positions_per_second = None;
        assert!(
            book.evaluate(&rules, &now).is_empty(),
            "no count, no verdict"
        );
        now.positions_per_second = Some(5);
        assert_eq!(book.evaluate(&rules, &now).len(), 1, "fires");
        now.positions_per_second = None;
        now.now_ms = 500;
        assert!(book.evaluate(&rules, &now).is_empty());
        assert_eq!(book.firing(&rules).len(), 1, "still firing, not forgotten");
    }

    #[test]
    fn a_subject_that_is_gone_is_forgotten() {
        let rules = AlertRule::defaults();
        let mut book = AlertBook::default();
        book.evaluate(&rules, &facts(0, vec![anchor(1, false)]));
        book.evaluate(&rules, &facts(30_000, vec![anchor(1, false)]));
        assert_eq!(book.firing(&rules).len(), 1);
        assert!(book.evaluate(&rules, &facts(31_000, vec![])).is_empty());
        assert!(book.firing(&rules).is_empty());
        assert!(
            book.evaluate(&[], &facts(32_000, vec![anchor(1, false)]))
                .is_empty()
        );
    }
}
