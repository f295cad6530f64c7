//! Data streams: where a running configuration sends its live data (UDP).

use std::net::{IpAddr, Ipv4Addr};

use crate::{
    names::ItemName,
    validation::{Problems, Validate, join},
};

/// The schema of a host interface address: IPv4 or IPv6 text, not a
/// multicast group (224.0.0.0/4, ff00::/8).
pub(crate) fn interface_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "type": "string",
        "anyOf": [{"format": "ipv4"}, {"format": "ipv6"}],
        "not": {"pattern": "^(22[4-9]|23[0-9])\\.|^[fF][fF]"}
    })
}

/// The schema of a destination address: IPv4 or IPv6, not unspecified.
pub(crate) fn destination_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "type": "string",
        "anyOf": [{"format": "ipv4"}, {"format": "ipv6"}],
        "not": {"enum": ["0.0.0.0", "::", "0:0:0:0:0:0:0:0"]}
    })
}

/// A data stream of a configuration.
#[derive(
    Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct DataStream {
    /// The stream's id within the configuration.
    pub id: u32,
    /// Unique name within the configuration.
    pub name: ItemName,
    /// Where datagrams go: a unicast or multicast address.
    #[schemars(schema_with = "crate::stream::destination_schema")]
    pub destination_ip: IpAddr,
    /// The destination UDP port, 1 to 65535.
    #[schemars(range(min = 1))]
    pub destination_port: u16,
    /// The host address datagrams leave from; `0.0.0.0` for the system's choice.
    #[schemars(schema_with = "crate::stream::interface_schema")]
    pub interface: IpAddr,
    /// The local UDP port; 0 for any.
    pub interface_port: u16,
    /// Multicast time to live (hops), 1 to 255.
    #[schemars(range(min = 1))]
    pub time_to_live: u8,
}

/// The multicast group of the public defaults.
pub const DEFAULT_STREAM_GROUP: Ipv4Addr = Ipv4Addr::new(239, 255, 76, 67);

/// The streams every configuration starts with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DefaultStream {
    /// Announces the running instance (port 7671, where CDP tools discover instances).
    Config,
    /// Anchor health and synchronisation (port 7668).
    Anchor,
    /// Positions, sensor data, names, roles and activity (port 7667, where
    /// CDP tools listen for positions).
    User,
    /// Data that clients send to devices (port 7669, ours); deleting it
    /// resets it to these values.
    DataToDevice,
}

impl DefaultStream {
    /// Every default stream, in id order (ids 1 to 4).
    pub const ALL: [Self; 4] = [Self::Config, Self::Anchor, Self::User, Self::DataToDevice];

    /// The stream's name.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Config => "Config",
            Self::Anchor => "Anchor",
            Self::User => "User",
            Self::DataToDevice => "Data-to-Device",
        }
    }

    /// The id the stream has in a new configuration.
    pub const fn id(self) -> u32 {
        match self {
            Self::Config => 1,
            Self::Anchor => 2,
            Self::User => 3,
            Self::DataToDevice => 4,
        }
    }

    /// The default stream called `name`, if any.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|stream| stream.name() == name)
    }

    /// True for Config, Anchor and User, which cannot be deleted.
    pub const fn is_protected(self) -> bool {
        !matches!(self, Self::DataToDevice)
    }

    /// The stream with its default values.
    pub fn stream(self) -> DataStream {
        let destination_port = match self {
            Self::Config => 7671,
            Self::Anchor => 7668,
            Self::User => 7667,
            Self::DataToDevice => 7669,
        };
        DataStream {
            id: self.id(),
            name: ItemName::new_static(self.name()),
            destination_ip: IpAddr::V4(DEFAULT_STREAM_GROUP),
            destination_port,
            interface: IpAddr::V4(Ipv4Addr::UNSPECIFIED),
            interface_port: 0,
            time_to_live: 1,
        }
    }
}

/// The default data streams with their default values.
pub fn default_streams() -> Vec<DataStream> {
    DefaultStream::ALL
        .into_iter()
        .map(DefaultStream::stream)
        .collect()
}

impl Validate for DataStream {
    fn validate_at(&self, path: &str, problems: &mut Problems) {
        check_stream_fields(self.destination_port, self.time_to_live, path, problems);
        if self.destination_ip.is_unspecified() {
            problems.push(
                join(path, "destination_ip"),
                "the destination must be a real address, not 0.0.0.0 or ::",
            );
        }
        if self.interface.is_multicast() {
            problems.push(
                join(path, "interface"),
                "the interface is an address of this host, not a multicast group",
            );
        }
    }
}

pub(crate) fn check_stream_fields(
    destination_port: u16,
    time_to_live: u8,
    path: &str,
    problems: &mut Problems,
) {
    if destination_port == 0 {
        problems.push(
            join(path, "destination_port"),
            "the destination port must be 1 to 65535",
        );
    }
    if time_to_live == 0 {
        problems.push(
            join(path, "time_to_live"),
            "the time to live must be 1 to 255",
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_streams_are_where_cdp_tools_listen() {
        let port = |stream: DefaultStream| {
            (
                stream.stream().destination_ip,
                stream.stream().destination_port,
            )
        };
        let group = IpAddr::V4(DEFAULT_STREAM_GROUP);
        assert_eq!(port(DefaultStream::User), (group, 7667));
        assert_eq!(port(DefaultStream::Anchor), (group, 7668));
        assert_eq!(port(DefaultStream::Config), (group, 7671));
        for stream in default_streams() {
            assert_eq!(stream.interface, IpAddr::V4(Ipv4Addr::UNSPECIFIED));
            assert_eq!(stream.time_to_live, 1);
        }
    }

    #[test]
    fn default_streams_are_valid_and_only_data_to_device_may_go() {
        for stream in default_streams() {
            assert_eq!(stream.validate(), Ok(()));
            let kind = DefaultStream::from_name(&stream.name).unwrap();
            assert_eq!(kind.is_protected(), kind != DefaultStream::DataToDevice);
        }
    }
}
