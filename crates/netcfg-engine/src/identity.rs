//! Who is sending: the host's name and the serial number a running
//! configuration puts in the header of its CDP datagrams.
//!
//! CDP tools group what they hear by the header's serial number: one serial
//! is one "instance" in a monitor (its InstanceAnnounce, HostnameAnnounce
//! and stream list). netcfg runs several configurations in one server, and
//! each is an instance of its own, so the serial is derived from the
//! manager's identity and the configuration's name:
//!
//! `FE:HH:HHHH`, where `HHHHHH` are the low 24 bits of FNV-1a (32 bits) over
//! the manager's identity, a zero byte, and the configuration's name. The
//! manager's identity is [`crate::EngineOptions::manager_id`] when set, else
//! the host's `/etc/machine-id` (else `/var/lib/dbus/machine-id`, else the
//! host's name). The serial is stable across restarts of the configuration
//! and of the server; another host or another name gives another serial.
//! Devices' serials never start with `FE` in the vendor's numbering we know
//! (anchors `01:04`, tags `01:05`, `01:0D`), so a computed item's sender is
//! never mistaken for a device.

use netcfg_model::SerialNumber;

/// The first byte of every manager instance serial.
pub const INSTANCE_SERIAL_PREFIX: u8 = 0xFE;

/// The header serial of `configuration` run by the manager `manager_id`.
pub fn instance_serial(manager_id: &str, configuration: &str) -> SerialNumber {
    let mut hash: u32 = 0x811C_9DC5;
    let bytes = manager_id
        .bytes()
        .chain(std::iter::once(0))
        .chain(configuration.bytes());
    for byte in bytes {
        hash ^= u32::from(byte);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    SerialNumber::from_u32((u32::from(INSTANCE_SERIAL_PREFIX) << 24) | (hash & 0x00FF_FFFF))
}

fn first_line(path: &str) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let line = text.lines().next()?.trim();
    (!line.is_empty()).then(|| line.to_owned())
}

/// The host's name (`/proc/sys/kernel/hostname`, else `/etc/hostname`,
/// else `localhost`), at most 255 bytes.
pub(crate) fn hostname() -> String {
    let mut name = first_line("/proc/sys/kernel/hostname")
        .or_else(|| first_line("/etc/hostname"))
        .unwrap_or_else(|| "localhost".to_owned());
    truncate(&mut name, 255);
    name
}

/// The manager's identity when none is configured: the machine id, else
/// the host's name.
pub(crate) fn default_manager_id() -> String {
    first_line("/etc/machine-id")
        .or_else(|| first_line("/var/lib/dbus/machine-id"))
        .unwrap_or_else(hostname)
}

/// Cuts `text` to at most `max` bytes, at a character boundary.
pub(crate) fn truncate(text: &mut String, max: usize) {
    if text.len() > max {
        let mut end = max;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_serial_is_stable_and_differs_per_configuration_and_host() {
        let a = instance_serial("0123456789abcdef", "site");
        assert_eq!(a, instance_serial("0123456789abcdef", "site"));
        assert_eq!(a.as_u32() >> 24, 0xFE);
        assert_ne!(a, instance_serial("0123456789abcdef", "site2"));
        assert_ne!(a, instance_serial("fedcba9876543210", "site"));
        // The name cannot slide into the identity.
        assert_ne!(instance_serial("ab", "c"), instance_serial("a", "bc"));
    }

    #[test]
    fn truncation_keeps_whole_characters() {
        let mut text = "ééé".to_owned();
        truncate(&mut text, 5);
        assert_eq!(text, "éé");
    }
}
