//! Facts about the host netcfg runs on: its network interfaces
//! ([`network_interfaces`], read from the kernel with `getifaddrs(3)`
//! through `nix`) and the host packages netcfg reports ([`packages`]).
//!
//! Every function here blocks (it asks the kernel, or starts a process):
//! call it from a thread that may block, never from an async worker (in
//! actix-web, inside `web::block`).
//!
//! ```
//! let interfaces = netcfg_host::network_interfaces().unwrap();
//! assert!(interfaces.iter().any(|interface| interface.name == "lo"));
//! ```

use std::{
    collections::{HashMap, hash_map},
    io,
    net::IpAddr,
    process::Command,
};

use netcfg_model::{HostNetworkInterface, PackageState, PackageStatus};
use nix::{ifaddrs::getifaddrs, net::if_::InterfaceFlags, sys::socket::SockaddrStorage};

/// What can go wrong reading the host's facts.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    /// The kernel did not list the network interfaces.
    #[error("cannot read the host's network interfaces: {0}")]
    Interfaces(#[source] io::Error),
}

/// What one `getifaddrs` entry says about its interface.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fact {
    /// An IPv4 or IPv6 address.
    Address(IpAddr),
    /// The hardware address (a link-layer entry).
    Mac([u8; 6]),
    /// Nothing we report (another family, or no address).
    Nothing,
}

/// One `getifaddrs` entry, reduced to what an interface is made of. An
/// interface has one entry per address, plus one for its link layer.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    name: String,
    up: bool,
    fact: Fact,
}

fn fact_of(address: Option<&SockaddrStorage>) -> Fact {
    let Some(address) = address else {
        return Fact::Nothing;
    };
    if let Some(v4) = address.as_sockaddr_in() {
        Fact::Address(IpAddr::V4(v4.ip()))
    } else if let Some(v6) = address.as_sockaddr_in6() {
        Fact::Address(IpAddr::V6(v6.ip()))
    } else if let Some(mac) = address.as_link_addr().and_then(|link| link.addr()) {
        Fact::Mac(mac)
    } else {
        Fact::Nothing
    }
}

fn mac_text(mac: [u8; 6]) -> String {
    mac.iter()
        .map(|byte| format!("{byte:02x}"))
        .collect::<Vec<_>>()
        .join(":")
}

/// Groups entries into interfaces, in the order the interfaces first appear
/// (the kernel lists them by index). An all-zero hardware address (the
/// loopback's) is no hardware address.
fn interfaces_from(entries: impl IntoIterator<Item = Entry>) -> Vec<HostNetworkInterface> {
    let mut interfaces: Vec<HostNetworkInterface> = Vec::new();
    let mut positions: HashMap<String, usize> = HashMap::new();
    for entry in entries {
        let position = match positions.entry(entry.name) {
            hash_map::Entry::Occupied(known) => *known.get(),
            hash_map::Entry::Vacant(new) => {
                interfaces.push(HostNetworkInterface {
                    name: new.key().clone(),
                    addresses: Vec::new(),
                    mac: None,
                    up: false,
                });
                *new.insert(interfaces.len() - 1)
            }
        };
        let interface = &mut interfaces[position];
        interface.up |= entry.up;
        match entry.fact {
            Fact::Address(address) if !interface.addresses.contains(&address) => {
                interface.addresses.push(address);
            }
            Fact::Mac(mac) if mac != [0; 6] => interface.mac = Some(mac_text(mac)),
            Fact::Address(_) | Fact::Mac(_) | Fact::Nothing => {}
        }
    }
    interfaces
}

/// The host's network interfaces: name, IPv4 and IPv6 addresses, hardware
/// address, and whether each is up. Blocks briefly (one system call).
///
/// # Errors
/// [`HostError::Interfaces`] when the kernel does not list them.
pub fn network_interfaces() -> Result<Vec<HostNetworkInterface>, HostError> {
    let entries = getifaddrs().map_err(|errno| HostError::Interfaces(io::Error::from(errno)))?;
    Ok(interfaces_from(entries.map(|entry| Entry {
        up: entry.flags.contains(InterfaceFlags::IFF_UP),
        fact: fact_of(entry.address.as_ref()),
        name: entry.interface_name,
    })))
}

