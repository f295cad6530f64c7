//! [`NetcfgEngine`]: the engine that drives real, simulated and replayed
//! networks.

use std::{
    collections::{BTreeMap, HashMap},
    future::Future,
    sync::{Arc, Mutex},
    time::Duration,
};

use netcfg_model::{
    CachedDevice, ConfigName, DeviceAction, DeviceActionReply, Instance, ItemName, Level,
    MagnetometerCalibration, PackageState, PackageStatus, ReplayControl, ReplayState, Role,
    RunState, SerialNumber, SurveyReport, TagAccuracy, UnconfiguredDevice, Zone,
    geofence::Occupant,
};
use tokio::{runtime::Handle, sync::broadcast};
use tokio_serial::{SerialPort, SerialPortBuilderExt, SerialStream};

use crate::{
    api::{
        BeaconCounts, DatagramSink, DeviceCommandResult, DeviceLink, Engine, EngineCommand,
        EngineEvent, EngineFuture, LiveEvent, NetworkChange, NetworkStatus, StartOutcome,
        StopOutcome,
    },
    driver::Driver,
    error::EngineError,
    identity,
    journal::{Journal, Rings},
    link::Link,
    plan::NetworkPlan,
    protocol::PROTOCOL_VERSION,
    replay::{self, ReplayRun},
    session::{self, Caches, Session, SessionParts, SimRun, Timing, Unconfigured, lock},
    sim::{SimHandle, SimOptions, Simulator, radio::RadioOptions},
    streams::{Streams, Tap},
};

/// How the engine behaves; the defaults suit real hardware.
#[derive(Debug, Clone, PartialEq)]
pub struct EngineOptions {
    /// The instance of configurations whose instance is the server default.
    pub default_instance: Instance,
    /// The baud rate the serial port is opened at.
    pub baud_rate: u32,
    /// How long each step of a start, stop, reload or resync may take.
    pub push_timeout: Duration,
    /// How often the link is checked with a ping (each ping may take as long).
    pub heartbeat_interval: Duration,
    /// Unanswered pings in a row after which the link is down.
    pub missed_heartbeats: u32,
    /// How often a running configuration repeats its announcements (Config
    /// stream) and its devices' names, roles and activity (User and Anchor
    /// streams). CDP tools expect 5 s and forget an instance after 30 s.
    pub announce_period: Duration,
    /// Recent log lines kept per configuration for `log_messages`.
    pub log_lines: usize,
    /// Items the live feed holds for a slow subscriber before it skips.
    pub feed_capacity: usize,
    /// The simulator's behaviour for plain `sim` (`sim:<scenario>` uses the
    /// scenario's); the defaults when `None`.
    pub simulator: Option<SimOptions>,
    /// This manager's identity, from which each configuration's CDP serial
    /// number is derived (`FE:xx:xxxx`, see docs/engine-protocol.md §2);
    /// the host's machine id when `None`.
    pub manager_id: Option<String>,
}

impl Default for EngineOptions {
    fn default() -> Self {
        Self {
            default_instance: Instance::simulator(),
            baud_rate: 921_600,
            push_timeout: Duration::from_secs(2),
            heartbeat_interval: Duration::from_secs(1),
            missed_heartbeats: 3,
            announce_period: Duration::from_secs(5),
            log_lines: 1_000,
            feed_capacity: 1_024,
            simulator: None,
            manager_id: None,
        }
    }
}

/// What plays the device end of an instance's link, when the engine does.
#[derive(Debug, Default)]
struct Players {
    simulator: Option<SimRun>,
    replay: Option<ReplayRun>,
}

impl Players {
    fn abort(&self) {
        if let Some(simulator) = &self.simulator {
            simulator.task.abort();
        }
        if let Some(replay) = &self.replay {
            replay.task.abort();
        }
    }
}

/// A network brought up: its link's driver, what plays the device end, its
/// streams.
struct BroughtUp {
    driver: Driver,
    events: tokio::sync::mpsc::Receiver<crate::driver::DriverEvent>,
    players: Players,
    streams: Streams,
    tap: Arc<Tap>,
}

