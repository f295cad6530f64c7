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

/// A configured token: the SHA-256 digest of its secret, and its access.
#[derive(Clone, PartialEq, Eq)]
struct Token {
    digest: [u8; 32],
    access: Access,
}

/// The configured tokens.
#[derive(Clone, PartialEq, Eq, Default)]
pub struct Auth {
    tokens: Vec<Token>,
}

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
}

/// The outcome of checking a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Let it through.
    Allowed,
    /// No token, or not a known one: 401.
    Unauthenticated,
    /// A read-only token on a change: 403.
    Forbidden,
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
        self.tokens.push(Token {
            digest: digest_of(secret),
            access,
        });
        Ok(self)
    }

    /// Adds a token given as the hexadecimal SHA-256 digest of its secret.
    pub fn with_digest(mut self, hex: &str, access: Access) -> Result<Self, AuthError> {
        let mut digest = [0u8; 32];
        hex::decode_to_slice(hex.trim(), &mut digest).map_err(|_| AuthError::BadDigest)?;
        self.tokens.push(Token { digest, access });
        Ok(self)
    }

    /// True when tokens are configured.
    pub fn is_on(&self) -> bool {
        !self.tokens.is_empty()
    }

    /// Judges a request by its method, path and `Authorization` header.
    pub(crate) fn judge(&self, method: &str, path: &str, authorization: Option<&str>) -> Verdict {
        if !self.is_on() || is_open(method, path) {
            return Verdict::Allowed;
        }
        let Some(secret) = authorization.and_then(|value| value.strip_prefix("Bearer ")) else {
            return Verdict::Unauthenticated;
        };
        let digest = digest_of(secret.trim());
        // Every token is compared, so the time taken does not tell which matched.
        let access = self
            .tokens
            .iter()
            .filter(|token| constant_time_eq(&token.digest, &digest))
            .map(|token| token.access)
            .fold(None, |best, access| match (best, access) {
                (Some(Access::Admin), _) | (_, Access::Admin) => Some(Access::Admin),
                _ => Some(access),
            });
        match access {
            None => Verdict::Unauthenticated,
            Some(Access::Admin) => Verdict::Allowed,
            Some(Access::ReadOnly) if matches!(method, "GET" | "HEAD") => Verdict::Allowed,
            Some(Access::ReadOnly) => Verdict::Forbidden,
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
            || path == crate::operations::HEALTH
            || path == crate::operations::READY)
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
            Auth::off().judge("DELETE", "/nets/a", None),
            Verdict::Allowed
        );
    }

    #[test]
    fn tokens_are_judged_by_access_and_method() {
        let auth = auth();
        assert_eq!(auth.judge("GET", "/nets", None), Verdict::Unauthenticated);
        assert_eq!(
            auth.judge("GET", "/nets", Some("Bearer wrong-secret-0123456789")),
            Verdict::Unauthenticated
        );
        assert_eq!(
            auth.judge("GET", "/nets", Some("Basic abc")),
            Verdict::Unauthenticated
        );
        assert_eq!(
            auth.judge("GET", "/nets", Some("Bearer reader-secret-0123456789")),
            Verdict::Allowed
        );
        assert_eq!(
            auth.judge("POST", "/nets", Some("Bearer reader-secret-0123456789")),
            Verdict::Forbidden
        );
        assert_eq!(
            auth.judge("POST", "/nets", Some("Bearer admin-secret-0123456789")),
            Verdict::Allowed
        );
        assert_eq!(auth.judge("GET", "/api.json", None), Verdict::Allowed);
        assert_eq!(auth.judge("GET", "/api/index.html", None), Verdict::Allowed);
        assert_eq!(auth.judge("GET", "/", None), Verdict::Allowed);
        assert_eq!(auth.judge("HEAD", "/ui/app.js", None), Verdict::Allowed);
        assert_eq!(auth.judge("GET", "/uix", None), Verdict::Unauthenticated);
        assert_eq!(auth.judge("POST", "/", None), Verdict::Unauthenticated);
        assert_eq!(auth.judge("GET", "/healthz", None), Verdict::Allowed);
        assert_eq!(auth.judge("GET", "/readyz", None), Verdict::Allowed);
        assert_eq!(
            auth.judge("GET", "/metrics", None),
            Verdict::Unauthenticated
        );
        assert_eq!(
            auth.judge("POST", "/api.json", None),
            Verdict::Unauthenticated
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
            admin.judge("PATCH", "/nets", Some(&bearer)),
            Verdict::Allowed
        );
        assert!("superuser".parse::<Access>().is_err());
        assert_eq!(format!("{:?}", auth()), "Auth { tokens: 2 }");
    }
}
