use serde_json::Value;

use crate::{
    json::{self, Fields, FromJson, deserialize_via_from_json},
    pair::{DevicePair, PairType},
    serial::SerialNumber,
    validation::Problems,
};

/// `pair_body`: one pair of devices (their interface 0).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
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

impl FromJson for PairBody {
    fn from_json_at(value: &Value, path: &str, problems: &mut Problems) -> Option<Self> {
        let mut fields = Fields::open(value, path, problems)?;
        let serial_number_1 = fields.required("serial_number_1", problems);
        let serial_number_2 = fields.required("serial_number_2", problems);
        let pair_type = fields.required("type", problems);
        let clean = fields.finish(problems);
        let body = Self {
            serial_number_1: serial_number_1?,
            serial_number_2: serial_number_2?,
            pair_type: pair_type?,
        };
        // A pair of a device with itself is reported per pair by the store
        // (a batch may hold good pairs beside it), not refused here.
        clean.then_some(body)
    }
}

/// `device_pairs_body`: the pairs to create or delete; at least one.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DevicePairsBody {
    /// The pairs.
    #[schemars(length(min = 1))]
    pub pairs: Vec<PairBody>,
}

impl FromJson for DevicePairsBody {
    fn from_json_at(value: &Value, path: &str, problems: &mut Problems) -> Option<Self> {
        let mut fields = Fields::open(value, path, problems)?;
        let pairs = fields.required_with("pairs", problems, |value, path, problems| {
            let pairs = json::array(value, path, problems, PairBody::from_json_at)?;
            if pairs.is_empty() {
                problems.push(path, "give at least one pair");
                return None;
            }
            Some(pairs)
        });
        let clean = fields.finish(problems);
        let body = Self { pairs: pairs? };
        clean.then_some(body)
    }
}

deserialize_via_from_json!(PairBody, DevicePairsBody);
