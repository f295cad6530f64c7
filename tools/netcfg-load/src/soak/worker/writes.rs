//! A write: which kind, and whether to create, change or delete one of
//! this worker's items (each kind is kept about at its [`target`] size),
//! and the changes of the simple kinds, data streams and position limits,
//! and the deletes that need no check first.

use anyhow::Result;

use super::{Worker, merged, with_id};
use crate::{
    server::{Value, object},
    soak::model::Kind,
};

/// How many items of each kind a worker keeps in each configuration, about.
fn target(kind: Kind) -> usize {
    match kind {
        Kind::Devices => 12,
        Kind::Roles | Kind::Limits => 3,
        Kind::Streams => 2,
        Kind::Settings => 4,
    }
}

const LIMIT_FIELDS: [&str; 6] = ["min_x", "min_y", "min_z", "max_x", "max_y", "max_z"];

impl Worker {
    pub(super) fn write(&mut self, net: &str) -> Result<()> {
        let kind = self.pick_kind();
        let count = self.own(net, kind).len();
        let create = count == 0 || (count < target(kind) && self.rng.chance(50));
        let delete = !create && count > target(kind) / 2 && self.rng.chance(30);
        match (kind, create, delete) {
            (Kind::Devices, true, _) => self.create_device(net),
            (Kind::Devices, _, true) => self.delete_device(net),
            (Kind::Devices, ..) => self.patch_device(net),
            (Kind::Roles, true, _) => self.create_role(net),
            (Kind::Roles, _, true) => self.delete_role(net),
            (Kind::Roles, ..) => self.patch_role(net),
            (Kind::Streams, true, _) => self.create_stream(net),
            (Kind::Streams, _, true) => self.delete_simple(net, Kind::Streams, 200),
            (Kind::Streams, ..) => self.patch_stream(net),
            (Kind::Limits, true, _) => self.create_limit(net),
            (Kind::Limits, _, true) => self.delete_simple(net, Kind::Limits, 200),
            (Kind::Limits, ..) => self.patch_limit(net),
            (Kind::Settings, true, _) => self.create_setting(net),
            (Kind::Settings, _, true) => self.delete_simple(net, Kind::Settings, 200),
            (Kind::Settings, ..) => self.change_settings(net),
        }
    }

    fn stream_body(&mut self, name: &str) -> Value {
        object([
            ("name", Value::from(name)),
            ("destination_ip", Value::from("239.255.76.67")),
            (
                "destination_port",
                Value::from(self.rng.range(20_000, 40_000)),
            ),
            ("interface", Value::from("0.0.0.0")),
            ("interface_port", Value::from(0)),
            ("time_to_live", Value::from(self.rng.range(1, 4))),
        ])
    }

    fn create_stream(&mut self, net: &str) -> Result<()> {
        let n = self.next();
        let name = format!("t{}-stream-{}", self.id, n);
        let body = self.stream_body(&name);
        self.create(
            net,
            Kind::Streams,
            "create stream",
            &body,
            201,
            body.clone(),
        )
    }

    fn patch_stream(&mut self, net: &str) -> Result<()> {
        let Some((id, stream)) = self.pick_own(net, Kind::Streams) else {
            return Ok(());
        };
        let name = stream
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let body = self.stream_body(&name);
        let expected = with_id(body.clone(), &stream);
        self.patch(net, Kind::Streams, "patch stream", &id, &body, &expected)
    }

    /// A bound: a minimum is at most 0, a maximum at least 1, so any
    /// change of one keeps every minimum below its maximum.
    fn limit_value(&mut self, field: &str) -> i64 {
        if field.starts_with("min") {
            self.rng.range(-100_000, 0)
        } else {
            self.rng.range(1, 100_000)
        }
    }

    fn create_limit(&mut self, net: &str) -> Result<()> {
        let n = self.next();
        let name = format!("t{}-box-{}", self.id, n);
        let mut fields = vec![("name", Value::from(name))];
        for field in LIMIT_FIELDS {
            fields.push((field, Value::from(self.limit_value(field))));
        }
        let body = object(fields);
        self.create(net, Kind::Limits, "create limit", &body, 200, body.clone())
    }

    fn patch_limit(&mut self, net: &str) -> Result<()> {
        let Some((id, limit)) = self.pick_own(net, Kind::Limits) else {
            return Ok(());
        };
        let mut fields = Vec::new();
        for field in LIMIT_FIELDS {
            if fields.is_empty() && field == "max_z" || self.rng.chance(30) {
                fields.push((field, Value::from(self.limit_value(field))));
            }
        }
        let body = object(fields);
        let expected = merged(limit, &body);
        self.patch(net, Kind::Limits, "patch limit", &id, &body, &expected)
    }

    fn delete_simple(&mut self, net: &str, kind: Kind, status: u16) -> Result<()> {
        let Some((key, _)) = self.pick_own(net, kind) else {
            return Ok(());
        };
        let path = format!("/nets/{net}/{}/{key}", kind.path());
        let op = match kind {
            Kind::Streams => "delete stream",
            Kind::Limits => "delete limit",
            _ => "delete setting",
        };
        self.call(op, "DELETE", &path, None, status)?;
        self.record(net, |model| {
            model.remove(kind, &key);
            Ok(())
        })
    }
}
