//! People (decisions §17): the four roles, what a user, an API key, a
//! session and an audit entry are, and the rules between them that need no
//! I/O (a key's role, a session's end, a password's length).

mod single_sign_on;

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::{ConfigName, KeyName, UserName};

pub use single_sign_on::{OidcInfo, OidcSettings, user_name_of};

/// What a person or key may do; each role may do all that the one before
/// it may. The order of the variants is that order.
#[derive(
    Clone, Copy, Debug, Eq, Ord, PartialEq, PartialOrd, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum AccessRole {
    /// Every read, the event streams, downloads.
    Viewer,
    /// And: start, stop, restart, reload, device commands, survey,
    /// recordings, replay, marking notifications.
    Operator,
    /// And: every change to a configuration's content, and the
    /// configurations themselves.
    Editor,
    /// And: users, other users' keys, the audit trail, server settings.
    Admin,
}

impl AccessRole {
    /// Every role, least first.
    pub const ALL: [Self; 4] = [Self::Viewer, Self::Operator, Self::Editor, Self::Admin];

    /// The role as written on the wire.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Viewer => "viewer",
            Self::Operator => "operator",
            Self::Editor => "editor",
            Self::Admin => "admin",
        }
    }
}

impl fmt::Display for AccessRole {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A text that names no role.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a role; use viewer, operator, editor or admin")]
pub struct UnknownRole(pub String);

impl std::str::FromStr for AccessRole {
    type Err = UnknownRole;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|role| role.as_str() == text)
            .ok_or_else(|| UnknownRole(text.chars().take(40).collect()))
    }
}

/// The fewest characters (Unicode scalar values) of a password.
pub const MIN_PASSWORD_CHARS: usize = 12;
/// The most: hashing a longer one would only cost time.
pub const MAX_PASSWORD_CHARS: usize = 1024;

/// A password as a request gives it: never printed (`Debug` shows stars),
/// never written back (it serialises to nothing a client reads again: the
/// bodies that carry it are only read).
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Password(String);

impl Password {
    /// The secret, for hashing and checking only.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Password {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Password(***)")
    }
}

impl TryFrom<String> for Password {
    type Error = &'static str;
    fn try_from(text: String) -> Result<Self, Self::Error> {
        let length = text.chars().count();
        if length < MIN_PASSWORD_CHARS {
            return Err("a password has at least 12 characters");
        }
        if length > MAX_PASSWORD_CHARS {
            return Err("a password has at most 1024 characters");
        }
        Ok(Self(text))
    }
}

impl From<Password> for String {
    fn from(password: Password) -> Self {
        password.0
    }
}

impl schemars::JsonSchema for Password {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Password".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string", "minLength": 12, "maxLength": 1024, "writeOnly": true,
            "description": "At least 12 characters (Unicode scalar values); kept only as an Argon2id hash."
        })
    }
}

/// A user as a GET answers it: never its password or hash.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct User {
    /// Its name.
    pub name: UserName,
    /// How it is shown; may be empty.
    pub display_name: String,
    /// What it may do.
    pub role: AccessRole,
    /// The only configurations it sees; absent: all.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub nets: Option<Vec<ConfigName>>,
    /// A disabled user cannot sign in, and its keys do not work.
    pub disabled: bool,
    /// When it was created, ms since 1970.
    pub created_ms: i64,
    /// When it last signed in, ms since 1970.
    pub last_sign_in_ms: Option<i64>,
}

impl User {
    /// Whether it may see configuration `net`.
    pub fn sees(&self, net: &ConfigName) -> bool {
        self.nets.as_ref().is_none_or(|nets| nets.contains(net))
    }
}

/// An API key as its list answers it: never its secret.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ApiKey {
    /// Its name, unique among its user's keys.
    pub name: KeyName,
    /// The most it may do (it acts with the lower of this and its user's role).
    pub role: AccessRole,
    /// The key's first 8 characters (`ncfg_` and three more), to tell keys apart.
    pub prefix: String,
    /// When it was created, ms since 1970.
    pub created_ms: i64,
    /// When it was last used, ms since 1970 (noted within a few seconds).
    pub last_used_ms: Option<i64>,
    /// When it stops working, ms since 1970; absent: never.
    pub expires_ms: Option<i64>,
}

