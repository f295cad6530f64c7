//! The outputs of running configurations (decisions §14): their live events
//! (positions, zone enters and exits, notifications, device happenings,
//! state changes) published to MQTT brokers and POSTed to webhooks.
//!
//! What holds whatever the peers do:
//! - **The caller is never slowed.** [`Outputs::send`] only thins positions
//!   by rate and pushes onto each output's queue under a short lock; JSON is
//!   rendered, and the network written, by the output's own tokio task (MQTT)
//!   or thread (webhook: the HTTP client blocks, so it never runs on a tokio
//!   worker).
//! - **Queues are bounded** ([`QUEUE_BOUND`] entries per output). When one is
//!   full the oldest queued position is dropped (counted in `dropped`, one
//!   for one), or, with no position queued, the incoming event (counted in
//!   `dropped_events`). Positions thinned by `max_rate_hz` are not drops.
//! - **Peers that are down are retried** with a back-off from 100 ms,
//!   doubling, capped at 5 s, and what waited in the queue is delivered in
//!   order once they are back (at least once: a message may be repeated
//!   after a reconnection, never lost while it fits in the queue).
//! - **Credentials are never logged** nor shown by `Debug`; an output whose
//!   credentials are missing (a copied or uploaded configuration) never
//!   connects and says why in its status.
//! - This crate has no HTTP server and no store: the service layer hands it
//!   the plans ([`OutputPlan`]) and the events, and reads the statuses.
//!
//! The topics, payloads and delivery rules are described for integrators in
//! `docs/outputs.md`.

mod backoff;
mod http_client;
mod mqtt;
mod payload;
mod queue;
mod status;
mod tls;
mod webhook;

pub use http_client::http_agent;
pub use tls::TlsError;

use std::{
    collections::BTreeMap,
    fmt,
    sync::{Arc, Mutex, MutexGuard},
    time::Duration,
};

use netcfg_model::{
    ConfigName, ItemName, Notification, OutputEventKind, OutputPlan, OutputStatus,
    event::{DeviceEvent, PositionEntry, StateChange, StateEvent, ZoneEvent},
};

use crate::{
    queue::{Queue, QueuedEvent, RateLimit},
    status::Counters,
};

/// The most entries one output's queue holds.
pub const QUEUE_BOUND: usize = 65_536;

/// How long a stopping output may keep delivering what it has queued.
const STOP_GRACE: Duration = Duration::from_secs(2);

/// A live event of one configuration, for its outputs.
#[derive(Debug, Clone)]
pub enum OutputEvent {
    /// A batch of positions delivered at `time_ms` (ms since the Unix
    /// epoch), each with the network time that solved it.
    Positions {
        /// When they were delivered, ms since the Unix epoch.
        time_ms: u64,
        /// Each tag's position.
        positions: Arc<[PositionEntry]>,
    },
    /// A tag entered or left a zone.
    Zone(Arc<ZoneEvent>),
    /// A new notification; rendered as `NotificationEvent { net, notification }`.
    Notification(Arc<Notification>),
    /// A device joined, was lost or reported health.
    Device(Arc<DeviceEvent>),
    /// The configuration's state changed. Also remembered as its current
    /// state, which MQTT outputs republish (retained) on every reconnection.
    State(StateEvent),
}

impl OutputEvent {
    fn kind(&self) -> OutputEventKind {
        match self {
            Self::Positions { .. } => OutputEventKind::Position,
            Self::Zone(_) => OutputEventKind::Zone,
            Self::Notification(_) => OutputEventKind::Notification,
            Self::Device(_) => OutputEventKind::Device,
            Self::State(_) => OutputEventKind::State,
        }
    }
}

/// What an output's task needs to run.
#[derive(Debug)]
pub(crate) struct OutputContext {
    /// The configuration's name.
    pub(crate) net: String,
    /// The output and its credentials.
    pub(crate) plan: OutputPlan,
    pub(crate) queue: Arc<Queue>,
    pub(crate) counters: Arc<Counters>,
    /// The configuration's state when the output started.
    pub(crate) state: StateEvent,
}

/// One output as `send` sees it.
#[derive(Debug)]
struct Live {
    /// Which kinds it carries, by `OutputEventKind as usize` bit.
    carries: u8,
    queue: Arc<Queue>,
}

fn kind_bit(kind: OutputEventKind) -> u8 {
    1 << (kind as u8)
}

/// One output of a configuration: its plan and its current (or last) run.
#[derive(Debug)]
struct Slot {
    plan: OutputPlan,
    live: Arc<Live>,
    counters: Arc<Counters>,
    running: bool,
}

/// What this crate knows of one configuration.
#[derive(Debug)]
struct Net {
    /// Its current state, given to outputs that start.
    state: StateEvent,
    running: bool,
    slots: BTreeMap<ItemName, Slot>,
    /// The running outputs, for `send` to clone out of the lock.
    live: Arc<[Arc<Live>]>,
}

impl Net {
    fn refresh_live(&mut self) {
        self.live = self
            .slots
            .values()
            .filter(|slot| slot.running)
            .map(|slot| slot.live.clone())
            .collect();
    }
}

