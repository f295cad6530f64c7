//! Settings: created one key at a time, changed by PATCH, or in a private
//! configuration by PUT, which replaces the whole set.

use std::collections::BTreeMap;

use anyhow::{Result, bail};

use super::Worker;
use crate::{
    server::{Value, object},
    soak::model::Kind,
};

impl Worker {
    fn setting_value(&mut self) -> Value {
        if self.rng.chance(50) {
            Value::from(self.rng.range(0, 1_000_000))
        } else {
            Value::from(format!("value {}", self.rng.below(1_000_000)))
        }
    }

    fn setting(key: &str, value: Value) -> Value {
        object([
            ("setting_class", Value::from("system")),
            ("setting_id", Value::from(0)),
            ("setting_key", Value::from(key)),
            ("value", value),
        ])
    }

    pub(super) fn create_setting(&mut self, net: &str) -> Result<()> {
        let n = self.next();
        let key = format!("t{}_key_{}", self.id, n);
        let value = self.setting_value();
        let body = object([
            ("setting_key", Value::from(key.as_str())),
            ("value", value.clone()),
        ]);
        let path = format!("/nets/{net}/settings");
        let response = self.call("create setting", "POST", &path, Some(&body), 200)?;
        let expected = Self::setting(&key, value);
        self.put_and_check(
            net,
            Kind::Settings,
            &expected,
            &format!("POST {path} {body}"),
            &response,
        )
    }

    /// PATCH (existing keys) or, in a private configuration, PUT: PUT
    /// replaces the whole set (keys left out are deleted, catalogue keys
    /// return to their defaults), so only a sole writer can model it.
    pub(super) fn change_settings(&mut self, net: &str) -> Result<()> {
        let own = self.own(net, Kind::Settings);
        let put = self.private.iter().any(|private| private == net) && self.rng.chance(50);
        let mut changes = BTreeMap::new();
        for (key, _) in &own {
            if self.rng.chance(40) {
                changes.insert(key.clone(), self.setting_value());
            }
        }
        if put && self.rng.chance(30) {
            let n = self.next();
            changes.insert(format!("t{}_key_{}", self.id, n), self.setting_value());
        }
        if changes.is_empty() {
            let Some((key, _)) = self.rng.pick(&own).cloned() else {
                return Ok(());
            };
            changes.insert(key, self.setting_value());
        }
        let body = Value::Object(changes.clone().into_iter().collect());
        let path = format!("/nets/{net}/settings");
        let (op, method) = if put {
            ("put settings", "PUT")
        } else {
            ("patch settings", "PATCH")
        };
        let response = self.call(op, method, &path, Some(&body), 200)?;
        let expected: Vec<Value> = changes
            .iter()
            .map(|(key, value)| Self::setting(key, value.clone()))
            .collect();
        let template = self.shared.model().template.clone();
        let mut whole = Vec::new();
        self.record(net, |model| {
            if put {
                let catalogue = template
                    .items
                    .get(&Kind::Settings)
                    .cloned()
                    .unwrap_or_default();
                model.items.insert(Kind::Settings, catalogue);
            }
            for setting in &expected {
                model.put(Kind::Settings, setting.clone())?;
            }
            whole = model
                .items(Kind::Settings)
                .map(|(_, setting)| setting.clone())
                .collect();
            Ok(())
        })?;
        let answered = response.payload("settings")?;
        if put {
            // The answer is the whole new set, in key order.
            return self.expect_equal(
                &format!("PUT {path} {body}"),
                &Value::Array(whole),
                &answered,
            );
        }
        let answered = answered.as_array().map(Vec::as_slice).unwrap_or_default();
        for setting in &expected {
            if !answered.contains(setting) {
                bail!("{method} {path} {body}: the answer lacks {setting}");
            }
        }
        Ok(())
    }
}