impl ApiKey {
    /// What a key of this role does for a user of `user_role`: the lower.
    pub fn acting_role(&self, user_role: AccessRole) -> AccessRole {
        self.role.min(user_role)
    }

    /// Whether it has expired at `now_ms`.
    pub fn expired(&self, now_ms: i64) -> bool {
        self.expires_ms.is_some_and(|expires| expires <= now_ms)
    }
}

/// The text every key starts with, so that a leaked one is recognised by
/// secret scanners and told apart from a configured token.
pub const KEY_PREFIX: &str = "ncfg_";

/// The characters of a key that its list shows.
pub fn key_prefix(secret: &str) -> String {
    secret.chars().take(8).collect()
}

/// A new key: its record and, once, its secret.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct NewApiKey {
    /// The record, as its list will show it.
    #[serde(flatten)]
    pub record: ApiKey,
    /// The secret, shown this once: `Authorization: Bearer <key>`.
    pub key: String,
}

/// How a request proved who it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Via {
    /// A session begun with a password.
    Password,
    /// A session begun with the OpenID provider.
    Oidc,
    /// An API key.
    Key,
    /// A token of the configuration file.
    Token,
}

impl Via {
    /// As the API and the audit trail say it.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Password => "password",
            Self::Oidc => "oidc",
            Self::Key => "key",
            Self::Token => "token",
        }
    }
}

/// Who a request is, as `GET /session` answers it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SessionInfo {
    /// The user, or the token's name.
    pub user: String,
    /// What it may do now.
    pub role: AccessRole,
    /// The only configurations it sees; absent: all.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub nets: Option<Vec<ConfigName>>,
    /// How it proved who it is.
    pub via: Via,
    /// For a cookie session: the token its changes carry in `X-CSRF-Token`.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub csrf_token: Option<String>,
}

/// How long sessions last: unused, and at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionLimits {
    /// A session unused this long ends (`session_idle`, 8 h by default).
    pub idle_ms: i64,
    /// A session ends this long after it began in any case (`session_max`,
    /// 7 days by default).
    pub max_ms: i64,
}

impl Default for SessionLimits {
    fn default() -> Self {
        Self {
            idle_ms: 8 * 3_600_000,
            max_ms: 7 * 24 * 3_600_000,
        }
    }
}

impl SessionLimits {
    /// Whether a session begun at `began_ms` and last used at `used_ms` is
    /// still alive at `now_ms`.
    pub fn alive(&self, began_ms: i64, used_ms: i64, now_ms: i64) -> bool {
        now_ms - used_ms < self.idle_ms && now_ms - began_ms < self.max_ms
    }
}

/// What an audit entry records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AuditEvent {
    /// A sign-in.
    SignIn,
    /// A refused sign-in (the reason in `detail`).
    SignInFailed,
    /// A sign-out.
    SignOut,
    /// An API key made (its name in `detail`).
    KeyCreated,
    /// An API key revoked.
    KeyRevoked,
    /// A user made.
    UserCreated,
    /// A user changed (what changed in `detail`).
    UserChanged,
    /// A user deleted.
    UserDeleted,
    /// A request refused with 401 or 403 (method and path in `detail`).
    Refused,
}

impl AuditEvent {
    /// Every event.
    pub const ALL: [Self; 9] = [
        Self::SignIn,
        Self::SignInFailed,
        Self::SignOut,
        Self::KeyCreated,
        Self::KeyRevoked,
        Self::UserCreated,
        Self::UserChanged,
        Self::UserDeleted,
        Self::Refused,
    ];

