//! A running configuration: its link, its tasks, and what it does with the
//! network's reports.

mod locating;
mod zoning;

use std::{
    collections::{BTreeMap, HashMap, HashSet},
    sync::{Arc, Mutex, PoisonError, RwLock},
    time::Duration,
};

use netcfg_model::{
    CachedDevice, ConfigName, Connectivity, DeviceAction, DeviceActionReply, Instance, Level,
    MagnetometerCalibration, SerialNumber, Synchronisation, UnconfiguredDevice,
};
use tokio::{
    sync::{Notify, broadcast, mpsc},
    task::JoinHandle,
    time::MissedTickBehavior,
};

use crate::{
    api::{DeviceChange, LiveEvent, NetworkChange},
    cdp::Item,
    driver::{Driver, DriverError, DriverEvent},
    error::EngineError,
    journal::Journal,
    live,
    locator::Locator,
    plan::NetworkPlan,
    protocol::{Message, WireDevice},
    replay::ReplayRun,
    sim::SimHandle,
    streams::{SendFailure, StreamSocket, Streams, Tap},
    util::now_ms,
};

/// Devices per `ConfigDevices` frame (well under the payload limit).
const DEVICES_PER_FRAME: usize = 100;

pub(crate) type Caches = Arc<Mutex<HashMap<ConfigName, BTreeMap<SerialNumber, CachedDevice>>>>;
pub(crate) type Unconfigured = Arc<Mutex<BTreeMap<(ConfigName, SerialNumber), UnconfiguredDevice>>>;

pub(crate) use crate::util::lock;

/// AnchorHealthV5's `interanchor_comms_error_code` for a bad survey.
const BAD_SURVEY: u8 = 2;

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

/// Sends `message` and maps the driver's failures to engine errors.
async fn exchange(
    driver: &Driver,
    configuration: &ConfigName,
    message: Message,
    step: &'static str,
    timeout: Duration,
) -> Result<Message, EngineError> {
    driver
        .request(message, timeout)
        .await
        .map_err(|error| match error {
            DriverError::Timeout(waited) => EngineError::NetworkTimeout {
                configuration: configuration.clone(),
                step,
                waited,
            },
            DriverError::LinkDown(reason) => EngineError::LinkDown {
                configuration: configuration.clone(),
                reason,
            },
            DriverError::Encode(error) => EngineError::Encode(error),
        })
}

/// Sends `message` and expects `Ack`.
async fn expect_ack(
    driver: &Driver,
    configuration: &ConfigName,
    message: Message,
    step: &'static str,
    timeout: Duration,
) -> Result<(), EngineError> {
    match exchange(driver, configuration, message, step, timeout).await? {
        Message::Ack => Ok(()),
        Message::Nack { reason } => Err(EngineError::Refused {
            what: step.to_owned(),
            reason,
        }),
        other => Err(EngineError::UnexpectedReply {
            what: step.to_owned(),
            answer: format!("{other:?}"),
        }),
    }
}

/// Checks the link with a ping, then pushes `plan`'s configuration.
pub(crate) async fn push_configuration(
    driver: &Driver,
    plan: &NetworkPlan,
    timeout: Duration,
) -> Result<(), EngineError> {
    let configuration = &plan.configuration;
    let token = (now_ms() & 0xFFFF_FFFF) as u32;
    match exchange(
        driver,
        configuration,
        Message::Ping { token },
        "ping",
        timeout,
    )
    .await?
    {
        Message::Pong { token: echoed } if echoed == token => {}
        other => {
            return Err(EngineError::UnexpectedReply {
                what: "ping".to_owned(),
                answer: format!("{other:?}"),
            });
        }
    }
    let begin = Message::ConfigBegin {
        configuration: configuration.to_string(),
        network_mode: plan.network_mode,
        rf: plan.rf.clone(),
        roles: plan.roles.clone(),
    };
    expect_ack(driver, configuration, begin, "configuration push", timeout).await?;
    let devices: Vec<WireDevice> = plan
        .enabled_devices()
        .map(|device| WireDevice {
            serial_number: device.serial_number,
            interfaces: device.interfaces.clone(),
        })
        .collect();
    for chunk in devices.chunks(DEVICES_PER_FRAME) {
        let message = Message::ConfigDevices {
            devices: chunk.to_vec(),
        };
        expect_ack(
            driver,
            configuration,
            message,
            "configuration push",
            timeout,
        )
        .await?;
    }
    let commit = Message::ConfigCommit {
        device_count: u32::try_from(devices.len()).unwrap_or(u32::MAX),
    };
    expect_ack(driver, configuration, commit, "configuration push", timeout).await
}

