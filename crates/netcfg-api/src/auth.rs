//! Optional access control: bearer tokens, each read-only or admin.
//!
//! Off unless tokens are configured, so the seed's behaviour is the default.
//! When on, every request but the API's self description (`GET /api`,
//! `GET /api.json`) needs `Authorization: Bearer <token>`: 401 without a
//! known token, 403 for a read-only token on a change. Tokens are kept and
//! compared as SHA-256 digests, in constant time, and never logged; the
//! configuration file may hold the digest instead of the token.

use std::{fmt, sync::Arc};

use actix_web::{HttpMessage, HttpRequest};

use netcfg_model::people::AccessRole;
use netcfg_service::Identity;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// The operator's paths (operations.rs), which access control leaves open
/// but for `/metrics` (it tells what clients do).
pub(crate) const HEALTH: &str = "/healthz";
/// See [`HEALTH`].
pub(crate) const READY: &str = "/readyz";
/// See [`HEALTH`].
pub(crate) const METRICS: &str = "/metrics";

/// Who a request is, as the gate found it: kept in the request's
/// extensions for the dispatcher's check of the row's least role, the
/// handlers of people and the change history's origin.
#[derive(Debug, Clone, Default)]
pub(crate) struct Requester {
    /// Whether access control is on (a user or a token exists).
    pub(crate) on: bool,
    /// The identity, if the request showed a live one.
    pub(crate) identity: Option<Arc<Identity>>,
    /// The request sent a session cookie that no longer works.
    pub(crate) session_ended: bool,
}

/// What a token may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Reads only (GET and HEAD).
    ReadOnly,
    /// Everything.
    Admin,
}

impl Access {
    /// The role of decisions §17 a token of this access acts with.
    pub fn role(self) -> AccessRole {
        match self {
            Self::ReadOnly => AccessRole::Viewer,
            Self::Admin => AccessRole::Admin,
        }
    }
}

impl std::str::FromStr for Access {
    type Err = AuthError;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "read-only" | "read_only" | "readonly" => Ok(Self::ReadOnly),
            "admin" => Ok(Self::Admin),
            other => Err(AuthError::UnknownAccess(other.chars().take(40).collect())),
        }
    }
}

/// A configured token: the SHA-256 digest of its secret, its access, and
/// the name the change history records for what it changes.
#[derive(Clone, PartialEq, Eq)]
struct Token {
    digest: [u8; 32],
    access: Access,
    name: std::sync::Arc<str>,
}

/// The configured tokens, and the failed checks of recent clients (shared
/// by every clone, so every worker counts them together).
#[derive(Clone, Default)]
pub struct Auth {
    tokens: Vec<Token>,
    lockout: std::sync::Arc<crate::lockout::Lockout>,
}

impl PartialEq for Auth {
    fn eq(&self, other: &Self) -> bool {
        self.tokens == other.tokens
    }
}

impl Eq for Auth {}

// Never print digests either: they are as good as the token to a brute force
// of a weak secret.
impl fmt::Debug for Auth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Auth")
            .field("tokens", &self.tokens.len())
            .finish()
    }
}

/// A token setting that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AuthError {
    /// The access is neither `read-only` nor `admin`.
    #[error("`{0}` is not an access; use read-only or admin")]
    UnknownAccess(String),
    /// A digest that is not 64 hexadecimal digits.
    #[error("a sha256 token digest is 64 hexadecimal digits")]
    BadDigest,
    /// A token shorter than 16 characters.
    #[error("a token has at least 16 characters")]
    ShortToken,
    /// Neither or both of `token` and `sha256`.
    #[error("give either `token` or `sha256` for each token")]
    TokenOrDigest,
    /// A name that is empty, longer than 64 characters, or holds control
    /// characters.
    #[error("a token's name has 1 to 64 characters and no control characters")]
    BadName,
}

/// What a 401 without any identity says.
pub(crate) const SIGN_IN: &str =
    "sign in (POST /session), or send Authorization: Bearer <API key or token>";

/// Who made `request`, as the gate found it.
pub(crate) fn requester(request: &HttpRequest) -> Requester {
    request
        .extensions()
        .get::<Requester>()
        .cloned()
        .unwrap_or_default()
}

/// What the bearer credential of a request says (the gate's first look;
/// the row's least role is checked by the dispatcher).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Access control is off, or the path is open to all (the API's own
    /// description, the front end's files, health and readiness).
    Open,
    /// Access control is on and the request sends no bearer credential: a
    /// session cookie may still name it, else the row decides (401).
    Anonymous,
    /// A known token or a live API key.
    Identified(Arc<Identity>),
    /// A bearer credential that is no known token or live key: 401.
    Unauthenticated,
    /// Too many unknown credentials from this client lately: 429, its
    /// credential not checked; it may try again after the duration.
    LockedOut(std::time::Duration),
}

/// Reads an API key's secret (`ncfg_...`) as the service's identity of it.
pub(crate) type KeyReader<'a> = &'a dyn Fn(&str) -> Option<Arc<Identity>>;

