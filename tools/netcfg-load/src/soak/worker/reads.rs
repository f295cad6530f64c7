//! Reads, each checked against the model: a list must hold exactly this
//! worker's items as acknowledged, an item must read back as written
//! (only this worker changes them, so there is no race).

use anyhow::{Context, Result, bail};
use std::collections::BTreeMap;

use super::Worker;
use crate::{server::Value, soak::model::Kind};

impl Worker {
    pub(super) fn read(&mut self, net: &str) -> Result<()> {
        let kind = self.pick_kind();
        match self.rng.below(10) {
            0..=4 => self.read_list(net, kind),
            5..=8 => self.read_item(net, kind),
            _ => {
                self.call("list nets", "GET", "/nets", None, 200)?;
                self.call("get net", "GET", &format!("/nets/{net}"), None, 200)?;
                Ok(())
            }
        }
    }

    /// A list must hold exactly this worker's items as the model has them
    /// (only this worker changes them, so there is no race).
    fn read_list(&mut self, net: &str, kind: Kind) -> Result<()> {
        let path = format!("/nets/{net}/{}", kind.path());
        let response = self.call("list", "GET", &path, None, 200)?;
        let list = response.payload(kind.list_key())?;
        let mut mine = BTreeMap::new();
        for item in list.as_array().context("a list that is not an array")? {
            if self.owns(kind, item) {
                mine.insert(kind.key_of(item).unwrap_or_default(), item.clone());
            }
        }
        let expected: BTreeMap<_, _> = self.own(net, kind).into_iter().collect();
        if mine != expected {
            bail!(
                "GET {path}: this worker's items differ from its acknowledged writes: expected {}, found {}",
                Value::Object(expected.into_iter().collect()),
                Value::Object(mine.into_iter().collect())
            );
        }
        Ok(())
    }

    fn read_item(&mut self, net: &str, kind: Kind) -> Result<()> {
        let Some((key, expected)) = self.pick_own(net, kind) else {
            return Ok(());
        };
        let path = format!("/nets/{net}/{}/{key}", kind.path());
        let response = self.call("get", "GET", &path, None, 200)?;
        let answered = response.payload(kind.one_key())?;
        self.expect_equal(&format!("GET {path}"), &expected, &answered)
    }
}
