//! The two versions of the API and how a request selects one.

use std::{fmt, str::FromStr};

/// The request and response header that names the API version.
pub const VERSION_HEADER: &str = "Api-Version";

/// A version of the API: each has its own route table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ApiVersion {
    /// 5.0 (full version 5.0.1): no classification levels; a few endpoints
    /// of its own.
    V5_0,
    /// 5.1 (full version 5.1.0): the current version.
    V5_1,
}

impl ApiVersion {
    /// Both versions, the current one first.
    pub const ALL: [Self; 2] = [Self::V5_1, Self::V5_0];

    /// The full version, as the `Api-Version` response header gives it.
    pub const fn full(self) -> &'static str {
        match self {
            Self::V5_0 => "5.0.1",
            Self::V5_1 => "5.1.0",
        }
    }

    /// The short form, `5.0` or `5.1`.
    pub const fn short(self) -> &'static str {
        match self {
            Self::V5_0 => "5.0",
            Self::V5_1 => "5.1",
        }
    }

    /// True when responses carry a `Classification` level (5.1 only).
    pub const fn has_classification(self) -> bool {
        matches!(self, Self::V5_1)
    }
}

impl fmt::Display for ApiVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.full())
    }
}

/// A version text the server does not serve.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unsupported API version `{0}`: the supported versions are 5.1 (5.1.0) and 5.0 (5.0.0, 5.0.1)"
)]
pub struct UnknownVersion(pub String);

impl FromStr for ApiVersion {
    type Err = UnknownVersion;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text.trim() {
            "5.0" | "5.0.0" | "5.0.1" => Ok(Self::V5_0),
            "5.1" | "5.1.0" => Ok(Self::V5_1),
            other => Err(UnknownVersion(other.chars().take(40).collect())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_documented_spellings_select_their_table() {
        for (text, version) in [
            ("5.0", ApiVersion::V5_0),
            ("5.0.0", ApiVersion::V5_0),
            ("5.0.1", ApiVersion::V5_0),
            ("5.1", ApiVersion::V5_1),
            ("5.1.0", ApiVersion::V5_1),
        ] {
            assert_eq!(text.parse::<ApiVersion>(), Ok(version), "{text}");
        }
        for text in ["", "5", "5.2", "4.9", "v5.1", "5.1.1"] {
            let error = text.parse::<ApiVersion>().unwrap_err().to_string();
            assert!(error.contains("5.1") && error.contains("5.0"), "{error}");
        }
    }
}
