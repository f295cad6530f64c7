//! The service layer of netcfg: every operation on a configuration as one
//! typed async function, between a front door (the HTTP API, a program that
//! embeds netcfg) and the saved-state files (`netcfg-store`) and the
//! networks (`netcfg-engine`).
//!
//! A front door parses its input into the model's types, calls one function
//! of [`Service`] and renders what it returns. What a step of a
//! configuration's life involves (stopping a running network before it is
//! deleted, dropping what is kept about a renamed one, journalling a copy in
//! the new file, telling listeners) is written here, once.
//!
//! # Embedding
//!
//! A program that embeds netcfg without its HTTP crate builds the service
//! from a data directory and an engine and starts its background work
//! ([`Service::start_background_work`]): it then gets what the server gets, alerts,
//! schedules and outputs (MQTT, webhooks) included, and reads the live
//! events in one vocabulary ([`SiteEvent`], the payloads of
//! `netcfg_model::event`):
//!
//! ```no_run
//! use std::{sync::Arc, time::Duration};
//!
//! use netcfg_engine::{EngineOptions, NetcfgEngine};
//! use netcfg_service::{Service, Services, SiteEvent};
//! use netcfg_store::Store;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let runtime = tokio::runtime::Runtime::new()?;
//! let engine = NetcfgEngine::new(EngineOptions::default(), runtime.handle().clone());
//! let service = Service::new(Services {
//!     store: Arc::new(Store::open("netcfg-data")?),
//!     engine: Arc::new(engine),
//!     command_timeout: Duration::from_secs(5),
//! });
//! service.start_background_work(runtime.handle());
//! let mut events = service.site_events();
//! runtime.block_on(async {
//!     while let Ok(event) = events.recv().await {
//!         if let SiteEvent::Zones { net, events } = event {
//!             println!("{net}: {} zone crossings", events.len());
//!         }
//!     }
//! });
//! # Ok(())
//! # }
//! ```
//!
//! Invariants:
//! - no HTTP, no JSON wire shapes, no API versions: a result is a model
//!   value or a typed outcome, an error a [`ServiceError`];
//! - nothing blocks an async caller: store work runs on the runtime's
//!   blocking threads, changes are queued on the configuration's writer and
//!   awaited, engine calls are the engine's own futures;
//! - every change is journalled in the configuration's history under the
//!   [`Write`] it was given, and honours its precondition on the writer
//!   thread, inside the change's transaction.

mod alerts;
mod devices;
mod error;
mod history;
mod live;
mod logs;
mod nets;
mod notifications;
mod outputs;
mod people;
mod positions;
mod recordings;
mod resources;
mod schedules;
mod settings;
mod site;
mod site_events;
mod waiting;
mod zones;

pub use live::EngineCounters;
pub use logs::LOG_FILE_LIMIT;
pub use recordings::{RECORDING_PENDING_BYTES, RecordingLimits, RecordingRequest};
pub use resources::MaxTagsSource;
pub use site_events::SiteEvent;

use std::{
    sync::{Arc, RwLock},
    time::Duration,
};

use netcfg_engine::{Engine, NetworkPlan};
use netcfg_model::{ChangeRecord, ConfigName, Configuration, RunState};
use netcfg_store::{Net, Store};

pub use alerts::ALERT_PERIOD;
pub use devices::CommandResult;
pub use error::{BadUpload, ConflictKind, EngineError, IoFault, Missing, ServiceError, StoreError};
pub use netcfg_store::{
    PairOutcome, RecordingUpload, Retention, SettingDeletion, SettingWrite, StampKind,
    StoreCounters, StreamDeletion, Upload, counters as store_counters,
};
pub use nets::{EngineCommandOutcome, Restart, StartMessage};
pub use notifications::Resume;
pub use people::{
    Caller, Identity, OidcStart, PeopleSettings, SessionId, SingleSignOnError, Who,
    offline as people_offline,
};
pub use schedules::SCHEDULER_MAX_SLEEP;

/// How long a device command waits for its reply, unless configured.
pub const DEFAULT_COMMAND_TIMEOUT: Duration = Duration::from_secs(5);

/// What the service is built from: the saved-state files and the engine.
#[derive(Clone)]
pub struct Services {
    /// The saved-state files.
    pub store: Arc<Store>,
    /// The engine that runs configurations.
    pub engine: Arc<dyn Engine>,
    /// How long a device command waits for its reply.
    pub command_timeout: Duration,
}

impl std::fmt::Debug for Services {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Services")
            .field("data_dir", &self.store.data_dir())
            .field("command_timeout", &self.command_timeout)
            .finish_non_exhaustive()
    }
}

