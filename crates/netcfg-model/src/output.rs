//! Outputs (decisions.md §14): where a running configuration's live events
//! go outside the server, to an MQTT broker or a web service, with what
//! filters, rates and batching. Their credentials are kept apart
//! ([`OutputSecrets`]): never in the configuration's file.

use std::{fmt, str::FromStr};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::{names::ItemName, zone::bounded_u32};

/// The longest URL, in bytes.
pub(crate) const MAX_URL_LENGTH: usize = 2_048;
/// The longest topic prefix, in bytes.
pub(crate) const MAX_TOPIC_PREFIX_LENGTH: usize = 200;
/// The default topic prefix; `{net_name}` is the configuration's name.
pub const DEFAULT_TOPIC_PREFIX: &str = "netcfg/{net_name}";
/// The longest batch, ms.
pub const MAX_BATCH_MS: u32 = 60_000;
/// The highest per-tag position rate, Hz.
pub const MAX_RATE_HZ: f64 = 1_000.0;
/// The longest credential (username, password, secret), in bytes.
pub const MAX_CREDENTIAL_LENGTH: usize = 1_024;
/// The most outputs a configuration may have.
pub const MAX_OUTPUTS: usize = 64;

/// How an output reaches its peer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OutputScheme {
    /// MQTT over TCP (`mqtt://`, port 1883 by default).
    Mqtt,
    /// MQTT over TLS (`mqtts://`, port 8883 by default).
    Mqtts,
    /// A webhook over HTTP (`http://`).
    Http,
    /// A webhook over HTTPS (`https://`).
    Https,
}

impl OutputScheme {
    /// Whether outputs of this scheme publish to an MQTT broker.
    pub fn is_mqtt(self) -> bool {
        matches!(self, Self::Mqtt | Self::Mqtts)
    }

    /// Whether the connection is encrypted.
    pub fn is_tls(self) -> bool {
        matches!(self, Self::Mqtts | Self::Https)
    }

    fn default_port(self) -> u16 {
        match self {
            Self::Mqtt => 1883,
            Self::Mqtts => 8883,
            Self::Http => 80,
            Self::Https => 443,
        }
    }
}

/// Why a URL is not an output's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OutputUrlError {
    /// Not `mqtt://`, `mqtts://`, `http://` or `https://`.
    #[error("unknown scheme {0:?}: use mqtt://, mqtts://, http:// or https://")]
    Scheme(String),
    /// No host.
    #[error("the URL names no host")]
    NoHost,
    /// The port is not 1 to 65,535.
    #[error("the port {0:?} is not a number from 1 to 65535")]
    Port(String),
    /// Credentials in the URL.
    #[error(
        "credentials do not belong in the URL: give them as username and password (or secret), which are never shown again"
    )]
    Credentials,
    /// A path on an MQTT URL.
    #[error("an MQTT URL has no path: the topics start with topic_prefix")]
    MqttPath,
    /// Too long, or white space or control characters.
    #[error("a URL has at most 2048 bytes and no spaces or control characters")]
    Malformed,
}

/// An output's peer: `mqtt://host:port`, `mqtts://host:port`,
/// `http://host[:port]/path` or `https://...`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct OutputUrl {
    text: String,
    scheme: OutputScheme,
    host: String,
    port: u16,
}

impl OutputUrl {
    /// The URL as given.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Its scheme.
    pub fn scheme(&self) -> OutputScheme {
        self.scheme
    }

    /// The host (an IPv6 address without its brackets).
    pub fn host(&self) -> &str {
        &self.host
    }

    /// The port, the scheme's default when the URL gives none.
    pub fn port(&self) -> u16 {
        self.port
    }
}

impl FromStr for OutputUrl {
    type Err = OutputUrlError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        if text.len() > MAX_URL_LENGTH || text.chars().any(|c| c.is_whitespace() || c.is_control())
        {
            return Err(OutputUrlError::Malformed);
        }
        let (scheme_name, rest) = text
            .split_once("://")
            .ok_or_else(|| OutputUrlError::Scheme(text.chars().take(20).collect()))?;
        let scheme = match scheme_name.to_ascii_lowercase().as_str() {
            "mqtt" => OutputScheme::Mqtt,
            "mqtts" => OutputScheme::Mqtts,
            "http" => OutputScheme::Http,
            "https" => OutputScheme::Https,
            _ => return Err(OutputUrlError::Scheme(scheme_name.to_owned())),
        };
        let split = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        let (authority, path) = rest.split_at(split);
        if authority.contains('@') {
            return Err(OutputUrlError::Credentials);
        }
        if scheme.is_mqtt() && !(path.is_empty() || path == "/") {
            return Err(OutputUrlError::MqttPath);
        }
        let (host, port) = split_host_port(authority)?;
        if host.is_empty() {
            return Err(OutputUrlError::NoHost);
        }
        let port = match port {
            None => scheme.default_port(),
            Some(port) => port
                .parse::<u16>()
                .ok()
                .filter(|port| *port != 0)
                .ok_or_else(|| OutputUrlError::Port(port.to_owned()))?,
        };
        Ok(Self {
            text: text.to_owned(),
            scheme,
            host: host.to_owned(),
            port,
        })
    }
}

