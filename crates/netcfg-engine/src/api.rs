//! The engine's public API: the [`Engine`] trait the HTTP layer holds as
//! `Arc<dyn Engine>`, and the values it takes and gives.

use std::{
    fmt::Debug, future::Future, net::SocketAddr, path::PathBuf, pin::Pin, sync::Arc, time::Duration,
};

use netcfg_model::{
    CachedDevice, ConfigName, Connectivity, DeviceAction, DeviceActionReply, DeviceStatus,
    Instance, ItemName, Level, MagnetometerCalibration, PackageStatus, Position, ReplayControl,
    ReplayState, Role, RunState, SerialNumber, SurveyReport, Synchronisation, TagAccuracy,
    UnconfiguredDevice, Zone,
    geofence::{CrossingKind, Occupant},
};
use tokio::sync::broadcast;

use crate::{error::EngineError, plan::NetworkPlan};

/// The future of an engine operation. It owns what it needs (`'static`), so
/// a handler can hold it across awaits, and it runs on the engine's runtime.
pub type EngineFuture<T> = Pin<Box<dyn Future<Output = Result<T, EngineError>> + Send + 'static>>;

/// What a start did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StartOutcome {
    /// The network started; its log goes to this file.
    Started {
        /// The log file of this start.
        log_file: PathBuf,
    },
    /// It was running already; nothing changed.
    AlreadyRunning,
}

/// What a stop did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopOutcome {
    /// The network stopped.
    Stopped,
    /// It was not running; nothing changed.
    WasNotRunning,
}

/// What one anchor counted of the tag beacons it heard since it joined, as
/// it last reported (its `AnchorCounters`; the counts wrap at 2^32 as the
/// device's do): the difference of two readings is the packet loss between
/// them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BeaconCounts {
    /// The anchor.
    pub serial_number: SerialNumber,
    /// Beacons it reported.
    pub reported: u32,
    /// Beacons it lost: discarded, or too late to be used.
    pub lost: u32,
}

/// What the network last reported of one device's link and battery: the
/// few fields of its [`CachedDevice`] that watching it needs, read without
/// copying the rest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeviceLink {
    /// The device.
    pub serial_number: SerialNumber,
    /// How the network hears it.
    pub connectivity: netcfg_model::Connectivity,
    /// Whether it takes part in network time.
    pub synchronisation: netcfg_model::Synchronisation,
    /// Its battery charge, when it reported one and has a battery.
    pub battery_percent: Option<u8>,
}

/// A running configuration's state, or a stopped one's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NetworkStatus {
    /// The configuration.
    pub configuration: ConfigName,
    /// Running or stopped.
    pub state: RunState,
    /// The instance it runs on (resolved: never the server default).
    pub instance: Option<Instance>,
    /// Whether the link to the network interface device is up.
    pub link_up: bool,
    /// Why the link went down, if it did.
    pub link_down_reason: Option<String>,
    /// When it started, in milliseconds since the Unix epoch.
    pub started_at_ms: Option<u64>,
    /// The log file of the current start.
    pub log_file: Option<PathBuf>,
    /// Devices heard since the start.
    pub devices_heard: usize,
}

/// A 5.0 engine command (`POST /nets/{net}/action`).
#[derive(Debug, Clone, PartialEq)]
pub enum EngineCommand {
    /// Push this (saved) plan to the running network.
    Reload(Box<NetworkPlan>),
    /// Stop, then start with this plan.
    Restart(Box<NetworkPlan>),
    /// Ask the anchors of this configuration to resynchronise network time.
    Resync(ConfigName),
}

impl EngineCommand {
    /// The configuration the command is for.
    pub fn configuration(&self) -> &ConfigName {
        match self {
            Self::Reload(plan) | Self::Restart(plan) => &plan.configuration,
            Self::Resync(configuration) => configuration,
        }
    }

    /// The command's wire name: `reload`, `restart` or `resync`.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Reload(_) => "reload",
            Self::Restart(_) => "restart",
            Self::Resync(_) => "resync",
        }
    }
}

/// One device's result within a multi-device command.
pub type DeviceCommandResult = (SerialNumber, Result<DeviceActionReply, EngineError>);

/// A notification the engine raises.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineNotification {
    /// The configuration whose network raised it.
    pub configuration: ConfigName,
    /// How serious it is.
    pub level: Level,
    /// What happened.
    pub message: String,
    /// The device it concerns, if any.
    pub serial_number: Option<SerialNumber>,
    /// When, in milliseconds since the Unix epoch.
    pub timestamp_ms: u64,
}

/// An item of the live feed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EngineEvent {
    /// A notification (also written to the log).
    Notification(EngineNotification),
    /// A line written to a configuration's log.
    LogLine {
        /// The configuration.
        configuration: ConfigName,
        /// The line, with its time stamp and level.
        line: String,
    },
}

