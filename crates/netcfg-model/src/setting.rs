//! System settings and the catalogue of known keys with their defaults.

use crate::{names::SettingKey, network_mode::NetworkMode, validation::Problems};

/// The value of a setting: a JSON boolean, integer, number or string.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum SettingValue {
    /// `true` or `false`.
    Bool(bool),
    /// A whole number.
    Integer(i64),
    /// A number with a fraction.
    Number(f64),
    /// Text.
    Text(String),
}

impl SettingValue {
    /// The type of the value.
    pub fn value_type(&self) -> SettingType {
        match self {
            Self::Bool(_) => SettingType::Boolean,
            Self::Integer(_) => SettingType::Integer,
            Self::Number(_) => SettingType::Number,
            Self::Text(_) => SettingType::String,
        }
    }
}

/// The type of a setting's value.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum SettingType {
    /// `true` or `false`.
    Boolean,
    /// A whole number.
    Integer,
    /// Any number.
    Number,
    /// Text.
    String,
}

/// The class of settings that belong to the configuration as a whole.
pub const SYSTEM_CLASS: &str = "system";
/// The id of the one instance of the `system` class.
pub const SYSTEM_CLASS_ID: u32 = 0;

/// A system setting of a configuration.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct SystemSetting {
    /// The setting's key, unique within its class and id.
    pub setting_key: SettingKey,
    /// The value.
    pub value: SettingValue,
    /// The class the setting belongs to (`system` for the configuration's own).
    pub setting_class: SettingKey,
    /// The instance of the class (0 for `system`).
    pub setting_id: u32,
}

/// What values a known setting accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SettingRule {
    /// An integer within the bounds, inclusive.
    Integer {
        /// Smallest value.
        min: i64,
        /// Largest value.
        max: i64,
    },
    /// One of these words.
    OneOf(&'static [&'static str]),
    /// A boolean.
    Boolean,
    /// The name of an item of the configuration (1 to 64 characters); the
    /// store checks that the item exists.
    Name,
}

/// A known setting: its key, default value, rule and a one-line description.
#[derive(Debug, Clone, PartialEq, serde::Serialize, schemars::JsonSchema)]
pub struct DefaultSetting {
    /// The setting's key.
    pub setting_key: SettingKey,
    /// The value a new configuration has.
    pub default_value: SettingValue,
    /// The type of its value.
    pub value_type: SettingType,
    /// What it does, in one line.
    pub description: String,
    /// The values it accepts, in words.
    pub allowed: String,
    #[serde(skip)]
    #[schemars(skip)]
    rule: SettingRule,
}

impl DefaultSetting {
    /// The rule values of this setting follow.
    pub fn rule(&self) -> SettingRule {
        self.rule
    }

    /// The JSON schema of this setting's values.
    pub fn value_schema(&self) -> serde_json::Value {
        match self.rule {
            SettingRule::Integer { min, max } => {
                serde_json::json!({"type": "integer", "minimum": min, "maximum": max})
            }
            SettingRule::OneOf(words) => serde_json::json!({"type": "string", "enum": words}),
            SettingRule::Boolean => serde_json::json!({"type": "boolean"}),
            SettingRule::Name => serde_json::json!({
                "type": "string", "minLength": 1, "maxLength": 64,
                "pattern": "^[^\\s\\x00-\\x1f\\x7f-\\x9f]([^\\x00-\\x1f\\x7f-\\x9f]*[^\\s\\x00-\\x1f\\x7f-\\x9f])?$"
            }),
        }
    }

    /// Records a problem at `path` when `value` does not suit this setting.
    pub fn check(&self, value: &SettingValue, path: &str, problems: &mut Problems) {
        let fits = match (self.rule, value) {
            (SettingRule::Integer { min, max }, SettingValue::Integer(number)) => {
                (min..=max).contains(number)
            }
            (SettingRule::OneOf(words), SettingValue::Text(text)) => words.contains(&text.as_str()),
            (SettingRule::Boolean, SettingValue::Bool(_)) => true,
            (SettingRule::Name, SettingValue::Text(text)) => {
                text.parse::<crate::names::ItemName>().is_ok()
            }
            _ => false,
        };
        if !fits {
            problems.push(
                path,
                format!("`{}` takes {}", self.setting_key, self.allowed),
            );
        }
    }
}

