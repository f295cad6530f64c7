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
    /// Users' display names and keys' presence (crash/people.rs).
    pub(crate) people: BTreeMap<Place, Expect>,
    /// The secrets of keys acknowledged since the last restart.
    pub(crate) fresh_keys: Vec<String>,
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

#[cfg(test)]
mod tests {
    use super::*;

    fn expect(acked: Option<i64>, unanswered: &[i64]) -> Expect {
        Expect {
            acked: acked.map(Value::from),
            unanswered: unanswered.iter().copied().map(Value::from).collect(),
        }
    }

    #[test]
    fn the_acknowledged_value_found_is_acknowledged() {
        let mut item = expect(Some(3), &[4]);
        assert_eq!(item.settle(Some(&Value::from(3))), Verdict::Acknowledged);
        // Settled: the unanswered write did not land, and never will.
        assert_eq!(item.acked, Some(Value::from(3)));
        assert!(item.unanswered.is_empty());
        assert!(matches!(
            item.settle(Some(&Value::from(4))),
            Verdict::Lost(_)
        ));
    }

    #[test]
    fn an_unanswered_write_may_land_and_is_then_acknowledged() {
        let mut item = expect(Some(3), &[4, 5]);
        assert_eq!(item.settle(Some(&Value::from(5))), Verdict::Landed);
        assert_eq!(item.acked, Some(Value::from(5)));
        assert_eq!(item.settle(Some(&Value::from(5))), Verdict::Acknowledged);
        // A creation whose answer never came, absent: it did not land.
        let mut created = expect(None, &[1]);
        assert_eq!(created.settle(None), Verdict::Absent);
        assert_eq!(created.settle(None), Verdict::Absent);
    }

    #[test]
    fn a_missing_or_foreign_value_is_a_lost_write_and_says_why() {
        let Verdict::Lost(how) = expect(Some(3), &[4]).settle(None) else {
            panic!("an acknowledged write went missing unnoticed")
        };
        assert_eq!(how, "acknowledged 3, unanswered [4], found nothing");
        let Verdict::Lost(how) = expect(None, &[]).settle(Some(&Value::from(9))) else {
            panic!("a value nobody wrote went unnoticed")
        };
        assert_eq!(how, "acknowledged nothing, unanswered [], found 9");
    }
}