/// A step of a configuration's life that listeners hear of (starts and
/// stops are the engine's to tell).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lifecycle<'a> {
    /// Created, uploaded or copied to.
    Created,
    /// Deleted.
    Deleted,
    /// Renamed to the name given.
    Renamed(&'a ConfigName),
}

/// Hears what the service did, synchronously, before the operation
/// returns: a front door keeps caches and live streams in step with it.
pub trait Observer: Send + Sync + 'static {
    /// `name` went through `step`.
    fn lifecycle(&self, name: &ConfigName, step: Lifecycle<'_>);
    /// Whatever is kept in memory about `name` is stale: it was deleted,
    /// renamed or reconfigured.
    fn forget(&self, name: &ConfigName);
    /// Notifications of `name`'s network were stored with these identifiers.
    fn notifications(&self, name: &ConfigName, stored: &[netcfg_model::Notification]);
}

/// What a change is recorded as in the history, and what it requires of
/// the configuration: with `expected`, the change is refused
/// ([`StoreError::Changed`]) when data of that kind was committed to the
/// configuration since that stamp (optimistic concurrency).
#[derive(Debug, Clone)]
pub struct Write {
    /// The history's record of the change.
    pub record: ChangeRecord,
    /// The stamp the writer's client read under, if it set a condition.
    pub expected: Option<Expected>,
}

/// A precondition: the configuration's data of `kind` is still as it was
/// at `stamp` ([`Service::stamp`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Expected {
    /// The kind of data the client read.
    pub kind: StampKind,
    /// Its stamp when the client read it.
    pub stamp: u64,
}

impl Write {
    /// A change recorded as `record`, with no precondition.
    pub fn new(record: ChangeRecord) -> Self {
        Self {
            record,
            expected: None,
        }
    }

    /// This change, recorded with another summary.
    pub fn summarised(mut self, summary: impl Into<String>) -> Self {
        self.record.summary = summary.into();
        self
    }
}

/// The operations on configurations. Cheap to clone; every clone is the
/// same service.
#[derive(Clone)]
pub struct Service {
    inner: Arc<Inner>,
}

struct Inner {
    services: Services,
    observers: RwLock<Vec<Arc<dyn Observer>>>,
    /// The alert rules that fire now, by running configuration (the
    /// watch's last look).
    firing: std::sync::Mutex<std::collections::HashMap<ConfigName, Vec<netcfg_model::Firing>>>,
    /// The configurations whose schedules the scheduler must read again.
    reread: schedules::Reread,
    /// Held while the zones are read and handed to the engine, so that two
    /// changes in quick succession reach it in order.
    zone_push: tokio::sync::Mutex<()>,
    /// The running configurations' outputs.
    outputs: netcfg_outputs::Outputs,
    /// Held while the outputs are read and handed over, so that a start
    /// and a change, or two changes, arrive in order.
    output_push: tokio::sync::Mutex<()>,
    /// Stored notifications on their way to the outputs.
    stored_notifications: outputs::StoredNotifications,
    recorders: recordings::Recorders,
    /// The live events, once in the site's vocabulary.
    site_feed: site_events::SiteFeed,
    /// Whether changes wait for a restart, as last found.
    waiting: waiting::Waiting,
    /// Each running configuration's tags' last positions.
    latest_positions: positions::LatestPositions,
    /// Users, keys and sessions in memory (decisions §17).
    people: people::PeopleState,
    /// Whether [`Service::start_background_work`] ran.
    started: std::sync::atomic::AtomicBool,
}

impl std::fmt::Debug for Service {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Service")
            .field("services", &self.inner.services)
            .finish_non_exhaustive()
    }
}

impl From<Services> for Service {
    fn from(services: Services) -> Self {
        Self::new(services)
    }
}

impl Service {
    /// The service over `services`; [`Service::start_background_work`] starts its
    /// background work.
    pub fn new(services: Services) -> Self {
        let service = Self {
            inner: Arc::new(Inner {
                services,
                observers: RwLock::new(Vec::new()),
                firing: std::sync::Mutex::default(),
                reread: schedules::Reread::default(),
                zone_push: tokio::sync::Mutex::default(),
                outputs: netcfg_outputs::Outputs::new(),
                output_push: tokio::sync::Mutex::default(),
                stored_notifications: outputs::StoredNotifications::default(),
                recorders: recordings::Recorders::default(),
                site_feed: site_events::SiteFeed::default(),
                waiting: waiting::Waiting::default(),
                latest_positions: positions::LatestPositions::default(),
                people: people::PeopleState::default(),
                started: std::sync::atomic::AtomicBool::new(false),
            }),
        };
        // The users and keys, read once here (the store opened their file):
        // a request is identified from memory.
        if let Err(error) = service.load_people() {
            log::error!("the users and keys could not be read: {error}");
        }
        service
    }