    /// The event as written.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::SignIn => "sign_in",
            Self::SignInFailed => "sign_in_failed",
            Self::SignOut => "sign_out",
            Self::KeyCreated => "key_created",
            Self::KeyRevoked => "key_revoked",
            Self::UserCreated => "user_created",
            Self::UserChanged => "user_changed",
            Self::UserDeleted => "user_deleted",
            Self::Refused => "refused",
        }
    }

    /// The event written as `text`.
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|event| event.as_str() == text)
    }
}

/// What an audit entry says: everything but its number.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AuditRecord {
    /// When, ms since 1970.
    pub time_ms: i64,
    /// What happened.
    pub event: AuditEvent,
    /// Who, where known (a user's name, `key:<user>/<key>`, `token:<name>`).
    pub user: Option<String>,
    /// The client's address.
    pub address: Option<String>,
    /// The reason, the key's or user's name, or the refused method and path.
    pub detail: String,
    /// For `refused`: 401 or 403.
    pub status: Option<u16>,
}

/// One entry of the audit trail.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AuditEntry {
    /// Its number, rising.
    pub id: i64,
    /// What it says.
    #[serde(flatten)]
    pub record: AuditRecord,
}

/// A page of the audit trail, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AuditPage {
    /// The entries.
    pub entries: Vec<AuditEntry>,
    /// How many of the oldest entries were dropped to keep within `audit_keep`.
    pub dropped: u64,
}

/// The origin a change's history entry names (decisions §17).
pub mod origin {
    use crate::{KeyName, UserName};

    /// A user signed in with a session.
    pub fn user(name: &UserName) -> String {
        format!("user:{name}")
    }

    /// A user's API key.
    pub fn key(user: &UserName, key: &KeyName) -> String {
        format!("key:{user}/{key}")
    }

    /// A token of the configuration file.
    pub fn token(name: &str) -> String {
        format!("token:{name}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_are_ordered_least_first_and_read_back() {
        assert!(AccessRole::Viewer < AccessRole::Operator);
        assert!(AccessRole::Operator < AccessRole::Editor);
        assert!(AccessRole::Editor < AccessRole::Admin);
        for role in AccessRole::ALL {
            assert_eq!(role.as_str().parse::<AccessRole>(), Ok(role));
            assert_eq!(
                serde_json::to_value(role).unwrap(),
                serde_json::json!(role.as_str())
            );
        }
        assert!("root".parse::<AccessRole>().is_err());
    }

    #[test]
    fn a_password_counts_characters_not_bytes_and_never_prints() {
        assert!(Password::try_from("ééééééééééé".to_owned()).is_err());
        let twelve = Password::try_from("éééééééééééé".to_owned()).unwrap();
        assert_eq!(format!("{twelve:?}"), "Password(***)");
        assert!(Password::try_from("x".repeat(1025)).is_err());
    }

    #[test]
    fn a_key_acts_with_the_lower_role_and_expires() {
        let key = ApiKey {
            name: "ci".parse().unwrap(),
            role: AccessRole::Editor,
            prefix: "ncfg_abc".to_owned(),
            created_ms: 0,
            last_used_ms: None,
            expires_ms: Some(1_000),
        };
        assert_eq!(key.acting_role(AccessRole::Admin), AccessRole::Editor);
        assert_eq!(key.acting_role(AccessRole::Viewer), AccessRole::Viewer);
        assert!(!key.expired(999));
        assert!(key.expired(1_000));
        assert_eq!(key_prefix("ncfg_abcdefgh"), "ncfg_abc");
    }

    #[test]
    fn a_session_ends_when_idle_or_old() {
        let limits = SessionLimits {
            idle_ms: 10,
            max_ms: 100,
        };
        assert!(limits.alive(0, 0, 9));
        assert!(!limits.alive(0, 0, 10));
        assert!(limits.alive(0, 95, 99));
        assert!(!limits.alive(0, 95, 100));
    }

    #[test]
    fn audit_events_read_back() {
        for event in AuditEvent::ALL {
            assert_eq!(AuditEvent::parse(event.as_str()), Some(event));
            assert_eq!(
                serde_json::to_value(event).unwrap(),
                serde_json::json!(event.as_str())
            );
        }
    }
}
