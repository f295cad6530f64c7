//! Reading request bodies from JSON while collecting every problem.
//!
//! serde stops at the first error it meets. A client deserves to hear about
//! every wrong field at once, so bodies are read field by field from a
//! [`serde_json::Value`]: each field is deserialised on its own, each failure
//! is recorded with its path, unknown fields are reported, and only a body
//! with no problem at all is built.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::validation::{Problems, index, join};

/// A type read from JSON with every problem collected.
///
/// Request bodies implement it; their `serde::Deserialize` goes through it too,
/// so `serde_json::from_str::<Body>` reports every problem in its error.
pub trait FromJson: Sized {
    /// Reads `value`, recording problems under `path`; `None` when anything
    /// was wrong.
    fn from_json_at(value: &Value, path: &str, problems: &mut Problems) -> Option<Self>;

    /// Reads a whole body: the value or every problem in it.
    fn from_json(value: &Value) -> Result<Self, Problems> {
        let mut problems = Problems::new();
        let parsed = Self::from_json_at(value, "", &mut problems);
        match parsed {
            Some(body) if problems.is_empty() => Ok(body),
            _ => Err(problems),
        }
    }
}

/// Reads a leaf value with its own `Deserialize`, recording the error at `path`.
pub(crate) fn leaf<T: DeserializeOwned>(
    value: &Value,
    path: &str,
    problems: &mut Problems,
) -> Option<T> {
    let whole;
    let value = match whole_number(value) {
        Some(integer) => {
            whole = integer;
            &whole
        }
        None => value,
    };
    match T::deserialize(value) {
        Ok(parsed) => Some(parsed),
        Err(error) => {
            problems.push(path, error.to_string());
            None
        }
    }
}

/// The integer form of a number written with a zero fraction (`5.0`): JSON
/// Schema counts it as an integer, so the readers do too.
fn whole_number(value: &Value) -> Option<Value> {
    let number = value.as_f64().filter(|_| value.is_f64())?;
    let in_range = number.fract() == 0.0 && number.abs() < 9.0e15;
    // The range check keeps the cast exact.
    in_range.then(|| Value::from(number as i64))
}

/// Reads a JSON array whose elements are read by `read`; `None` when it is
/// not an array or any element is wrong.
pub(crate) fn array<T>(
    value: &Value,
    path: &str,
    problems: &mut Problems,
    read: impl FnMut(&Value, &str, &mut Problems) -> Option<T>,
) -> Option<Vec<T>> {
    elements(value, path, problems, read)?.into_iter().collect()
}

/// Reads every element of a JSON array, keeping the ones that read well, so
/// that a caller can still check rules between them (duplicates) when one
/// element is wrong. `None` when `value` is not an array.
pub(crate) fn elements<T>(
    value: &Value,
    path: &str,
    problems: &mut Problems,
    mut read: impl FnMut(&Value, &str, &mut Problems) -> Option<T>,
) -> Option<Vec<Option<T>>> {
    let Value::Array(items) = value else {
        problems.push(path, format!("expected an array, found {}", kind(value)));
        return None;
    };
    Some(
        items
            .iter()
            .enumerate()
            .map(|(position, item)| read(item, &index(path, position), problems))
            .collect(),
    )
}

/// Records a problem for each element equal to an earlier one; elements that
/// did not read (`None`) are skipped. True when there is no repeat.
pub(crate) fn check_unique<T, K: PartialEq>(
    items: &[Option<T>],
    path: &str,
    problems: &mut Problems,
    key: impl Fn(&T) -> K,
    describe: impl Fn(&T) -> (String, String),
) -> bool {
    let mut unique = true;
    for (position, item) in items.iter().enumerate() {
        let Some(item) = item else { continue };
        let repeated = items[..position]
            .iter()
            .flatten()
            .any(|earlier| key(earlier) == key(item));
        if repeated {
            let (field, what) = describe(item);
            let element = index(path, position);
            let at = if field.is_empty() {
                element
            } else {
                join(&element, &field)
            };
            problems.push(at, format!("{what} is given twice"));
            unique = false;
        }
    }
    unique
}