    /// Adds a listener of what the service does.
    pub fn observe(&self, observer: Arc<dyn Observer>) {
        netcfg_model::sync::write(&self.inner.observers).push(observer);
    }

    /// The engine, for the service's own modules: a front door reaches
    /// the networks through the service's functions and its live feed.
    fn engine(&self) -> &Arc<dyn Engine> {
        &self.inner.services.engine
    }

    /// How long a device command waits for its reply.
    pub fn command_timeout(&self) -> Duration {
        self.inner.services.command_timeout
    }

    /// The data directory.
    pub fn data_dir(&self) -> &std::path::Path {
        self.store().data_dir()
    }

    fn store(&self) -> &Arc<Store> {
        &self.inner.services.store
    }

    fn observers(&self) -> Vec<Arc<dyn Observer>> {
        netcfg_model::sync::read(&self.inner.observers).clone()
    }

    fn tell(&self, name: &ConfigName, step: Lifecycle<'_>) {
        self.inner.reread.net(name);
        if let Lifecycle::Renamed(to) = step {
            self.inner.reread.net(to);
        }
        for observer in self.observers() {
            observer.lifecycle(name, step);
        }
    }

    /// Drops what the server keeps in memory about `name`: the engine's
    /// data and every observer's.
    fn forget(&self, name: &ConfigName) {
        for observer in self.observers() {
            observer.forget(name);
        }
        self.engine().forget(name);
        self.forget_waiting(name);
    }

    /// Runs `work` on the store, on a blocking thread (SQLite waits for the
    /// disk).
    async fn blocking<T, F>(&self, work: F) -> Result<T, ServiceError>
    where
        T: Send + 'static,
        F: FnOnce(&Store) -> Result<T, StoreError> + Send + 'static,
    {
        let store = self.store().clone();
        tokio::task::spawn_blocking(move || work(&store))
            .await
            .map_err(|error| ServiceError::Worker(error.to_string()))?
            .map_err(ServiceError::from)
    }

    /// Runs the read `work` on the configuration `name`.
    /// Writes what arrives in `chunks` into what `begin` opens, with
    /// `write`, on a blocking thread, until the sender is dropped: a file
    /// of any size costs a few chunks of memory. The writer starts at once,
    /// before the returned future is awaited, so the caller can feed it
    /// first.
    fn write_arriving<U, C>(
        &self,
        mut chunks: tokio::sync::mpsc::Receiver<C>,
        begin: fn(&Store) -> Result<U, StoreError>,
        write: fn(&mut U, &[u8]) -> Result<(), StoreError>,
    ) -> impl Future<Output = Result<U, ServiceError>> + use<U, C>
    where
        U: Send + 'static,
        C: AsRef<[u8]> + Send + 'static,
    {
        let store = self.store().clone();
        let writer = tokio::task::spawn_blocking(move || {
            let mut file = begin(&store)?;
            while let Some(chunk) = chunks.blocking_recv() {
                write(&mut file, chunk.as_ref())?;
            }
            Ok::<_, StoreError>(file)
        });
        async move {
            writer
                .await
                .map_err(|error| ServiceError::Worker(error.to_string()))?
                .map_err(ServiceError::from)
        }
    }

    async fn read<T, F>(&self, name: &ConfigName, work: F) -> Result<T, ServiceError>
    where
        T: Send + 'static,
        F: FnOnce(&Net) -> Result<T, StoreError> + Send + 'static,
    {
        let name = name.clone();
        self.blocking(move |store| work(&store.net(&name)?)).await
    }

    /// The configuration `name`, awake: with no blocking thread when it is
    /// awake already (the common case; waking it opens files).
    async fn awake(&self, name: &ConfigName) -> Result<Net, ServiceError> {
        if let Some(net) = self.store().net_if_awake(name) {
            return Ok(net);
        }
        let name = name.clone();
        self.blocking(move |store| {
            let net = store.net(&name)?;
            net.wake()?;
            Ok(net)
        })
        .await
    }

    /// Runs `change` on the writer of configuration `name` and awaits its
    /// commit, journalled as `write` says and refused if `write`'s
    /// precondition no longer holds. Changes of concurrent callers share
    /// commits.
    async fn change<T, F>(
        &self,
        name: &ConfigName,
        write: Write,
        change: F,
    ) -> Result<T, ServiceError>
    where
        T: Send + 'static,
        F: FnOnce(&Net) -> Result<T, StoreError> + Send + 'static,
    {
        let net = self.awake(name).await?;
        let Write { record, expected } = write;
        net.change_as(record, move |net| {
            if let Some(Expected { kind, stamp }) = expected {
                net.require_stamp(kind, stamp)?;
            }
            change(net)
        })
        .await
        .map_err(ServiceError::from)
    }

