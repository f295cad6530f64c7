use serde_json::Value;

use netcfg_model_derive::request_body;

use crate::{
    configuration::{ConfigurationAction, Instance},
    json::{Fields, FromJson, deserialize_via_from_json},
    names::ConfigName,
    validation::Problems,
};

/// `network_body`: creates a configuration (`POST /nets`) or renames it and
/// changes its instance (`PATCH /nets/{net_name}`).
#[request_body]
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct NetworkBody {
    /// The engine instance that runs it: a serial port path, `sim`, or `""`.
    pub instance: Instance,
    /// The configuration's name.
    pub name: ConfigName,
}

/// `action_body`: copy, delete, start or stop a configuration
/// (`POST /nets/{net_name}`). `name` is the name of the copy; the other
/// actions accept it and do not use it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(transparent)]
pub struct ActionBody(pub ConfigurationAction);

impl schemars::JsonSchema for ActionBody {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ActionBody".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let name = generator.subschema_for::<ConfigName>();
        schemars::json_schema!({
            "type": "object",
            "description": "copy (into `name`), delete, start or stop; `name` is required for copy and unused by the others.",
            "required": ["action"],
            "additionalProperties": false,
            "properties": {
                "action": {"type": "string", "enum": ["copy", "delete", "start", "stop"]},
                "name": name
            },
            "if": {"properties": {"action": {"const": "copy"}}},
            "then": {"required": ["action", "name"]}
        })
    }
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "lowercase")]
enum ActionName {
    Copy,
    Delete,
    Start,
    Stop,
}

impl FromJson for ActionBody {
    fn from_json_at(value: &Value, path: &str, problems: &mut Problems) -> Option<Self> {
        let mut fields = Fields::open(value, path, problems)?;
        let action = fields.required::<ActionName>("action", problems);
        let name = match action {
            Some(ActionName::Copy) => fields.required::<ConfigName>("name", problems),
            _ => fields.optional::<ConfigName>("name", problems),
        };
        let clean = fields.finish(problems);
        let action = match action? {
            ActionName::Copy => ConfigurationAction::Copy { name: name? },
            ActionName::Delete => ConfigurationAction::Delete,
            ActionName::Start => ConfigurationAction::Start,
            ActionName::Stop => ConfigurationAction::Stop,
        };
        clean.then_some(Self(action))
    }
}

deserialize_via_from_json!(ActionBody);
