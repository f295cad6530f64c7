//! The typed operations on one configuration's resources.
//!
//! Each resource group has its own module holding plain functions over a
//! `&Connection` (usable inside any transaction, for example by the upload
//! check) and the [`Net`] methods that run them: reads on a reader
//! connection, changes on the writer thread (durable when they return).

mod alert_rules;
mod cache;
mod devices;
mod limits;
mod notifications;
mod outputs;
mod pairs;
mod rf;
mod roles;
mod schedules;
mod settings;
mod streams;
mod zones;

use std::{future::Future, sync::Arc};

use netcfg_model::{
    ChangeRecord, ConfigName, Configuration, GroupImage, HistoryEntry, Instance, RunState,
    body::GroupImagePatchBody,
};
use rusqlite::{Connection, OptionalExtension};

pub use devices::DevicePatchOutcome;
pub use notifications::NewNotification;
pub use pairs::PairOutcome;
pub use settings::{ACTIVE_RF_SETTING_KEY, SettingDeletion, SettingWrite};
pub use streams::StreamDeletion;
pub use zones::MAX_ZONES;

use crate::{database::Database, error::StoreError, stamps::StampKind};

/// One configuration, open for reading and changing its resources.
///
/// Cheap to clone; every call stands alone (holds no lock between calls). A
/// call that races with the configuration's deletion or renaming answers
/// [`StoreError::NotFound`].
#[derive(Debug, Clone)]
pub struct Net {
    name: ConfigName,
    db: Arc<Database>,
}

impl Net {
    pub(crate) fn new(name: ConfigName, db: Arc<Database>) -> Self {
        Self { name, db }
    }

    /// The configuration's name.
    pub fn name(&self) -> &ConfigName {
        &self.name
    }

    /// A value that changes after every commit to this configuration (and
    /// differs between configurations and between openings of one). Read it
    /// before reading the configuration: what was read is then at least as
    /// new as the value, so a result kept under it is current for as long
    /// as the value does not change.
    pub fn generation(&self) -> u64 {
        self.db.generation()
    }

    /// The current stamp of `kind`: it changes after every commit that
    /// touched that kind of the configuration's data (and differs between
    /// configurations, kinds' changes and openings). Read it before reading
    /// the configuration, like [`Net::generation`]. No I/O.
    pub fn stamp(&self, kind: StampKind) -> u64 {
        self.db.stamp(kind)
    }

    /// Inside a change ([`Net::change`]): fails with
    /// [`StoreError::Changed`] unless `kind`'s stamp is still `stamp` (read
    /// with [`Net::stamp`] when the caller's client read what it shows), so
    /// that nothing of that kind changed since. It runs on the writer thread,
    /// in the change's transaction: no other change can come between the
    /// check and the change's writes. What an HTTP `If-Match` needs; unlike
    /// a check of the generation, a commit of another kind (the engine's
    /// notifications while the network runs) does not fail it.
    ///
    /// # Errors
    /// [`StoreError::Changed`] when it changed (or another change of the
    /// same commit touched that kind first); [`StoreError::Io`] outside a
    /// change.
    pub fn require_stamp(&self, kind: StampKind, stamp: u64) -> Result<(), StoreError> {
        if self.db.unchanged_stamp(kind, stamp)? {
            Ok(())
        } else {
            Err(StoreError::Changed {
                what: format!("configuration {}", self.name),
            })
        }
    }

