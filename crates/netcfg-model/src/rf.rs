//! RF (radio) settings: bit rate, channel, PRF, preamble.

use crate::schema::fixed_schema;
use std::fmt;

use crate::{
    int_enum::int_enum,
    names::ItemName,
    validation::{Problems, Validate, join},
};

int_enum! {
    /// Data bit rate, in kbit/s on the wire.
    pub enum BitRate ("bit rate", " kbit/s") {
        /// 110 kbit/s: longest range, longest frames.
        Kbps110 = 110,
        /// 850 kbit/s.
        Kbps850 = 850,
        /// 6.8 Mbit/s: the usual rate.
        Kbps6800 = 6800,
    }
}

int_enum! {
    /// UWB channel number. 1 to 7 are first-generation radios, 9 second-generation.
    pub enum Channel ("channel", "") {
        /// Channel 1.
        Ch1 = 1,
        /// Channel 2.
        Ch2 = 2,
        /// Channel 3.
        Ch3 = 3,
        /// Channel 4.
        Ch4 = 4,
        /// Channel 5: the usual channel.
        Ch5 = 5,
        /// Channel 7.
        Ch7 = 7,
        /// Channel 9 (second-generation radios).
        Ch9 = 9,
    }
}

int_enum! {
    /// Pulse repetition frequency, in MHz on the wire.
    pub enum Prf ("pulse repetition frequency", " MHz") {
        /// 16 MHz.
        Mhz16 = 16,
        /// 64 MHz: the usual PRF.
        Mhz64 = 64,
    }
}

int_enum! {
    /// Preamble length, in symbols on the wire.
    pub enum PreambleLength ("preamble length", " symbols") {
        /// 64 symbols.
        Symbols64 = 64,
        /// 128 symbols.
        Symbols128 = 128,
        /// 256 symbols.
        Symbols256 = 256,
        /// 512 symbols.
        Symbols512 = 512,
        /// 1024 symbols.
        Symbols1024 = 1024,
        /// 1536 symbols.
        Symbols1536 = 1536,
        /// 2048 symbols.
        Symbols2048 = 2048,
        /// 4096 symbols.
        Symbols4096 = 4096,
    }
}

impl PreambleLength {
    /// The number of preamble symbols.
    pub const fn symbols(self) -> u32 {
        self.value()
    }
}

/// A preamble code, 1 to 24. Which codes suit a channel and PRF is checked by
/// [`RfSetting`]'s validation ([`suitable_preamble_codes`]).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(try_from = "u32", into = "u32")]
pub struct PreambleCode(u8);

/// A preamble code outside 1 to 24.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{0} is not a preamble code: codes are 1 to 24")]
pub struct PreambleCodeError(pub u32);

impl PreambleCode {
    /// The code number.
    pub const fn value(self) -> u8 {
        self.0
    }
}

impl TryFrom<u32> for PreambleCode {
    type Error = PreambleCodeError;
    fn try_from(value: u32) -> Result<Self, Self::Error> {
        match u8::try_from(value) {
            Ok(code @ 1..=24) => Ok(Self(code)),
            _ => Err(PreambleCodeError(value)),
        }
    }
}

impl From<PreambleCode> for u32 {
    fn from(code: PreambleCode) -> u32 {
        u32::from(code.0)
    }
}

impl fmt::Display for PreambleCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

fixed_schema!(PreambleCode, {
    "type": "integer", "minimum": 1, "maximum": 24,
    "description": "Preamble code; it must suit the channel and PRF (see domain.md)."
});

/// The preamble codes that suit `channel` at `prf` (IEEE 802.15.4 HRP UWB).
pub fn suitable_preamble_codes(channel: Channel, prf: Prf) -> std::ops::RangeInclusive<u8> {
    use Channel::*;
    match (channel, prf) {
        (Ch1, Prf::Mhz16) => 1..=2,
        (Ch2 | Ch5 | Ch9, Prf::Mhz16) => 3..=4,
        (Ch3, Prf::Mhz16) => 5..=6,
        (Ch4 | Ch7, Prf::Mhz16) => 7..=8,
        (Ch1 | Ch2 | Ch3 | Ch5 | Ch9, Prf::Mhz64) => 9..=12,
        (Ch4 | Ch7, Prf::Mhz64) => 17..=20,
    }
}