/// A short name for the JSON type of `value`, for messages.
pub(crate) fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The fields of one JSON object being read, and the problems met so far.
pub(crate) struct Fields<'a> {
    object: &'a Map<String, Value>,
    path: &'a str,
    known: Vec<&'static str>,
    all_read: bool,
}

impl<'a> Fields<'a> {
    /// Starts reading `value`, which must be an object.
    pub(crate) fn open(value: &'a Value, path: &'a str, problems: &mut Problems) -> Option<Self> {
        match value {
            Value::Object(object) => Some(Self {
                object,
                path,
                known: Vec::new(),
                all_read: true,
            }),
            other => {
                problems.push(
                    path,
                    format!("expected a JSON object, found {}", kind(other)),
                );
                None
            }
        }
    }

    /// The path of field `name`.
    pub(crate) fn path_of(&self, name: &str) -> String {
        join(self.path, name)
    }

    /// How many of the fields read so far were present (and not null).
    pub(crate) fn present_count(&self) -> usize {
        self.known
            .iter()
            .filter(|name| {
                self.object
                    .get(**name)
                    .is_some_and(|value| !value.is_null())
            })
            .count()
    }

    /// Reads a required field with a custom reader.
    pub(crate) fn required_with<T>(
        &mut self,
        name: &'static str,
        problems: &mut Problems,
        read: impl FnOnce(&Value, &str, &mut Problems) -> Option<T>,
    ) -> Option<T> {
        self.known.push(name);
        let path = self.path_of(name);
        let parsed = match self.object.get(name) {
            None | Some(Value::Null) => {
                problems.push(path, "this field is required");
                None
            }
            Some(value) => read(value, &path, problems),
        };
        self.all_read &= parsed.is_some();
        parsed
    }

    /// Reads an optional field with a custom reader; absent and `null` are `None`.
    pub(crate) fn optional_with<T>(
        &mut self,
        name: &'static str,
        problems: &mut Problems,
        read: impl FnOnce(&Value, &str, &mut Problems) -> Option<T>,
    ) -> Option<T> {
        self.known.push(name);
        let path = self.path_of(name);
        match self.object.get(name) {
            None => None,
            Some(Value::Null) => {
                problems.push(
                    path,
                    "null is not a value here; leave the field out instead",
                );
                self.all_read = false;
                None
            }
            Some(value) => {
                let parsed = read(value, &path, problems);
                self.all_read &= parsed.is_some();
                parsed
            }
        }
    }

    /// Reads a required leaf field with its own `Deserialize`.
    pub(crate) fn required<T: DeserializeOwned>(
        &mut self,
        name: &'static str,
        problems: &mut Problems,
    ) -> Option<T> {
        self.required_with(name, problems, leaf)
    }

    /// Reads an optional leaf field with its own `Deserialize`.
    pub(crate) fn optional<T: DeserializeOwned>(
        &mut self,
        name: &'static str,
        problems: &mut Problems,
    ) -> Option<T> {
        self.optional_with(name, problems, leaf)
    }

    /// Accepts these fields without reading them (their meaning depends on a
    /// field that was wrong).
    pub(crate) fn tolerate(&mut self, names: &[&'static str]) {
        self.known.extend_from_slice(names);
    }

    /// Reports unknown fields; true when every field was present where
    /// required, well typed and known.
    pub(crate) fn finish(self, problems: &mut Problems) -> bool {
        let mut clean = self.all_read;
        for name in self.object.keys() {
            if !self.known.contains(&name.as_str()) {
                problems.push(
                    join(self.path, name),
                    format!("unknown field; the fields are: {}", self.known.join(", ")),
                );
                clean = false;
            }
        }
        clean
    }
}

/// Implements `serde::Deserialize` through [`FromJson`], so that serde users
/// get the same rules and the same list of problems.
macro_rules! deserialize_via_from_json {
    ($($body:ty),* $(,)?) => {$(
        impl<'de> serde::Deserialize<'de> for $body {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let value = serde_json::Value::deserialize(deserializer)?;
                <$body as $crate::json::FromJson>::from_json(&value).map_err(serde::de::Error::custom)
            }
        }
    )*};
}
pub(crate) use deserialize_via_from_json;