fn digest_of(secret: &str) -> [u8; 32] {
    Sha256::digest(secret.as_bytes()).into()
}

/// Equal in time that does not depend on where the digests differ
/// (`subtle`, written so the compiler cannot shortcut it).
fn constant_time_eq(left: &[u8; 32], right: &[u8; 32]) -> bool {
    bool::from(left.ct_eq(right))
}

impl Auth {
    /// No tokens: access control off.
    pub fn off() -> Self {
        Self::default()
    }

    /// Adds a token given as its secret (at least 16 characters).
    pub fn with_token(mut self, secret: &str, access: Access) -> Result<Self, AuthError> {
        if secret.chars().count() < 16 {
            return Err(AuthError::ShortToken);
        }
        let name = self.default_name();
        self.tokens.push(Token {
            digest: digest_of(secret),
            access,
            name,
        });
        Ok(self)
    }

    /// Adds a token given as the hexadecimal SHA-256 digest of its secret.
    pub fn with_digest(mut self, hex: &str, access: Access) -> Result<Self, AuthError> {
        let mut digest = [0u8; 32];
        hex::decode_to_slice(hex.trim(), &mut digest).map_err(|_| AuthError::BadDigest)?;
        let name = self.default_name();
        self.tokens.push(Token {
            digest,
            access,
            name,
        });
        Ok(self)
    }

    /// `token-<n>`, the name of the n-th token when it is given none.
    fn default_name(&self) -> std::sync::Arc<str> {
        format!("token-{}", self.tokens.len() + 1).into()
    }

    /// Names the token added last: the change history records what it
    /// changes under this name (`token-<n>`, its place in the list, when
    /// it has none).
    pub fn named(mut self, name: &str) -> Result<Self, AuthError> {
        let name = name.trim();
        if name.is_empty() || name.chars().count() > 64 || name.chars().any(char::is_control) {
            return Err(AuthError::BadName);
        }
        if let Some(token) = self.tokens.last_mut() {
            token.name = name.into();
        }
        Ok(self)
    }

    /// True when tokens are configured.
    pub fn is_on(&self) -> bool {
        !self.tokens.is_empty()
    }

    /// Judges a request's bearer credential by its method, path and
    /// `Authorization` header, and by the wrong credentials its client
    /// (`address`) sent lately (`crate::lockout`). `keys` reads API keys,
    /// and is given only when users exist: access control is on when it
    /// is, or when tokens are configured.
    pub(crate) fn judge(
        &self,
        method: &str,
        path: &str,
        authorization: Option<&str>,
        address: Option<std::net::IpAddr>,
        keys: Option<KeyReader<'_>>,
    ) -> Verdict {
        if !(self.is_on() || keys.is_some()) || is_open(method, path) {
            return Verdict::Open;
        }
        let Some(secret) = authorization.and_then(|value| value.strip_prefix("Bearer ")) else {
            return Verdict::Anonymous;
        };
        let secret = secret.trim();
        let identity = if secret.starts_with(netcfg_model::people::KEY_PREFIX) {
            keys.and_then(|read| read(secret))
        } else {
            self.token(secret)
        };
        // A live credential is never refused or slowed (decisions §17):
        // keys and tokens are too long to guess, so the lockout only keeps
        // a client's wrong ones from being answered one by one.
        if let Some(identity) = identity {
            return Verdict::Identified(identity);
        }
        let now = std::time::Instant::now();
        if let Some(wait) = self.lockout.refused(address, now) {
            return Verdict::LockedOut(wait);
        }
        self.lockout.failed(address, now);
        Verdict::Unauthenticated
    }

    /// The identity of a configured token's secret.
    fn token(&self, secret: &str) -> Option<Arc<Identity>> {
        let digest = digest_of(secret);
        // Every token is compared, so the time taken does not tell which matched.
        let best = self
            .tokens
            .iter()
            .filter(|token| constant_time_eq(&token.digest, &digest))
            .map(|token| (token.name.clone(), token.access.role()))
            .max_by_key(|(_, role)| *role)?;
        Some(Arc::new(Identity::token(best.0, best.1)))
    }

    /// The failed credentials of recent clients, which sign-ins count too.
    pub(crate) fn lockout(&self) -> &crate::lockout::Lockout {
        &self.lockout
    }
}