/// A named set of radio settings of a configuration.
#[derive(
    Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[schemars(transform = add_preamble_rules)]
pub struct RfSetting {
    /// Unique name within the configuration; `default` always exists.
    pub name: ItemName,
    /// Data bit rate.
    pub bit_rate: BitRate,
    /// UWB channel.
    pub channel: Channel,
    /// Preamble code, suited to channel and PRF.
    pub preamble_code: PreambleCode,
    /// Preamble length in symbols.
    pub preamble_length: PreambleLength,
    /// Pulse repetition frequency.
    pub prf: Prf,
}

impl RfSetting {
    /// The name of the RF setting every configuration starts with.
    pub const DEFAULT_NAME: &'static str = "default";

    /// The `default` RF setting: 6.8 Mbit/s, channel 5, preamble code 9,
    /// preamble length 64, PRF 64.
    pub fn default_setting() -> Self {
        Self {
            name: ItemName::new_static(Self::DEFAULT_NAME),
            bit_rate: BitRate::Kbps6800,
            channel: Channel::Ch5,
            preamble_code: PreambleCode(9),
            preamble_length: PreambleLength::Symbols64,
            prf: Prf::Mhz64,
        }
    }
}

/// Adds to an object schema with `channel`, `prf` and `preamble_code` the
/// rule between them, as one `if`/`then` per channel and PRF (written from
/// [`suitable_preamble_codes`], so the schema and the validation agree).
pub(crate) fn add_preamble_rules(schema: &mut schemars::Schema) {
    let mut rules = Vec::new();
    for channel in Channel::ALL {
        for prf in Prf::ALL {
            let codes = suitable_preamble_codes(*channel, *prf);
            rules.push(serde_json::json!({
                "if": {
                    "required": ["channel", "prf", "preamble_code"],
                    "properties": {"channel": {"const": channel.value()}, "prf": {"const": prf.value()}}
                },
                "then": {
                    "properties": {"preamble_code": {"minimum": codes.start(), "maximum": codes.end()}}
                }
            }));
        }
    }
    schema.insert("allOf".to_owned(), serde_json::Value::Array(rules));
}

/// Records a problem when `code` does not suit `channel` and `prf`.
pub(crate) fn check_preamble_code(
    channel: Channel,
    prf: Prf,
    code: PreambleCode,
    path: &str,
    problems: &mut Problems,
) {
    let suitable = suitable_preamble_codes(channel, prf);
    if !suitable.contains(&code.value()) {
        problems.push(
            join(path, "preamble_code"),
            format!(
                "preamble code {code} does not suit channel {channel} at PRF {prf}; use {} to {}",
                suitable.start(),
                suitable.end()
            ),
        );
    }
}

impl Validate for RfSetting {
    fn validate_at(&self, path: &str, problems: &mut Problems) {
        check_preamble_code(self.channel, self.prf, self.preamble_code, path, problems);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_setting_is_valid_and_usual() {
        let setting = RfSetting::default_setting();
        assert!(setting.validate().is_ok());
        assert_eq!(
            serde_json::to_value(&setting).unwrap(),
            serde_json::json!({"name": "default", "bit_rate": 6800, "channel": 5, "preamble_code": 9, "preamble_length": 64, "prf": 64})
        );
    }

    #[test]
    fn every_channel_and_prf_has_codes_within_1_to_24() {
        for channel in Channel::ALL {
            for prf in Prf::ALL {
                let codes = suitable_preamble_codes(*channel, *prf);
                assert!(*codes.start() >= 1 && *codes.end() <= 24);
            }
        }
    }

    #[test]
    fn wire_integers_outside_the_lists_are_refused_with_the_list() {
        let error = serde_json::from_str::<BitRate>("6000")
            .unwrap_err()
            .to_string();
        assert_eq!(
            error,
            "6000 is not a valid bit rate; allowed: 110, 850, 6800"
        );
        assert!(serde_json::from_str::<Channel>("6").is_err());
        assert!(serde_json::from_str::<PreambleCode>("25").is_err());
        assert!(serde_json::from_str::<PreambleCode>("0").is_err());
    }
}
