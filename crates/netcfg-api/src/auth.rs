//! Optional access control: bearer tokens, each read-only or admin.
//!
//! Off unless tokens are configured, so the seed's behaviour is the default.
//! When on, every request but the API's self description (`GET /api`,
//! `GET /api.json`) needs `Authorization: Bearer <token>`: 401 without a
//! known token, 403 for a read-only token on a change. Tokens are kept and
//! compared as SHA-256 digests, in constant time, and never logged; the
//! configuration file may hold the digest instead of the token.

use std::fmt;

use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// The operator's paths (operations.rs), which access control leaves open
/// but for `/metrics` (it tells what clients do).
pub(crate) const HEALTH: &str = "/healthz";
/// See [`HEALTH`].
pub(crate) const READY: &str = "/readyz";
/// See [`HEALTH`].
pub(crate) const METRICS: &str = "/metrics";

/// The name of the token a request showed, kept in the request's
/// extensions for the change history.
#[derive(Debug, Clone)]
pub(crate) struct TokenName(pub(crate) std::sync::Arc<str>);

/// What a token may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Reads only (GET and HEAD).
    ReadOnly,
    /// Everything.
    Admin,
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

/// The outcome of checking a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Let it through; with access control on, the index of the token
    /// that was shown (its name goes into the change history).
    Allowed(Option<usize>),
    /// No token, or not a known one: 401.
    Unauthenticated,
    /// A read-only token on a change: 403.
    Forbidden,
    /// Too many wrong tokens from this client lately: 429, its token not
    /// checked; it may try again after the duration.
    LockedOut(std::time::Duration),
}

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

    /// The name of token `index` (from [`Verdict::Allowed`]).
    pub(crate) fn name(&self, index: usize) -> Option<std::sync::Arc<str>> {
        self.tokens.get(index).map(|token| token.name.clone())
    }

    /// True when tokens are configured.
    pub fn is_on(&self) -> bool {
        !self.tokens.is_empty()
    }

    /// Judges a request by its method, path and `Authorization` header,
    /// and by the wrong tokens its client (`address`) sent lately
    /// (`crate::lockout`).
    pub(crate) fn judge(
        &self,
        method: &str,
        path: &str,
        authorization: Option<&str>,
        address: Option<std::net::IpAddr>,
    ) -> Verdict {
        if !self.is_on() || is_open(method, path) {
            return Verdict::Allowed(None);
        }
        let Some(secret) = authorization.and_then(|value| value.strip_prefix("Bearer ")) else {
            return Verdict::Unauthenticated;
        };
        let now = std::time::Instant::now();
        if let Some(wait) = self.lockout.refused(address, now) {
            return Verdict::LockedOut(wait);
        }
        let digest = digest_of(secret.trim());
        // Every token is compared, so the time taken does not tell which matched.
        let best = self
            .tokens
            .iter()
            .enumerate()
            .filter(|(_, token)| constant_time_eq(&token.digest, &digest))
            .map(|(index, token)| (index, token.access))
            .fold(None, |best, (index, access)| match (best, access) {
                (Some((_, Access::Admin)), _) => best,
                _ => Some((index, access)),
            });
        match best {
            None => {
                self.lockout.failed(address, now);
                Verdict::Unauthenticated
            }
            Some((index, Access::Admin)) => Verdict::Allowed(Some(index)),
            Some((index, Access::ReadOnly)) if matches!(method, "GET" | "HEAD") => {
                Verdict::Allowed(Some(index))
            }
            Some((_, Access::ReadOnly)) => Verdict::Forbidden,
        }
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

    #[test]
    fn off_lets_everything_through() {
        assert_eq!(
            Auth::off().judge("DELETE", "/nets/a", None, None),
            Verdict::Allowed(None)
        );
    }

    #[test]
    fn tokens_are_judged_by_access_and_method() {
        let auth = auth();
        assert_eq!(
            auth.judge("GET", "/nets", None, None),
            Verdict::Unauthenticated
        );
        assert_eq!(
            auth.judge("GET", "/nets", Some("Bearer wrong-secret-0123456789"), None),
            Verdict::Unauthenticated
        );
        assert_eq!(
            auth.judge("GET", "/nets", Some("Basic abc"), None),
            Verdict::Unauthenticated
        );
        assert_eq!(
            auth.judge(
                "GET",
                "/nets",
                Some("Bearer reader-secret-0123456789"),
                None
            ),
            Verdict::Allowed(Some(1))
        );
        assert_eq!(
            auth.judge(
                "POST",
                "/nets",
                Some("Bearer reader-secret-0123456789"),
                None
            ),
            Verdict::Forbidden
        );
        assert_eq!(
            auth.judge(
                "POST",
                "/nets",
                Some("Bearer admin-secret-0123456789"),
                None
            ),
            Verdict::Allowed(Some(0))
        );
        assert_eq!(
            auth.judge("GET", "/api.json", None, None),
            Verdict::Allowed(None)
        );
        assert_eq!(
            auth.judge("GET", "/api/index.html", None, None),
            Verdict::Allowed(None)
        );
        assert_eq!(auth.judge("GET", "/", None, None), Verdict::Allowed(None));
        assert_eq!(
            auth.judge("HEAD", "/ui/app.js", None, None),
            Verdict::Allowed(None)
        );
        assert_eq!(
            auth.judge("GET", "/uix", None, None),
            Verdict::Unauthenticated
        );
        assert_eq!(
            auth.judge("POST", "/", None, None),
            Verdict::Unauthenticated
        );
        assert_eq!(
            auth.judge("GET", "/healthz", None, None),
            Verdict::Allowed(None)
        );
        assert_eq!(
            auth.judge("GET", "/readyz", None, None),
            Verdict::Allowed(None)
        );
        assert_eq!(
            auth.judge("GET", "/metrics", None, None),
            Verdict::Unauthenticated
        );
        assert_eq!(
            auth.judge("POST", "/api.json", None, None),
            Verdict::Unauthenticated
        );
    }

    #[test]
    fn tokens_have_names_for_the_history() {
        let auth = auth().named("site engineer").unwrap();
        assert_eq!(auth.name(0).as_deref(), Some("token-1"));
        assert_eq!(auth.name(1).as_deref(), Some("site engineer"));
        assert_eq!(auth.name(2), None);
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
            admin.judge("PATCH", "/nets", Some(&bearer), None),
            Verdict::Allowed(Some(0))
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