#[derive(Debug)]
struct Shared {
    options: EngineOptions,
    /// `options.manager_id` or the machine id.
    manager_id: String,
    /// The host's name, for HostnameAnnounce.
    hostname: String,
    runtime: Handle,
    events: broadcast::Sender<EngineEvent>,
    live: broadcast::Sender<LiveEvent>,
    sessions: Mutex<HashMap<ConfigName, Arc<Session>>>,
    lifecycles: Mutex<HashMap<ConfigName, Arc<tokio::sync::Mutex<()>>>>,
    caches: Caches,
    unconfigured: Unconfigured,
    rings: Rings,
    /// Each configuration's last survey.
    surveys: Mutex<HashMap<ConfigName, SurveyReport>>,
}

/// The engine. Cheap to clone; every clone drives the same networks.
///
/// Every operation runs on the runtime given at construction, whoever
/// awaits it, and runs to its end even if the caller stops waiting: a start
/// is never left half-done by a dropped HTTP request.
#[derive(Debug, Clone)]
pub struct NetcfgEngine {
    shared: Arc<Shared>,
}

impl NetcfgEngine {
    /// An engine whose sessions run on `runtime`.
    pub fn new(options: EngineOptions, runtime: Handle) -> Self {
        let (events, _) = broadcast::channel(options.feed_capacity.max(1));
        let (live, _) = broadcast::channel(options.feed_capacity.max(1));
        Self {
            shared: Arc::new(Shared {
                manager_id: options
                    .manager_id
                    .clone()
                    .unwrap_or_else(identity::default_manager_id),
                hostname: identity::hostname(),
                options,
                runtime,
                events,
                live,
                sessions: Mutex::default(),
                lifecycles: Mutex::default(),
                caches: Arc::default(),
                unconfigured: Arc::default(),
                rings: Arc::default(),
                surveys: Mutex::default(),
            }),
        }
    }

    /// The fault-injection handle of the simulator running `configuration`,
    /// when it runs on `sim`.
    pub fn simulator(&self, configuration: &ConfigName) -> Option<SimHandle> {
        let session = self.shared.session(configuration)?;
        session.simulator.as_ref().map(|run| run.handle.clone())
    }

    fn on_runtime<T, F>(&self, future: F) -> EngineFuture<T>
    where
        T: Send + 'static,
        F: Future<Output = Result<T, EngineError>> + Send + 'static,
    {
        let task = self.shared.runtime.spawn(future);
        Box::pin(async move {
            task.await
                .map_err(|error| EngineError::Internal(error.to_string()))?
        })
    }
}

impl Shared {
    fn session(&self, configuration: &ConfigName) -> Option<Arc<Session>> {
        lock(&self.sessions).get(configuration).cloned()
    }

    fn running(&self, configuration: &ConfigName) -> Result<Arc<Session>, EngineError> {
        self.session(configuration)
            .ok_or_else(|| EngineError::NotRunning(configuration.clone()))
    }

    fn lifecycle(&self, configuration: &ConfigName) -> Arc<tokio::sync::Mutex<()>> {
        Arc::clone(
            lock(&self.lifecycles)
                .entry(configuration.clone())
                .or_default(),
        )
    }

    /// The CDP header serial of `plan`'s configuration on this manager.
    fn serial_of(&self, plan: &NetworkPlan) -> SerialNumber {
        identity::instance_serial(&self.manager_id, plan.configuration.as_str())
    }

    fn timing(&self) -> Timing {
        Timing {
            push_timeout: self.options.push_timeout,
            heartbeat_interval: self.options.heartbeat_interval,
            missed_heartbeats: self.options.missed_heartbeats.max(1),
            announce_period: self.options.announce_period,
        }
    }

    fn status(&self, configuration: &ConfigName) -> NetworkStatus {
        match self.session(configuration) {
            Some(session) => NetworkStatus {
                configuration: configuration.clone(),
                state: RunState::Running,
                instance: Some(session.instance.clone()),
                link_up: session.driver.is_up(),
                link_down_reason: session.driver.down_reason(),
                started_at_ms: Some(session.started_at_ms),
                log_file: Some(session.journal.path().to_owned()),
                devices_heard: session.devices_heard(),
            },
            None => NetworkStatus {
                configuration: configuration.clone(),
                state: RunState::Stopped,
                instance: None,
                link_up: false,
                link_down_reason: None,
                started_at_ms: None,
                log_file: None,
                devices_heard: 0,
            },
        }
    }

