//! Alert rules (decisions.md §16): what a running configuration watches in
//! itself, and the pure logic of a rule that must hold for a while before
//! it fires.

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::{Level, names::ItemName, validation::Problems};

/// The longest a condition may have to hold before its rule fires: a day.
pub const MAX_FOR_S: u32 = 86_400;

/// The largest threshold of a condition counted per second.
pub const MAX_POSITIONS_PER_SECOND: u32 = 1_000_000;

/// What a rule watches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AlertCondition {
    /// An anchor (or seeder) the configuration holds is not heard.
    AnchorOffline,
    /// An anchor is heard but not synchronised.
    AnchorUnsynced,
    /// A tag the configuration holds sends no position.
    TagSilent,
    /// A device reports its battery below `threshold` percent.
    BatteryBelow,
    /// A device loses more than `threshold` percent of its packets.
    PacketLossAbove,
    /// The whole configuration solves fewer than `threshold` positions a
    /// second.
    PositionsBelow,
}

/// What a condition's threshold is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Threshold {
    /// The condition takes none.
    None,
    /// A percentage, 0 to 100.
    Percent,
    /// Positions a second, 0 to [`MAX_POSITIONS_PER_SECOND`].
    PerSecond,
}

impl AlertCondition {
    /// Every condition.
    pub const ALL: [Self; 6] = [
        Self::AnchorOffline,
        Self::AnchorUnsynced,
        Self::TagSilent,
        Self::BatteryBelow,
        Self::PacketLossAbove,
        Self::PositionsBelow,
    ];

    /// The wire name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::AnchorOffline => "anchor_offline",
            Self::AnchorUnsynced => "anchor_unsynced",
            Self::TagSilent => "tag_silent",
            Self::BatteryBelow => "battery_below",
            Self::PacketLossAbove => "packet_loss_above",
            Self::PositionsBelow => "positions_below",
        }
    }

    /// The threshold it takes.
    pub const fn threshold(self) -> Threshold {
        match self {
            Self::AnchorOffline | Self::AnchorUnsynced | Self::TagSilent => Threshold::None,
            Self::BatteryBelow | Self::PacketLossAbove => Threshold::Percent,
            Self::PositionsBelow => Threshold::PerSecond,
        }
    }

    /// True when the condition is about one device at a time (so a rule
    /// fires and clears per device), false when about the whole
    /// configuration.
    pub const fn per_device(self) -> bool {
        !matches!(self, Self::PositionsBelow)
    }
}

impl fmt::Display for AlertCondition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for AlertCondition {
    type Err = UnknownAlertCondition;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|condition| condition.as_str() == text)
            .ok_or_else(|| UnknownAlertCondition(text.chars().take(40).collect()))
    }
}

/// A name that is no alert condition.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not an alert condition")]
pub struct UnknownAlertCondition(String);

/// Adds to a rule body's schema which conditions take which threshold, from
/// [`AlertCondition::threshold`]: a threshold comes with its condition,
/// and fits it.
pub(crate) fn add_threshold_rules(schema: &mut schemars::Schema) {
    let mut rules = Vec::new();
    for condition in AlertCondition::ALL {
        let then = match condition.threshold() {
            Threshold::None => serde_json::json!({"not": {"required": ["threshold"]}}),
            Threshold::Percent => serde_json::json!({
                "required": ["threshold"],
                "properties": {"threshold": {"maximum": 100}}
            }),
            Threshold::PerSecond => serde_json::json!({
                "required": ["threshold"],
                "properties": {"threshold": {"maximum": MAX_POSITIONS_PER_SECOND}}
            }),
        };
        rules.push(serde_json::json!({
            "if": {"required": ["condition"], "properties": {"condition": {"const": condition.as_str()}}},
            "then": then
        }));
    }
    schema.insert("allOf".to_owned(), serde_json::Value::Array(rules));
}

