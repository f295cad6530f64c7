//! What the server must hold: every configuration with the items the
//! soak's acknowledged writes left in it, as the JSON the server returns.

use std::collections::BTreeMap;

use anyhow::{Context, Result, bail};

use crate::server::{Client, Value};

/// The collections of a configuration the soak writes and compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Kind {
    Devices,
    Roles,
    Streams,
    Limits,
    Settings,
}

impl Kind {
    pub(crate) const ALL: [Kind; 5] = [
        Kind::Devices,
        Kind::Roles,
        Kind::Streams,
        Kind::Limits,
        Kind::Settings,
    ];

    /// The path segment after `/nets/{net}/`.
    pub(crate) fn path(self) -> &'static str {
        match self {
            Kind::Devices => "devices",
            Kind::Roles => "roles",
            Kind::Streams => "data-streams",
            Kind::Limits => "position_limits",
            Kind::Settings => "settings",
        }
    }

    /// The payload key of a list.
    pub(crate) fn list_key(self) -> &'static str {
        match self {
            Kind::Devices => "devices",
            Kind::Roles => "roles",
            Kind::Streams => "streams",
            Kind::Limits => "position_limits",
            Kind::Settings => "settings",
        }
    }

    /// The payload key of one item.
    pub(crate) fn one_key(self) -> &'static str {
        match self {
            Kind::Devices => "device",
            Kind::Roles => "role",
            Kind::Streams => "stream",
            Kind::Limits => "position_limit",
            Kind::Settings => "setting",
        }
    }

    /// The key that names an item in its collection (and in its path).
    pub(crate) fn key_of(self, item: &Value) -> Option<String> {
        let field = match self {
            Kind::Devices => "serial_number",
            Kind::Settings => "setting_key",
            Kind::Roles | Kind::Streams | Kind::Limits => "id",
        };
        match item.get(field)? {
            Value::String(text) => Some(text.clone()),
            number => number.as_i64().map(|n| n.to_string()),
        }
    }

    /// The item's name, by which a worker knows its own items.
    pub(crate) fn name_of(self, item: &Value) -> Option<&str> {
        let field = match self {
            Kind::Devices => "serial_number",
            Kind::Settings => "setting_key",
            Kind::Roles | Kind::Streams | Kind::Limits => "name",
        };
        item.get(field)?.as_str()
    }
}

/// A collection: item key to item.
pub(crate) type Items = BTreeMap<String, Value>;

/// One configuration.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Net {
    pub(crate) items: BTreeMap<Kind, Items>,
    pub(crate) running: bool,
}

impl Net {
    pub(crate) fn items(&self, kind: Kind) -> impl Iterator<Item = (&String, &Value)> {
        self.items.get(&kind).into_iter().flatten()
    }

    pub(crate) fn put(&mut self, kind: Kind, item: Value) -> Result<()> {
        let key = kind
            .key_of(&item)
            .with_context(|| format!("an item without its key: {item}"))?;
        self.items.entry(kind).or_default().insert(key, item);
        Ok(())
    }

    pub(crate) fn remove(&mut self, kind: Kind, key: &str) {
        if let Some(items) = self.items.get_mut(&kind) {
            items.remove(key);
        }
    }

    /// The configuration as the server holds it now.
    pub(crate) fn fetch(client: &mut Client, name: &str) -> Result<Net> {
        let mut net = Net::default();
        for kind in Kind::ALL {
            let path = format!("/nets/{name}/{}", kind.path());
            let response = client.send("GET", &path, None)?;
            if response.status != 200 {
                bail!("GET {path}: {} {}", response.status, response.text());
            }
            let list = response.payload(kind.list_key())?;
            for item in list.as_array().context("a list that is not an array")? {
                net.put(kind, item.clone())?;
            }
            net.items.entry(kind).or_default();
        }
        let path = format!("/nets/{name}");
        let response = client.send("GET", &path, None)?;
        if response.status != 200 {
            bail!("GET {path}: {} {}", response.status, response.text());
        }
        let state = response.payload("configuration")?;
        net.running = state.get("state").and_then(Value::as_str) == Some("running");
        Ok(net)
    }

    /// Every difference between this (expected) and `actual`, one line each.
    pub(crate) fn differences(&self, name: &str, actual: &Net) -> Vec<String> {
        let mut found = Vec::new();
        if self.running != actual.running {
            found.push(format!(
                "{name}: running expected {}, found {}",
                self.running, actual.running
            ));
        }
        for kind in Kind::ALL {
            let expected: BTreeMap<_, _> = self.items(kind).collect();
            let present: BTreeMap<_, _> = actual.items(kind).collect();
            for (key, item) in &expected {
                match present.get(key) {
                    None => found.push(format!(
                        "{name}/{}/{key}: missing; expected {item}",
                        kind.path()
                    )),
                    Some(got) if got != item => found.push(format!(
                        "{name}/{}/{key}: expected {item}, found {got}",
                        kind.path()
                    )),
                    Some(_) => {}
                }
            }
            for (key, item) in &present {
                if !expected.contains_key(key) {
                    found.push(format!("{name}/{}/{key}: unexpected {item}", kind.path()));
                }
            }
        }
        found
    }

    /// How many items the configuration holds.
    pub(crate) fn len(&self) -> usize {
        self.items.values().map(BTreeMap::len).sum()
    }
}

/// Every configuration the server must hold, and what a new one holds.
#[derive(Debug, Default)]
pub(crate) struct Model {
    pub(crate) nets: BTreeMap<String, Net>,
    pub(crate) template: Net,
}