    fn open_serial(&self, path: &str) -> Result<SerialStream, EngineError> {
        tokio_serial::new(path, self.options.baud_rate)
            .timeout(Duration::from_millis(100))
            .open_native_async()
            .map_err(|error| EngineError::SerialPort {
                path: path.to_owned(),
                reason: error.to_string(),
            })
    }

    /// Opens the instance's link: its serial port; for `sim`, first starts
    /// a simulator on a pseudo-terminal pair and opens its other end by
    /// path; for `replay:`, starts a player of `plan`'s recording on an
    /// in-memory pipe.
    async fn open_instance(
        &self,
        instance: &Instance,
        plan: &NetworkPlan,
    ) -> Result<(Link, Players), EngineError> {
        match instance {
            Instance::SerialPort(path) => {
                Ok((Link::Serial(self.open_serial(path)?), Players::default()))
            }
            Instance::Simulator {
                scenario,
                parameters,
            } => {
                let mut options = match (scenario, &self.options.simulator) {
                    (None, Some(options)) => options.clone(),
                    _ => SimOptions::for_scenario(scenario.as_deref())?,
                };
                if !parameters.is_empty() {
                    options.radio = RadioOptions::from_parameters(parameters);
                }
                let pty_error = |reason: String| EngineError::SerialPort {
                    path: "(simulator pseudo-terminal)".to_owned(),
                    reason,
                };
                let (device_end, host_end) =
                    SerialStream::pair().map_err(|error| pty_error(error.to_string()))?;
                let path = host_end
                    .name()
                    .ok_or_else(|| pty_error("the pseudo-terminal has no path".to_owned()))?;
                // The real serial path: open the port by its name, as for hardware.
                let port = self.open_serial(&path)?;
                drop(host_end);
                let simulator = Simulator::new(options);
                let handle = simulator.handle();
                let task = self.runtime.spawn(async move {
                    if let Err(error) = simulator.serve(device_end).await {
                        log::warn!("simulator stopped: {error}");
                    }
                });
                let players = Players {
                    simulator: Some(SimRun { handle, task }),
                    replay: None,
                };
                Ok((Link::Serial(port), players))
            }
            Instance::Replay(source) => {
                let (pipe, run) =
                    replay::start(source, plan.replay.as_ref(), &self.runtime).await?;
                let players = Players {
                    simulator: None,
                    replay: Some(run),
                };
                Ok((Link::Memory(pipe), players))
            }
            Instance::ServerDefault => Err(EngineError::NoDefaultInstance),
        }
    }

    async fn start(self: Arc<Self>, plan: NetworkPlan) -> Result<StartOutcome, EngineError> {
        let lifecycle = self.lifecycle(&plan.configuration);
        let _guard = lifecycle.lock().await;
        if self.session(&plan.configuration).is_some() {
            return Ok(StartOutcome::AlreadyRunning);
        }
        let instance = match &plan.instance {
            Instance::ServerDefault => self.options.default_instance.clone(),
            other => other.clone(),
        };
        let journal = Arc::new(Journal::create(
            &plan.configuration,
            &plan.log_directory,
            self.events.clone(),
            Arc::clone(&self.rings),
            self.options.log_lines.max(1),
        )?);
        journal.line(
            Level::Information,
            &format!("starting `{}` on {instance}", plan.configuration),
        );
        match self.bring_up(&plan, &instance).await {
            Ok(BroughtUp {
                driver,
                events,
                players,
                streams,
                tap,
            }) => {
                let devices = plan.enabled_devices().count();
                let configuration = plan.configuration.clone();
                let serial_number = self.serial_of(&plan);
                // Before the session's tasks run: listeners hear the start,
                // and the notifications say it, before the devices' joins it
                // leads to.
                self.network_changed(configuration.clone(), NetworkChange::Started);
                journal.notify(
                    Level::Information,
                    format!(
                        "network started on {instance} with {devices} {}",
                        if devices == 1 { "device" } else { "devices" }
                    ),
                    None,
                );
                let session = Session::launch(
                    SessionParts {
                        plan,
                        instance: instance.clone(),
                        driver,
                        simulator: players.simulator,
                        replay: players.replay,
                        journal: Arc::clone(&journal),
                        streams,
                        tap,
                        serial_number,
                        hostname: self.hostname.clone(),
                        caches: Arc::clone(&self.caches),
                        unconfigured: Arc::clone(&self.unconfigured),
                        timing: self.timing(),
                        live: self.live.clone(),
                    },
                    events,
                );
                lock(&self.sessions).insert(configuration, session);
                Ok(StartOutcome::Started {
                    log_file: journal.path().to_owned(),
                })
            }
            Err(error) => {
                journal.notify(Level::Error, format!("start failed: {error}"), None);
                journal.close().await;
                Err(error)
            }
        }
    }

