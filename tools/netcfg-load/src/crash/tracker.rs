//! What each crash worker knows of its writes: per item, the value of the
//! last acknowledged write, and the values of the writes sent after it
//! whose answer never came (the kill landed first): each of those may or
//! may not be in the file.

use std::collections::BTreeMap;

use crate::server::Value;

/// One item (a device, or a setting's value).
#[derive(Clone, Debug, Default)]
pub(crate) struct Expect {
    /// The last acknowledged value; `None`: no write of it was acknowledged.
    pub(crate) acked: Option<Value>,
    /// Values sent after it without an answer.
    pub(crate) unanswered: Vec<Value>,
}

/// Where an item lives: the configuration and the item's key.
pub(crate) type Place = (String, String);

/// A worker's writes.
#[derive(Debug, Default)]
pub(crate) struct Tracker {
    pub(crate) devices: BTreeMap<Place, Expect>,
    pub(crate) settings: BTreeMap<Place, Expect>,
    pub(crate) acknowledged: u64,
    pub(crate) unanswered: u64,
    /// Writes the server answered with anything but 2xx: none expected
    /// (a kill cuts connections; it must not make the server refuse).
    pub(crate) refused: Vec<String>,
}

/// The outcome of checking one item against what the server holds.
#[derive(Debug, PartialEq)]
pub(crate) enum Verdict {
    /// The last acknowledged value (or nothing, when none was written).
    Acknowledged,
    /// An unanswered write that landed.
    Landed,
    /// Nothing acknowledged, and no unanswered write landed.
    Absent,
    /// An acknowledged write is missing or was overwritten by nothing the
    /// worker sent.
    Lost(String),
}

impl Expect {
    /// Compares with what the server holds (`None`: the item is absent),
    /// and settles the item: from now on, what was found is acknowledged.
    pub(crate) fn settle(&mut self, found: Option<&Value>) -> Verdict {
        let verdict = match (found, &self.acked) {
            (Some(found), Some(acked)) if found == acked => Verdict::Acknowledged,
            (Some(found), _) if self.unanswered.contains(found) => Verdict::Landed,
            (None, None) => Verdict::Absent,
            (found, acked) => Verdict::Lost(format!(
                "acknowledged {}, unanswered [{}], found {}",
                acked
                    .as_ref()
                    .map_or("nothing".to_owned(), Value::to_string),
                self.unanswered
                    .iter()
                    .map(Value::to_string)
                    .collect::<Vec<_>>()
                    .join(", "),
                found.map_or("nothing".to_owned(), Value::to_string),
            )),
        };
        self.acked = found.cloned();
        self.unanswered.clear();
        verdict
    }
}
