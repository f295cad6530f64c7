use serde_json::Value;

use super::zone::clearable;
use crate::{
    FromJson,
    json::{Fields, check_unique, elements, leaf},
    names::ItemName,
    output::{
        BatchMs, MAX_CREDENTIAL_LENGTH, Output, OutputEventKind, OutputSecrets, OutputUrl, Qos,
        RateHz, TopicPrefix,
    },
    validation::{Problems, join},
};

/// The longest `ca_file` path, in bytes.
const MAX_PATH_LENGTH: usize = 4_096;

/// `output_post_body`: adds an output (decisions §14). `username`,
/// `password` and `secret` are write-only: kept outside the configuration's
/// file and never shown again.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OutputPostBody {
    /// Unique name within the configuration.
    pub name: ItemName,
    /// `mqtt://host:port`, `mqtts://host:port`, `http://...` or `https://...`.
    pub url: OutputUrl,
    /// The events it carries, at least one, each once.
    #[schemars(length(min = 1, max = 5))]
    pub events: Vec<OutputEventKind>,
    /// Whether it runs while the configuration runs; true by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "bool")]
    pub enabled: Option<bool>,
    /// MQTT only: the topics' first levels; `netcfg/{net_name}` by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "TopicPrefix")]
    pub topic_prefix: Option<TopicPrefix>,
    /// MQTT only: the QoS of positions and device events (0 by default;
    /// zone, notification and state events always use 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Qos")]
    pub qos: Option<Qos>,
    /// The most positions a second per tag; 0 (the default): every position.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "RateHz")]
    pub max_rate_hz: Option<RateHz>,
    /// Positions gathered for this long go as one message; 0 (the default):
    /// one message per position.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "BatchMs")]
    pub batch_ms: Option<BatchMs>,
    /// mqtts and https only: a PEM file of the certificate authorities to
    /// trust instead of the system's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String", length(min = 1, max = 4096))]
    pub ca_file: Option<String>,
    /// MQTT only: the broker's username (write-only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String", length(min = 1, max = 1024))]
    pub username: Option<String>,
    /// MQTT only: the broker's password (write-only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String", length(min = 1, max = 1024))]
    pub password: Option<String>,
    /// Webhooks, required there: the key of the body's HMAC-SHA256 in
    /// `Netcfg-Signature` (write-only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String", length(min = 1, max = 1024))]
    pub secret: Option<String>,
}

impl OutputPostBody {
    /// The output this body adds, and its credentials.
    pub fn into_output(self) -> (Output, OutputSecrets) {
        let mqtt = self.url.scheme().is_mqtt();
        let secrets = OutputSecrets {
            username: self.username,
            password: self.password,
            secret: self.secret,
        };
        let output = Output {
            name: self.name,
            url: self.url,
            events: self.events,
            enabled: self.enabled.unwrap_or(true),
            topic_prefix: mqtt.then(|| {
                self.topic_prefix
                    .unwrap_or_else(TopicPrefix::default_prefix)
            }),
            qos: mqtt.then(|| self.qos.unwrap_or_default()),
            max_rate_hz: self.max_rate_hz.unwrap_or_default(),
            batch_ms: self.batch_ms.unwrap_or_default(),
            ca_file: self.ca_file,
            username_set: secrets.username.is_some(),
            password_set: secrets.password.is_some(),
            secret_set: secrets.secret.is_some(),
        };
        (output, secrets)
    }
}

/// `output_patch_body`: changes an output; at least one field. `null`
/// clears `topic_prefix` (back to the default), `ca_file`, `username` and
/// `password`. Changing `url` between MQTT and a webhook drops the fields
/// and credentials of the old kind (a webhook then needs its `secret`).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(extend("minProperties" = 1))]
pub struct OutputPatchBody {
    /// A new name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "ItemName")]
    pub name: Option<ItemName>,
    /// A new broker or web service.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "OutputUrl")]
    pub url: Option<OutputUrl>,
    /// New events.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Vec<OutputEventKind>", length(min = 1, max = 5))]
    pub events: Option<Vec<OutputEventKind>>,
    /// Runs or not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "bool")]
    pub enabled: Option<bool>,
    /// MQTT: a new topic prefix, or `null` for the default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<TopicPrefix>")]
    pub topic_prefix: Option<Option<TopicPrefix>>,
    /// MQTT: a new QoS.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Qos")]
    pub qos: Option<Qos>,
    /// A new per-tag rate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "RateHz")]
    pub max_rate_hz: Option<RateHz>,
    /// A new batch period.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "BatchMs")]
    pub batch_ms: Option<BatchMs>,
    /// A new CA file, or `null` for the system's roots.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<String>", length(min = 1, max = 4096))]
    pub ca_file: Option<Option<String>>,
    /// MQTT: a new username, or `null` for none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<String>", length(min = 1, max = 1024))]
    pub username: Option<Option<String>>,
    /// MQTT: a new password, or `null` for none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<String>", length(min = 1, max = 1024))]
    pub password: Option<Option<String>>,
    /// Webhook: a new signing secret.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String", length(min = 1, max = 1024))]
    pub secret: Option<String>,
}