#[derive(Debug, Default)]
struct Registry {
    nets: BTreeMap<ConfigName, Net>,
}

/// The outputs of every running configuration. Cheap to clone (`Arc`
/// inside).
#[derive(Clone, Default)]
pub struct Outputs {
    registry: Arc<Mutex<Registry>>,
}

impl fmt::Debug for Outputs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Not the plans: they hold credentials (whose Debug hides them, but
        // the list would be long anyway).
        let nets = self.lock().nets.len();
        f.debug_struct("Outputs").field("nets", &nets).finish()
    }
}

impl Outputs {
    /// No outputs yet.
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> MutexGuard<'_, Registry> {
        netcfg_model::sync::lock(&self.registry)
    }

    /// Runs `plans` as configuration `net`'s outputs (only the enabled
    /// ones), replacing what ran for `net`: an output whose plan is
    /// unchanged keeps its connection, queue and counters; a changed one
    /// restarts (new counters); a removed or disabled one stops. Called on a
    /// tokio runtime (MQTT outputs are tokio tasks).
    ///
    /// The first run of a configuration's outputs (or the first after a
    /// stop) makes its state `started`, which MQTT outputs publish retained.
    pub fn run(&self, net: &ConfigName, plans: Vec<OutputPlan>) {
        let mut registry = self.lock();
        let entry = registry.nets.entry(net.clone()).or_insert_with(|| Net {
            state: payload::state_event(net, StateChange::Started),
            running: false,
            slots: BTreeMap::new(),
            live: Arc::from([]),
        });
        if !entry.running {
            entry.state = payload::state_event(net, StateChange::Started);
            entry.running = true;
        }
        let mut wanted: BTreeMap<ItemName, OutputPlan> = plans
            .into_iter()
            .map(|plan| (plan.output.name.clone(), plan))
            .collect();
        // Stop what changed or went, keep what is the same.
        let names: Vec<ItemName> = entry.slots.keys().cloned().collect();
        for name in names {
            let new_plan = wanted.get(&name).filter(|plan| plan.output.enabled);
            let Some(slot) = entry.slots.get_mut(&name) else {
                continue;
            };
            if slot.running && new_plan == Some(&slot.plan) {
                wanted.remove(&name);
                continue;
            }
            if slot.running {
                // A restart to the same broker and topics must not publish
                // "stopped" from the old connection: it could arrive after
                // the new one's "started".
                let same_place = new_plan.is_some_and(|plan| {
                    plan.output.url == slot.plan.output.url
                        && plan.output.topic_prefix == slot.plan.output.topic_prefix
                });
                stop_slot(net, slot, !same_place);
            }
            if !wanted.contains_key(&name) {
                entry.slots.remove(&name);
            }
        }
        for (name, plan) in wanted {
            if !plan.output.enabled {
                continue;
            }
            let slot = start_slot(net, plan, &entry.state);
            entry.slots.insert(name, slot);
        }
        entry.refresh_live();
    }

    /// Stops every output of `net`: MQTT outputs publish the retained state
    /// `stopped` and get a short grace (at most about 2 s, in the
    /// background: this returns at once) to flush, then disconnect cleanly
    /// (so no last will). Their statuses stay readable, with `running`
    /// false, until the next [`Outputs::run`] or [`Outputs::forget`].
    pub fn stop(&self, net: &ConfigName) {
        let mut registry = self.lock();
        let Some(entry) = registry.nets.get_mut(net) else {
            return;
        };
        entry.running = false;
        entry.state = payload::state_event(net, StateChange::Stopped);
        for slot in entry.slots.values_mut() {
            if slot.running {
                stop_slot(net, slot, true);
            }
        }
        entry.refresh_live();
    }

    /// True when `net` has an output running that carries events of
    /// `kind`: a caller need not prepare what nobody takes.
    pub fn carries(&self, net: &ConfigName, kind: OutputEventKind) -> bool {
        let bit = kind_bit(kind);
        self.lock()
            .nets
            .get(net)
            .is_some_and(|entry| entry.live.iter().any(|live| live.carries & bit != 0))
    }

    /// Drops everything about `net` (deleted or renamed), stopping its
    /// outputs if any. They flush what they hold (for instance a `deleted`
    /// state event sent just before) but publish no `stopped`.
    pub fn forget(&self, net: &ConfigName) {
        let removed = self.lock().nets.remove(net);
        if let Some(mut entry) = removed {
            for slot in entry.slots.values_mut() {
                if slot.running {
                    stop_slot(net, slot, false);
                }
            }
        }
    }

    /// Hands one event of `net` to each of its running outputs that carries
    /// the event's kind (MQTT outputs always carry state events: their
    /// retained `{prefix}/state` is their liveness). Never blocks nor
    /// awaits: it only rate-limits and queues.
    pub fn send(&self, net: &ConfigName, event: OutputEvent) {
        let live = {
            let mut registry = self.lock();
            let Some(entry) = registry.nets.get_mut(net) else {
                return;
            };
            if let OutputEvent::State(state) = &event {
                entry.state = state.clone();
            }
            entry.live.clone()
        };
        let bit = kind_bit(event.kind());
        let mut targets = live
            .iter()
            .filter(|live| live.carries & bit != 0)
            .peekable();
        if targets.peek().is_none() {
            return;
        }
        match event {
            OutputEvent::Positions { time_ms, positions } => {
                for live in targets {
                    live.queue.push_positions(time_ms, &positions);
                }
            }
            OutputEvent::Zone(zone) => {
                targets.for_each(|live| live.queue.push_event(QueuedEvent::Zone(zone.clone())));
            }
            OutputEvent::Notification(notification) => targets.for_each(|live| {
                live.queue
                    .push_event(QueuedEvent::Notification(notification.clone()));
            }),
            OutputEvent::Device(device) => {
                targets.for_each(|live| live.queue.push_event(QueuedEvent::Device(device.clone())));
            }
            OutputEvent::State(state) => {
                targets.for_each(|live| live.queue.push_event(QueuedEvent::State(state.clone())));
            }
        }
    }

    /// One output's status (`None` if this crate never ran it, or forgot
    /// it).
    pub fn status(&self, net: &ConfigName, output: &ItemName) -> Option<OutputStatus> {
        let registry = self.lock();
        let slot = registry.nets.get(net)?.slots.get(output)?;
        Some(slot_status(slot))
    }

    /// Every known output's status, for `/metrics`.
    pub fn statuses(&self) -> Vec<(ConfigName, ItemName, OutputStatus)> {
        let registry = self.lock();
        registry
            .nets
            .iter()
            .flat_map(|(net, entry)| {
                entry
                    .slots
                    .iter()
                    .map(move |(name, slot)| (net.clone(), name.clone(), slot_status(slot)))
            })
            .collect()
    }
}