/// An alert rule of a configuration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct AlertRule {
    /// Unique name within the configuration.
    pub name: ItemName,
    /// What it watches.
    pub condition: AlertCondition,
    /// The condition's threshold, when it takes one (percent, or positions
    /// a second).
    #[serde(default)]
    pub threshold: Option<u32>,
    /// How long, in seconds, the condition must hold before the rule fires.
    pub for_s: HoldSeconds,
    /// The level of the notification it raises.
    pub level: Level,
}

impl AlertRule {
    /// The rules a new configuration gets: an anchor offline or unsynced
    /// for 30 s is an error.
    pub fn defaults() -> Vec<Self> {
        [
            ("anchor-offline", AlertCondition::AnchorOffline),
            ("anchor-unsynced", AlertCondition::AnchorUnsynced),
        ]
        .into_iter()
        .map(|(name, condition)| Self {
            name: name.parse().expect("a valid built-in name"),
            condition,
            threshold: None,
            for_s: HoldSeconds(30),
            level: Level::Error,
        })
        .collect()
    }
}

/// Records the problems of `threshold` for `condition` at `path`: one it
/// lacks, one it does not take, one out of its range.
pub(crate) fn check_threshold(
    condition: AlertCondition,
    threshold: Option<u32>,
    path: &str,
    problems: &mut Problems,
) {
    let at = crate::validation::join(path, "threshold");
    match (condition.threshold(), threshold) {
        (Threshold::None, Some(_)) => {
            problems.push(at, format!("{condition} takes no threshold; leave it out"))
        }
        (Threshold::Percent | Threshold::PerSecond, None) => problems.push(
            at,
            format!(
                "{condition} needs a threshold ({})",
                if condition.threshold() == Threshold::Percent {
                    "a percentage, 0 to 100"
                } else {
                    "positions per second"
                }
            ),
        ),
        (Threshold::Percent, Some(value)) if value > 100 => {
            problems.push(at, format!("{value} is not a percentage (0 to 100)"))
        }
        (Threshold::PerSecond, Some(value)) if value > MAX_POSITIONS_PER_SECOND => problems.push(
            at,
            format!("{value} is above {MAX_POSITIONS_PER_SECOND} positions per second"),
        ),
        _ => {}
    }
}

/// A number of seconds longer than a day.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{0} s is longer than a day ({MAX_FOR_S} s)")]
pub struct TooLong(u32);

/// How long (s) a condition must hold before its rule fires: 0 to a day.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(try_from = "u32", into = "u32")]
pub struct HoldSeconds(u32);

impl HoldSeconds {
    /// The seconds.
    pub const fn get(self) -> u32 {
        self.0
    }
}

impl TryFrom<u32> for HoldSeconds {
    type Error = TooLong;

    fn try_from(seconds: u32) -> Result<Self, Self::Error> {
        if seconds > MAX_FOR_S {
            Err(TooLong(seconds))
        } else {
            Ok(Self(seconds))
        }
    }
}

impl From<HoldSeconds> for u32 {
    fn from(seconds: HoldSeconds) -> Self {
        seconds.0
    }
}

impl JsonSchema for HoldSeconds {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "HoldSeconds".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "integer",
            "minimum": 0,
            "maximum": MAX_FOR_S,
            "description": "Seconds, 0 to a day."
        })
    }
}

/// What a [`Hold`] did with an observation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HoldChange {
    /// The condition has held for the rule's time: it fires now.
    Fired,
    /// The condition no longer holds for a rule that had fired.
    Cleared,
}

/// One rule's state for one subject (a device, or the configuration): the
/// condition must hold without a break for `for_s` before the rule fires,
/// and the rule clears as soon as it stops holding.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Hold {
    /// Since when (ms) the condition has held without a break.
    since_ms: Option<u64>,
    /// Whether the rule has fired and not cleared.
    firing: bool,
}

impl Hold {
    /// Since when (ms) the rule fires, if it does.
    pub fn firing_since_ms(&self, for_s: HoldSeconds) -> Option<u64> {
        let for_s = for_s.get();
        self.firing
            .then(|| self.since_ms.map(|since| since + u64::from(for_s) * 1_000))
            .flatten()
    }