impl OutputPatchBody {
    /// `output` (with its `secrets`) changed by this body; every problem of
    /// the result.
    pub fn apply(
        &self,
        output: &Output,
        secrets: &OutputSecrets,
    ) -> Result<(Output, OutputSecrets), Problems> {
        let mut changed = output.clone();
        let mut kept = secrets.clone();
        if let Some(name) = &self.name {
            changed.name = name.clone();
        }
        if let Some(url) = &self.url {
            let was_mqtt = changed.url.scheme().is_mqtt();
            changed.url = url.clone();
            match (was_mqtt, url.scheme().is_mqtt()) {
                (true, false) => {
                    changed.topic_prefix = None;
                    changed.qos = None;
                    kept.username = None;
                    kept.password = None;
                }
                (false, true) => {
                    changed.topic_prefix = Some(TopicPrefix::default_prefix());
                    changed.qos = Some(Qos::default());
                    kept.secret = None;
                }
                _ => {}
            }
        }
        if let Some(events) = &self.events {
            changed.events = events.clone();
        }
        changed.enabled = self.enabled.unwrap_or(changed.enabled);
        if let Some(prefix) = &self.topic_prefix {
            changed.topic_prefix = Some(prefix.clone().unwrap_or_else(TopicPrefix::default_prefix));
        }
        if let Some(qos) = self.qos {
            changed.qos = Some(qos);
        }
        changed.max_rate_hz = self.max_rate_hz.unwrap_or(changed.max_rate_hz);
        changed.batch_ms = self.batch_ms.unwrap_or(changed.batch_ms);
        if let Some(ca_file) = &self.ca_file {
            changed.ca_file = ca_file.clone();
        }
        if let Some(username) = &self.username {
            kept.username = username.clone();
        }
        if let Some(password) = &self.password {
            kept.password = password.clone();
        }
        if let Some(secret) = &self.secret {
            kept.secret = Some(secret.clone());
        }
        let mut problems = Problems::new();
        let given = Given {
            topic_prefix: self.topic_prefix.is_some(),
            qos: self.qos.is_some(),
        };
        // A credential that was set but lost (a copied file) still counts as
        // wanted: the patch that changes other fields must not fail for it.
        let has_secret = kept.secret.is_some() || (output.secret_set && self.url.is_none());
        check_kind(&changed, &kept, given, has_secret, "", &mut problems);
        changed.username_set = kept.username.is_some()
            || (output.username_set && self.username.is_none() && changed.url.scheme().is_mqtt());
        changed.password_set = kept.password.is_some()
            || (output.password_set && self.password.is_none() && changed.url.scheme().is_mqtt());
        changed.secret_set = has_secret && !changed.url.scheme().is_mqtt();
        if problems.is_empty() {
            Ok((changed, kept))
        } else {
            Err(problems)
        }
    }
}

/// Which MQTT-only fields a body gave (a webhook refuses them).
#[derive(Clone, Copy)]
struct Given {
    topic_prefix: bool,
    qos: bool,
}

/// The rules between the URL's kind and the other fields.
fn check_kind(
    output: &Output,
    secrets: &OutputSecrets,
    given: Given,
    has_secret: bool,
    path: &str,
    problems: &mut Problems,
) {
    let scheme = output.url.scheme();
    if scheme.is_mqtt() {
        if secrets.secret.is_some() {
            problems.push(
                join(path, "secret"),
                "secret signs webhooks; an MQTT output authenticates with username and password",
            );
        }
    } else {
        for (field, given) in [("topic_prefix", given.topic_prefix), ("qos", given.qos)] {
            if given {
                problems.push(
                    join(path, field),
                    "only for MQTT outputs (mqtt://, mqtts://)",
                );
            }
        }
        for (field, set) in [
            ("username", secrets.username.is_some()),
            ("password", secrets.password.is_some()),
        ] {
            if set {
                problems.push(
                    join(path, field),
                    "only for MQTT outputs; a webhook signs its requests with secret",
                );
            }
        }
        if !has_secret {
            problems.push(
                join(path, "secret"),
                "a webhook needs a secret: every request is signed with it (Netcfg-Signature)",
            );
        }
    }
    if output.ca_file.is_some() && !scheme.is_tls() {
        problems.push(
            join(path, "ca_file"),
            "only for mqtts:// and https:// outputs",
        );
    }
}

