//! Names: of configurations (which become file names), of items inside a
//! configuration, and of setting keys.

use std::{borrow::Cow, fmt, ops::Deref};

/// Declares a validated string newtype with serde, `Display`, `Deref<Target = str>`
/// and a JSON schema.
macro_rules! name_type {
    (
        $(#[$meta:meta])*
        $name:ident, $error:ident, $check:path, $schema:tt
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
        #[serde(try_from = "String", into = "String")]
        pub struct $name(Cow<'static, str>);

        impl $name {
            /// The name as text.
            pub fn as_str(&self) -> &str {
                &self.0
            }

            /// A name known at compile time to be valid.
            ///
            /// # Panics
            /// When `name` breaks the rules: a bug in a constant, caught by tests.
            #[allow(dead_code, reason = "not every kind of name has built-in values")]
            pub(crate) fn new_static(name: &'static str) -> Self {
                match $check(name) {
                    Ok(()) => Self(Cow::Borrowed(name)),
                    Err(reason) => panic!("built-in name {name:?} is invalid: {reason}"),
                }
            }
        }

        impl TryFrom<String> for $name {
            type Error = $error;
            fn try_from(name: String) -> Result<Self, Self::Error> {
                match $check(&name) {
                    Ok(()) => Ok(Self(Cow::Owned(name))),
                    Err(reason) => Err($error { name: name.chars().take(80).collect(), reason }),
                }
            }
        }

        impl std::str::FromStr for $name {
            type Err = $error;
            fn from_str(name: &str) -> Result<Self, Self::Err> {
                Self::try_from(name.to_owned())
            }
        }

        impl From<$name> for String {
            fn from(name: $name) -> String {
                name.0.into_owned()
            }
        }

        impl Deref for $name {
            type Target = str;
            fn deref(&self) -> &str {
                &self.0
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                *self.0 == *other
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        /// Why a text is not a valid name.
        #[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
        #[error("{name:?} is not a valid {}: {reason}", stringify!($name))]
        pub struct $error {
            name: String,
            reason: &'static str,
        }

        $crate::schema::fixed_schema!($name, $schema);
    };
}

/// The longest name of a configuration, item or setting key, in characters.
pub const MAX_NAME_LENGTH: usize = 64;

/// Whether `name` uses only `A-Z a-z 0-9 . _ -`: no path separator, no
/// white space, nothing a file system or a shell reads specially.
fn is_file_safe(name: &str) -> bool {
    name.bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

/// The rules of a name that becomes a file name, at most `max` bytes;
/// `errors` says each broken rule for the kind of name (length,
/// characters, leading dot).
fn check_file_safe(name: &str, max: usize, errors: [&'static str; 3]) -> Result<(), &'static str> {
    if name.is_empty() || name.len() > max {
        return Err(errors[0]);
    }
    if !is_file_safe(name) {
        return Err(errors[1]);
    }
    if name.starts_with('.') {
        return Err(errors[2]);
    }
    Ok(())
}

/// Declares a name that the data directory holds as a file name (a
/// configuration's, a recording's): [`check_file_safe`]'s rules at
/// [`MAX_NAME_LENGTH`], its messages and schema worded for `$kind`.
macro_rules! file_safe_name {
    ($(#[$meta:meta])* $name:ident, $error:ident, $check:ident, $kind:literal, $Kind:literal) => {
        fn $check(name: &str) -> Result<(), &'static str> {
            check_file_safe(
                name,
                MAX_NAME_LENGTH,
                [
                    concat!("a ", $kind, " name has 1 to 64 characters"),
                    concat!("a ", $kind, " name uses only A-Z a-z 0-9 . _ -"),
                    concat!("a ", $kind, " name must not start with '.'"),
                ],
            )
        }

        name_type! {
            $(#[$meta])*
            $name, $error, $check, {
                "type": "string", "minLength": 1, "maxLength": 64,
                "pattern": "^[A-Za-z0-9_-][A-Za-z0-9._-]{0,63}$",
                "description": concat!($Kind, " name: 1 to 64 characters of A-Z a-z 0-9 . _ -, not starting with '.'.")
            }
        }
    };
}

file_safe_name! {
    /// The name of a configuration: 1 to 64 characters of `A-Z a-z 0-9 . _ -`,
    /// not starting with `.`.
    ///
    /// Such a name cannot hold a path separator, cannot be `.` or `..`, and
    /// cannot name a hidden file, so it is safe to use as a file name inside
    /// the data directory.
    ///
    /// ```
    /// use netcfg_model::ConfigName;
    /// assert!("site-A_2.0".parse::<ConfigName>().is_ok());
    /// assert!("../etc".parse::<ConfigName>().is_err());
    /// assert!(".hidden".parse::<ConfigName>().is_err());
    /// ```
    ConfigName, ConfigNameError, check_config_name, "configuration", "Configuration"
}

file_safe_name! {
    /// The name of a recording: the rules of a configuration's name, so it
    /// is safe as a file name (`<name>.pcap`).
    ///
    /// ```
    /// use netcfg_model::RecordingName;
    /// assert!("night-shift_2".parse::<RecordingName>().is_ok());
    /// assert!("a/b".parse::<RecordingName>().is_err());
    /// ```
    RecordingName, RecordingNameError, check_recording_name, "recording", "Recording"
}

fn check_item_name(name: &str) -> Result<(), &'static str> {
    if name.is_empty() || name.chars().count() > MAX_NAME_LENGTH {
        return Err("a name has 1 to 64 characters");
    }
    if name.trim().len() != name.len() {
        return Err("a name must not start or end with white space");
    }
    if name.chars().any(char::is_control) {
        return Err("a name must not hold control characters");
    }
    Ok(())
}

name_type! {
    /// The name of an item inside a configuration (data stream, role, RF
    /// setting, position limit, device): 1 to 64 characters, no control
    /// characters, no white space at either end.
    ItemName, ItemNameError, check_item_name, {
        "type": "string", "minLength": 1, "maxLength": 64,
        "pattern": "^[^\\s\\x00-\\x1f\\x7f-\\x9f]([^\\x00-\\x1f\\x7f-\\x9f]*[^\\s\\x00-\\x1f\\x7f-\\x9f])?$",
        "description": "A name: 1 to 64 characters, no control characters, no white space at either end."
    }
}

fn check_setting_key(key: &str) -> Result<(), &'static str> {
    if key.is_empty() || key.len() > MAX_NAME_LENGTH {
        return Err("a setting key has 1 to 64 characters");
    }
    if !is_file_safe(key) {
        return Err("a setting key uses only A-Z a-z 0-9 . _ -");
    }
    Ok(())
}

name_type! {
    /// The key of a system setting: 1 to 64 characters of `A-Z a-z 0-9 . _ -`.
    SettingKey, SettingKeyError, check_setting_key, {
        "type": "string", "minLength": 1, "maxLength": 64,
        "pattern": "^[A-Za-z0-9._-]{1,64}$",
        "description": "Setting key: 1 to 64 characters of A-Z a-z 0-9 . _ -."
    }
}

fn check_file_name(name: &str) -> Result<(), &'static str> {
    check_file_safe(
        name,
        255,
        [
            "a file name has 1 to 255 bytes",
            "a file name uses only A-Z a-z 0-9 . _ -",
            "a file name must not start with '.'",
        ],
    )
}

name_type! {
    /// The name of a log file of a configuration: 1 to 255 characters of
    /// `A-Z a-z 0-9 . _ -`, not starting with `.`, so never a path.
    LogFileName, LogFileNameError, check_file_name, {
        "type": "string", "minLength": 1, "maxLength": 255,
        "pattern": "^[A-Za-z0-9_-][A-Za-z0-9._-]*$",
        "description": "Log file name: A-Z a-z 0-9 . _ -, not starting with '.'."
    }
}

fn check_account_name(name: &str) -> Result<(), &'static str> {
    if name.is_empty() || name.len() > MAX_NAME_LENGTH {
        return Err("a name has 1 to 64 characters");
    }
    if !name
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'.' | b'_' | b'-'))
    {
        return Err("a name uses only a-z 0-9 . _ -");
    }
    if !name.starts_with(|c: char| c.is_ascii_alphanumeric()) {
        return Err("a name starts with a letter or a digit");
    }
    Ok(())
}

name_type! {
    /// The name of a user (decisions §17): 1 to 64 characters of
    /// `a-z 0-9 . _ -`, starting with a letter or digit, so that it reads
    /// the same in a path, a history origin (`user:<name>`) and a log.
    UserName, UserNameError, check_account_name, {
        "type": "string", "minLength": 1, "maxLength": 64,
        "pattern": "^[a-z0-9][a-z0-9._-]{0,63}$",
        "description": "A user's name: 1 to 64 characters of a-z 0-9 . _ -, starting with a letter or digit."
    }
}

name_type! {
    /// The name of an API key, unique among its user's keys: the rules of
    /// a user's name.
    KeyName, KeyNameError, check_account_name, {
        "type": "string", "minLength": 1, "maxLength": 64,
        "pattern": "^[a-z0-9][a-z0-9._-]{0,63}$",
        "description": "An API key's name: 1 to 64 characters of a-z 0-9 . _ -, starting with a letter or digit."
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn user_names_follow_the_rules() {
        for good in ["a", "ada.lovelace", "op-2", "9_x", &"n".repeat(64)] {
            assert!(good.parse::<UserName>().is_ok(), "{good}");
        }
        for bad in ["", "Ada", ".a", "-a", "a b", "a/b", "é", &"n".repeat(65)] {
            assert!(bad.parse::<UserName>().is_err(), "{bad:?}");
        }
    }

    #[test]
    fn configuration_names_follow_the_rules() {
        for good in ["a", "Site_1", "x.y-z", &"n".repeat(64)] {
            assert!(good.parse::<ConfigName>().is_ok(), "{good}");
        }
        for bad in [
            "",
            ".",
            "..",
            ".a",
            "a/b",
            "a\\b",
            "a b",
            "é",
            "a\0",
            &"n".repeat(65),
        ] {
            assert!(bad.parse::<ConfigName>().is_err(), "{bad:?}");
        }
    }

    #[test]
    fn item_names_refuse_blank_edges_and_control_characters() {
        assert!("Zone A".parse::<ItemName>().is_ok());
        assert!("Zone Ä".parse::<ItemName>().is_ok());
        for bad in ["", " a", "a ", "a\nb", &"n".repeat(65)] {
            assert!(bad.parse::<ItemName>().is_err(), "{bad:?}");
        }
    }

    #[test]
    fn errors_say_what_and_why() {
        let error = "../x".parse::<ConfigName>().unwrap_err().to_string();
        assert_eq!(
            error,
            "\"../x\" is not a valid ConfigName: a configuration name uses only A-Z a-z 0-9 . _ -"
        );
    }

    proptest! {
        #[test]
        fn a_valid_configuration_name_is_one_plain_path_component(text in "\\PC{0,70}") {
            if let Ok(name) = text.parse::<ConfigName>() {
                let path = std::path::Path::new(name.as_str());
                let mut components = path.components();
                prop_assert!(matches!(components.next(), Some(std::path::Component::Normal(_))));
                prop_assert!(components.next().is_none());
                prop_assert!(!name.starts_with('.'));
            }
        }
    }
}