/// The host packages netcfg reports beside its own components: `iproute2`
/// (its version from `ip -V`), [`PackageState::Missing`] when `ip` cannot be
/// run. Blocks while `ip -V` runs.
pub fn packages() -> Vec<PackageStatus> {
    let iproute = Command::new("ip")
        .arg("-V")
        .output()
        .ok()
        .filter(|output| output.status.success());
    vec![match iproute {
        Some(output) => PackageStatus {
            name: "iproute2".to_owned(),
            version: Some(
                String::from_utf8_lossy(&output.stdout)
                    .split_whitespace()
                    .last()
                    .unwrap_or("unknown")
                    .to_owned(),
            ),
            state: PackageState::Installed,
        },
        None => PackageStatus {
            name: "iproute2".to_owned(),
            version: None,
            state: PackageState::Missing,
        },
    }]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str, up: bool, fact: Fact) -> Entry {
        Entry {
            name: name.to_owned(),
            up,
            fact,
        }
    }

    #[test]
    fn groups_entries_into_interfaces() {
        let interfaces = interfaces_from([
            entry("lo", true, Fact::Mac([0; 6])),
            entry(
                "eth0",
                false,
                Fact::Mac([0x02, 0x42, 0xac, 0x11, 0x00, 0x02]),
            ),
            entry("lo", true, Fact::Address("127.0.0.1".parse().unwrap())),
            entry("lo", true, Fact::Address("::1".parse().unwrap())),
            entry("lo", true, Fact::Address("::1".parse().unwrap())),
            entry("eth0", false, Fact::Nothing),
        ]);
        assert_eq!(interfaces.len(), 2);
        assert_eq!(interfaces[0].name, "lo");
        assert!(interfaces[0].up);
        assert_eq!(interfaces[0].mac, None);
        assert_eq!(interfaces[0].addresses.len(), 2);
        assert_eq!(interfaces[1].name, "eth0");
        assert_eq!(interfaces[1].mac.as_deref(), Some("02:42:ac:11:00:02"));
        assert!(!interfaces[1].up);
        assert!(interfaces[1].addresses.is_empty());
        assert!(interfaces_from([]).is_empty());
    }

    #[test]
    fn reads_the_family_of_each_address() {
        let v4: SockaddrStorage = std::net::SocketAddr::from(([192, 0, 2, 1], 0)).into();
        let v6: SockaddrStorage =
            std::net::SocketAddr::from(("2001:db8::1".parse::<std::net::Ipv6Addr>().unwrap(), 0))
                .into();
        assert_eq!(
            fact_of(Some(&v4)),
            Fact::Address("192.0.2.1".parse().unwrap())
        );
        assert_eq!(
            fact_of(Some(&v6)),
            Fact::Address("2001:db8::1".parse().unwrap())
        );
        assert_eq!(fact_of(None), Fact::Nothing);
    }

    #[test]
    fn finds_the_loopback_interface_of_this_host() {
        let interfaces = network_interfaces().unwrap();
        let lo = interfaces
            .iter()
            .find(|interface| interface.name == "lo")
            .unwrap();
        assert!(lo.up);
        assert!(lo.addresses.contains(&"127.0.0.1".parse().unwrap()));
    }

    #[test]
    fn agrees_with_sysfs_on_names_states_and_hardware_addresses() {
        let interfaces = network_interfaces().unwrap();
        let mut names: Vec<&str> = interfaces.iter().map(|i| i.name.as_str()).collect();
        names.sort_unstable();
        let mut listed: Vec<String> = std::fs::read_dir("/sys/class/net")
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        listed.sort_unstable();
        assert_eq!(names, listed);
        for interface in &interfaces {
            let read = |file: &str| {
                std::fs::read_to_string(format!("/sys/class/net/{}/{file}", interface.name))
                    .unwrap()
                    .trim()
                    .to_owned()
            };
            let mac = read("address");
            let expected = (!mac.is_empty() && mac != "00:00:00:00:00:00").then_some(mac);
            assert_eq!(interface.mac, expected, "{}", interface.name);
            let flags = u32::from_str_radix(read("flags").trim_start_matches("0x"), 16).unwrap();
            assert_eq!(interface.up, flags & 1 == 1, "{}", interface.name);
        }
    }

    #[test]
    fn reports_iproute2_installed_or_missing() {
        let packages = packages();
        assert_eq!(packages.len(), 1);
        assert_eq!(packages[0].name, "iproute2");
        assert_eq!(
            packages[0].version.is_some(),
            packages[0].state == PackageState::Installed
        );
    }
}
