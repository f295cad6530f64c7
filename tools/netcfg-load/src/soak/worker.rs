//! One soak client: a thread that reads and writes at random, owns the
//! items it creates (so the model of acknowledged writes is exact whatever
//! the interleaving), and records every write the server acknowledged.
//!
//! Ownership: worker `w` names its devices `{w:02X}:5A:....`, its roles,
//! streams and limits `t{w}-...`, its setting keys `t{w}_...`; it starts and
//! stops only the configurations it owns. Several workers write into the
//! shared configurations at once, so the server's grouped commits and its
//! readers run concurrently with every kind of change.

use std::{
    collections::BTreeMap,
    sync::{
        Arc, Mutex, PoisonError,
        atomic::{AtomicBool, Ordering},
    },
};

use anyhow::{Context, Result, bail};

use super::model::{Kind, Model, Net};
use crate::server::{Client, Response, Rng, Value, object};

/// What every worker shares.
#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) model: Mutex<Model>,
    pub(crate) errors: Mutex<Vec<String>>,
    pub(crate) stop: AtomicBool,
    pub(crate) port: u16,
    /// The configurations every worker writes into.
    pub(crate) shared_nets: Vec<String>,
}

impl Shared {
    pub(crate) fn model(&self) -> std::sync::MutexGuard<'_, Model> {
        self.model.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn error(&self, message: String) {
        self.errors
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(message);
    }
}

/// How many items of each kind a worker keeps in each configuration, about.
fn target(kind: Kind) -> usize {
    match kind {
        Kind::Devices => 12,
        Kind::Roles | Kind::Limits => 3,
        Kind::Streams => 2,
        Kind::Settings => 4,
    }
}

const LED_BRIGHTNESS: [&str; 4] = ["Off", "Very Dim", "Dim", "Bright"];
const SENSOR_PERIODS: [i64; 3] = [0, 975, 9750];
const ROLE_PERIODS: [i64; 3] = [9750, 48750, 97500];
const ROLE_OPTIONAL: [&str; 8] = [
    "window_duration",
    "device_count",
    "accelerometer_period",
    "gyroscope_period",
    "quaternion_period",
    "magnetometer_period",
    "pressure_period",
    "temperature_period",
];
const LIMIT_FIELDS: [&str; 6] = ["min_x", "min_y", "min_z", "max_x", "max_y", "max_z"];

/// One client thread.
#[derive(Debug)]
pub(crate) struct Worker {
    id: usize,
    rng: Rng,
    client: Client,
    shared: Arc<Shared>,
    counter: u64,
    /// Configurations only this worker writes into (1 to 3 of them).
    private: Vec<String>,
    /// Configurations this worker starts and stops.
    lifecycle: Vec<String>,
    /// Per running configuration, this worker's devices that were enabled
    /// when it started (the ones the running network knows).
    running_devices: BTreeMap<String, Vec<String>>,
    /// Requests sent, by operation.
    pub(crate) counts: BTreeMap<&'static str, u64>,
}

impl Worker {
    pub(crate) fn new(id: usize, rng: Rng, shared: Arc<Shared>, lifecycle: Vec<String>) -> Worker {
        Worker {
            id,
            rng,
            client: Client::new(shared.port),
            shared,
            counter: 0,
            private: Vec::new(),
            lifecycle,
            running_devices: BTreeMap::new(),
            counts: BTreeMap::new(),
        }
    }

    /// Runs until told to stop; every failure is recorded, none ends it.
    pub(crate) fn run(mut self) -> Self {
        if let Err(error) = self.create_private() {
            self.shared.error(format!("worker {}: {error:#}", self.id));
        }
        while !self.shared.stop.load(Ordering::Relaxed) {
            if let Err(error) = self.step() {
                self.shared.error(format!("worker {}: {error:#}", self.id));
            }
        }
        self
    }

    fn next(&mut self) -> u64 {
        self.counter += 1;
        self.counter
    }