    async fn bring_up(
        &self,
        plan: &NetworkPlan,
        instance: &Instance,
    ) -> Result<BroughtUp, EngineError> {
        let (link, players) = self.open_instance(instance, plan).await?;
        let (driver, events) = Driver::spawn(link, &self.runtime);
        let tap = Arc::new(Tap::default());
        let result = async {
            session::push_configuration(&driver, plan, self.options.push_timeout).await?;
            let streams = Streams::open(&plan.streams, self.serial_of(plan), &tap)
                .map_err(|(stream, source)| EngineError::StreamSocket { stream, source })?;
            session::start_network(&driver, plan, self.options.push_timeout).await?;
            Ok(streams)
        }
        .await;
        match result {
            Ok(streams) => Ok(BroughtUp {
                driver,
                events,
                players,
                streams,
                tap,
            }),
            Err(error) => {
                driver.close();
                players.abort();
                Err(error)
            }
        }
    }

    fn network_changed(&self, configuration: ConfigName, change: NetworkChange) {
        // No receiver is not an error: nobody listens.
        let _ = self.live.send(LiveEvent::Network {
            configuration,
            change,
        });
    }

    async fn stop(self: Arc<Self>, configuration: ConfigName) -> Result<StopOutcome, EngineError> {
        let lifecycle = self.lifecycle(&configuration);
        let _guard = lifecycle.lock().await;
        let Some(session) = lock(&self.sessions).remove(&configuration) else {
            return Ok(StopOutcome::WasNotRunning);
        };
        session.shut_down().await;
        self.network_changed(configuration, NetworkChange::Stopped);
        Ok(StopOutcome::Stopped)
    }

    async fn command(
        self: Arc<Self>,
        command: EngineCommand,
    ) -> Result<NetworkStatus, EngineError> {
        let configuration = command.configuration().clone();
        let session = self.running(&configuration)?;
        match command {
            EngineCommand::Resync(_) => session.resync().await?,
            EngineCommand::Reload(plan) => {
                let lifecycle = self.lifecycle(&configuration);
                let _guard = lifecycle.lock().await;
                session.reload(*plan).await?;
            }
            EngineCommand::Restart(plan) => {
                drop(session);
                Arc::clone(&self).stop(configuration.clone()).await?;
                Arc::clone(&self).start(*plan).await?;
            }
        }
        Ok(self.status(&configuration))
    }
}

impl Engine for NetcfgEngine {
    fn start(&self, plan: NetworkPlan) -> EngineFuture<StartOutcome> {
        self.on_runtime(Arc::clone(&self.shared).start(plan))
    }

    fn stop(&self, configuration: &ConfigName) -> EngineFuture<StopOutcome> {
        self.on_runtime(Arc::clone(&self.shared).stop(configuration.clone()))
    }

    fn status(&self, configuration: &ConfigName) -> NetworkStatus {
        self.shared.status(configuration)
    }

    fn running(&self) -> Vec<ConfigName> {
        let mut running: Vec<_> = lock(&self.shared.sessions).keys().cloned().collect();
        running.sort();
        running
    }

    fn device_command(
        &self,
        configuration: &ConfigName,
        serial_number: SerialNumber,
        action: DeviceAction,
        timeout: Duration,
    ) -> EngineFuture<DeviceActionReply> {
        let session = self.shared.running(configuration);
        self.on_runtime(async move { session?.command(serial_number, action, timeout).await })
    }