fn slot_status(slot: &Slot) -> OutputStatus {
    slot.counters.status(slot.live.queue.len())
}

/// The `last_error` of an output that lacks credentials.
fn missing_credentials_error(missing: &[&str]) -> String {
    let what = match missing {
        [one] => format!("its {one}"),
        [first, second] => format!("its {first} and {second}"),
        _ => format!("its {}", missing.join(", ")),
    };
    format!(
        "lacks {what}: the configuration was copied or uploaded without its credentials; PATCH the output to set it again"
    )
}

/// Starts one output: its queue, counters and task.
fn start_slot(net: &ConfigName, plan: OutputPlan, state: &StateEvent) -> Slot {
    let output = &plan.output;
    let counters = Arc::new(Counters::default());
    counters.set_running(true);
    let queue = Arc::new(Queue::new(
        RateLimit::from_hz(output.max_rate_hz.get()),
        counters.clone(),
    ));
    let mqtt = output.url.scheme().is_mqtt();
    let mut carries = output
        .events
        .iter()
        .fold(0u8, |bits, kind| bits | kind_bit(*kind));
    if mqtt {
        carries |= kind_bit(OutputEventKind::State);
    }
    let live = Arc::new(Live {
        carries,
        queue: queue.clone(),
    });
    let missing = plan.secrets.missing_for(output);
    if !missing.is_empty() {
        let error = missing_credentials_error(&missing);
        log::warn!("output {} of {net} {error}", output.name);
        counters.set_error(error);
        // It queues (bounded) and drops like any other, and never connects.
        return Slot {
            plan,
            live,
            counters,
            running: true,
        };
    }
    let slot_plan = plan.clone();
    let context = OutputContext {
        net: net.to_string(),
        plan,
        queue,
        counters: counters.clone(),
        state: state.clone(),
    };
    let started = if mqtt {
        mqtt::start(context)
    } else {
        // A webhook that carries state hears of the start like of any
        // other state change.
        if slot_plan.output.carries(OutputEventKind::State) {
            context
                .queue
                .push_event(QueuedEvent::State(context.state.clone()));
        } else {
            context.queue.set_last_state(&context.state);
        }
        webhook::start(context)
    };
    if let Err(error) = started {
        log::warn!(
            "output {} of {net} cannot start: {error}",
            slot_plan.output.name
        );
        counters.set_error(error);
    }
    Slot {
        plan: slot_plan,
        live,
        counters,
        running: true,
    }
}

/// Stops one output in the background; with `say_stopped`, it first
/// publishes (MQTT) or posts (a webhook carrying state) `stopped`.
fn stop_slot(net: &ConfigName, slot: &mut Slot, say_stopped: bool) {
    slot.running = false;
    slot.counters.set_running(false);
    let output = &slot.plan.output;
    let tell =
        say_stopped && (output.url.scheme().is_mqtt() || output.carries(OutputEventKind::State));
    let last = tell.then(|| QueuedEvent::State(payload::state_event(net, StateChange::Stopped)));
    slot.live.queue.close_with(last);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_credentials_are_named() {
        assert_eq!(
            missing_credentials_error(&["password"]),
            "lacks its password: the configuration was copied or uploaded without its credentials; PATCH the output to set it again"
        );
        assert!(
            missing_credentials_error(&["username", "password"])
                .starts_with("lacks its username and password:")
        );
    }
}
