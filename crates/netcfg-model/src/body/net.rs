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

/// `action_body` of 5.1: copy, delete, start, stop, restart or reload a
/// configuration (`POST /nets/{net_name}`). `name` is the name of the copy;
/// the other actions accept it and do not use it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(transparent)]
pub struct ActionBody(pub ConfigurationAction);

/// `action_body` of 5.0: copy, delete, start or stop (5.0 restarts and
/// reloads with `POST /nets/{net_name}/action`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(transparent)]
pub struct ActionBodyV5_0(pub ConfigurationAction);

/// The actions of 5.1's `action_body`.
const ACTIONS: [&str; 6] = ["copy", "delete", "start", "stop", "restart", "reload"];
/// The actions of 5.0's.
const ACTIONS_V5_0: [&str; 4] = ["copy", "delete", "start", "stop"];

/// The schema of an `action_body` whose `action` is one of `actions`.
fn action_schema(generator: &mut schemars::SchemaGenerator, actions: &[&str]) -> schemars::Schema {
    let name = generator.subschema_for::<ConfigName>();
    let listed = actions.join(", ");
    schemars::json_schema!({
        "type": "object",
        "description": format!("{listed}; `name` is required for copy (the copy's name) and unused by the others."),
        "required": ["action"],
        "additionalProperties": false,
        "properties": {
            "action": {"type": "string", "enum": actions},
            "name": name
        },
        "if": {"properties": {"action": {"const": "copy"}}},
        "then": {"required": ["action", "name"]}
    })
}

impl schemars::JsonSchema for ActionBody {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ActionBody".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        action_schema(generator, &ACTIONS)
    }
}

impl schemars::JsonSchema for ActionBodyV5_0 {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ActionBodyV5_0".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        action_schema(generator, &ACTIONS_V5_0)
    }
}

/// Reads an `action_body` whose `action` is one of `actions`.
fn read_action(
    value: &Value,
    path: &str,
    problems: &mut Problems,
    actions: &[&str],
) -> Option<ConfigurationAction> {
    let mut fields = Fields::open(value, path, problems)?;
    let action = fields.required_of("action", actions, problems);
    let name = match action.as_deref() {
        Some("copy") => fields.required::<ConfigName>("name", problems),
        _ => fields.optional::<ConfigName>("name", problems),
    };
    let clean = fields.finish(problems);
    let action = match action?.as_str() {
        "copy" => ConfigurationAction::Copy { name: name? },
        "delete" => ConfigurationAction::Delete,
        "start" => ConfigurationAction::Start,
        "stop" => ConfigurationAction::Stop,
        "restart" => ConfigurationAction::Restart,
        _ => ConfigurationAction::Reload,
    };
    clean.then_some(action)
}

impl FromJson for ActionBody {
    fn from_json_at(value: &Value, path: &str, problems: &mut Problems) -> Option<Self> {
        read_action(value, path, problems, &ACTIONS).map(Self)
    }
}

impl FromJson for ActionBodyV5_0 {
    fn from_json_at(value: &Value, path: &str, problems: &mut Problems) -> Option<Self> {
        read_action(value, path, problems, &ACTIONS_V5_0).map(Self)
    }
}

deserialize_via_from_json!(ActionBodyV5_0);
deserialize_via_from_json!(ActionBody);
