use std::borrow::Cow;

use serde_json::Value;

use crate::{
    json::{FromJson, deserialize_via_from_json, kind, leaf},
    names::SettingKey,
    setting::{SettingValue, default_setting, default_settings},
    validation::{Problems, join},
};

/// `settings_body`: `{"setting_key": K, "value": V}`, or an object of several
/// `K: V` pairs. Values of known keys must follow the catalogue's rules.
#[derive(Debug, Clone, PartialEq)]
pub struct SettingsBody {
    /// The settings, in the order given.
    pub settings: Vec<(SettingKey, SettingValue)>,
}

impl FromJson for SettingsBody {
    fn from_json_at(value: &Value, path: &str, problems: &mut Problems) -> Option<Self> {
        let Value::Object(object) = value else {
            problems.push(
                path,
                format!("expected a JSON object, found {}", kind(value)),
            );
            return None;
        };
        let before = problems.as_slice().len();
        let mut settings = Vec::new();
        if object.contains_key("setting_key") {
            let key =
                leaf::<SettingKey>(&object["setting_key"], &join(path, "setting_key"), problems);
            let value_path = join(path, "value");
            let value = match object.get("value") {
                Some(value) => read_value(value, &value_path, problems),
                None => {
                    problems.push(&value_path, "this field is required");
                    None
                }
            };
            for name in object
                .keys()
                .filter(|name| !matches!(name.as_str(), "setting_key" | "value"))
            {
                problems.push(
                    join(path, name),
                    "unknown field; the fields are: setting_key, value",
                );
            }
            if let (Some(key), Some(value)) = (key, value) {
                check_known(&key, &value, &value_path, problems);
                settings.push((key, value));
            }
        } else {
            if object.is_empty() {
                problems.push(path, "give at least one setting");
            }
            for (name, value) in object {
                let field_path = join(path, name);
                let key = leaf::<SettingKey>(&Value::String(name.clone()), &field_path, problems);
                let value = read_value(value, &field_path, problems);
                if let (Some(key), Some(value)) = (key, value) {
                    check_known(&key, &value, &field_path, problems);
                    settings.push((key, value));
                }
            }
        }
        (problems.as_slice().len() == before).then_some(Self { settings })
    }
}

/// Reads a setting value: a boolean, number or string.
fn read_value(value: &Value, path: &str, problems: &mut Problems) -> Option<SettingValue> {
    match value {
        Value::Bool(_) | Value::Number(_) | Value::String(_) => leaf(value, path, problems),
        other => {
            problems.push(
                path,
                format!(
                    "a setting value is a boolean, a number or a string, not {}",
                    kind(other)
                ),
            );
            None
        }
    }
}

fn check_known(key: &SettingKey, value: &SettingValue, path: &str, problems: &mut Problems) {
    if let Some(known) = default_setting(key) {
        known.check(value, path, problems);
    }
}

deserialize_via_from_json!(SettingsBody);

impl serde::Serialize for SettingsBody {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.settings.len()))?;
        for (key, value) in &self.settings {
            map.serialize_entry(key.as_str(), value)?;
        }
        map.end()
    }
}

impl schemars::JsonSchema for SettingsBody {
    fn schema_name() -> Cow<'static, str> {
        "SettingsBody".into()
    }
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let any_value = generator.subschema_for::<SettingValue>().to_value();
        let catalogue = default_settings();
        let known: Vec<&str> = catalogue
            .iter()
            .map(|setting| setting.setting_key.as_str())
            .collect();
        // The single form: a known key with its rule, or any other key.
        let mut single: Vec<serde_json::Value> = catalogue
            .iter()
            .map(|setting| {
                serde_json::json!({
                    "type": "object",
                    "required": ["setting_key", "value"],
                    "additionalProperties": false,
                    "properties": {
                        "setting_key": {"const": setting.setting_key.as_str()},
                        "value": setting.value_schema()
                    }
                })
            })
            .collect();
        single.push(serde_json::json!({
            "type": "object",
            "required": ["setting_key", "value"],
            "additionalProperties": false,
            "properties": {
                "setting_key": {"type": "string", "pattern": "^[A-Za-z0-9._-]{1,64}$", "not": {"enum": known}},
                "value": any_value
            }
        }));
        // The map form: known keys with their rules, other keys any value.
        let properties: serde_json::Map<String, serde_json::Value> = catalogue
            .iter()
            .map(|setting| (setting.setting_key.to_string(), setting.value_schema()))
            .collect();
        schemars::json_schema!({
            "description": "One setting as {\"setting_key\": K, \"value\": V}, or several as an object of K: V pairs. Known keys (see /default-settings) take the values their rule allows.",
            "oneOf": [
                {"oneOf": single},
                {
                    "type": "object",
                    "minProperties": 1,
                    "not": {"required": ["setting_key"]},
                    "propertyNames": {"pattern": "^[A-Za-z0-9._-]{1,64}$"},
                    "properties": properties,
                    "additionalProperties": any_value
                }
            ]
        })
    }
}
