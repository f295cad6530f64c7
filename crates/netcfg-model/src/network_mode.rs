//! Network (operating) modes.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use std::fmt;

/// How the network locates tags.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum NetworkMode {
    /// Time difference of arrival at synchronised anchors: one beacon per location.
    #[default]
    #[serde(rename = "multitime")]
    MultiTime,
    /// Two-way ranging between tag and anchors: an exchange per location.
    #[serde(rename = "multirange")]
    MultiRange,
}

impl NetworkMode {
    /// Every mode.
    pub const ALL: [Self; 2] = [Self::MultiTime, Self::MultiRange];
    /// The wire names of every mode.
    pub const NAMES: &'static [&'static str] = &["multitime", "multirange"];

    /// The wire name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::MultiTime => "multitime",
            Self::MultiRange => "multirange",
        }
    }

    /// The mode's description for `GET /network_modes`.
    pub fn info(self) -> NetworkModeInfo {
        let (description, locations_per_second) = match self {
            Self::MultiTime => (
                "Time difference of arrival: each tag beacon is timed by synchronised anchors.",
                3_300,
            ),
            Self::MultiRange => (
                "Two-way ranging: each location is a ranging exchange between the tag and anchors.",
                150,
            ),
        };
        NetworkModeInfo {
            network_mode: self,
            description: description.to_owned(),
            typical_locations_per_second: locations_per_second,
        }
    }
}

impl fmt::Display for NetworkMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for NetworkMode {
    type Err = UnknownNetworkMode;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|mode| mode.as_str() == text)
            .ok_or_else(|| UnknownNetworkMode(text.chars().take(40).collect()))
    }
}

/// A name that is no network mode.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a network mode; the modes are multitime and multirange")]
pub struct UnknownNetworkMode(String);

/// A network mode as `GET /network_modes` lists it.
#[derive(
    Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct NetworkModeInfo {
    /// The mode.
    pub network_mode: NetworkMode,
    /// What it does.
    pub description: String,
    /// The public capacity figure for one coverage area.
    pub typical_locations_per_second: u32,
}
