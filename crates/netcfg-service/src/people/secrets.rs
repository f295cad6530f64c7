//! The secrets of people: random keys, session ids and CSRF tokens, their
//! SHA-256 digests, and passwords hashed with Argon2id.

use argon2::{
    Algorithm, Argon2, Params, Version,
    password_hash::{PasswordHasher, PasswordVerifier, phc::PasswordHash},
};
use netcfg_model::people::KEY_PREFIX;
use sha2::{Digest, Sha256};

/// The SHA-256 of a secret: what is kept of keys and session ids.
pub(crate) fn digest(secret: &str) -> [u8; 32] {
    Sha256::digest(secret.as_bytes()).into()
}

/// 32 random bytes from the operating system, in hexadecimal.
pub(crate) fn random_hex() -> String {
    let mut bytes = [0u8; 32];
    // The operating system's generator does not fail on Linux once booted;
    // if it ever did, a secret of zeros must not be handed out.
    if let Err(error) = getrandom::fill(&mut bytes) {
        panic!("the operating system gave no random bytes: {error}");
    }
    hex::encode(bytes)
}

/// A new API key's secret: `ncfg_` and 32 random bytes.
pub(crate) fn new_key() -> String {
    format!("{KEY_PREFIX}{}", random_hex())
}

/// Argon2id with OWASP's parameters: 19 MiB, two passes, one lane.
fn argon2() -> Argon2<'static> {
    let params = Params::new(19 * 1024, 2, 1, None).unwrap_or_default();
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
}

/// A password's hash in PHC form (with its salt). Slow on purpose: call it
/// on a blocking thread.
pub(crate) fn hash_password(password: &str) -> Result<String, String> {
    argon2()
        .hash_password(password.as_bytes())
        .map(|hash| hash.to_string())
        .map_err(|error| error.to_string())
}

/// Whether `password` matches `hash`; a missing hash (a user of single
/// sign-on, or no such user) is checked against a hash of nothing, so
/// that the time taken does not tell which.
pub(crate) fn verify_password(password: &str, hash: Option<&str>) -> bool {
    static DECOY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let decoy = DECOY.get_or_init(|| hash_password("not anyone's password").unwrap_or_default());
    let (hash, real) = match hash {
        Some(hash) => (hash, true),
        None => (decoy.as_str(), false),
    };
    let Ok(parsed) = PasswordHash::new(hash) else {
        return false;
    };
    argon2()
        .verify_password(password.as_bytes(), &parsed)
        .is_ok()
        && real
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_password_matches_its_hash_only() {
        let hash = hash_password("correct horse battery").unwrap();
        assert!(
            hash.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"),
            "{hash}"
        );
        assert!(verify_password("correct horse battery", Some(&hash)));
        assert!(!verify_password("correct horse batterz", Some(&hash)));
        assert!(!verify_password("not anyone's password", None));
    }

    #[test]
    fn keys_are_long_random_and_prefixed() {
        let (one, two) = (new_key(), new_key());
        assert_ne!(one, two);
        assert!(one.starts_with("ncfg_") && one.len() == 5 + 64, "{one}");
        assert_eq!(digest(&one), digest(&one));
    }
}