fn entry(
    key: &'static str,
    default_value: SettingValue,
    rule: SettingRule,
    description: &str,
) -> DefaultSetting {
    let allowed = match rule {
        SettingRule::Integer { min, max } => format!("an integer from {min} to {max}"),
        SettingRule::OneOf(words) => format!("one of: {}", words.join(", ")),
        SettingRule::Boolean => "true or false".to_owned(),
        SettingRule::Name => "the name of an RF setting of the configuration".to_owned(),
    };
    DefaultSetting {
        setting_key: SettingKey::new_static(key),
        value_type: default_value.value_type(),
        default_value,
        description: description.to_owned(),
        allowed,
        rule,
    }
}

/// The network time units in a minute: the longest `max_tag_period`.
const MINUTE_UNITS: i64 = 60 * 975_000;

/// The catalogue of known settings, sorted by key. Keys outside it may be
/// created freely; keys in it must follow their rule.
pub fn default_settings() -> Vec<DefaultSetting> {
    vec![
        entry(
            "anchor_health_report_period",
            SettingValue::Integer(5),
            SettingRule::Integer { min: 1, max: 3600 },
            "Seconds between two health reports of each anchor on the Anchor stream.",
        ),
        entry(
            "device_update_mode",
            SettingValue::Text("auto".to_owned()),
            SettingRule::OneOf(&["auto", "manual"]),
            "Whether devices are updated to the group image automatically when they join, or only on request.",
        ),
        entry(
            "max_tag_period",
            SettingValue::Integer(48_750),
            SettingRule::Integer {
                min: 975,
                max: MINUTE_UNITS,
            },
            "The shortest beacon period a tag may use (its highest rate), in network time units of 1/975,000 s: 48,750 is 50 ms (20 Hz).",
        ),
        entry(
            "network_mode",
            SettingValue::Text(NetworkMode::default().as_str().to_owned()),
            SettingRule::OneOf(NetworkMode::NAMES),
            "The operating mode: multitime (time difference of arrival) or multirange (two-way ranging).",
        ),
        entry(
            "rf_setting",
            SettingValue::Text(crate::rf::RfSetting::DEFAULT_NAME.to_owned()),
            SettingRule::Name,
            "The RF setting the network runs with (by name); it cannot be deleted while it is in use.",
        ),
    ]
}

/// The catalogue entry of `key`, if it is a known setting.
pub fn default_setting(key: &str) -> Option<DefaultSetting> {
    default_settings()
        .into_iter()
        .find(|setting| setting.setting_key == *key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_default_value_follows_its_own_rule() {
        let catalogue = default_settings();
        let mut keys: Vec<_> = catalogue
            .iter()
            .map(|s| s.setting_key.to_string())
            .collect();
        keys.sort();
        assert_eq!(
            keys,
            catalogue
                .iter()
                .map(|s| s.setting_key.to_string())
                .collect::<Vec<_>>()
        );
        for setting in &catalogue {
            let mut problems = Problems::new();
            setting.check(&setting.default_value, "value", &mut problems);
            assert!(problems.is_empty(), "{}: {problems}", setting.setting_key);
        }
    }

    #[test]
    fn values_of_the_wrong_kind_or_range_are_refused() {
        let max_tag_period = default_setting("max_tag_period").unwrap();
        let mut problems = Problems::new();
        max_tag_period.check(&SettingValue::Integer(10), "value", &mut problems);
        max_tag_period.check(&SettingValue::Text("fast".into()), "value", &mut problems);
        assert_eq!(problems.as_slice().len(), 2);
    }
}

/// The class and id a setting belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SettingScope {
    /// The class (`system` for the configuration's own settings).
    pub class: SettingKey,
    /// The instance of the class (0 for `system`).
    pub id: u32,
}

impl SettingScope {
    /// The configuration's own settings: class `system`, id 0.
    pub fn system() -> Self {
        Self {
            class: SYSTEM_CLASS
                .parse()
                .unwrap_or_else(|_| unreachable!("`system` is a valid setting key")),
            id: SYSTEM_CLASS_ID,
        }
    }

    /// True for the configuration's own settings (class `system`, id 0).
    pub fn is_system(&self) -> bool {
        self.class == *SYSTEM_CLASS && self.id == SYSTEM_CLASS_ID
    }

    /// How a message names the setting `key` of this scope.
    pub fn describe(&self, key: &str) -> String {
        if self.is_system() {
            format!("setting {key}")
        } else {
            format!("setting {key} of {} {}", self.class, self.id)
        }
    }
}
