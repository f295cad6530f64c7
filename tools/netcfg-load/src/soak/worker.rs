//! One soak client: a thread that reads and writes at random, owns the
//! items it creates (so the model of acknowledged writes is exact whatever
//! the interleaving), and records every write the server acknowledged.
//!
//! Ownership: worker `w` names its devices `{w:02X}:5A:....`, its roles,
//! streams and limits `t{w}-...`, its setting keys `t{w}_...`; it starts and
//! stops only the configurations it owns. Several workers write into the
//! shared configurations at once, so the server's grouped commits and its
//! readers run concurrently with every kind of change.
//!
//! The rooms: here, a worker's state, its loop and what every operation
//! shares (its requests, the model, its own items); [`reads`] checks what
//! the server answers against the model; [`writes`] picks a change of an
//! item and makes the simple kinds' (streams, limits); [`devices`] the
//! devices and the roles they point at; [`settings`] the settings;
//! [`nets`] starts, stops, commands, creates, copies and deletes whole
//! configurations.

mod devices;
mod nets;
mod reads;
mod settings;
mod writes;

use std::{
    collections::BTreeMap,
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, Ordering},
    },
};

use anyhow::{Context, Result, bail};

use super::model::{Kind, Model, Net};
use crate::server::{Client, Response, Rng, Value};

/// What every worker shares.
#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) model: Mutex<Model>,
    pub(crate) errors: Mutex<Vec<String>>,
    pub(crate) stop: AtomicBool,
    pub(crate) port: u16,
    /// The admin token every request carries (access control on).
    pub(crate) bearer: Option<String>,
    /// The configurations every worker writes into.
    pub(crate) shared_nets: Vec<String>,
}

impl Shared {
    pub(crate) fn model(&self) -> std::sync::MutexGuard<'_, Model> {
        crate::sync::lock(&self.model)
    }

    pub(crate) fn error(&self, message: String) {
        crate::sync::lock(&self.errors).push(message);
    }
}

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
            client: match &shared.bearer {
                Some(secret) => Client::new(shared.port).with_bearer(secret),
                None => Client::new(shared.port),
            },
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

    /// One of this worker's items of `kind` in `net`, at random (`None`
    /// when it has none).
    fn pick_own(&mut self, net: &str, kind: Kind) -> Option<(String, Value)> {
        let own = self.own(net, kind);
        self.rng.pick(&own).cloned()
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

    /// Puts `expected` into the model, then checks the item the server
    /// answered `request` with against it. Recorded first: the server
    /// acknowledged the write, so it stands even when its answer is wrong.
    fn put_and_check(
        &self,
        net: &str,
        kind: Kind,
        expected: &Value,
        request: &str,
        response: &Response,
    ) -> Result<()> {
        self.record(net, |model| model.put(kind, expected.clone()))?;
        let answered = response.payload(kind.one_key())?;
        self.expect_equal(request, expected, &answered)
    }

    /// POSTs `body` as a new item of `kind` in `net`; the model then holds
    /// `expected` with the id the server gave it.
    fn create(
        &mut self,
        net: &str,
        kind: Kind,
        op: &'static str,
        body: &Value,
        status: u16,
        expected: Value,
    ) -> Result<()> {
        let path = format!("/nets/{net}/{}", kind.path());
        let response = self.call(op, "POST", &path, Some(body), status)?;
        let expected = with_id(expected, &response.payload(kind.one_key())?);
        self.put_and_check(
            net,
            kind,
            &expected,
            &format!("POST {path} {body}"),
            &response,
        )
    }

    /// PATCHes the item `key` of `kind` in `net` with `body`; the model
    /// then holds `expected`.
    fn patch(
        &mut self,
        net: &str,
        kind: Kind,
        op: &'static str,
        key: &str,
        body: &Value,
        expected: &Value,
    ) -> Result<()> {
        let path = format!("/nets/{net}/{}/{key}", kind.path());
        let response = self.call(op, "PATCH", &path, Some(body), 200)?;
        self.put_and_check(
            net,
            kind,
            expected,
            &format!("PATCH {path} {body}"),
            &response,
        )
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
}

/// `expected` with the `id` that `from` holds (the server's answer to a
/// create, or the item a patch changed): the server gives it, so the body
/// sent cannot.
fn with_id(mut expected: Value, from: &Value) -> Value {
    if let (Some(members), Some(id)) = (expected.as_object_mut(), from.get("id")) {
        members.insert("id".to_owned(), id.clone());
    }
    expected
}

/// `item` after a patch or create that sent `body`: its fields replaced by
/// those sent, the others kept.
fn merged(mut item: Value, body: &Value) -> Value {
    if let (Some(members), Value::Object(sent)) = (item.as_object_mut(), body) {
        members.extend(sent.clone());
    }
    item
}