/// `host`, `host:port`, `[v6]` or `[v6]:port`.
fn split_host_port(authority: &str) -> Result<(&str, Option<&str>), OutputUrlError> {
    if let Some(bracketed) = authority.strip_prefix('[') {
        let (host, after) = bracketed.split_once(']').ok_or(OutputUrlError::Malformed)?;
        return match after {
            "" => Ok((host, None)),
            _ => after
                .strip_prefix(':')
                .map(|port| (host, Some(port)))
                .ok_or(OutputUrlError::Malformed),
        };
    }
    Ok(match authority.rsplit_once(':') {
        Some((host, port)) => (host, Some(port)),
        None => (authority, None),
    })
}

impl fmt::Display for OutputUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl Serialize for OutputUrl {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.text)
    }
}

impl<'de> Deserialize<'de> for OutputUrl {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

impl JsonSchema for OutputUrl {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "OutputUrl".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "maxLength": MAX_URL_LENGTH,
            "pattern": "^(?i:mqtts?|https?)://[^@/?#\\s]+([/?#][^\\s]*)?$",
            "description": "mqtt://host:port, mqtts://host:port (MQTT, no path), http://host[:port]/path or https://... (a webhook). No credentials in the URL."
        })
    }
}

/// A live event an output may carry.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum OutputEventKind {
    /// Each tag's positions.
    Position,
    /// Zone enters and exits.
    Zone,
    /// New notifications.
    Notification,
    /// Devices joining, lost, reporting health.
    Device,
    /// The configuration's state: started, stopped, link down.
    State,
}

impl OutputEventKind {
    /// Every kind.
    pub const ALL: [Self; 5] = [
        Self::Position,
        Self::Zone,
        Self::Notification,
        Self::Device,
        Self::State,
    ];

    /// Its name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Position => "position",
            Self::Zone => "zone",
            Self::Notification => "notification",
            Self::Device => "device",
            Self::State => "state",
        }
    }
}

/// An MQTT topic prefix: 1 to 200 bytes, no `+`, `#` or NUL, not ending in
/// `/`. `{net_name}` stands for the configuration's name.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct TopicPrefix(String);

/// Why a topic prefix is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "a topic prefix has 1 to 200 bytes, no '+', '#' or NUL (MQTT wildcards cannot be published to), and does not end in '/'"
)]
pub struct TopicPrefixError;

impl TopicPrefix {
    /// `netcfg/{net_name}`.
    pub fn default_prefix() -> Self {
        Self(DEFAULT_TOPIC_PREFIX.to_owned())
    }

    /// The prefix as written.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The prefix for configuration `net_name`.
    pub fn for_net(&self, net_name: &str) -> String {
        self.0.replace("{net_name}", net_name)
    }
}

impl TryFrom<String> for TopicPrefix {
    type Error = TopicPrefixError;

    fn try_from(prefix: String) -> Result<Self, Self::Error> {
        let bad = prefix.is_empty()
            || prefix.len() > MAX_TOPIC_PREFIX_LENGTH
            || prefix.ends_with('/')
            || prefix.contains(['+', '#', '\0']);
        if bad {
            Err(TopicPrefixError)
        } else {
            Ok(Self(prefix))
        }
    }
}

impl From<TopicPrefix> for String {
    fn from(prefix: TopicPrefix) -> Self {
        prefix.0
    }
}

impl JsonSchema for TopicPrefix {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "TopicPrefix".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "minLength": 1,
            "maxLength": MAX_TOPIC_PREFIX_LENGTH,
            "pattern": "^[^+#\\x00]*[^+#\\x00/]$",
            "description": "The MQTT topics' first levels, without '+', '#' or a trailing '/'; {net_name} is the configuration's name."
        })
    }
}

/// The MQTT quality of service of positions and device health: 0 or 1
/// (zone, notification and state events always use 1).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "u8", into = "u8")]
pub struct Qos(u8);

/// A QoS other than 0 or 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("QoS {0} is not offered: 0 or 1")]
pub struct QosError(pub u8);

impl Qos {
    /// At most once.
    pub const AT_MOST_ONCE: Self = Self(0);
    /// At least once.
    pub const AT_LEAST_ONCE: Self = Self(1);

    /// 0 or 1.
    pub fn get(self) -> u8 {
        self.0
    }
}

impl TryFrom<u8> for Qos {
    type Error = QosError;
    fn try_from(value: u8) -> Result<Self, Self::Error> {
        if value <= 1 {
            Ok(Self(value))
        } else {
            Err(QosError(value))
        }
    }
}

impl From<Qos> for u8 {
    fn from(qos: Qos) -> Self {
        qos.0
    }
}

impl JsonSchema for Qos {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Qos".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "integer", "enum": [0, 1], "description": "MQTT QoS of positions and device events."})
    }
}

