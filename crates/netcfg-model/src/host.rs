//! Facts about the host the manager runs on.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use std::net::IpAddr;

/// A network interface of the host (`GET /network-info`).
#[derive(
    Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct HostNetworkInterface {
    /// The operating system's name for it (`eth0`, `lo`).
    pub name: String,
    /// Its addresses.
    pub addresses: Vec<IpAddr>,
    /// Its hardware address, `aa:bb:cc:dd:ee:ff`, when it has one.
    #[serde(default)]
    pub mac: Option<String>,
    /// Whether it is up.
    pub up: bool,
}

/// Whether an installed component is usable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum PackageState {
    /// Installed and usable.
    Installed,
    /// Expected but not found.
    Missing,
}

/// A component of the manager and its version (`GET /packages`).
#[derive(
    Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct PackageStatus {
    /// The component's name.
    pub name: String,
    /// Its version, when installed.
    #[serde(default)]
    pub version: Option<String>,
    /// Whether it is usable.
    pub state: PackageState,
}