    /// Runs `change` on the configuration's writer thread, as one change of
    /// its next commit, and returns a future that resolves once that commit
    /// is durable: the async form of every write of `Net`, with no thread
    /// blocked while it is awaited.
    ///
    /// `change` gets this configuration and calls the ordinary methods on it:
    /// on the writer thread, each write runs at once in a nested savepoint of
    /// this change (a failed one is undone alone), and reads see the
    /// change's own writes. Everything `change` does is committed together,
    /// or (when it returns an error) not at all. It shares its commit with
    /// the other changes queued meanwhile (one savepoint each).
    ///
    /// The change is queued when `change` is called, not when the future is
    /// first polled, and dropping the future does not withdraw it. Queuing
    /// never blocks on I/O while the configuration is awake ([`Net::is_awake`]);
    /// a resting configuration is woken first, which opens its file and
    /// starts its writer (about a millisecond, blocking): an async caller
    /// that must not block does that on a blocking thread with [`Net::wake`]
    /// (or finds an awake configuration with [`crate::Store::net_if_awake`]).
    ///
    /// `change` touches this configuration only: a write to another
    /// configuration from inside it answers [`StoreError::Io`] (waiting for
    /// another writer from a writer could deadlock). It runs on the writer
    /// thread, so it should do nothing slow besides the store's calls.
    ///
    /// ```
    /// # fn main() -> Result<(), netcfg_store::StoreError> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// # let store = netcfg_store::Store::open(dir.path())?;
    /// # let name: netcfg_model::ConfigName = "site".parse().unwrap();
    /// # store.create(&name, netcfg_model::Instance::ServerDefault)?;
    /// use netcfg_model::body::GroupImagePatchBody;
    /// let net = store.net(&name)?;
    /// let body: GroupImagePatchBody =
    ///     serde_json::from_value(serde_json::json!({"path": "/images/site.bin"})).unwrap();
    /// let changed = net.change(move |net| net.patch_group_image(body));
    /// // ... in an async fn: `changed.await?` ...
    /// # let image = tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(changed)?;
    /// # assert_eq!(image.path.as_deref(), Some("/images/site.bin"));
    /// # Ok(())
    /// # }
    /// ```
    pub fn change<T, F>(
        &self,
        change: F,
    ) -> impl Future<Output = Result<T, StoreError>> + Send + 'static
    where
        T: Send + 'static,
        F: FnOnce(&Net) -> Result<T, StoreError> + Send + 'static,
    {
        self.submit(None, change)
    }

    /// [`Net::change`] made for a request: the history records it under
    /// `record` (who, from where, which request, what it was), with how many
    /// items it added, changed and removed, even when it changed nothing.
    pub fn change_as<T, F>(
        &self,
        record: ChangeRecord,
        change: F,
    ) -> impl Future<Output = Result<T, StoreError>> + Send + 'static
    where
        T: Send + 'static,
        F: FnOnce(&Net) -> Result<T, StoreError> + Send + 'static,
    {
        self.submit(Some(record), change)
    }

    fn submit<T, F>(
        &self,
        record: Option<ChangeRecord>,
        change: F,
    ) -> impl Future<Output = Result<T, StoreError>> + Send + 'static
    where
        T: Send + 'static,
        F: FnOnce(&Net) -> Result<T, StoreError> + Send + 'static,
    {
        let net = self.clone();
        self.db.submit(record, move |_| change(&net))
    }

    /// The change history, newest first: the entries older than `before`
    /// (every entry when `None`), at most `limit`.
    pub fn history(
        &self,
        before: Option<u64>,
        limit: u32,
    ) -> Result<Vec<HistoryEntry>, StoreError> {
        self.db
            .read(move |conn| crate::history::list(conn, before, limit))
    }

    /// Puts the configuration's content back to what it was right after
    /// change `id` of its history (devices, roles, RF settings, streams,
    /// position limits, settings, the instance and group image; not the
    /// notifications or the cached device data): one new change, which can
    /// be undone by restoring to the change before it.
    ///
    /// # Errors
    /// [`StoreError::NotFound`] ([`Missing::HistoryEntry`]) when the history
    /// never had change `id`; [`StoreError::Conflict`] with
    /// [`ConflictKind::HistoryPruned`] when it was pruned
    /// ([`crate::Retention`]), with [`ConflictKind::HistoryDiverged`] when
    /// the history does not fit the content (a damaged file); nothing is
    /// changed then.
    ///
    /// [`Missing::HistoryEntry`]: crate::Missing::HistoryEntry
    /// [`ConflictKind::HistoryPruned`]: crate::ConflictKind::HistoryPruned
    /// [`ConflictKind::HistoryDiverged`]: crate::ConflictKind::HistoryDiverged
    pub fn restore(&self, id: u64) -> Result<(), StoreError> {
        self.db.write(move |conn| crate::history::restore(conn, id))
    }

    /// Prunes now, in one change, the history entries and notifications
    /// past the store's [`crate::Retention`], and gives the freed pages
    /// back. The writer does the same in the background, in small steps,
    /// within seconds of a bound passed; this is for a program that wants
    /// it done at once.
    ///
    /// # Errors
    /// The file's.
    pub fn prune(&self) -> Result<(), StoreError> {
        let retention = self.db.retention();
        self.db
            .write(move |conn| crate::retention::prune_all(conn, &retention))
    }

    /// True when the configuration is awake (its writer runs): a
    /// [`Net::change`] queued now does no file I/O on the caller's thread.
    /// It may be put to rest after `idle_after` without calls.
    pub fn is_awake(&self) -> bool {
        self.db.is_awake()
    }

