//! A running configuration: its link, its tasks, and what it does with the
//! network's reports.
//!
//! The session's rooms: `exchange` (request and reply with the network
//! interface device, the configuration push), `commands` (what a client
//! asks of the running network), `reports` (the network's reports as they
//! come), `device_state` (what is cached of each device, and the live feed
//! and streams told when it changes), `publishing` (the state repeated on
//! the streams), `heartbeat` (whether the link lives), `locating` and
//! `zoning`. This file holds the session itself: its parts, its start, a
//! reload and its end.

mod commands;
mod device_state;
mod exchange;
mod heartbeat;
mod locating;
mod publishing;
mod reports;
mod zoning;

use std::{
    collections::{BTreeMap, HashMap, HashSet},
    sync::{Arc, Mutex, RwLock},
    time::Duration,
};

use netcfg_model::{
    CachedDevice, ConfigName, DeviceAction, Instance, ItemName, Level, Role, SerialNumber,
    SurveyReport, UnconfiguredDevice,
};
use tokio::{
    sync::{Notify, broadcast, mpsc},
    task::JoinHandle,
};

use netcfg_model::sync::{read, write};

use netcfg_model::time::clock::wall_clock_ms;

use crate::{
    api::LiveEvent,
    driver::{Driver, DriverEvent},
    error::EngineError,
    journal::Journal,
    live,
    locator::{Locator, Truth},
    plan::NetworkPlan,
    protocol::Message,
    replay::ReplayRun,
    sim::SimHandle,
    streams::{Streams, Tap},
};
use exchange::expect_ack;
// The live items' tests build their caches with it.
#[cfg(test)]
pub(crate) use device_state::fresh_cache_entry;
pub(crate) use exchange::{push_configuration, start_network};

pub(crate) type Caches = Arc<Mutex<HashMap<ConfigName, BTreeMap<SerialNumber, CachedDevice>>>>;
pub(crate) type Unconfigured = Arc<Mutex<BTreeMap<(ConfigName, SerialNumber), UnconfiguredDevice>>>;

pub(crate) use netcfg_model::sync::lock;

/// Timing the sessions share, from the engine's options.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Timing {
    pub(crate) push_timeout: Duration,
    pub(crate) heartbeat_interval: Duration,
    pub(crate) missed_heartbeats: u32,
    /// How often the announcements and the device state are repeated.
    pub(crate) announce_period: Duration,
}

/// A simulator the engine started for a `sim` instance.
#[derive(Debug)]
pub(crate) struct SimRun {
    pub(crate) handle: SimHandle,
    pub(crate) task: JoinHandle<()>,
}

/// What a simulator instance's accuracy tally compares with: where the
/// simulator's tags truly were.
fn truth_of(simulator: Option<&SimRun>) -> Option<Truth> {
    let board = simulator?.handle.truth();
    Some(Truth(Arc::new(move |serial, network_time| {
        board.at(serial, network_time)
    })))
}

#[derive(Debug)]
pub(crate) struct Session {
    pub(crate) configuration: ConfigName,
    pub(crate) instance: Instance,
    plan: RwLock<Arc<NetworkPlan>>,
    streams: RwLock<Arc<Streams>>,
    /// The recordings listening to the streams.
    pub(crate) tap: Arc<Tap>,
    pub(crate) driver: Driver,
    pub(crate) simulator: Option<SimRun>,
    /// The player of a `replay:` instance.
    pub(crate) replay: Option<ReplayRun>,
    pub(crate) journal: Arc<Journal>,
    pub(crate) started_at_ms: u64,
    heard: Mutex<HashSet<SerialNumber>>,
    /// The CDP header's serial of this configuration (see `identity`).
    serial_number: SerialNumber,
    /// The host's name (HostnameAnnounce).
    hostname: String,
    /// The latest counters each anchor reported, with its interface.
    counters: Mutex<HashMap<SerialNumber, live::CounterReport>>,
    /// Wakes the publisher to repeat the state at once (after a reload).
    state_changed: Notify,
    tasks: Mutex<Vec<JoinHandle<()>>>,
    caches: Caches,
    unconfigured: Unconfigured,
    timing: Timing,
    /// The live state feed.
    live: broadcast::Sender<LiveEvent>,
    /// The location server: beacons in, positions out.
    locator: Mutex<Locator>,
    /// Anchors the last survey judged `bad` (AnchorHealthV5 says so).
    badly_surveyed: Mutex<HashSet<SerialNumber>>,
    /// The zones and where the tags stand with them.
    zoning: Mutex<zoning::Zoning>,
    /// The zones' device actions, for the task that sends them.
    zone_actions: mpsc::Sender<(SerialNumber, DeviceAction)>,
}