/// `GET /api`, the browser's assets under `/api/`, and `GET /api.json` stay
/// open, so a person can read the description before holding a token; so
/// do the web front end's files (`/`, `/ui/...`), which hold no data and
/// must load before the sign-in; and the health and readiness checks, which
/// probes call without a token (`/metrics` needs one: it tells what clients
/// do).
fn is_open(method: &str, path: &str) -> bool {
    matches!(method, "GET" | "HEAD")
        && (path == "/api"
            || path == "/api.json"
            || path.starts_with("/api/")
            || path == "/"
            || path.starts_with("/ui/")
            || path == HEALTH
            || path == READY)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn auth() -> Auth {
        Auth::off()
            .with_token("admin-secret-0123456789", Access::Admin)
            .unwrap()
            .with_digest(
                // sha256("reader-secret-0123456789")
                &digest_of("reader-secret-0123456789")
                    .iter()
                    .map(|b| format!("{b:02x}"))
                    .collect::<String>(),
                Access::ReadOnly,
            )
            .unwrap()
    }

    fn judge(auth: &Auth, method: &str, path: &str, authorization: Option<&str>) -> Verdict {
        auth.judge(method, path, authorization, None, None)
    }

    fn role_of(verdict: Verdict) -> Option<(String, AccessRole)> {
        match verdict {
            Verdict::Identified(identity) => Some((identity.origin(), identity.role)),
            _ => None,
        }
    }

    #[test]
    fn off_lets_everything_through() {
        assert_eq!(
            judge(&Auth::off(), "DELETE", "/nets/a", None),
            Verdict::Open
        );
    }

    #[test]
    fn tokens_are_identities_with_the_role_of_their_access() {
        let auth = auth();
        assert_eq!(judge(&auth, "GET", "/nets", None), Verdict::Anonymous);
        assert_eq!(
            judge(&auth, "GET", "/nets", Some("Basic abc")),
            Verdict::Anonymous
        );
        assert_eq!(
            judge(
                &auth,
                "GET",
                "/nets",
                Some("Bearer wrong-secret-0123456789")
            ),
            Verdict::Unauthenticated
        );
        assert_eq!(
            role_of(judge(
                &auth,
                "POST",
                "/nets",
                Some("Bearer reader-secret-0123456789")
            )),
            Some(("token:token-2".to_owned(), AccessRole::Viewer))
        );
        assert_eq!(
            role_of(judge(
                &auth,
                "POST",
                "/nets",
                Some("Bearer admin-secret-0123456789")
            )),
            Some(("token:token-1".to_owned(), AccessRole::Admin))
        );
        for (method, path) in [
            ("GET", "/api.json"),
            ("GET", "/api/index.html"),
            ("GET", "/"),
            ("HEAD", "/ui/app.js"),
            ("GET", "/healthz"),
            ("GET", "/readyz"),
        ] {
            assert_eq!(judge(&auth, method, path, None), Verdict::Open, "{path}");
        }
        for (method, path) in [
            ("GET", "/uix"),
            ("POST", "/"),
            ("GET", "/metrics"),
            ("POST", "/api.json"),
        ] {
            assert_eq!(
                judge(&auth, method, path, None),
                Verdict::Anonymous,
                "{path}"
            );
        }
    }

    #[test]
    fn keys_are_read_by_the_service_and_turn_access_control_on() {
        let keys = |secret: &str| {
            (secret == "ncfg_good")
                .then(|| Arc::new(Identity::token("k".into(), AccessRole::Operator)))
        };
        let off = Auth::off();
        assert_eq!(
            off.judge("GET", "/nets", None, None, Some(&keys)),
            Verdict::Anonymous
        );
        assert!(matches!(
            off.judge("GET", "/nets", Some("Bearer ncfg_good"), None, Some(&keys)),
            Verdict::Identified(_)
        ));
        assert_eq!(
            off.judge("GET", "/nets", Some("Bearer ncfg_bad"), None, Some(&keys)),
            Verdict::Unauthenticated
        );
        // A key is never compared with the tokens, nor a token with the keys.
        assert_eq!(
            auth().judge("GET", "/nets", Some("Bearer ncfg_good"), None, None),
            Verdict::Unauthenticated
        );
    }

    #[test]
    fn tokens_have_names_for_the_history() {
        let auth = auth().named("site engineer").unwrap();
        assert_eq!(
            role_of(judge(
                &auth,
                "GET",
                "/nets",
                Some("Bearer reader-secret-0123456789")
            ))
            .map(|(origin, _)| origin),
            Some("token:site engineer".to_owned())
        );
    }

    #[test]
    fn bad_settings_are_refused() {
        assert_eq!(
            Auth::off().with_token("short", Access::Admin),
            Err(AuthError::ShortToken)
        );
        for digest in ["abc", &"g".repeat(64), &"a".repeat(66)] {
            assert_eq!(
                Auth::off().with_digest(digest, Access::Admin),
                Err(AuthError::BadDigest),
                "{digest}"
            );
        }
        // The digest of a secret, in either case, lets that secret in.
        let secret = "a secret of some length";
        let digest: String = digest_of(secret)
            .iter()
            .map(|byte| format!("{byte:02X}"))
            .collect();
        let admin = Auth::off()
            .with_digest(&format!(" {digest} "), Access::Admin)
            .expect("a digest");
        let bearer = format!("Bearer {secret}");
        assert_eq!(
            role_of(judge(&admin, "PATCH", "/nets", Some(&bearer))).map(|(_, role)| role),
            Some(AccessRole::Admin)
        );
        assert!("superuser".parse::<Access>().is_err());
        assert_eq!(
            Auth::off()
                .with_token("admin-secret-0123456789", Access::Admin)
                .and_then(|auth| auth.named("")),
            Err(AuthError::BadName)
        );
        assert_eq!(format!("{:?}", auth()), "Auth { tokens: 2 }");
    }
}
