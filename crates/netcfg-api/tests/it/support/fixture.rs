//! The fixture format of `fixtures/api/*.json`: a list of steps, each one
//! request and what its response must be.

use std::{collections::BTreeMap, path::Path};

use serde::Deserialize;
use serde_json::Value;

/// One file: what it covers, and its steps in the order they run.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Fixture {
    /// What the file covers.
    #[allow(dead_code, reason = "documentation for the reader of the file")]
    pub(crate) about: String,
    /// The steps, run in order.
    pub(crate) steps: Vec<Step>,
}

/// One request and the response it must get.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Step {
    /// Why the step is there (printed on failure).
    #[serde(default)]
    pub(crate) note: Option<String>,
    /// The API version the request selects with `Api-Version` (`5.1` when absent).
    #[serde(default = "default_version")]
    pub(crate) v: String,
    /// `METHOD /path`; `{{name}}` is replaced by a value saved earlier.
    #[serde(rename = "do")]
    pub(crate) request: String,
    /// A JSON body.
    #[serde(default)]
    pub(crate) body: Option<Value>,
    /// A body given as text with its own content type (bad JSON, wrong type).
    #[serde(default)]
    pub(crate) raw: Option<Raw>,
    /// A `multipart/form-data` body.
    #[serde(default)]
    pub(crate) multipart: Option<Vec<FormPart>>,
    /// Extra request headers.
    #[serde(default)]
    pub(crate) headers: BTreeMap<String, String>,
    /// Repeat the request (every 100 ms, for at most 20 s) until the
    /// response matches: for what a running network reports in its own time.
    #[serde(default)]
    pub(crate) poll: bool,
    /// Values to keep for later steps: name to JSON pointer into the response.
    #[serde(default)]
    pub(crate) save: BTreeMap<String, String>,
    /// Response headers to keep for later steps: name to header name (a
    /// `Set-Cookie` kept is sent back as a `Cookie` header).
    #[serde(default)]
    pub(crate) save_header: BTreeMap<String, String>,
    /// The client's address (none when absent): `127.0.0.1:40000` is the
    /// server's own machine.
    #[serde(default)]
    pub(crate) from: Option<String>,
    /// Keep the raw response body under this name (a downloaded file).
    #[serde(default)]
    pub(crate) save_body: Option<String>,
    /// What the response must be.
    pub(crate) expect: Expect,
}

fn default_version() -> String {
    "5.1".to_owned()
}

/// A body given as text.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Raw {
    /// Its `Content-Type`.
    pub(crate) content_type: String,
    /// The text.
    #[serde(default)]
    pub(crate) text: String,
    /// Instead of `text`: a body saved by an earlier step (a downloaded file).
    #[serde(default)]
    pub(crate) saved: Option<String>,
}

/// One field of a multipart form.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct FormPart {
    /// The field's name.
    pub(crate) name: String,
    /// A file name, for a file field.
    #[serde(default)]
    pub(crate) file_name: Option<String>,
    /// The field's content as text.
    #[serde(default)]
    pub(crate) text: Option<String>,
    /// The field's content: a body saved by an earlier step.
    #[serde(default)]
    pub(crate) saved: Option<String>,
}

/// What a response must be.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Expect {
    /// The status.
    pub(crate) status: u16,
    /// Another status the host may give instead (a row whose answer depends
    /// on the host); its level is then the table's.
    #[serde(default)]
    pub(crate) also: Option<u16>,
    /// The payload key beside `message`; none for a message alone.
    #[serde(default)]
    pub(crate) key: Option<String>,
    /// The classification level (5.1 only; a 5.0 step must not give one).
    #[serde(default)]
    pub(crate) level: Option<u32>,
    /// Text the message must contain.
    #[serde(default)]
    pub(crate) message: Option<String>,
    /// The error's `code` (errors always carry one; this checks which).
    #[serde(default)]
    pub(crate) code: Option<String>,
    /// For a 400: the fields `problems` must name, in order.
    #[serde(default)]
    pub(crate) problems: Option<Vec<String>>,
    /// The payload must contain this (objects: these keys; arrays: these
    /// items, in order, each matched the same way).
    #[serde(default)]
    pub(crate) payload: Option<Value>,
    /// The payload is an array of at least this many items.
    #[serde(default)]
    pub(crate) min_items: Option<usize>,
    /// Keys the payload (an object) must not have: write-only fields.
    #[serde(default)]
    pub(crate) absent: Option<Vec<String>>,
    /// The response is a file (no envelope) of this content type.
    #[serde(default)]
    pub(crate) file: Option<String>,
}

/// Reads every `*.json` file of `directory` but `seed_rows.json`, sorted by name.
pub(crate) fn load_all(directory: &Path) -> Vec<(String, Fixture)> {
    let mut paths: Vec<_> = std::fs::read_dir(directory)
        .unwrap_or_else(|error| panic!("cannot read {}: {error}", directory.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| {
            path.extension()
                .is_some_and(|extension| extension == "json")
                && path
                    .file_name()
                    .is_some_and(|name| name != "seed_rows.json")
        })
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|error| panic!("cannot read {}: {error}", path.display()));
            let fixture: Fixture = serde_json::from_str(&text)
                .unwrap_or_else(|error| panic!("{} is malformed: {error}", path.display()));
            let name = path
                .file_name()
                .map(|name| name.to_string_lossy().into_owned())
                .unwrap_or_default();
            (name, fixture)
        })
        .collect()
}

/// True when `actual` holds everything `expected` gives.
pub(crate) fn contains(expected: &Value, actual: &Value) -> bool {
    match (expected, actual) {
        (Value::Object(expected), Value::Object(actual)) => expected.iter().all(|(key, value)| {
            actual
                .get(key)
                .is_some_and(|actual| contains(value, actual))
        }),
        (Value::Array(expected), Value::Array(actual)) => {
            expected.len() == actual.len()
                && expected
                    .iter()
                    .zip(actual)
                    .all(|(expected, actual)| contains(expected, actual))
        }
        _ => expected == actual,
    }
}