    fn multi_device_command(
        &self,
        configuration: &ConfigName,
        serial_numbers: Vec<SerialNumber>,
        action: DeviceAction,
        timeout: Duration,
    ) -> EngineFuture<Vec<DeviceCommandResult>> {
        let session = self.shared.running(configuration);
        self.on_runtime(async move {
            let session = session?;
            let tasks: Vec<_> = serial_numbers
                .into_iter()
                .map(|serial_number| {
                    let session = Arc::clone(&session);
                    let action = action.clone();
                    let task = tokio::spawn(async move {
                        session.command(serial_number, action, timeout).await
                    });
                    (serial_number, task)
                })
                .collect();
            let mut results = Vec::with_capacity(tasks.len());
            for (serial_number, task) in tasks {
                let result = task
                    .await
                    .map_err(|error| EngineError::Internal(error.to_string()))
                    .and_then(|result| result);
                results.push((serial_number, result));
            }
            Ok(results)
        })
    }

    fn set_magnetometer_calibration(
        &self,
        configuration: &ConfigName,
        calibration: MagnetometerCalibration,
        timeout: Duration,
    ) -> EngineFuture<MagnetometerCalibration> {
        let session = self.shared.running(configuration);
        self.on_runtime(async move { session?.calibrate(calibration, timeout).await })
    }

    fn engine_command(&self, command: EngineCommand) -> EngineFuture<NetworkStatus> {
        self.on_runtime(Arc::clone(&self.shared).command(command))
    }

    fn cached_devices(&self, configuration: &ConfigName) -> Vec<CachedDevice> {
        lock(&self.shared.caches)
            .get(configuration)
            .map(|cache| cache.values().cloned().collect())
            .unwrap_or_default()
    }