    /// Takes one observation at `now_ms`: whether the condition holds.
    pub fn observe(&mut self, holds: bool, now_ms: u64, for_s: HoldSeconds) -> Option<HoldChange> {
        let for_s = for_s.get();
        if !holds {
            self.since_ms = None;
            return std::mem::take(&mut self.firing).then_some(HoldChange::Cleared);
        }
        let since = *self.since_ms.get_or_insert(now_ms);
        if !self.firing && now_ms.saturating_sub(since) >= u64::from(for_s) * 1_000 {
            self.firing = true;
            return Some(HoldChange::Fired);
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rule_fires_once_the_condition_held_for_its_time_and_clears_at_once() {
        let mut hold = Hold::default();
        assert_eq!(hold.observe(true, 1_000, HoldSeconds(30)), None);
        assert_eq!(hold.observe(true, 30_999, HoldSeconds(30)), None);
        assert_eq!(
            hold.observe(true, 31_000, HoldSeconds(30)),
            Some(HoldChange::Fired)
        );
        assert_eq!(hold.firing_since_ms(HoldSeconds(30)), Some(31_000));
        assert_eq!(
            hold.observe(true, 40_000, HoldSeconds(30)),
            None,
            "fires once"
        );
        assert_eq!(
            hold.observe(false, 41_000, HoldSeconds(30)),
            Some(HoldChange::Cleared)
        );
        assert_eq!(hold.observe(false, 42_000, HoldSeconds(30)), None);
        assert_eq!(hold.firing_since_ms(HoldSeconds(30)), None);
    }

    #[test]
    fn a_break_starts_the_wait_again() {
        let mut hold = Hold::default();
        hold.observe(true, 0, HoldSeconds(10));
        hold.observe(false, 9_000, HoldSeconds(10));
        assert_eq!(hold.observe(true, 10_000, HoldSeconds(10)), None);
        assert_eq!(hold.observe(true, 19_999, HoldSeconds(10)), None);
        assert_eq!(
            hold.observe(true, 20_000, HoldSeconds(10)),
            Some(HoldChange::Fired)
        );
    }

    #[test]
    fn a_rule_of_no_time_fires_on_the_first_observation() {
        let mut hold = Hold::default();
        assert_eq!(
            hold.observe(true, 5, HoldSeconds(0)),
            Some(HoldChange::Fired)
        );
    }

    #[test]
    fn thresholds_are_checked_against_their_condition() {
        let problems_of = |condition, threshold| {
            let mut problems = Problems::new();
            check_threshold(condition, threshold, "", &mut problems);
            problems
                .as_slice()
                .iter()
                .map(|problem| problem.path.clone())
                .collect::<Vec<_>>()
        };
        assert!(problems_of(AlertCondition::AnchorOffline, None).is_empty());
        assert_eq!(
            problems_of(AlertCondition::AnchorOffline, Some(5)),
            ["threshold"]
        );
        assert_eq!(
            problems_of(AlertCondition::BatteryBelow, None),
            ["threshold"]
        );
        assert_eq!(
            problems_of(AlertCondition::BatteryBelow, Some(101)),
            ["threshold"]
        );
        assert!(problems_of(AlertCondition::BatteryBelow, Some(20)).is_empty());
        assert!(problems_of(AlertCondition::PositionsBelow, Some(3_300)).is_empty());
        assert_eq!(
            problems_of(
                AlertCondition::PositionsBelow,
                Some(MAX_POSITIONS_PER_SECOND + 1)
            ),
            ["threshold"]
        );
    }

    #[test]
    fn wire_names_are_serde_names() {
        for condition in AlertCondition::ALL {
            assert_eq!(
                serde_json::to_value(condition).unwrap(),
                serde_json::Value::from(condition.as_str())
            );
        }
        let defaults = AlertRule::defaults();
        assert_eq!(defaults.len(), 2);
        assert!(defaults.iter().all(|rule| rule.for_s.get() == 30));
    }
}
