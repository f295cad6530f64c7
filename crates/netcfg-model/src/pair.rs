//! Device pairs: interfaces that range with each other, or must ignore each other.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use std::fmt;

use crate::{
    serial::SerialNumber,
    validation::{Problems, Validate, join},
};

/// What a pair of interfaces does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum PairType {
    /// The two interfaces range with each other (two-way ranging).
    Twr,
    /// The two interfaces ignore each other.
    Blacklist,
}

impl PairType {
    /// The wire name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Twr => "twr",
            Self::Blacklist => "blacklist",
        }
    }
}

/// A word that is not a pair type.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a pair type; use twr or blacklist")]
pub struct UnknownPairType(pub String);

impl std::str::FromStr for PairType {
    type Err = UnknownPairType;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "twr" => Ok(Self::Twr),
            "blacklist" => Ok(Self::Blacklist),
            other => Err(UnknownPairType(other.chars().take(40).collect())),
        }
    }
}

impl fmt::Display for PairType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A pair of device interfaces. The 5.1 API names devices only (interface 0);
/// the 5.0 paired-interface endpoints name interfaces too.
#[derive(
    Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct DevicePair {
    /// The first device.
    pub serial_number_1: SerialNumber,
    /// The interface of the first device.
    #[serde(default)]
    pub interface_1: u8,
    /// The second device.
    pub serial_number_2: SerialNumber,
    /// The interface of the second device.
    #[serde(default)]
    pub interface_2: u8,
    /// What the pair does.
    #[serde(rename = "type")]
    pub pair_type: PairType,
}

impl DevicePair {
    /// The same pair with its ends in a fixed order, so that (a, b) and (b, a)
    /// compare equal.
    pub fn normalized(&self) -> Self {
        let first = (self.serial_number_1, self.interface_1);
        let second = (self.serial_number_2, self.interface_2);
        let ((serial_number_1, interface_1), (serial_number_2, interface_2)) = if first <= second {
            (first, second)
        } else {
            (second, first)
        };
        Self {
            serial_number_1,
            interface_1,
            serial_number_2,
            interface_2,
            pair_type: self.pair_type,
        }
    }

    /// True when the pair touches `serial`.
    pub fn involves(&self, serial: SerialNumber) -> bool {
        self.serial_number_1 == serial || self.serial_number_2 == serial
    }
}

impl Validate for DevicePair {
    fn validate_at(&self, path: &str, problems: &mut Problems) {
        if self.serial_number_1 == self.serial_number_2 && self.interface_1 == self.interface_2 {
            problems.push(
                join(path, "serial_number_2"),
                "an interface cannot pair with itself",
            );
        }
    }
}
