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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn net(devices: &[Value], running: bool) -> Net {
        let mut net = Net {
            running,
            ..Net::default()
        };
        for device in devices {
            net.put(Kind::Devices, device.clone()).unwrap();
        }
        net
    }

    #[test]
    fn items_are_keyed_as_their_paths_name_them() {
        let device = json!({"serial_number": "01:00:0001", "name": "Tag"});
        assert_eq!(Kind::Devices.key_of(&device).as_deref(), Some("01:00:0001"));
        assert_eq!(Kind::Devices.name_of(&device), Some("01:00:0001"));
        let role = json!({"id": 12, "name": "soak-role-3"});
        assert_eq!(Kind::Roles.key_of(&role).as_deref(), Some("12"));
        assert_eq!(Kind::Roles.name_of(&role), Some("soak-role-3"));
        let setting = json!({"setting_key": "k", "value": 1});
        assert_eq!(Kind::Settings.key_of(&setting).as_deref(), Some("k"));
        assert_eq!(Kind::Limits.key_of(&json!({"name": "no id"})), None);
        assert_eq!(
            Kind::ALL.map(Kind::path),
            [
                "devices",
                "roles",
                "data-streams",
                "position_limits",
                "settings"
            ]
        );
    }

    #[test]
    fn put_replaces_remove_forgets_and_len_counts() {
        let mut net = net(
            &[
                json!({"serial_number": "a", "name": "1"}),
                json!({"serial_number": "b"}),
            ],
            false,
        );
        net.put(Kind::Devices, json!({"serial_number": "a", "name": "2"}))
            .unwrap();
        net.put(Kind::Settings, json!({"setting_key": "k", "value": 1}))
            .unwrap();
        assert_eq!(net.len(), 3);
        assert_eq!(
            net.items(Kind::Devices).next(),
            Some((&"a".to_owned(), &json!({"serial_number": "a", "name": "2"})))
        );
        net.remove(Kind::Devices, "b");
        net.remove(Kind::Roles, "nothing there");
        assert_eq!(net.len(), 2);
        assert!(
            net.put(Kind::Devices, json!({"name": "no serial"}))
                .is_err()
        );
    }

    #[test]
    fn every_difference_is_one_line_and_equal_nets_have_none() {
        let expected = net(
            &[
                json!({"serial_number": "kept", "name": "x"}),
                json!({"serial_number": "changed", "name": "before"}),
                json!({"serial_number": "lost", "name": "y"}),
            ],
            false,
        );
        assert!(expected.differences("n", &expected.clone()).is_empty());
        let actual = net(
            &[
                json!({"serial_number": "kept", "name": "x"}),
                json!({"serial_number": "changed", "name": "after"}),
                json!({"serial_number": "stray", "name": "z"}),
            ],
            true,
        );
        assert_eq!(
            expected.differences("n", &actual),
            [
                "n: running expected false, found true",
                r#"n/devices/changed: expected {"name":"before","serial_number":"changed"}, found {"name":"after","serial_number":"changed"}"#,
                r#"n/devices/lost: missing; expected {"name":"y","serial_number":"lost"}"#,
                r#"n/devices/stray: unexpected {"name":"z","serial_number":"stray"}"#,
            ]
        );
    }
}