    fn owns(&self, kind: Kind, item: &Value) -> bool {
        let Some(name) = kind.name_of(item) else {
            return false;
        };
        match kind {
            Kind::Devices => name.starts_with(&format!("{:02X}:5A:", self.id)),
            Kind::Settings => name.starts_with(&format!("t{}_", self.id)),
            _ => name.starts_with(&format!("t{}-", self.id)),
        }
    }

    /// This worker's items of `kind` in `net`, as the model holds them.
    fn own(&self, net: &str, kind: Kind) -> Vec<(String, Value)> {
        let model = self.shared.model();
        model
            .nets
            .get(net)
            .map(|net| {
                net.items(kind)
                    .filter(|(_, item)| self.owns(kind, item))
                    .map(|(key, item)| (key.clone(), item.clone()))
                    .collect()
            })
            .unwrap_or_default()
    }

    fn record(&self, net: &str, change: impl FnOnce(&mut Net) -> Result<()>) -> Result<()> {
        let mut model = self.shared.model();
        let net = model
            .nets
            .get_mut(net)
            .with_context(|| format!("{net} is not in the model"))?;
        change(net)
    }

    /// Sends a request; any status but `expected` is an error.
    fn call(
        &mut self,
        op: &'static str,
        method: &str,
        path: &str,
        body: Option<&Value>,
        expected: u16,
    ) -> Result<Response> {
        *self.counts.entry(op).or_default() += 1;
        let response = self
            .client
            .send(method, path, body)
            .with_context(|| format!("{op}: {method} {path}"))?;
        if response.status != expected {
            let sent = body.map(|b| format!(" {b}")).unwrap_or_default();
            bail!(
                "{op}: {method} {path}{sent} answered {} {} (expected {expected})",
                response.status,
                response.text()
            );
        }
        Ok(response)
    }

    /// Compares what the server answered with what the model expects.
    fn expect_equal(&self, what: &str, expected: &Value, answered: &Value) -> Result<()> {
        if expected != answered {
            bail!("{what}: expected {expected}, the server answered {answered}");
        }
        Ok(())
    }

    fn step(&mut self) -> Result<()> {
        let roll = self.rng.below(1000);
        let net = self.pick_net();
        match roll {
            0..=449 => self.read(&net),
            450..=979 => self.write(&net),
            // Now and then (a start or stop every few seconds per owner):
            // each start of a shared configuration adds notifications for
            // every device, which the server keeps.
            980..=981 => self.lifecycle_step(),
            982..=991 => self.command(),
            _ => self.private_step(),
        }
    }

    fn pick_net(&mut self) -> String {
        let mut nets = self.shared.shared_nets.clone();
        nets.extend(self.private.iter().cloned());
        self.rng.pick(&nets).cloned().unwrap_or_default()
    }

    fn pick_kind(&mut self) -> Kind {
        match self.rng.below(100) {
            0..=34 => Kind::Devices,
            35..=44 => Kind::Roles,
            45..=54 => Kind::Streams,
            55..=69 => Kind::Limits,
            _ => Kind::Settings,
        }
    }

    // ---- reads ----

    fn read(&mut self, net: &str) -> Result<()> {
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
        let own = self.own(net, kind);
        let Some((key, expected)) = self.rng.pick(&own).cloned() else {
            return Ok(());
        };
        let path = format!("/nets/{net}/{}/{key}", kind.path());
        let response = self.call("get", "GET", &path, None, 200)?;
        let answered = response.payload(kind.one_key())?;
        self.expect_equal(&format!("GET {path}"), &expected, &answered)
    }

    // ---- writes ----

