//! Enums whose wire form is an integer from a fixed list (bit rates, channels…).

/// Declares an enum that travels as one of a fixed set of integers, with
/// `TryFrom<u32>`, `From<Enum> for u32`, `Display`, serde and a JSON schema
/// that lists the allowed values.
macro_rules! int_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident ($what:literal, $unit:literal) {
            $( $(#[$vmeta:meta])* $variant:ident = $value:literal ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
        #[serde(try_from = "u32", into = "u32")]
        $vis enum $name {
            $( $(#[$vmeta])* $variant ),+
        }

        impl $name {
            /// Every value, in increasing order.
            pub const ALL: &'static [Self] = &[$(Self::$variant),+];

            /// The value on the wire.
            pub const fn value(self) -> u32 {
                match self { $(Self::$variant => $value),+ }
            }
        }

        impl TryFrom<u32> for $name {
            type Error = $crate::int_enum::NotAllowed;
            fn try_from(value: u32) -> Result<Self, $crate::int_enum::NotAllowed> {
                match value {
                    $($value => Ok(Self::$variant),)+
                    other => Err($crate::int_enum::NotAllowed {
                        what: $what,
                        value: i64::from(other),
                        allowed: concat!($(stringify!($value), " "),+),
                    }),
                }
            }
        }

        impl From<$name> for u32 {
            fn from(value: $name) -> u32 {
                value.value()
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{}{}", self.value(), $unit)
            }
        }

        $crate::schema::fixed_schema!($name, {
            "type": "integer",
            "description": concat!($what, $unit),
            "enum": [$($value),+]
        });
    };
}
pub(crate) use int_enum;

/// An integer that is not one of the allowed values.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{value} is not a valid {what}; allowed: {}", allowed.trim_end().replace(' ', ", "))]
pub struct NotAllowed {
    /// What the value was meant to be.
    pub what: &'static str,
    /// The value given.
    pub value: i64,
    /// The allowed values, separated by spaces.
    pub allowed: &'static str,
}