/// An item of the live state feed: what the networks do, apart from the
/// notifications, so that a flood of positions never pushes a notification
/// out of the notification feed. Sent once per event whoever listens: the
/// engine's cost does not grow with listeners.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LiveEvent {
    /// Positions the network solved, as it reported them (in batches).
    Positions {
        /// The configuration.
        configuration: ConfigName,
        /// The network time of the batch, in units of 1/975,000 s.
        network_time: u64,
        /// Each tag and where it is.
        positions: Arc<[(SerialNumber, Position)]>,
    },
    /// A configured device joined, was lost, or reported a change of its
    /// health (status, connectivity or synchronisation).
    Device {
        /// The configuration.
        configuration: ConfigName,
        /// The device.
        serial_number: SerialNumber,
        /// What happened.
        change: DeviceChange,
        /// Its connectivity now.
        connectivity: Connectivity,
        /// Its synchronisation now.
        synchronisation: Synchronisation,
        /// Its latest status report, if any.
        status: Option<DeviceStatus>,
    },
    /// Tags entered or left zones (decisions §13): the crossings one batch
    /// of positions (or one change of the zones) decided, in order.
    Zones(Arc<[ZoneEvent]>),
    /// A configuration's network started or stopped, or its link went down.
    Network {
        /// The configuration.
        configuration: ConfigName,
        /// What happened.
        change: NetworkChange,
    },
}

/// A tag entering or leaving a zone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ZoneEvent {
    /// The configuration.
    pub configuration: ConfigName,
    /// The zone's name.
    pub zone: netcfg_model::ItemName,
    /// The zone's number.
    pub zone_id: u16,
    /// The tag.
    pub serial_number: SerialNumber,
    /// Entering or leaving.
    pub kind: CrossingKind,
    /// The tag's position that decided it, mm.
    pub position: [i32; 3],
    /// The network time of that position, in units of 1/975,000 s (0
    /// when the change of a zone decided it).
    pub network_time: u64,
    /// When, in milliseconds since the Unix epoch.
    pub time_ms: u64,
}

/// What happened to a device (see [`LiveEvent::Device`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeviceChange {
    /// It joined the network.
    Joined,
    /// It went silent.
    Lost,
    /// Its status, connectivity or synchronisation changed.
    Health,
}

/// What happened to a network (see [`LiveEvent::Network`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NetworkChange {
    /// It started (its link is up).
    Started,
    /// It stopped.
    Stopped,
    /// Its link to the network interface device went down.
    LinkDown,
}

/// Where a recording takes the datagrams a running configuration sends
/// (`Engine::record`).
pub trait DatagramSink: Send + Sync + Debug {
    /// One datagram as it was sent, from `source` to `destination`, at
    /// `time_us` (microseconds since the Unix epoch). Called on the engine's
    /// async workers: never blocks. False: the sink wants no more.
    fn datagram(
        &self,
        time_us: u64,
        source: SocketAddr,
        destination: SocketAddr,
        datagram: &[u8],
    ) -> bool;

    /// Whether it still wants datagrams.
    fn is_open(&self) -> bool;

    /// The configuration stopped: no datagram follows.
    fn ended(&self);
}

/// The engine as the HTTP layer sees it. Dyn-compatible: hold it as
/// `Arc<dyn Engine>`; with the `mock` feature, `MockEngine` stands in for it
/// in handler tests.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
pub trait Engine: Send + Sync {
    /// Starts the configuration of `plan`: opens its instance, pushes the
    /// configuration, starts the network, opens the data streams and the
    /// log file. Starting a running configuration changes nothing.
    fn start(&self, plan: NetworkPlan) -> EngineFuture<StartOutcome>;

    /// Stops a configuration's network. Stopping a stopped one changes nothing.
    fn stop(&self, configuration: &ConfigName) -> EngineFuture<StopOutcome>;

    /// Whether a configuration runs, and how.
    fn status(&self, configuration: &ConfigName) -> NetworkStatus;

    /// The configurations that run now.
    fn running(&self) -> Vec<ConfigName>;

    /// Sends `action` to one device and waits up to `timeout` for its reply.
    fn device_command(
        &self,
        configuration: &ConfigName,
        serial_number: SerialNumber,
        action: DeviceAction,
        timeout: Duration,
    ) -> EngineFuture<DeviceActionReply>;

    /// Sends `action` to several devices at once; each gets its own result.
    /// Fails as a whole only when the configuration is not running.
    fn multi_device_command(
        &self,
        configuration: &ConfigName,
        serial_numbers: Vec<SerialNumber>,
        action: DeviceAction,
        timeout: Duration,
    ) -> EngineFuture<Vec<DeviceCommandResult>>;

    /// Stores a magnetometer calibration on a device of a running configuration.
    fn set_magnetometer_calibration(
        &self,
        configuration: &ConfigName,
        calibration: MagnetometerCalibration,
        timeout: Duration,
    ) -> EngineFuture<MagnetometerCalibration>;

    /// Carries out a 5.0 engine command on a running configuration.
    fn engine_command(&self, command: EngineCommand) -> EngineFuture<NetworkStatus>;

    /// What the network last reported about each device of a configuration
    /// (kept after a stop, until cleared).
    fn cached_devices(&self, configuration: &ConfigName) -> Vec<CachedDevice>;

    /// Each cached device's link and battery ([`Engine::cached_devices`]
    /// without the rest of each device).
    fn device_links(&self, configuration: &ConfigName) -> Vec<DeviceLink>;