    fn device_links(&self, configuration: &ConfigName) -> Vec<DeviceLink> {
        lock(&self.shared.caches)
            .get(configuration)
            .map(|cache| {
                cache
                    .values()
                    .map(|device| DeviceLink {
                        serial_number: device.serial_number,
                        connectivity: device.connectivity,
                        synchronisation: device.synchronisation,
                        battery_percent: device
                            .status
                            .as_ref()
                            .and_then(|status| status.battery_percent),
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    fn accuracy(&self, configuration: &ConfigName) -> Result<Vec<TagAccuracy>, EngineError> {
        Ok(self.shared.running(configuration)?.accuracy())
    }

    fn survey(&self, configuration: &ConfigName) -> EngineFuture<SurveyReport> {
        let session = self.shared.running(configuration);
        let shared = Arc::clone(&self.shared);
        self.on_runtime(async move {
            let session = session?;
            let report = session.survey().await?;
            lock(&shared.surveys).insert(session.configuration.clone(), report.clone());
            Ok(report)
        })
    }

    fn last_survey(&self, configuration: &ConfigName) -> Option<SurveyReport> {
        lock(&self.shared.surveys).get(configuration).cloned()
    }

    fn running_plan(&self, configuration: &ConfigName) -> Option<Arc<NetworkPlan>> {
        Some(self.shared.session(configuration)?.plan())
    }

    fn rename_devices(
        &self,
        configuration: &ConfigName,
        names: Vec<(SerialNumber, Option<ItemName>)>,
    ) {
        if let Some(session) = self.shared.session(configuration) {
            session.rename_devices(&names);
        }
    }

    fn retrack(&self, configuration: &ConfigName, roles: Vec<Role>) {
        if let Some(session) = self.shared.session(configuration) {
            session.retrack(&roles);
        }
    }

    fn set_zones(&self, configuration: &ConfigName, zones: Vec<Zone>) {
        if let Some(session) = self.shared.session(configuration) {
            // Replaced here, in the caller's order; told on the runtime.
            let told = session.replace_zones(zones);
            self.shared
                .runtime
                .spawn(async move { session.send_told(told).await });
        }
    }

    fn zone_occupancy(
        &self,
        configuration: &ConfigName,
        zone_id: u16,
    ) -> Result<Vec<Occupant>, EngineError> {
        Ok(self.shared.running(configuration)?.zone_occupancy(zone_id))
    }

    fn beacon_counts(&self, configuration: &ConfigName) -> Vec<BeaconCounts> {
        self.shared
            .session(configuration)
            .map(|session| session.beacon_counts())
            .unwrap_or_default()
    }

    fn clear_cached_device(&self, configuration: &ConfigName, serial_number: SerialNumber) -> bool {
        lock(&self.shared.caches)
            .get_mut(configuration)
            .is_some_and(|cache| cache.remove(&serial_number).is_some())
    }

    fn clear_cache(&self, configuration: &ConfigName) -> usize {
        lock(&self.shared.caches)
            .remove(configuration)
            .map_or(0, |cache: BTreeMap<_, _>| cache.len())
    }

    fn forget(&self, configuration: &ConfigName) {
        // The lifecycle lock orders this after a start in progress.
        let lifecycle = self.shared.lifecycle(configuration);
        let Ok(_guard) = lifecycle.try_lock() else {
            return;
        };
        if self.shared.session(configuration).is_some() {
            return;
        }
        lock(&self.shared.caches).remove(configuration);
        lock(&self.shared.unconfigured).retain(|(heard_by, _), _| heard_by != configuration);
        lock(&self.shared.rings).remove(configuration);
        lock(&self.shared.surveys).remove(configuration);
        // Clones are taken under this lock: when ours and the map's are the
        // only ones, no start or stop is on its way to it.
        let mut lifecycles = lock(&self.shared.lifecycles);
        if lifecycles
            .get(configuration)
            .is_some_and(|kept| Arc::strong_count(kept) == 2)
        {
            lifecycles.remove(configuration);
        }
    }

    fn unconfigured_devices(&self, configuration: Option<ConfigName>) -> Vec<UnconfiguredDevice> {
        lock(&self.shared.unconfigured)
            .iter()
            .filter(|((heard_by, _), _)| {
                configuration
                    .as_ref()
                    .is_none_or(|wanted| wanted == heard_by)
            })
            .map(|(_, device)| device.clone())
            .collect()
    }

    fn subscribe(&self) -> broadcast::Receiver<EngineEvent> {
        self.shared.events.subscribe()
    }

    fn live(&self) -> broadcast::Receiver<LiveEvent> {
        self.shared.live.subscribe()
    }

    fn log_messages(&self, configuration: &ConfigName) -> Vec<String> {
        lock(&self.shared.rings)
            .get(configuration)
            .map(|ring| ring.iter().cloned().collect())
            .unwrap_or_default()
    }

    fn package_status(&self) -> Vec<PackageStatus> {
        let installed = |name: &str, version: String| PackageStatus {
            name: name.to_owned(),
            version: Some(version),
            state: PackageState::Installed,
        };
        let version = env!("CARGO_PKG_VERSION").to_owned();
        vec![
            installed("netcfg-engine", version.clone()),
            installed("netcfg-wire-protocol", PROTOCOL_VERSION.to_string()),
            installed("netcfg-simulator", version),
        ]
    }

    fn record(
        &self,
        configuration: &ConfigName,
        sink: Arc<dyn DatagramSink>,
    ) -> Result<(), EngineError> {
        let session = self.shared.running(configuration)?;
        session.tap.attach(sink);
        // A recording starts with the state a listener needs: the
        // announcements, names, roles and activity, sent again at once.
        session.repeat_state();
        Ok(())
    }

    fn replay_state(&self, configuration: &ConfigName) -> Result<ReplayState, EngineError> {
        let session = self.shared.running(configuration)?;
        match &session.replay {
            Some(replay) => Ok(replay.handle.state()),
            None => Err(EngineError::NotReplaying(configuration.clone())),
        }
    }

    fn replay_control(
        &self,
        configuration: &ConfigName,
        control: ReplayControl,
    ) -> Result<ReplayState, EngineError> {
        let session = self.shared.running(configuration)?;
        match &session.replay {
            Some(replay) => Ok(replay.handle.control(control)),
            None => Err(EngineError::NotReplaying(configuration.clone())),
        }
    }
}