    fn write(&mut self, net: &str) -> Result<()> {
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

    /// A device body, and the device the server must then hold (less its id).
    fn device_body(&mut self, net: &str, serial: &str) -> (Value, Value) {
        let mut roles: Vec<i64> = self
            .own(net, Kind::Roles)
            .iter()
            .filter_map(|(key, _)| key.parse().ok())
            .collect();
        roles.extend([2, 4]);
        let role = self.rng.pick(&roles).copied().unwrap_or(4);
        let mut interface = vec![
            ("identifier", Value::from(0)),
            ("role_id", Value::from(role)),
        ];
        if role == 2 || self.rng.chance(30) {
            interface.push(("x", Value::from(self.rng.range(-50_000, 50_000))));
            interface.push(("y", Value::from(self.rng.range(-50_000, 50_000))));
            interface.push(("z", Value::from(self.rng.range(0, 5_000))));
        }
        let interfaces = Value::Array(vec![object(interface)]);
        let name = if self.rng.chance(70) {
            Value::from(format!("w{} device {}", self.id, self.rng.below(1000)))
        } else {
            Value::Null
        };
        let disabled = Value::from(self.rng.chance(20));
        let expected = object([
            ("serial_number", Value::from(serial)),
            ("interfaces", interfaces.clone()),
            ("disabled", disabled.clone()),
            ("name", name.clone()),
        ]);
        // The interfaces may also travel as a string that holds the array.
        let sent_interfaces = if self.rng.chance(20) {
            Value::from(interfaces.to_string())
        } else {
            interfaces
        };
        let mut body = vec![
            ("serial_number", Value::from(serial)),
            ("interfaces", sent_interfaces),
            ("disabled", disabled),
        ];
        if name != Value::Null {
            body.push(("name", name));
        }
        (object(body), expected)
    }

    fn create_device(&mut self, net: &str) -> Result<()> {
        let n = self.next();
        let serial = format!("{:02X}:5A:{:04X}", self.id, n & 0xFFFF);
        let (body, mut expected) = self.device_body(net, &serial);
        let path = format!("/nets/{net}/devices");
        let response = self.call("create device", "POST", &path, Some(&body), 201)?;
        let answered = response.payload("device")?;
        if let (Some(members), Some(id)) = (expected.as_object_mut(), answered.get("id")) {
            members.insert("id".to_owned(), id.clone());
        }
        self.record(net, |model| model.put(Kind::Devices, expected.clone()))?;
        self.expect_equal(&format!("POST {path} {body}"), &expected, &answered)
    }

    /// The path key of a device: its serial number, or now and then its id.
    fn device_key(&mut self, serial: &str, device: &Value) -> String {
        match device.get("id").and_then(Value::as_i64) {
            Some(id) if self.rng.chance(30) => id.to_string(),
            _ => serial.to_owned(),
        }
    }

    fn patch_device(&mut self, net: &str) -> Result<()> {
        let own = self.own(net, Kind::Devices);
        let Some((serial, device)) = self.rng.pick(&own).cloned() else {
            return Ok(());
        };
        let (body, mut expected) = self.device_body(net, &serial);
        if let (Some(members), Some(id)) = (expected.as_object_mut(), device.get("id")) {
            members.insert("id".to_owned(), id.clone());
        }
        let key = self.device_key(&serial, &device);
        let path = format!("/nets/{net}/devices/{key}");
        let response = self.call("patch device", "PATCH", &path, Some(&body), 200)?;
        self.record(net, |model| model.put(Kind::Devices, expected.clone()))?;
        let answered = response.payload("device")?;
        self.expect_equal(&format!("PATCH {path} {body}"), &expected, &answered)
    }

    fn delete_device(&mut self, net: &str) -> Result<()> {
        let own = self.own(net, Kind::Devices);
        let Some((serial, device)) = self.rng.pick(&own).cloned() else {
            return Ok(());
        };
        let key = self.device_key(&serial, &device);
        let path = format!("/nets/{net}/devices/{key}");
        self.call("delete device", "DELETE", &path, None, 200)?;
        self.record(net, |model| {
            model.remove(Kind::Devices, &serial);
            Ok(())
        })
    }

    /// Random role fields (the ones a role body may hold, less `name`).
    fn role_fields(&mut self, all: bool) -> Vec<(&'static str, Value)> {
        let mut fields = Vec::new();
        if all || self.rng.chance(40) {
            let period = *self.rng.pick(&ROLE_PERIODS).unwrap_or(&97_500);
            fields.push(("network_period", Value::from(period)));
        }
        for field in ROLE_OPTIONAL {
            if self.rng.chance(25) {
                let value = match field {
                    // Below every period used, so always shorter than it.
                    "window_duration" => *self.rng.pick(&[0, 975]).unwrap_or(&0),
                    "device_count" => self.rng.range(0, 50),
                    _ => *self.rng.pick(&SENSOR_PERIODS).unwrap_or(&0),
                };
                fields.push((field, Value::from(value)));
            }
        }
        if self.rng.chance(25) {
            let brightness = *self.rng.pick(&LED_BRIGHTNESS).unwrap_or(&"Dim");
            fields.push(("led_brightness", Value::from(brightness)));
        }
        if fields.is_empty() {
            fields.push(("device_count", Value::from(self.rng.range(0, 50))));
        }
        fields
    }

    fn create_role(&mut self, net: &str) -> Result<()> {
        let n = self.next();
        let name = format!("t{}-role-{}", self.id, n);
        let mut fields = self.role_fields(true);
        fields.push(("name", Value::from(name.as_str())));
        let body = object(fields);
        let path = format!("/nets/{net}/roles");
        let response = self.call("create role", "POST", &path, Some(&body), 201)?;
        let answered = response.payload("role")?;
        let mut expected = object(
            ROLE_OPTIONAL
                .iter()
                .map(|field| (*field, Value::from(0)))
                .chain([("led_brightness", Value::from("Bright"))]),
        );
        if let (Some(members), Value::Object(sent)) = (expected.as_object_mut(), &body) {
            members.extend(sent.clone());
            if let Some(id) = answered.get("id") {
                members.insert("id".to_owned(), id.clone());
            }
        }
        self.record(net, |model| model.put(Kind::Roles, expected.clone()))?;
        self.expect_equal(&format!("POST {path} {body}"), &expected, &answered)
    }

    fn patch_role(&mut self, net: &str) -> Result<()> {
        let own = self.own(net, Kind::Roles);
        let Some((id, role)) = self.rng.pick(&own).cloned() else {
            return Ok(());
        };
        let mut fields = self.role_fields(false);
        if self.rng.chance(15) {
            let n = self.next();
            let name = format!("t{}-role-{}", self.id, n);
            fields.push(("name", Value::from(name)));
        }
        let body = object(fields);
        let path = format!("/nets/{net}/roles/{id}");
        let response = self.call("patch role", "PATCH", &path, Some(&body), 200)?;
        let mut expected = role;
        if let (Some(members), Value::Object(sent)) = (expected.as_object_mut(), &body) {
            members.extend(sent.clone());
        }
        self.record(net, |model| model.put(Kind::Roles, expected.clone()))?;
        let answered = response.payload("role")?;
        self.expect_equal(&format!("PATCH {path} {body}"), &expected, &answered)
    }

    fn delete_role(&mut self, net: &str) -> Result<()> {
        let used: Vec<i64> = self
            .own(net, Kind::Devices)
            .iter()
            .flat_map(|(_, device)| {
                device
                    .get("interfaces")
                    .and_then(Value::as_array)
                    .map(Vec::as_slice)
                    .unwrap_or_default()
                    .iter()
                    .filter_map(|interface| interface.get("role_id").and_then(Value::as_i64))
                    .collect::<Vec<_>>()
            })
            .collect();
        let unused: Vec<String> = self
            .own(net, Kind::Roles)
            .into_iter()
            .map(|(id, _)| id)
            .filter(|id| id.parse().is_ok_and(|id: i64| !used.contains(&id)))
            .collect();
        let Some(id) = self.rng.pick(&unused).cloned() else {
            return Ok(());
        };
        let path = format!("/nets/{net}/roles/{id}");
        self.call("delete role", "DELETE", &path, None, 204)?;
        self.record(net, |model| {
            model.remove(Kind::Roles, &id);
            Ok(())
        })
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
        let path = format!("/nets/{net}/data-streams");
        let response = self.call("create stream", "POST", &path, Some(&body), 201)?;
        let answered = response.payload("stream")?;
        let mut expected = body.clone();
        if let (Some(members), Some(id)) = (expected.as_object_mut(), answered.get("id")) {
            members.insert("id".to_owned(), id.clone());
        }
        self.record(net, |model| model.put(Kind::Streams, expected.clone()))?;
        self.expect_equal(&format!("POST {path} {body}"), &expected, &answered)
    }

    fn patch_stream(&mut self, net: &str) -> Result<()> {
        let own = self.own(net, Kind::Streams);
        let Some((id, stream)) = self.rng.pick(&own).cloned() else {
            return Ok(());
        };
        let name = stream
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let body = self.stream_body(&name);
        let path = format!("/nets/{net}/data-streams/{id}");
        let response = self.call("patch stream", "PATCH", &path, Some(&body), 200)?;
        let mut expected = body.clone();
        if let (Some(members), Some(id)) = (expected.as_object_mut(), stream.get("id")) {
            members.insert("id".to_owned(), id.clone());
        }
        self.record(net, |model| model.put(Kind::Streams, expected.clone()))?;
        let answered = response.payload("stream")?;
        self.expect_equal(&format!("PATCH {path} {body}"), &expected, &answered)
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
        let path = format!("/nets/{net}/position_limits");
        let response = self.call("create limit", "POST", &path, Some(&body), 200)?;
        let answered = response.payload("position_limit")?;
        let mut expected = body.clone();
        if let (Some(members), Some(id)) = (expected.as_object_mut(), answered.get("id")) {
            members.insert("id".to_owned(), id.clone());
        }
        self.record(net, |model| model.put(Kind::Limits, expected.clone()))?;
        self.expect_equal(&format!("POST {path} {body}"), &expected, &answered)
    }

    fn patch_limit(&mut self, net: &str) -> Result<()> {
        let own = self.own(net, Kind::Limits);
        let Some((id, limit)) = self.rng.pick(&own).cloned() else {
            return Ok(());
        };
        let mut fields = Vec::new();
        for field in LIMIT_FIELDS {
            if fields.is_empty() && field == "max_z" || self.rng.chance(30) {
                fields.push((field, Value::from(self.limit_value(field))));
            }
        }
        let body = object(fields);
        let path = format!("/nets/{net}/position_limits/{id}");
        let response = self.call("patch limit", "PATCH", &path, Some(&body), 200)?;
        let mut expected = limit;
        if let (Some(members), Value::Object(sent)) = (expected.as_object_mut(), &body) {
            members.extend(sent.clone());
        }
        self.record(net, |model| model.put(Kind::Limits, expected.clone()))?;
        let answered = response.payload("position_limit")?;
        self.expect_equal(&format!("PATCH {path} {body}"), &expected, &answered)
    }

    fn delete_simple(&mut self, net: &str, kind: Kind, status: u16) -> Result<()> {
        let own = self.own(net, kind);
        let Some((key, _)) = self.rng.pick(&own).cloned() else {
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

    fn create_setting(&mut self, net: &str) -> Result<()> {
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
        self.record(net, |model| model.put(Kind::Settings, expected.clone()))?;
        let answered = response.payload("setting")?;
        self.expect_equal(&format!("POST {path} {body}"), &expected, &answered)
    }

    /// PATCH (existing keys) or, in a private configuration, PUT: PUT
    /// replaces the whole set (keys left out are deleted, catalogue keys
    /// return to their defaults), so only a sole writer can model it.
    fn change_settings(&mut self, net: &str) -> Result<()> {
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

    // ---- configurations: lifecycle, commands, create, copy, delete ----

    fn is_running(&self, net: &str) -> bool {
        self.shared
            .model()
            .nets
            .get(net)
            .is_some_and(|net| net.running)
    }

    fn lifecycle_step(&mut self) -> Result<()> {
        let Some(net) = self.rng.pick(&self.lifecycle).cloned() else {
            return Ok(());
        };
        let path = format!("/nets/{net}");
        if self.is_running(&net) {
            let body = object([("action", Value::from("stop"))]);
            self.call("stop", "POST", &path, Some(&body), 200)?;
            self.running_devices.remove(&net);
            self.record(&net, |model| {
                model.running = false;
                Ok(())
            })
        } else {
            let enabled: Vec<String> = self
                .own(&net, Kind::Devices)
                .into_iter()
                .filter(|(_, device)| device.get("disabled") == Some(&Value::Bool(false)))
                .map(|(serial, _)| serial)
                .collect();
            let body = object([("action", Value::from("start"))]);
            self.call("start", "POST", &path, Some(&body), 200)?;
            self.running_devices.insert(net.clone(), enabled);
            self.record(&net, |model| {
                model.running = true;
                Ok(())
            })
        }
    }

    /// A command to one of this worker's devices of a running configuration.
    fn command(&mut self) -> Result<()> {
        let running: Vec<(String, Vec<String>)> = self
            .running_devices
            .iter()
            .map(|(net, devices)| (net.clone(), devices.clone()))
            .collect();
        let Some((net, devices)) = self.rng.pick(&running).cloned() else {
            return Ok(());
        };
        let Some(serial) = self.rng.pick(&devices).cloned() else {
            return Ok(());
        };
        let action = match self.rng.below(4) {
            0 => object([("action", Value::from("get_device_attributes"))]),
            1 => object([("action", Value::from("clear_device_error"))]),
            2 => object([("action", Value::from("soft_reset"))]),
            _ => object([
                ("action", Value::from("set_led")),
                ("color", Value::from("green")),
                ("mode", Value::from("flash")),
                ("timeout", Value::from(5)),
            ]),
        };
        let path = format!("/nets/{net}/devices/{serial}/action");
        self.call("device command", "POST", &path, Some(&action), 200)?;
        Ok(())
    }

    fn create_private(&mut self) -> Result<()> {
        let n = self.next();
        let name = format!("soak-w{}-{}", self.id, n);
        let body = object([
            ("name", Value::from(name.as_str())),
            ("instance", Value::from("sim")),
        ]);
        self.call("create net", "POST", "/nets", Some(&body), 201)?;
        let mut model = self.shared.model();
        let template = model.template.clone();
        model.nets.insert(name.clone(), template);
        drop(model);
        self.private.push(name.clone());
        self.lifecycle.push(name);
        Ok(())
    }

    fn private_step(&mut self) -> Result<()> {
        match (self.private.len(), self.rng.below(3)) {
            (0, _) | (1, 0) => self.create_private(),
            (1 | 2, _) => self.copy_private(),
            _ => self.delete_private(),
        }
    }

    fn copy_private(&mut self) -> Result<()> {
        let Some(from) = self.rng.pick(&self.private).cloned() else {
            return Ok(());
        };
        let n = self.next();
        let name = format!("soak-w{}-{}", self.id, n);
        let body = object([
            ("action", Value::from("copy")),
            ("name", Value::from(name.as_str())),
        ]);
        self.call(
            "copy net",
            "POST",
            &format!("/nets/{from}"),
            Some(&body),
            200,
        )?;
        let mut model = self.shared.model();
        let mut copy = model
            .nets
            .get(&from)
            .cloned()
            .context("copied a net the model lacks")?;
        copy.running = false;
        model.nets.insert(name.clone(), copy);
        drop(model);
        self.private.push(name.clone());
        self.lifecycle.push(name);
        Ok(())
    }

    fn delete_private(&mut self) -> Result<()> {
        let Some(name) = self.rng.pick(&self.private).cloned() else {
            return Ok(());
        };
        if self.rng.chance(50) {
            self.call("delete net", "DELETE", &format!("/nets/{name}"), None, 204)?;
        } else {
            let body = object([("action", Value::from("delete"))]);
            self.call(
                "delete net",
                "POST",
                &format!("/nets/{name}"),
                Some(&body),
                200,
            )?;
        }
        self.shared.model().nets.remove(&name);
        self.private.retain(|net| *net != name);
        self.lifecycle.retain(|net| *net != name);
        self.running_devices.remove(&name);
        Ok(())
    }
}