    /// The configuration's generation: it changes after every commit, and no
    /// two openings share one. A cache keyed on it is never older than the
    /// last acknowledged change.
    pub async fn generation(&self, name: &ConfigName) -> Result<u64, ServiceError> {
        Ok(self.awake(name).await?.generation())
    }

    /// The configuration's stamp of `kind`: it changes after every commit
    /// that touched that kind of its data, and no two openings share one.
    /// A representation read after it is at least as new as the stamp says.
    pub async fn stamp(&self, name: &ConfigName, kind: StampKind) -> Result<u64, ServiceError> {
        Ok(self.awake(name).await?.stamp(kind))
    }

    /// [`Service::stamp`] when the configuration is awake, with no I/O:
    /// `None` when reading it would open files.
    pub fn stamp_if_awake(&self, name: &ConfigName, kind: StampKind) -> Option<u64> {
        self.store().net_if_awake(name).map(|net| net.stamp(kind))
    }

    /// The configuration's network's run state (stopped for a
    /// configuration the engine does not know).
    pub fn run_state(&self, name: &ConfigName) -> RunState {
        self.engine().status(name).state
    }

    /// The configuration's generation when it is awake, with no I/O: `None`
    /// when reading it would open files.
    pub fn generation_if_awake(&self, name: &ConfigName) -> Option<u64> {
        self.store().net_if_awake(name).map(|net| net.generation())
    }

    /// A [`ServiceError`] of kind not found unless the configuration exists
    /// (for what the engine keeps about it, which outlives no
    /// configuration).
    pub async fn require_net(&self, name: &ConfigName) -> Result<(), ServiceError> {
        // An open, awake configuration exists: answered without a blocking
        // thread. A thousand browsers opening their event streams at once
        // otherwise started some 64 of them, each kept (its stack, its
        // allocator cache) for the ten seconds tokio keeps an idle one.
        if self.store().net_if_awake(name).is_some() {
            return Ok(());
        }
        let name = name.clone();
        self.blocking(move |store| store.get(&name).map(drop)).await
    }

    /// True when the configuration's network runs.
    pub fn is_running(&self, name: &ConfigName) -> bool {
        self.engine().status(name).state == RunState::Running
    }

    /// A conflict unless the configuration is stopped: for changes a running
    /// network cannot take.
    fn require_stopped(&self, name: &ConfigName, change: &str) -> Result<(), ServiceError> {
        if self.is_running(name) {
            return Err(ServiceError::Running(format!(
                "configuration {name} is running; stop it before changing its {change}"
            )));
        }
        Ok(())
    }

    /// A configuration with its run state filled in from the engine.
    fn with_state(&self, mut configuration: Configuration) -> Configuration {
        configuration.state = self.engine().status(&configuration.name).state;
        configuration.restart_needed = Some(false);
        configuration
    }

    /// Everything the engine needs to run a configuration, read from its
    /// file.
    async fn plan(&self, name: &ConfigName) -> Result<NetworkPlan, ServiceError> {
        let name = name.clone();
        self.blocking(move |store| {
            let net = store.net(&name)?;
            let configuration = net.configuration()?;
            let replay = match &configuration.instance {
                netcfg_model::Instance::Replay(source) => {
                    let path = store.recording_path(&source.net, &source.recording)?;
                    let recording = store.recording(&source.net, &source.recording)?;
                    Some(netcfg_engine::ReplayPlan {
                        source: source.clone(),
                        path,
                        duration_ms: recording.duration_ms,
                    })
                }
                _ => None,
            };
            Ok(NetworkPlan {
                configuration: name.clone(),
                instance: configuration.instance,
                network_mode: net.network_mode()?,
                rf: net.active_rf_setting()?,
                roles: net.roles()?,
                devices: net.devices()?,
                streams: net.streams()?,
                settings: net.settings(None)?,
                zones: net.zones()?,
                log_directory: store.log_dir(&name)?,
                replay,
                survey: store.survey(&name)?,
            })
        })
        .await
    }

    /// Runs a query of the host on a blocking thread: it asks the kernel or
    /// starts a process, which an async caller must not wait for.
    async fn on_host<T: Send + 'static>(query: fn() -> T) -> Result<T, ServiceError> {
        tokio::task::spawn_blocking(query)
            .await
            .map_err(|error| ServiceError::Worker(error.to_string()))
    }
}