fn events(value: &Value, path: &str, problems: &mut Problems) -> Option<Vec<OutputEventKind>> {
    let items = elements(value, path, problems, leaf::<OutputEventKind>)?;
    let mut clean = items.iter().all(Option::is_some);
    if items.is_empty() {
        problems.push(
            path,
            "at least one of position, zone, notification, device, state",
        );
        clean = false;
    }
    clean &= check_unique(
        &items,
        path,
        problems,
        |kind| kind.as_str().to_owned(),
        |kind| (String::new(), kind.as_str().to_owned()),
    );
    clean.then(|| items.into_iter().flatten().collect())
}

/// A credential: 1 to 1,024 bytes, no NUL. The problem never repeats it.
fn credential(value: &Value, path: &str, problems: &mut Problems) -> Option<String> {
    match value.as_str() {
        Some(text)
            if !text.is_empty() && text.len() <= MAX_CREDENTIAL_LENGTH && !text.contains('\0') =>
        {
            Some(text.to_owned())
        }
        Some(_) => {
            problems.push(path, "1 to 1024 bytes, no NUL");
            None
        }
        None => {
            problems.push(path, "expected a string");
            None
        }
    }
}

fn file_path(value: &Value, path: &str, problems: &mut Problems) -> Option<String> {
    match value.as_str() {
        Some(text) if !text.is_empty() && text.len() <= MAX_PATH_LENGTH && !text.contains('\0') => {
            Some(text.to_owned())
        }
        _ => {
            problems.push(path, "a file's path: 1 to 4096 bytes, no NUL");
            None
        }
    }
}

impl FromJson for OutputPostBody {
    fn from_json_at(value: &Value, path: &str, problems: &mut Problems) -> Option<Self> {
        let mut fields = Fields::open(value, path, problems)?;
        let before = problems.as_slice().len();
        let name = fields.required("name", problems);
        let url = fields.required::<OutputUrl>("url", problems);
        let events = fields.required_with("events", problems, events);
        let enabled = fields.optional("enabled", problems);
        let topic_prefix = fields.optional("topic_prefix", problems);
        let qos = fields.optional("qos", problems);
        let max_rate_hz = fields.optional("max_rate_hz", problems);
        let batch_ms = fields.optional("batch_ms", problems);
        let ca_file = fields.optional_with("ca_file", problems, file_path);
        let username = fields.optional_with("username", problems, credential);
        let password = fields.optional_with("password", problems, credential);
        let secret = fields.optional_with("secret", problems, credential);
        fields.finish(problems);
        let body = Self {
            name: name?,
            url: url?,
            events: events?,
            enabled,
            topic_prefix,
            qos,
            max_rate_hz,
            batch_ms,
            ca_file,
            username,
            password,
            secret,
        };
        let given = Given {
            topic_prefix: body.topic_prefix.is_some(),
            qos: body.qos.is_some(),
        };
        let has_secret = body.secret.is_some();
        let (output, secrets) = body.clone().into_output();
        check_kind(&output, &secrets, given, has_secret, path, problems);
        (problems.as_slice().len() == before).then_some(body)
    }
}

impl FromJson for OutputPatchBody {
    fn from_json_at(value: &Value, path: &str, problems: &mut Problems) -> Option<Self> {
        let mut fields = Fields::open(value, path, problems)?;
        let before = problems.as_slice().len();
        let name = fields.optional("name", problems);
        let url = fields.optional("url", problems);
        let events = fields.optional_with("events", problems, events);
        let enabled = fields.optional("enabled", problems);
        let topic_prefix = clearable(&mut fields, value, "topic_prefix", problems, leaf);
        let qos = fields.optional("qos", problems);
        let max_rate_hz = fields.optional("max_rate_hz", problems);
        let batch_ms = fields.optional("batch_ms", problems);
        let ca_file = clearable(&mut fields, value, "ca_file", problems, file_path);
        let username = clearable(&mut fields, value, "username", problems, credential);
        let password = clearable(&mut fields, value, "password", problems, credential);
        let secret = fields.optional_with("secret", problems, credential);
        if value.as_object().is_some_and(|object| object.is_empty()) {
            problems.push(
                path,
                "at least one field must be given: name, url, events, enabled, topic_prefix, qos, \
                 max_rate_hz, batch_ms, ca_file, username, password, secret",
            );
        }
        fields.finish(problems);
        let clean = problems.as_slice().len() == before;
        clean.then_some(Self {
            name,
            url,
            events,
            enabled,
            topic_prefix,
            qos,
            max_rate_hz,
            batch_ms,
            ca_file,
            username,
            password,
            secret,
        })
    }
}

crate::json::deserialize_via_from_json!(OutputPostBody, OutputPatchBody);