/// The parts a new session is made of.
pub(crate) struct SessionParts {
    pub(crate) plan: NetworkPlan,
    pub(crate) instance: Instance,
    pub(crate) driver: Driver,
    pub(crate) simulator: Option<SimRun>,
    pub(crate) replay: Option<ReplayRun>,
    pub(crate) journal: Arc<Journal>,
    pub(crate) streams: Streams,
    pub(crate) tap: Arc<Tap>,
    pub(crate) serial_number: SerialNumber,
    pub(crate) hostname: String,
    pub(crate) caches: Caches,
    pub(crate) unconfigured: Unconfigured,
    pub(crate) timing: Timing,
    pub(crate) live: broadcast::Sender<LiveEvent>,
}

impl Session {
    /// Each anchor's beacon counts as it last reported them.
    pub(crate) fn beacon_counts(&self) -> Vec<crate::api::BeaconCounts> {
        lock(&self.counters)
            .iter()
            .map(|(serial_number, report)| crate::api::BeaconCounts {
                serial_number: *serial_number,
                reported: report.counters.beacons_reported,
                lost: report
                    .counters
                    .beacons_discarded
                    .wrapping_add(report.counters.beacons_late),
            })
            .collect()
    }

    /// Builds the session and starts its tasks on the current runtime.
    pub(crate) fn launch(parts: SessionParts, events: mpsc::Receiver<DriverEvent>) -> Arc<Self> {
        let parts_plan_for_locator = parts.plan.clone();
        let truth = truth_of(parts.simulator.as_ref());
        let (zone_actions, actions) = mpsc::channel(zoning::ACTION_QUEUE);
        let session = Arc::new(Self {
            configuration: parts.plan.configuration.clone(),
            instance: parts.instance,
            plan: RwLock::new(Arc::new(parts.plan)),
            streams: RwLock::new(Arc::new(parts.streams)),
            tap: parts.tap,
            driver: parts.driver,
            simulator: parts.simulator,
            replay: parts.replay,
            journal: parts.journal,
            started_at_ms: wall_clock_ms(),
            heard: Mutex::new(HashSet::new()),
            serial_number: parts.serial_number,
            hostname: parts.hostname,
            counters: Mutex::new(HashMap::new()),
            state_changed: Notify::new(),
            tasks: Mutex::new(Vec::new()),
            caches: parts.caches,
            unconfigured: parts.unconfigured,
            timing: parts.timing,
            live: parts.live,
            locator: Mutex::new(Locator::new(&parts_plan_for_locator, truth)),
            badly_surveyed: Mutex::new(
                parts_plan_for_locator
                    .survey
                    .iter()
                    .flat_map(SurveyReport::bad_anchors)
                    .collect(),
            ),
            zoning: Mutex::new(zoning::Zoning::new(&parts_plan_for_locator)),
            zone_actions,
        });
        let tasks = vec![
            tokio::spawn(Arc::clone(&session).process(events)),
            tokio::spawn(Arc::clone(&session).heartbeat()),
            tokio::spawn(Arc::clone(&session).publish()),
            tokio::spawn(Arc::clone(&session).run_zone_actions(actions)),
        ];
        *lock(&session.tasks) = tasks;
        session.forget_unplanned(&session.plan());
        session
    }

    /// Drops what is kept about devices the plan no longer holds: their
    /// cached data, counters and being heard. Without it a configuration
    /// that runs for days while devices come and go would keep every device
    /// it ever had (the hour-long soak's memory grew so).
    fn forget_unplanned(&self, plan: &NetworkPlan) {
        let planned = plan.serial_numbers();
        if let Some(cache) = lock(&self.caches).get_mut(&self.configuration) {
            cache.retain(|serial, _| planned.contains(serial));
        }
        lock(&self.counters).retain(|serial, _| planned.contains(serial));
        lock(&self.heard).retain(|serial| planned.contains(serial));
    }