    /// Each anchor's beacon counts as it last reported them, while the
    /// configuration runs (empty otherwise).
    fn beacon_counts(&self, configuration: &ConfigName) -> Vec<BeaconCounts>;

    /// Forgets one device's cached data; false when there was none.
    fn clear_cached_device(&self, configuration: &ConfigName, serial_number: SerialNumber) -> bool;

    /// Forgets a configuration's cached data; returns how many devices it held.
    fn clear_cache(&self, configuration: &ConfigName) -> usize;

    /// Forgets what is kept about a configuration that no longer exists
    /// (deleted, or renamed): its cached data, unconfigured devices heard by
    /// it, and recent log lines, so that memory follows the configurations
    /// that exist and a new one of the same name starts clean. A running
    /// configuration is left as it is.
    fn forget(&self, configuration: &ConfigName);

    /// Devices heard that their configuration does not hold: of one
    /// configuration, or of all when `configuration` is `None`.
    fn unconfigured_devices(&self, configuration: Option<ConfigName>) -> Vec<UnconfiguredDevice>;

    /// The live feed of notifications and log lines of every configuration.
    fn subscribe(&self) -> broadcast::Receiver<EngineEvent>;

    /// The live state feed of every configuration: positions, devices and
    /// networks. A receiver that falls behind loses the oldest items.
    fn live(&self) -> broadcast::Receiver<LiveEvent>;

    /// The latest log lines of a configuration, oldest first.
    fn log_messages(&self, configuration: &ConfigName) -> Vec<String>;

    /// The reference tags' accuracy since the running configuration started.
    ///
    /// # Errors
    /// `NotRunning` when it does not run.
    fn accuracy(&self, configuration: &ConfigName) -> Result<Vec<TagAccuracy>, EngineError>;

    /// Makes the running configuration's anchors range each other and
    /// judges their configured positions; the report is kept as the last
    /// survey.
    fn survey(&self, configuration: &ConfigName) -> EngineFuture<SurveyReport>;

    /// The configuration's last survey, if any (kept after a stop, until
    /// [`Engine::forget`]).
    fn last_survey(&self, configuration: &ConfigName) -> Option<SurveyReport>;

    /// Gives a running configuration new zones: the enters and exits that
    /// follow go to the live feed at once. Nothing when it does not run.
    fn set_zones(&self, configuration: &ConfigName, zones: Vec<Zone>);

    /// The plan a configuration's network runs now (as started or last
    /// reloaded, with the names and zones given since); `None` when it does
    /// not run.
    fn running_plan(&self, configuration: &ConfigName) -> Option<Arc<NetworkPlan>>;

    /// Gives a running configuration's devices new names: its streams
    /// announce them at once. Nothing when it does not run.
    fn rename_devices(
        &self,
        configuration: &ConfigName,
        names: Vec<(SerialNumber, Option<ItemName>)>,
    );

    /// Gives a running configuration's tag roles new tracking: its trackers
    /// take it at once (decisions §18). Nothing when it does not run.
    fn retrack(&self, configuration: &ConfigName, roles: Vec<Role>);

    /// The tags inside zone `zone_id` of a running configuration.
    fn zone_occupancy(
        &self,
        configuration: &ConfigName,
        zone_id: u16,
    ) -> Result<Vec<Occupant>, EngineError>;

    /// The engine's own components (engine, wire protocol, simulator) and
    /// their versions; no I/O. The host's packages are `netcfg-host`'s.
    fn package_status(&self) -> Vec<PackageStatus>;

    /// Hands every datagram the running `configuration` sends from now on
    /// to `sink`, until the sink says it is done or the configuration stops
    /// (then [`DatagramSink::ended`]).
    ///
    /// # Errors
    /// `NotRunning`.
    fn record(
        &self,
        configuration: &ConfigName,
        sink: Arc<dyn DatagramSink>,
    ) -> Result<(), EngineError>;

    /// Where the replay running as `configuration` stands.
    ///
    /// # Errors
    /// `NotRunning`, `NotReplaying`.
    fn replay_state(&self, configuration: &ConfigName) -> Result<ReplayState, EngineError>;

    /// Pauses, resumes, changes the speed of or moves the replay running as
    /// `configuration`; where it stands after.
    ///
    /// # Errors
    /// `NotRunning`, `NotReplaying`.
    fn replay_control(
        &self,
        configuration: &ConfigName,
        control: ReplayControl,
    ) -> Result<ReplayState, EngineError>;
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    #[tokio::test]
    async fn a_mock_engine_serves_as_a_dyn_engine() {
        let mut mock = MockEngine::new();
        mock.expect_stop().returning(|name| {
            let name = name.clone();
            Box::pin(async move { Err(EngineError::NotRunning(name)) })
        });
        mock.expect_running().returning(Vec::new);
        let engine: Arc<dyn Engine> = Arc::new(mock);
        let name: ConfigName = "site".parse().unwrap();
        let error = engine.stop(&name).await.unwrap_err();
        assert_eq!(error.to_string(), "configuration `site` is not running");
        assert!(engine.running().is_empty());
    }
}
