//! Device serial numbers: 32 bits written `XX:XX:XXXX`.

use crate::schema::fixed_schema;
use serde_with::{DeserializeFromStr, SerializeDisplay};
use std::{borrow::Cow, fmt, str::FromStr};

/// A device's serial number: 32 bits, written `XX:XX:XXXX` in upper-case
/// hexadecimal (byte, byte, 16 bits), for example `01:04:0719`.
///
/// Parsing accepts upper or lower case and the 8-digit form without colons;
/// display and serialisation always give the canonical upper-case form.
///
/// ```
/// use netcfg_model::SerialNumber;
/// let serial: SerialNumber = "01:0d:beef".parse().unwrap();
/// assert_eq!(serial.to_string(), "01:0D:BEEF");
/// assert_eq!("010DBEEF".parse::<SerialNumber>().unwrap(), serial);
/// assert_eq!(serial.as_u32(), 0x010D_BEEF);
/// ```
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, SerializeDisplay, DeserializeFromStr,
)]
pub struct SerialNumber(u32);

/// Why a text is not a serial number.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{text}` is not a serial number: expected XX:XX:XXXX or 8 hexadecimal digits")]
pub struct SerialNumberError {
    text: String,
}

impl SerialNumber {
    /// The serial number with this 32-bit value.
    pub const fn from_u32(value: u32) -> Self {
        Self(value)
    }

    /// The 32-bit value.
    pub const fn as_u32(self) -> u32 {
        self.0
    }
}

impl FromStr for SerialNumber {
    type Err = SerialNumberError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let error = || SerialNumberError {
            text: text.chars().take(40).collect(),
        };
        let digits: Cow<'_, str> = match text.len() {
            8 => Cow::Borrowed(text),
            10 if text.as_bytes()[2] == b':' && text.as_bytes()[5] == b':' => {
                Cow::Owned(text.split(':').collect())
            }
            _ => return Err(error()),
        };
        if digits.len() != 8 || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(error());
        }
        u32::from_str_radix(&digits, 16)
            .map(Self)
            .map_err(|_| error())
    }
}

impl fmt::Display for SerialNumber {
    /// `XX:XX:XXXX`, the digits put in place rather than formatted one by
    /// one: every device in every answer is written so.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const DIGITS: &[u8; 16] = b"0123456789ABCDEF";
        let [a, b, c, d] = self.0.to_be_bytes();
        let digit =
            |byte: u8, high: bool| DIGITS[usize::from(if high { byte >> 4 } else { byte & 0xF })];
        let text = [
            digit(a, true),
            digit(a, false),
            b':',
            digit(b, true),
            digit(b, false),
            b':',
            digit(c, true),
            digit(c, false),
            digit(d, true),
            digit(d, false),
        ];
        // Hexadecimal digits and colons are ASCII.
        f.write_str(std::str::from_utf8(&text).map_err(|_| fmt::Error)?)
    }
}

fixed_schema!(SerialNumber, {
    "type": "string",
    "description": "Serial number: XX:XX:XXXX in hexadecimal (byte, byte, 16 bits). Lower case and the 8-digit form without colons are accepted; responses use upper case with colons.",
    "pattern": "^([0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{4}|[0-9A-Fa-f]{8})$",
    "examples": ["01:04:0719"]
});

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn accepts_the_documented_forms() {
        for text in [
            "01:04:0719",
            "01:04:0719",
            "01040719",
            "01:0d:beef",
            "010dBEEF",
        ] {
            assert!(text.parse::<SerialNumber>().is_ok(), "{text}");
        }
        assert_eq!(
            "01:0d:beef".parse::<SerialNumber>().unwrap().to_string(),
            "01:0D:BEEF"
        );
    }

    #[test]
    fn rejects_other_forms() {
        for text in [
            "",
            "1:04:0719",
            "01:04:719",
            "0104:0719",
            "01-04-0719",
            "01:04:07199",
            "0104071",
            "g1040719",
            "01:04:07 9",
            "+1040719",
            "01:04:+719",
            "€1:04:07",
        ] {
            assert!(text.parse::<SerialNumber>().is_err(), "{text:?}");
        }
    }

    #[test]
    fn serde_uses_the_canonical_text() {
        let serial: SerialNumber = serde_json::from_str("\"01040719\"").unwrap();
        assert_eq!(serde_json::to_string(&serial).unwrap(), "\"01:04:0719\"");
        assert!(serde_json::from_str::<SerialNumber>("17").is_err());
    }

    proptest! {
        #[test]
        fn display_then_parse_round_trips(value: u32) {
            let serial = SerialNumber::from_u32(value);
            let text = serial.to_string();
            prop_assert_eq!(text.parse::<SerialNumber>().unwrap(), serial);
            prop_assert_eq!(text.to_lowercase().parse::<SerialNumber>().unwrap(), serial);
            prop_assert_eq!(text.replace(':', "").parse::<SerialNumber>().unwrap(), serial);
        }

        #[test]
        fn parsing_any_text_never_panics(text in "\\PC{0,16}") {
            if let Ok(serial) = text.parse::<SerialNumber>() {
                // Whatever parses must print back as the canonical form of the same digits.
                prop_assert_eq!(serial.to_string().replace(':', ""), text.replace(':', "").to_uppercase());
            }
        }
    }
}
