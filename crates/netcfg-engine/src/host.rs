//! Facts about the host: its network interfaces and the installed components.

use std::{collections::BTreeMap, fs, net::IpAddr, path::Path, process::Command};

use netcfg_model::{HostNetworkInterface, PackageState, PackageStatus};
use serde_json::Value;

use crate::{error::EngineError, protocol::PROTOCOL_VERSION};

/// The host's network interfaces: from `ip -j addr` (iproute2) when it is
/// installed, else from `/sys/class/net` and `/proc/net/if_inet6` (which
/// give IPv6 addresses only).
///
/// # Errors
/// Neither source can be read.
pub fn network_interfaces() -> Result<Vec<HostNetworkInterface>, EngineError> {
    match Command::new("ip").args(["-j", "addr", "show"]).output() {
        Ok(output) if output.status.success() => parse_ip_json(&output.stdout),
        _ => from_sysfs(Path::new("/sys/class/net"), Path::new("/proc/net/if_inet6")),
    }
}

/// Reads the JSON of `ip -j addr show`.
///
/// # Errors
/// Text that is not that JSON.
pub fn parse_ip_json(json: &[u8]) -> Result<Vec<HostNetworkInterface>, EngineError> {
    let value: Value = serde_json::from_slice(json).map_err(|error| {
        EngineError::HostInterfaces(format!("`ip -j addr` printed no JSON: {error}"))
    })?;
    let Some(links) = value.as_array() else {
        return Err(EngineError::HostInterfaces(
            "`ip -j addr` printed no array".to_owned(),
        ));
    };
    Ok(links
        .iter()
        .filter_map(|link| {
            let name = link.get("ifname")?.as_str()?.to_owned();
            let flags: Vec<&str> = link
                .get("flags")
                .and_then(Value::as_array)
                .map(|flags| flags.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let up = flags.contains(&"UP");
            let mac = link
                .get("address")
                .and_then(Value::as_str)
                .filter(|mac| *mac != "00:00:00:00:00:00")
                .map(str::to_owned);
            let addresses = link
                .get("addr_info")
                .and_then(Value::as_array)
                .map(|infos| {
                    infos
                        .iter()
                        .filter_map(|info| info.get("local")?.as_str()?.parse::<IpAddr>().ok())
                        .collect()
                })
                .unwrap_or_default();
            Some(HostNetworkInterface {
                name,
                addresses,
                mac,
                up,
            })
        })
        .collect())
}

/// Reads interfaces from sysfs and IPv6 addresses from `if_inet6`.
///
/// # Errors
/// The sysfs directory cannot be listed.
pub fn from_sysfs(
    class_net: &Path,
    if_inet6: &Path,
) -> Result<Vec<HostNetworkInterface>, EngineError> {
    let entries = fs::read_dir(class_net).map_err(|error| {
        EngineError::HostInterfaces(format!("{}: {error}", class_net.display()))
    })?;
    let mut v6: BTreeMap<String, Vec<IpAddr>> = BTreeMap::new();
    for line in fs::read_to_string(if_inet6).unwrap_or_default().lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        if let [hex, _, _, _, _, name] = fields.as_slice()
            && let Some(address) = parse_hex_v6(hex)
        {
            v6.entry((*name).to_owned()).or_default().push(address);
        }
    }
    let mut interfaces: Vec<_> = entries
        .filter_map(Result::ok)
        .map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            let read = |file: &str| {
                fs::read_to_string(entry.path().join(file)).map(|text| text.trim().to_owned())
            };
            // IFF_UP is bit 0 of the flags.
            let up = read("flags")
                .ok()
                .and_then(|flags| u32::from_str_radix(flags.trim_start_matches("0x"), 16).ok())
                .is_some_and(|flags| flags & 1 == 1);
            let mac = read("address")
                .ok()
                .filter(|mac| !mac.is_empty() && mac != "00:00:00:00:00:00");
            HostNetworkInterface {
                addresses: v6.remove(&name).unwrap_or_default(),
                name,
                mac,
                up,
            }
        })
        .collect();
    interfaces.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(interfaces)
}

fn parse_hex_v6(hex: &str) -> Option<IpAddr> {
    if hex.len() != 32 {
        return None;
    }
    let value = u128::from_str_radix(hex, 16).ok()?;
    Some(IpAddr::V6(value.into()))
}

/// The engine's components and their versions.
pub fn package_status() -> Vec<PackageStatus> {
    let installed = |name: &str, version: String| PackageStatus {
        name: name.to_owned(),
        version: Some(version),
        state: PackageState::Installed,
    };
    let version = env!("CARGO_PKG_VERSION").to_owned();
    let iproute = Command::new("ip")
        .arg("-V")
        .output()
        .ok()
        .filter(|output| output.status.success());
    vec![
        installed("netcfg-engine", version.clone()),
        installed("netcfg-wire-protocol", PROTOCOL_VERSION.to_string()),
        installed("netcfg-simulator", version),
        match iproute {
            Some(output) => installed(
                "iproute2",
                String::from_utf8_lossy(&output.stdout)
                    .split_whitespace()
                    .last()
                    .unwrap_or("unknown")
                    .to_owned(),
            ),
            None => PackageStatus {
                name: "iproute2".to_owned(),
                version: None,
                state: PackageState::Missing,
            },
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_ip_json() {
        let json = br#"[{"ifname":"lo","flags":["LOOPBACK","UP"],"link_type":"loopback","address":"00:00:00:00:00:00",
            "addr_info":[{"family":"inet","local":"127.0.0.1"},{"family":"inet6","local":"::1"}]},
            {"ifname":"eth0","flags":["BROADCAST"],"link_type":"ether","address":"02:42:ac:11:00:02","addr_info":[]}]"#;
        let interfaces = parse_ip_json(json).unwrap();
        assert_eq!(interfaces[0].name, "lo");
        assert!(interfaces[0].up);
        assert_eq!(interfaces[0].mac, None);
        assert_eq!(interfaces[0].addresses.len(), 2);
        assert_eq!(interfaces[1].mac.as_deref(), Some("02:42:ac:11:00:02"));
        assert!(!interfaces[1].up);
        assert!(parse_ip_json(b"not json").is_err());
    }

    #[test]
    fn parses_if_inet6_addresses() {
        assert_eq!(
            parse_hex_v6("00000000000000000000000000000001"),
            Some("::1".parse().unwrap())
        );
        assert_eq!(parse_hex_v6("zz"), None);
    }

    #[test]
    fn finds_the_loopback_interface_of_this_host() {
        let interfaces = network_interfaces().unwrap();
        let lo = interfaces
            .iter()
            .find(|interface| interface.name == "lo")
            .unwrap();
        assert!(lo.up);
    }
}