bounded_u32!(BatchMs, MAX_BATCH_MS, "ms", BatchOutOfRange, "batch period");

/// A per-tag position rate, 0 (every position) to 1,000 Hz.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "f64", into = "f64")]
pub struct RateHz(f64);

/// A rate out of range.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
#[error("{0} Hz is out of range: 0 (every position) to 1000")]
pub struct RateOutOfRange(pub f64);

impl RateHz {
    /// The rate, Hz; 0 means every position.
    pub fn get(self) -> f64 {
        self.0
    }

    /// The shortest time between two positions of one tag, in ms; 0 for
    /// every position.
    pub fn min_interval_ms(self) -> f64 {
        if self.0 == 0.0 { 0.0 } else { 1_000.0 / self.0 }
    }
}

impl Eq for RateHz {}

impl TryFrom<f64> for RateHz {
    type Error = RateOutOfRange;
    fn try_from(value: f64) -> Result<Self, Self::Error> {
        if (0.0..=MAX_RATE_HZ).contains(&value) {
            Ok(Self(value))
        } else {
            Err(RateOutOfRange(value))
        }
    }
}

impl From<RateHz> for f64 {
    fn from(rate: RateHz) -> Self {
        rate.0
    }
}

impl JsonSchema for RateHz {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "RateHz".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "number",
            "minimum": 0,
            "maximum": MAX_RATE_HZ,
            "description": "The most positions a second per tag; 0: every position."
        })
    }
}

/// An output of a configuration, as GET shows it: never its credentials,
/// only whether they are set.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Output {
    /// Unique name within the configuration.
    pub name: ItemName,
    /// The broker or web service.
    pub url: OutputUrl,
    /// The events it carries.
    pub events: Vec<OutputEventKind>,
    /// Whether it runs while the configuration runs.
    pub enabled: bool,
    /// MQTT: the topics' first levels; null for a webhook.
    pub topic_prefix: Option<TopicPrefix>,
    /// MQTT: the QoS of positions and device events; null for a webhook.
    pub qos: Option<Qos>,
    /// The most positions a second per tag; 0: every position.
    pub max_rate_hz: RateHz,
    /// Positions gathered for this long go as one message; 0: one message
    /// per position.
    pub batch_ms: BatchMs,
    /// A PEM file of the certificate authorities to trust (TLS), instead of
    /// the system's.
    pub ca_file: Option<String>,
    /// MQTT: whether a username is set (it is never shown).
    pub username_set: bool,
    /// MQTT: whether a password is set (it is never shown).
    pub password_set: bool,
    /// Webhook: whether the signing secret is set (it is never shown).
    pub secret_set: bool,
}

impl Output {
    /// Whether it carries `kind`.
    pub fn carries(&self, kind: OutputEventKind) -> bool {
        self.events.contains(&kind)
    }
}

/// An output's write-only credentials, kept in the data directory outside
/// the configuration's file.
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutputSecrets {
    /// MQTT username.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub username: Option<String>,
    /// MQTT password.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub password: Option<String>,
    /// Webhook signing secret.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret: Option<String>,
}

impl fmt::Debug for OutputSecrets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown = |value: &Option<String>| if value.is_some() { "<set>" } else { "<none>" };
        f.debug_struct("OutputSecrets")
            .field("username", &shown(&self.username))
            .field("password", &shown(&self.password))
            .field("secret", &shown(&self.secret))
            .finish()
    }
}

impl OutputSecrets {
    /// The credentials `output` says it has that are missing here (after a
    /// copy or an upload, which carry none), by field name.
    pub fn missing_for(&self, output: &Output) -> Vec<&'static str> {
        let mut missing = Vec::new();
        if output.username_set && self.username.is_none() {
            missing.push("username");
        }
        if output.password_set && self.password.is_none() {
            missing.push("password");
        }
        if output.secret_set && self.secret.is_none() {
            missing.push("secret");
        }
        missing
    }
}

/// An output of a running configuration with what it needs to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputPlan {
    /// The output.
    pub output: Output,
    /// Its credentials.
    pub secrets: OutputSecrets,
}

/// How an output fares (`GET .../outputs/{output_name}/status`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct OutputStatus {
    /// Whether it runs now (its configuration runs and it is enabled).
    pub running: bool,
    /// Whether it is connected to its broker (MQTT) or its last delivery
    /// succeeded (webhook).
    pub connected: bool,
    /// Messages delivered since the configuration started (a batch counts
    /// once).
    pub sent: u64,
    /// Messages waiting in its queue.
    pub queued: u64,
    /// Positions dropped because the queue was full (oldest first).
    pub dropped: u64,
    /// Other events dropped because the queue was full of them.
    pub dropped_events: u64,
    /// Webhook deliveries the web service refused (a 4xx or 3xx: not
    /// retried).
    pub rejected: u64,
    /// The last error, if any since it last delivered.
    pub last_error: Option<String>,
}
