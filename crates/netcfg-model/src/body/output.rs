use netcfg_model_derive::request_body;
use serde_json::Value;

use crate::{
    json::{distinct_array, leaf},
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
#[request_body(check = check_post)]
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct OutputPostBody {
    /// Unique name within the configuration.
    pub name: ItemName,
    /// `mqtt://host:port`, `mqtts://host:port`, `http://...` or `https://...`.
    pub url: OutputUrl,
    /// The events it carries, at least one, each once.
    #[schemars(length(min = 1, max = 5))]
    #[from_json(with = events)]
    pub events: Vec<OutputEventKind>,
    /// Whether it runs while the configuration runs; true by default.
    pub enabled: Option<bool>,
    /// MQTT only: the topics' first levels; `netcfg/{net_name}` by default.
    pub topic_prefix: Option<TopicPrefix>,
    /// MQTT only: the QoS of positions and device events (0 by default;
    /// zone, notification and state events always use 1).
    pub qos: Option<Qos>,
    /// The most positions a second per tag; 0 (the default): every position.
    pub max_rate_hz: Option<RateHz>,
    /// Positions gathered for this long go as one message; 0 (the default):
    /// one message per position.
    pub batch_ms: Option<BatchMs>,
    /// mqtts and https only: a PEM file of the certificate authorities to
    /// trust instead of the system's.
    #[schemars(length(min = 1, max = 4096))]
    #[from_json(with = file_path)]
    pub ca_file: Option<String>,
    /// MQTT only: the broker's username (write-only).
    #[schemars(length(min = 1, max = 1024))]
    #[from_json(with = credential)]
    pub username: Option<String>,
    /// MQTT only: the broker's password (write-only).
    #[schemars(length(min = 1, max = 1024))]
    #[from_json(with = credential)]
    pub password: Option<String>,
    /// Webhooks, required there: the key of the body's HMAC-SHA256 in
    /// `Netcfg-Signature` (write-only).
    #[schemars(length(min = 1, max = 1024))]
    #[from_json(with = credential)]
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
#[request_body(at_least_one)]
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct OutputPatchBody {
    /// A new name.
    pub name: Option<ItemName>,
    /// A new broker or web service.
    pub url: Option<OutputUrl>,
    /// New events.
    #[schemars(length(min = 1, max = 5))]
    #[from_json(with = events)]
    pub events: Option<Vec<OutputEventKind>>,
    /// Runs or not.
    pub enabled: Option<bool>,
    /// MQTT: a new topic prefix, or `null` for the default.
    pub topic_prefix: Option<Option<TopicPrefix>>,
    /// MQTT: a new QoS.
    pub qos: Option<Qos>,
    /// A new per-tag rate.
    pub max_rate_hz: Option<RateHz>,
    /// A new batch period.
    pub batch_ms: Option<BatchMs>,
    /// A new CA file, or `null` for the system's roots.
    #[schemars(length(min = 1, max = 4096))]
    #[from_json(with = file_path)]
    pub ca_file: Option<Option<String>>,
    /// MQTT: a new username, or `null` for none.
    #[schemars(length(min = 1, max = 1024))]
    #[from_json(with = credential)]
    pub username: Option<Option<String>>,
    /// MQTT: a new password, or `null` for none.
    #[schemars(length(min = 1, max = 1024))]
    #[from_json(with = credential)]
    pub password: Option<Option<String>>,
    /// Webhook: a new signing secret.
    #[schemars(length(min = 1, max = 1024))]
    #[from_json(with = credential)]
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
    distinct_array(
        value,
        path,
        problems,
        leaf::<OutputEventKind>,
        |count| {
            (count == 0)
                .then(|| "at least one of position, zone, notification, device, state".to_owned())
        },
        |kind| *kind,
        |kind| (String::new(), kind.as_str().to_owned()),
    )
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

fn check_post(body: &OutputPostBody, path: &str, problems: &mut Problems) {
    let given = Given {
        topic_prefix: body.topic_prefix.is_some(),
        qos: body.qos.is_some(),
    };
    let (output, secrets) = body.clone().into_output();
    check_kind(
        &output,
        &secrets,
        given,
        body.secret.is_some(),
        path,
        problems,
    );
}