    /// Wakes the configuration if it rests: opens its connection and starts
    /// its writer thread. Blocks (about a millisecond); call it from a thread
    /// that may block, before [`Net::change`] when [`Net::is_awake`] is false.
    pub fn wake(&self) -> Result<(), StoreError> {
        self.db.wake_up()
    }

    /// The configuration: name, instance and network mode. `state` is always
    /// [`RunState::Stopped`]: the file does not know whether an engine runs
    /// it; the caller fills it in.
    pub fn configuration(&self) -> Result<Configuration, StoreError> {
        let name = self.name.clone();
        self.db.read(move |conn| configuration(conn, name))
    }

    /// Changes the engine instance that runs the configuration.
    pub fn set_instance(&self, instance: Instance) -> Result<Configuration, StoreError> {
        let name = self.name.clone();
        self.db.write(move |conn| {
            conn.execute(
                "UPDATE configuration SET instance = ?1 WHERE id = 1",
                [instance.to_string()],
            )?;
            configuration(conn, name)
        })
    }

    /// The group image.
    pub fn group_image(&self) -> Result<GroupImage, StoreError> {
        self.db.read(group_image)
    }

    /// Changes the group image.
    pub fn patch_group_image(&self, body: GroupImagePatchBody) -> Result<GroupImage, StoreError> {
        self.db.write(move |conn| {
            let mut image = group_image(conn)?;
            body.apply(&mut image);
            if let Some(path) = &image.path
                && (path.is_empty() || path.len() > 4096 || path.chars().any(char::is_control))
            {
                return Err(StoreError::invalid(
                    "path",
                    "a path has 1 to 4096 bytes and no control characters",
                ));
            }
            conn.execute(
                "UPDATE configuration SET group_image_path = ?1 WHERE id = 1",
                [&image.path],
            )?;
            Ok(image)
        })
    }
}

/// Reads the configuration's own row and network mode.
pub(crate) fn configuration(
    conn: &Connection,
    name: ConfigName,
) -> Result<Configuration, StoreError> {
    let instance: String = conn
        .query_row(
            "SELECT instance FROM configuration WHERE id = 1",
            [],
            |row| row.get(0),
        )
        .optional()?
        .ok_or_else(|| StoreError::io_message("reading", "the configuration row is missing"))?;
    let instance = instance
        .parse::<Instance>()
        .map_err(|error| StoreError::io_message("reading the instance", error.to_string()))?;
    Ok(Configuration {
        name,
        instance,
        network_mode: settings::network_mode(conn)?,
        state: RunState::Stopped,
        restart_needed: None,
    })
}

fn group_image(conn: &Connection) -> Result<GroupImage, StoreError> {
    let path: Option<String> = conn.query_row(
        "SELECT group_image_path FROM configuration WHERE id = 1",
        [],
        |row| row.get(0),
    )?;
    Ok(GroupImage { path })
}

/// Fills a new file with the defaults of a new configuration (decisions.md
/// section 6): the built-in roles, the default data streams, the `default`
/// RF setting, and every catalogue setting at its default (so the network
/// mode is `multitime`).
pub(crate) fn insert_defaults(conn: &Connection, instance: &Instance) -> Result<(), StoreError> {
    conn.execute(
        "INSERT INTO configuration (id, instance, group_image_path) VALUES (1, ?1, NULL)",
        [instance.to_string()],
    )?;
    for role in netcfg_model::builtin_roles() {
        roles::insert(conn, &role)?;
    }
    for stream in netcfg_model::default_streams() {
        streams::insert(conn, &stream)?;
    }
    rf::insert(conn, &netcfg_model::RfSetting::default_setting())?;
    settings::reset_catalogue(conn)?;
    Ok(())
}

/// Reads every resource of the file once, so that a value the model refuses
/// is found now (upload check) rather than on some later request.
pub(crate) fn read_everything(conn: &Connection, name: ConfigName) -> Result<(), StoreError> {
    configuration(conn, name)?;
    group_image(conn)?;
    devices::list(conn)?;
    pairs::list(conn)?;
    roles::list(conn)?;
    rf::list(conn)?;
    streams::list(conn)?;
    limits::list(conn)?;
    settings::list(conn, None)?;
    notifications::list(conn)?;
    cache::list(conn)?;
    crate::history::check(conn)?;
    let mut statement = conn.prepare("SELECT device_id FROM magnetometer_calibrations")?;
    let ids = statement.query_map([], |row| row.get::<_, i64>(0))?;
    for id in ids {
        devices::calibration_of(conn, id?)?;
    }
    Ok(())
}