    pub(crate) fn plan(&self) -> Arc<NetworkPlan> {
        Arc::clone(&read(&self.plan))
    }

    fn streams(&self) -> Arc<Streams> {
        Arc::clone(&read(&self.streams))
    }

    /// Sends the announcements and the devices' state again at once.
    pub(crate) fn repeat_state(&self) {
        self.state_changed.notify_one();
    }

    pub(crate) fn devices_heard(&self) -> usize {
        lock(&self.heard).len()
    }

    /// New names for devices: the plan holds them and the streams announce
    /// them at once (names are not pushed to the devices).
    pub(crate) fn rename_devices(&self, names: &[(SerialNumber, Option<ItemName>)]) {
        {
            let mut plan = write(&self.plan);
            let mut renamed = NetworkPlan::clone(&plan);
            for device in &mut renamed.devices {
                if let Some((_, name)) = names
                    .iter()
                    .find(|(serial, _)| *serial == device.serial_number)
                {
                    device.name.clone_from(name);
                }
            }
            *plan = Arc::new(renamed);
        }
        self.state_changed.notify_one();
    }

    /// New tracking for the roles' tags: the plan holds it and the
    /// locator's trackers take it at once (decisions §18).
    pub(crate) fn retrack(&self, roles: &[Role]) {
        let retracked = {
            let mut plan = write(&self.plan);
            let mut retracked = NetworkPlan::clone(&plan);
            for role in &mut retracked.roles {
                if let Some(newer) = roles.iter().find(|newer| newer.id == role.id) {
                    role.tracking = newer.tracking;
                    role.max_speed_mm_s = newer.max_speed_mm_s;
                }
            }
            let retracked = Arc::new(retracked);
            *plan = Arc::clone(&retracked);
            retracked
        };
        // One lock at a time: the locator's after the plan's is released.
        lock(&self.locator).take_tracking(&retracked);
    }

    /// Pushes a new plan to the running network (a 5.0 `reload`).
    pub(crate) async fn reload(&self, plan: NetworkPlan) -> Result<(), EngineError> {
        self.require_link()?;
        push_configuration(&self.driver, &plan, self.timing.push_timeout).await?;
        if plan.streams != self.plan().streams {
            let streams = Streams::open(&plan.streams, self.serial_number, &self.tap)
                .map_err(|(stream, source)| EngineError::StreamSocket { stream, source })?;
            *write(&self.streams) = Arc::new(streams);
        }
        let devices = plan.enabled_devices().count();
        self.forget_unplanned(&plan);
        // Anchors may have moved: solve from the new positions (the
        // accuracy counts start again with them).
        *lock(&self.locator) = Locator::new(&plan, truth_of(self.simulator.as_ref()));
        lock(&self.badly_surveyed).clear();
        lock(&self.zoning).take_roles(&plan);
        let told = self.replace_zones(plan.zones.clone());
        self.send_told(told).await;
        *write(&self.plan) = Arc::new(plan);
        // Names, roles and devices may have changed: say so at once.
        self.state_changed.notify_one();
        self.journal.notify(
            Level::Information,
            format!(
                "configuration reloaded: {devices} {} pushed",
                if devices == 1 { "device" } else { "devices" }
            ),
            None,
        );
        Ok(())
    }

    /// Tells the network to stop (if the link allows), then ends every task.
    pub(crate) async fn shut_down(&self) {
        if self.driver.is_up()
            && let Err(error) = expect_ack(
                &self.driver,
                &self.configuration,
                Message::StopNetwork,
                "stop",
                self.timing.push_timeout,
            )
            .await
        {
            self.journal.line(
                Level::Warning,
                &format!("the network did not confirm the stop: {error}"),
            );
        }
        for task in lock(&self.tasks).drain(..) {
            task.abort();
        }
        self.driver.close();
        if let Some(simulator) = &self.simulator {
            simulator.task.abort();
        }
        if let Some(replay) = &self.replay {
            replay.task.abort();
        }
        self.tap.end();
        self.journal
            .notify(Level::Information, "network stopped".to_owned(), None);
        self.journal.close().await;
    }
}
