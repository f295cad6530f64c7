use std::net::IpAddr;

use netcfg_model_derive::request_body;

use crate::{
    names::ItemName,
    stream::DataStream,
    validation::{Problems, Validate},
};

/// `data_stream_body`: creates (`POST`) or replaces (`PATCH`) a data stream.
#[request_body(check = check)]
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct DataStreamBody {
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
    /// The stream's name.
    pub name: ItemName,
    /// Multicast time to live, 1 to 255.
    #[schemars(range(min = 1))]
    pub time_to_live: u8,
}

impl DataStreamBody {
    /// The stream this body describes, with id `id`.
    pub fn into_stream(self, id: u32) -> DataStream {
        DataStream {
            id,
            name: self.name,
            destination_ip: self.destination_ip,
            destination_port: self.destination_port,
            interface: self.interface,
            interface_port: self.interface_port,
            time_to_live: self.time_to_live,
        }
    }
}

fn check(body: &DataStreamBody, path: &str, problems: &mut Problems) {
    body.clone().into_stream(0).validate_at(path, problems);
}