pub(crate) async fn start_network(
    driver: &Driver,
    plan: &NetworkPlan,
    timeout: Duration,
) -> Result<(), EngineError> {
    expect_ack(
        driver,
        &plan.configuration,
        Message::StartNetwork,
        "start",
        timeout,
    )
    .await
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
            started_at_ms: now_ms(),
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
            locator: Mutex::new(Locator::new(&parts_plan_for_locator)),
            badly_surveyed: Mutex::new(HashSet::new()),
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

    /// Says the link dropped, and why, then treats the network as down.
    fn link_dropped(&self, reason: &str) {
        self.journal.notify(
            Level::Error,
            format!(
                "link to the network interface device on {} dropped: {reason}",
                self.instance
            ),
            None,
        );
        self.link_went_down();
    }

    pub(crate) fn plan(&self) -> Arc<NetworkPlan> {
        Arc::clone(&self.plan.read().unwrap_or_else(PoisonError::into_inner))
    }

    fn streams(&self) -> Arc<Streams> {
        Arc::clone(&self.streams.read().unwrap_or_else(PoisonError::into_inner))
    }

    /// Sends the announcements and the devices' state again at once.
    pub(crate) fn repeat_state(&self) {
        self.state_changed.notify_one();
    }

    pub(crate) fn devices_heard(&self) -> usize {
        lock(&self.heard).len()
    }

    /// Pushes a new plan to the running network (a 5.0 `reload`).
    pub(crate) async fn reload(&self, plan: NetworkPlan) -> Result<(), EngineError> {
        self.require_link()?;
        push_configuration(&self.driver, &plan, self.timing.push_timeout).await?;
        if plan.streams != self.plan().streams {
            let streams = Streams::open(&plan.streams, self.serial_number, &self.tap)
                .map_err(|(stream, source)| EngineError::StreamSocket { stream, source })?;
            *self.streams.write().unwrap_or_else(PoisonError::into_inner) = Arc::new(streams);
        }
        let devices = plan.enabled_devices().count();
        self.forget_unplanned(&plan);
        // Anchors may have moved: solve from the new positions (the
        // accuracy counts start again with them).
        *lock(&self.locator) = Locator::new(&plan);
        lock(&self.badly_surveyed).clear();
        lock(&self.zoning).take_roles(&plan);
        let told = self.replace_zones(plan.zones.clone());
        self.send_told(told).await;
        *self.plan.write().unwrap_or_else(PoisonError::into_inner) = Arc::new(plan);
        // Names, roles and devices may have changed: say so at once.
        self.state_changed.notify_one();
        self.journal.notify(
            Level::Information,
            format!("configuration reloaded: {devices} device(s) pushed"),
            None,
        );
        Ok(())
    }

    pub(crate) async fn resync(&self) -> Result<(), EngineError> {
        self.require_link()?;
        expect_ack(
            &self.driver,
            &self.configuration,
            Message::Resync,
            "resync",
            self.timing.push_timeout,
        )
        .await?;
        self.journal
            .line(Level::Information, "anchors asked to resynchronise");
        Ok(())
    }

    fn require_link(&self) -> Result<(), EngineError> {
        match self.driver.down_reason() {
            None => Ok(()),
            Some(reason) => Err(EngineError::LinkDown {
                configuration: self.configuration.clone(),
                reason,
            }),
        }
    }

    fn map_device_error(
        &self,
        error: EngineError,
        serial_number: SerialNumber,
        action: &DeviceAction,
    ) -> EngineError {
        match error {
            EngineError::NetworkTimeout { waited, .. } => EngineError::DeviceTimeout {
                serial_number,
                action: action.name(),
                waited,
            },
            other => other,
        }
    }

    /// Sends one device action and waits for its reply.
    pub(crate) async fn command(
        &self,
        serial_number: SerialNumber,
        action: DeviceAction,
        timeout: Duration,
    ) -> Result<DeviceActionReply, EngineError> {
        if self.plan().enabled_device(serial_number).is_none() {
            return Err(EngineError::UnknownDevice {
                configuration: self.configuration.clone(),
                serial_number,
            });
        }
        self.require_link()?;
        let name = action.name();
        let message = Message::DeviceCommand {
            serial_number,
            action: action.clone(),
        };
        let answer = exchange(
            &self.driver,
            &self.configuration,
            message,
            "device command",
            timeout,
        )
        .await
        .map_err(|error| self.map_device_error(error, serial_number, &action))?;
        let what = || format!("{name} for device {serial_number}");
        let reply = match answer {
            Message::DeviceReply(reply)
                if reply.serial_number == serial_number && reply.action == name =>
            {
                reply
            }
            Message::Nack { reason } => {
                return Err(EngineError::Refused {
                    what: what(),
                    reason,
                });
            }
            other => {
                return Err(EngineError::UnexpectedReply {
                    what: what(),
                    answer: format!("{other:?}"),
                });
            }
        };
        self.update_cache(serial_number, |cached| cached.last_action = Some(name));
        self.journal.line(
            Level::Information,
            &format!(
                "device {serial_number}: {name} answered {:?}",
                reply.outcome
            ),
        );
        Ok(reply)
    }

    pub(crate) async fn calibrate(
        &self,
        calibration: MagnetometerCalibration,
        timeout: Duration,
    ) -> Result<MagnetometerCalibration, EngineError> {
        let serial_number = calibration.serial_number;
        if self.plan().enabled_device(serial_number).is_none() {
            return Err(EngineError::UnknownDevice {
                configuration: self.configuration.clone(),
                serial_number,
            });
        }
        self.require_link()?;
        let message = Message::SetMagnetometerCalibration(calibration.clone());
        match expect_ack(
            &self.driver,
            &self.configuration,
            message,
            "magnetometer calibration",
            timeout,
        )
        .await
        {
            Ok(()) => {
                self.journal.line(
                    Level::Information,
                    &format!(
                        "device {serial_number}: magnetometer calibration set to {}, {}, {}",
                        calibration.x_offset, calibration.y_offset, calibration.z_offset
                    ),
                );
                Ok(calibration)
            }
            Err(EngineError::NetworkTimeout { waited, .. }) => Err(EngineError::NetworkTimeout {
                configuration: self.configuration.clone(),
                step: "magnetometer calibration",
                waited,
            }),
            Err(error) => Err(error),
        }
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

    fn update_cache(&self, serial_number: SerialNumber, change: impl FnOnce(&mut CachedDevice)) {
        let mut caches = lock(&self.caches);
        let cached = caches
            .entry(self.configuration.clone())
            .or_default()
            .entry(serial_number)
            .or_insert_with(|| empty_cache_entry(serial_number));
        cached.last_seen_ms = now_ms();
        change(cached);
    }

    /// Handles the driver's events until the link goes down.
    async fn process(self: Arc<Self>, mut events: mpsc::Receiver<DriverEvent>) {
        let mut out_of_sync = HashSet::new();
        let mut strangers = HashSet::new();
        while let Some(event) = events.recv().await {
            match event {
                DriverEvent::Report(message) => {
                    self.report(message, &mut out_of_sync, &mut strangers).await
                }
                DriverEvent::Damaged(error) => {
                    self.journal
                        .line(Level::Debug, &format!("damaged frame skipped: {error}"));
                }
                DriverEvent::LinkDown(reason) => {
                    self.link_dropped(&reason);
                    return;
                }
            }
        }
    }

    fn link_went_down(&self) {
        // No receiver is not an error: nobody listens.
        let _ = self.live.send(LiveEvent::Network {
            configuration: self.configuration.clone(),
            change: NetworkChange::LinkDown,
        });
    }

    /// Tells the live feed what happened to a configured device, with its
    /// state as cached.
    fn device_changed(&self, serial_number: SerialNumber, change: DeviceChange) {
        let Some((connectivity, synchronisation, status)) = lock(&self.caches)
            .get(&self.configuration)
            .and_then(|cache| cache.get(&serial_number))
            .map(|cached| {
                (
                    cached.connectivity,
                    cached.synchronisation,
                    cached.status.clone(),
                )
            })
        else {
            return;
        };
        let _ = self.live.send(LiveEvent::Device {
            configuration: self.configuration.clone(),
            serial_number,
            change,
            connectivity,
            synchronisation,
            status,
        });
    }

    fn is_configured(&self, serial_number: SerialNumber) -> bool {
        self.plan().enabled_device(serial_number).is_some()
    }

    fn heard_stranger(&self, serial_number: SerialNumber, strangers: &mut HashSet<SerialNumber>) {
        lock(&self.unconfigured).insert(
            (self.configuration.clone(), serial_number),
            UnconfiguredDevice {
                serial_number,
                heard_by: Some(self.configuration.clone()),
                last_seen_ms: now_ms(),
            },
        );
        if strangers.insert(serial_number) {
            self.journal.notify(
                Level::Warning,
                format!("device {serial_number} is heard but is not in the configuration"),
                Some(serial_number),
            );
        }
    }

    async fn report(
        &self,
        message: Message,
        out_of_sync: &mut HashSet<SerialNumber>,
        strangers: &mut HashSet<SerialNumber>,
    ) {
        match message {
            Message::Joined {
                serial_number,
                interface,
                role_id,
            } => {
                if !self.is_configured(serial_number) {
                    return self.heard_stranger(serial_number, strangers);
                }
                lock(&self.heard).insert(serial_number);
                let before = self.activity_of(serial_number);
                self.update_cache(serial_number, |cached| {
                    cached.connectivity = Connectivity::Uwb
                });
                self.activity_changed(serial_number, before).await;
                self.device_changed(serial_number, DeviceChange::Joined);
                self.journal.notify(
                    Level::Information,
                    format!(
                        "device {serial_number} joined (interface {interface}, role {role_id})"
                    ),
                    Some(serial_number),
                );
            }
            Message::Heard { serial_number } => {
                if self.is_configured(serial_number) {
                    self.update_cache(serial_number, |_| {});
                } else {
                    self.heard_stranger(serial_number, strangers);
                }
            }
            Message::Lost { serial_number } => {
                let before = self.activity_of(serial_number);
                self.update_cache(serial_number, |cached| {
                    cached.connectivity = Connectivity::None
                });
                self.activity_changed(serial_number, before).await;
                self.device_changed(serial_number, DeviceChange::Lost);
                self.forget_zones_of(serial_number).await;
                self.journal.notify(
                    Level::Warning,
                    format!("device {serial_number} went silent"),
                    Some(serial_number),
                );
            }
            Message::Status {
                serial_number,
                connectivity,
                status,
            } => {
                lock(&self.heard).insert(serial_number);
                let before = self.activity_of(serial_number);
                let mut status_changed = false;
                self.update_cache(serial_number, |cached| {
                    cached.connectivity = connectivity;
                    status_changed = cached.status.as_ref() != Some(&status);
                    cached.status = Some(status);
                });
                if self.activity_changed(serial_number, before).await || status_changed {
                    self.device_changed(serial_number, DeviceChange::Health);
                }
            }
            Message::Sync {
                serial_number,
                synchronisation,
            } => {
                let before = self.activity_of(serial_number);
                self.update_cache(serial_number, |cached| {
                    cached.synchronisation = synchronisation
                });
                if self.activity_changed(serial_number, before).await {
                    self.device_changed(serial_number, DeviceChange::Health);
                }
                let anchor = self
                    .plan()
                    .enabled_device(serial_number)
                    .is_some_and(|device| {
                        device
                            .interfaces
                            .iter()
                            .any(|interface| interface.role_id.needs_position())
                    });
                lock(&self.locator)
                    .set_synchronised(serial_number, synchronisation != Synchronisation::None);
                if anchor && synchronisation == Synchronisation::None {
                    if out_of_sync.insert(serial_number) {
                        self.journal.notify(
                            Level::Warning,
                            format!("anchor {serial_number} lost synchronisation"),
                            Some(serial_number),
                        );
                    }
                } else if out_of_sync.remove(&serial_number) {
                    self.journal.notify(
                        Level::Information,
                        format!("anchor {serial_number} is synchronised again"),
                        Some(serial_number),
                    );
                }
            }
            Message::Attributes {
                serial_number,
                attributes,
            } => self.update_cache(serial_number, |cached| cached.attributes = Some(attributes)),
            Message::FirmwareImages {
                serial_number,
                images,
            } => {
                self.update_cache(serial_number, |cached| cached.firmware_images = images);
            }
            Message::Positions {
                network_time,
                reports,
            } => self.deliver_positions(network_time, reports).await,
            Message::ArrivalTimes {
                network_time,
                beacons,
            } => self.locate(network_time, &beacons, true).await,
            Message::Ranges {
                network_time,
                beacons,
            } => self.locate(network_time, &beacons, false).await,
            Message::Sensors {
                network_time,
                reports,
            } => {
                let streams = self.streams();
                if let Some(user) = &streams.user {
                    let items = live::sensors(network_time, &reports);
                    let result = user.send_items(&items).await;
                    self.stream_result(user, result);
                }
            }
            Message::AnchorCounters {
                serial_number,
                interface,
                counters,
            } => {
                if self.is_configured(serial_number) {
                    let report = live::CounterReport {
                        interface,
                        counters,
                        received: std::time::Instant::now(),
                    };
                    lock(&self.counters).insert(serial_number, report);
                }
            }
            other => {
                self.journal.line(
                    Level::Debug,
                    &format!("unexpected message ignored: {other:?}"),
                );
            }
        }
    }

    fn stream_result(&self, stream: &StreamSocket, result: Result<(), SendFailure>) {
        if let Err(SendFailure::First(error)) = result {
            self.journal.notify(
                Level::Warning,
                format!("data stream {} cannot send: {error}", stream.name),
                None,
            );
        }
    }

    /// Pings the network interface device; declares the link down when
    /// several pings in a row go unanswered.
    async fn heartbeat(self: Arc<Self>) {
        let mut ticker = tokio::time::interval(self.timing.heartbeat_interval);
        ticker.set_missed_tick_behavior(MissedTickBehavior::Delay);
        ticker.tick().await;
        let mut missed = 0u32;
        loop {
            ticker.tick().await;
            let token = (now_ms() & 0xFFFF_FFFF) as u32;
            match self
                .driver
                .request(Message::Ping { token }, self.timing.heartbeat_interval)
                .await
            {
                Ok(_) => missed = 0,
                Err(DriverError::Timeout(_)) => {
                    missed += 1;
                    if missed >= self.timing.missed_heartbeats {
                        let reason = format!("{missed} pings in a row went unanswered");
                        if self.driver.declare_down(reason.clone()) {
                            self.link_dropped(&reason);
                        }
                        return;
                    }
                }
                Err(_) => return,
            }
        }
    }

    /// A device's connectivity and synchronisation, as cached.
    fn activity_of(&self, serial_number: SerialNumber) -> Option<(Connectivity, Synchronisation)> {
        lock(&self.caches)
            .get(&self.configuration)
            .and_then(|cache| cache.get(&serial_number))
            .map(|cached| (cached.connectivity, cached.synchronisation))
    }

    /// Sends a configured device's DeviceActivityState at once when its
    /// connectivity or synchronisation changed: on the User stream, and for
    /// anchors and seeders on the Anchor stream too, with Synchronization.
    /// Whether it changed.
    async fn activity_changed(
        &self,
        serial_number: SerialNumber,
        before: Option<(Connectivity, Synchronisation)>,
    ) -> bool {
        if self.activity_of(serial_number) == before {
            return false;
        }
        let plan = self.plan();
        let Some(device) = plan.enabled_device(serial_number) else {
            return false;
        };
        let (state, synchronization) = {
            let caches = lock(&self.caches);
            let cache = caches.get(&self.configuration);
            (
                live::activity(device, cache.and_then(|cache| cache.get(&serial_number))),
                live::synchronization(&plan, cache),
            )
        };
        let streams = self.streams();
        if let Some(user) = &streams.user {
            let result = user.send_items(std::slice::from_ref(&state)).await;
            self.stream_result(user, result);
        }
        if live::is_anchor(device)
            && let Some(anchor) = &streams.anchor
        {
            let result = anchor.send_items(&[state, synchronization]).await;
            self.stream_result(anchor, result);
        }
        true
    }

    /// Repeats the announcements (Config stream) and the device state (User
    /// and Anchor streams) every `announce_period` and at once after a
    /// reload; sends anchor health (Anchor stream) every
    /// `anchor_health_report_period` seconds.
    async fn publish(self: Arc<Self>) {
        let mut state = tokio::time::interval(self.timing.announce_period);
        let health_period = self.plan().anchor_health_period();
        let mut health =
            tokio::time::interval_at(tokio::time::Instant::now() + health_period, health_period);
        state.set_missed_tick_behavior(MissedTickBehavior::Delay);
        health.set_missed_tick_behavior(MissedTickBehavior::Delay);
        let mut marks = HashMap::new();
        loop {
            tokio::select! {
                _ = state.tick() => self.send_state().await,
                () = self.state_changed.notified() => self.send_state().await,
                _ = health.tick() => self.send_health(health_period, &mut marks).await,
            }
        }
    }

    async fn send_state(&self) {
        let plan = self.plan();
        let announcement =
            live::announcement(self.configuration.as_str(), &self.hostname, &plan.streams);
        let (mut user_state, anchor_state) = {
            let caches = lock(&self.caches);
            let cache = caches.get(&self.configuration);
            (
                live::user_state(&plan, cache),
                live::anchor_state(&plan, cache),
            )
        };
        user_state.extend(lock(&self.zoning).announcements());
        let streams = self.streams();
        for (stream, items) in [
            (&streams.config, announcement),
            (&streams.user, user_state),
            (&streams.anchor, anchor_state),
        ] {
            if let Some(stream) = stream {
                let result = stream.send_items(&items).await;
                self.stream_result(stream, result);
            }
        }
    }

    /// AnchorHealthV5 for every anchor and seeder: the counts between its
    /// two latest counter reports (see [`live::health_due`]).
    async fn send_health(
        &self,
        period: Duration,
        marks: &mut HashMap<SerialNumber, live::HealthMark>,
    ) {
        let streams = self.streams();
        let Some(anchor) = &streams.anchor else {
            return;
        };
        let plan = self.plan();
        let items: Vec<Item> = {
            let counters = lock(&self.counters);
            plan.enabled_devices()
                .filter(|device| live::is_anchor(device))
                .filter_map(|device| {
                    let latest = counters.get(&device.serial_number).copied();
                    let mark = marks.entry(device.serial_number).or_default();
                    live::health_due(device, latest, mark, period)
                })
                .collect()
        };
        let planned = plan.serial_numbers();
        marks.retain(|serial, _| planned.contains(serial));
        if items.is_empty() {
            return;
        }
        let mut items = items;
        {
            let bad = lock(&self.badly_surveyed);
            for item in &mut items {
                if let Item::AnchorHealthV5(health) = item
                    && bad.contains(&health.serial_number)
                {
                    health.interanchor_comms_error_code = BAD_SURVEY;
                }
            }
        }
        let result = anchor.send_items(&items).await;
        self.stream_result(anchor, result);
    }
}

fn empty_cache_entry(serial_number: SerialNumber) -> CachedDevice {
    CachedDevice {
        serial_number,
        last_seen_ms: now_ms(),
        connectivity: Connectivity::None,
        synchronisation: Synchronisation::None,
        status: None,
        attributes: None,
        firmware_images: Vec::new(),
        position: None,
        last_action: None,
        unlocated: None,
    }
}
