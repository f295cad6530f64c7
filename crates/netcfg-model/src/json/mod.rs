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

mod words;

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
            problems.push(path, words::in_words(&error.to_string(), path));
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

/// Reads an array whose elements must all differ, reporting every element's
/// problems, then what `count` finds wrong with their number (if anything),
/// then each repeat (told apart by `key`, described as in [`check_unique`]).
pub(crate) fn distinct_array<T, K: PartialEq>(
    value: &Value,
    path: &str,
    problems: &mut Problems,
    read: impl FnMut(&Value, &str, &mut Problems) -> Option<T>,
    count: impl FnOnce(usize) -> Option<String>,
    key: impl Fn(&T) -> K,
    describe: impl Fn(&T) -> (String, String),
) -> Option<Vec<T>> {
    let items = elements(value, path, problems, read)?;
    let mut clean = items.iter().all(Option::is_some);
    if let Some(message) = count(items.len()) {
        problems.push(path, message);
        clean = false;
    }
    clean &= check_unique(&items, path, problems, key, describe);
    clean.then(|| items.into_iter().flatten().collect())
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
    /// How many of the fields read so far were given: present, and not
    /// `null` unless `null` is their value (it clears them).
    given: usize,
}

/// What a body holds under one field's name.
enum Slot<T> {
    Absent,
    Null,
    /// The field's value, read (`None`: its reader recorded a problem).
    Read(Option<T>),
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
                given: 0,
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

    /// Notes field `name` as known and reads its value, if it holds one.
    fn slot<T>(
        &mut self,
        name: &'static str,
        problems: &mut Problems,
        read: impl FnOnce(&Value, &str, &mut Problems) -> Option<T>,
    ) -> Slot<T> {
        self.known.push(name);
        match self.object.get(name) {
            None => Slot::Absent,
            Some(Value::Null) => Slot::Null,
            Some(value) => {
                self.given += 1;
                let parsed = read(value, &self.path_of(name), problems);
                self.all_read &= parsed.is_some();
                Slot::Read(parsed)
            }
        }
    }

    /// Reads a required field with a custom reader.
    pub(crate) fn required_with<T>(
        &mut self,
        name: &'static str,
        problems: &mut Problems,
        read: impl FnOnce(&Value, &str, &mut Problems) -> Option<T>,
    ) -> Option<T> {
        match self.slot(name, problems, read) {
            Slot::Absent | Slot::Null => {
                problems.push(self.path_of(name), "this field is required");
                self.all_read = false;
                None
            }
            Slot::Read(parsed) => parsed,
        }
    }

    /// Reads an optional field with a custom reader; absent is `None`,
    /// `null` a problem.
    pub(crate) fn optional_with<T>(
        &mut self,
        name: &'static str,
        problems: &mut Problems,
        read: impl FnOnce(&Value, &str, &mut Problems) -> Option<T>,
    ) -> Option<T> {
        match self.slot(name, problems, read) {
            Slot::Absent => None,
            Slot::Null => {
                problems.push(
                    self.path_of(name),
                    "null is not a value here; leave the field out instead",
                );
                self.all_read = false;
                None
            }
            Slot::Read(parsed) => parsed,
        }
    }

    /// Reads an optional field that `null` clears: absent is `None`, `null`
    /// `Some(None)`.
    pub(crate) fn clearable_with<T>(
        &mut self,
        name: &'static str,
        problems: &mut Problems,
        read: impl FnOnce(&Value, &str, &mut Problems) -> Option<T>,
    ) -> Option<Option<T>> {
        match self.slot(name, problems, read) {
            Slot::Absent => None,
            Slot::Null => {
                self.given += 1;
                Some(None)
            }
            Slot::Read(parsed) => parsed.map(Some),
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

    /// Reads a required text field that must be one of `choices`.
    pub(crate) fn required_of(
        &mut self,
        name: &'static str,
        choices: &[&str],
        problems: &mut Problems,
    ) -> Option<String> {
        self.required_with(name, problems, |value, path, problems| {
            let text: String = leaf(value, path, problems)?;
            if choices.contains(&text.as_str()) {
                return Some(text);
            }
            problems.push(
                path,
                format!("expected one of {}; found \"{text}\"", choices.join(", ")),
            );
            None
        })
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

    /// Ends reading a request body (`#[request_body]`): with
    /// `at_least_one` (a PATCH body), a problem on the body when none of
    /// its fields was given; then [`finish`](Self::finish).
    pub(crate) fn finish_body(self, at_least_one: bool, problems: &mut Problems) -> bool {
        let mut clean = true;
        if at_least_one && self.given == 0 {
            problems.push(
                self.path,
                format!(
                    "at least one field must be given: {}",
                    self.known.join(", ")
                ),
            );
            clean = false;
        }
        self.finish(problems) && clean
    }
}

/// True when a body read `clean`ly and `check`, a rule that joins its
/// fields, records no problem either.
pub(crate) fn check_clean(
    clean: bool,
    problems: &mut Problems,
    check: impl FnOnce(&mut Problems),
) -> bool {
    let before = problems.as_slice().len();
    check(problems);
    clean && problems.as_slice().len() == before
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
