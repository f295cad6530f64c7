use netcfg_model_derive::request_body;
use serde_json::Value;

use crate::{
    json::{self, FromJson},
    pair::{DevicePair, PairType},
    serial::SerialNumber,
    validation::Problems,
};

/// `pair_body`: one pair of devices (their interface 0).
// A pair of a device with itself is reported per pair by the store (a batch
// may hold good pairs beside it), not refused here.
#[request_body]
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct PairBody {
    /// The first device.
    pub serial_number_1: SerialNumber,
    /// The second device.
    pub serial_number_2: SerialNumber,
    /// `twr` or `blacklist`.
    #[serde(rename = "type")]
    pub pair_type: PairType,
}

impl PairBody {
    /// The pair of the devices' interfaces 0.
    pub fn to_pair(&self) -> DevicePair {
        DevicePair {
            serial_number_1: self.serial_number_1,
            interface_1: 0,
            serial_number_2: self.serial_number_2,
            interface_2: 0,
            pair_type: self.pair_type,
        }
    }
}

/// `device_pairs_body`: the pairs to create or delete; at least one.
#[request_body]
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct DevicePairsBody {
    /// The pairs.
    #[schemars(length(min = 1))]
    #[from_json(with = read_pairs)]
    pub pairs: Vec<PairBody>,
}

fn read_pairs(value: &Value, path: &str, problems: &mut Problems) -> Option<Vec<PairBody>> {
    let pairs = json::array(value, path, problems, PairBody::from_json_at)?;
    if pairs.is_empty() {
        problems.push(path, "give at least one pair");
        return None;
    }
    Some(pairs)
}
