//! The data directory and the configurations' lifecycle: list, create, get,
//! update (rename, instance), copy, delete.
//!
//! The registry lock is held only for bookkeeping (a map lookup, marking a
//! name busy or free), never for file work: a copy, a download, an upload
//! check or the opening of one configuration never delays calls for another.
//! A lifecycle step marks the names it works on busy (a rename both of its
//! names, a delete its configuration, a create, copy or upload its new name
//! while the file is published, an opening the name being opened); any other
//! call naming a busy name waits until it is free, so steps on one name never
//! interleave. A step never waits for a name while it holds one (a rename
//! takes both of its names at once), so they cannot deadlock. The
//! configuration a rename or delete concerns is closed first (its running
//! calls finish, later calls through an old [`Net`] answer `NotFound`).

use std::{
    collections::{HashMap, HashSet},
    fs,
    path::{Path, PathBuf},
    sync::{Arc, Condvar, Mutex, MutexGuard, Weak, mpsc},
    thread::JoinHandle,
    time::Duration,
};

use netcfg_model::{ConfigName, Configuration, Instance};

use netcfg_model::sync::{lock, wait};

use crate::{
    database::{Database, connect, use_wal},
    error::{ConflictKind, Missing, StoreError},
    files::{self, EXTENSION, LOGS_DIR, TEMP_DIR, TempDatabase},
    net::{self, Net},
    schema,
};

/// How the store treats its files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreOptions {
    /// How long a call waits for a file another program holds before it
    /// answers [`StoreError::Locked`]. Default: 2 seconds.
    pub busy_timeout: Duration,
    /// How long a configuration stays open after its last call: then its
    /// writer thread stops and its connections close, and its next call
    /// opens them again (about a millisecond). Default: 30 seconds.
    pub idle_after: Duration,
    /// How much history and how many notifications a configuration keeps
    /// (decisions §20); the writer prunes the rest in the background.
    pub retention: crate::Retention,
}

impl Default for StoreOptions {
    fn default() -> Self {
        Self {
            busy_timeout: Duration::from_secs(2),
            idle_after: Duration::from_secs(30),
            retention: crate::Retention::default(),
        }
    }
}

/// What the store knows of its configurations. Guarded by one mutex that is
/// held only for lookups and bookkeeping, never across file work.
#[derive(Debug, Default)]
struct Registry {
    /// The configurations opened so far (awake or resting).
    open: HashMap<ConfigName, Arc<Database>>,
    /// Names a lifecycle step is working on (opening, renaming, deleting,
    /// publishing a new file): every other call naming one waits.
    busy: HashSet<ConfigName>,
}

/// The registry and the signal that a busy name became free.
#[derive(Debug, Default)]
struct Shared {
    registry: Mutex<Registry>,
    freed: Condvar,
    /// Held while an outputs' credentials file is read and rewritten.
    secrets: Mutex<()>,
}

impl Store {
    /// Serialises the read-modify-write of credentials files.
    pub(crate) fn secrets_lock(&self) -> MutexGuard<'_, ()> {
        lock(&self.shared.secrets)
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Registry> {
        lock(&self.registry)
    }

    /// The registry, once none of `names` is busy.
    fn lock_free(&self, names: &[&ConfigName]) -> MutexGuard<'_, Registry> {
        let mut registry = self.lock();
        while names.iter().any(|name| registry.busy.contains(*name)) {
            registry = wait(&self.freed, registry);
        }
        registry
    }
}

/// Names marked busy by one lifecycle step; dropping it frees them (on every
/// exit path) and wakes the calls that wait for them.
#[derive(Debug)]
struct Busy<'a> {
    shared: &'a Shared,
    names: Vec<ConfigName>,
}

impl<'a> Busy<'a> {
    /// Marks `names` busy, after waiting until none of them is. Callers hold
    /// no other busy name (that is what rules out deadlocks).
    fn take(shared: &'a Shared, names: &[&ConfigName]) -> Self {
        let mut registry = shared.lock_free(names);
        for name in names {
            registry.busy.insert((*name).clone());
        }
        Self {
            shared,
            names: names.iter().map(|name| (*name).clone()).collect(),
        }
    }
}

impl Drop for Busy<'_> {
    fn drop(&mut self) {
        let mut registry = self.shared.lock();
        for name in &self.names {
            registry.busy.remove(name);
        }
        drop(registry);
        self.shared.freed.notify_all();
    }
}

/// The thread that puts idle configurations to rest. It stops when the
/// store is dropped.
#[derive(Debug)]
struct Janitor {
    stop: Option<mpsc::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Janitor {
    fn start(shared: Weak<Shared>, idle_after: Duration) -> Result<Self, StoreError> {
        let (stop, stopped) = mpsc::channel::<()>();
        // Often enough that a configuration rests at most half again its
        // idle time; rarely enough to cost nothing.
        let period = (idle_after / 2).max(Duration::from_millis(10));
        let thread = std::thread::Builder::new()
            .name("store-janitor".to_owned())
            .spawn(move || {
                while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(period) {
                    let Some(shared) = shared.upgrade() else {
                        return;
                    };
                    // Never hold the registry while a writer stops.
                    let open: Vec<Arc<Database>> = shared.lock().open.values().cloned().collect();
                    drop(shared);
                    for db in open {
                        db.rest_if_idle(idle_after);
                        db.wake_if_aged();
                    }
                }
            })
            .map_err(|error| StoreError::file("starting the store's janitor thread", error))?;
        Ok(Self {
            stop: Some(stop),
            thread: Some(thread),
        })
    }
}

impl Drop for Janitor {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(thread) = self.thread.take()
            && thread.join().is_err()
        {
            log::error!("the store's janitor thread panicked");
        }
    }
}

/// The saved-state files of every configuration, in one data directory:
/// `<data_dir>/<name>.sqlite`, logs in `<data_dir>/logs/<name>/`.
///
/// `Send + Sync`: share one `Store` (in an `Arc`) between threads. Every
/// call blocks until its work is done (changes: until they are durable);
/// call it from threads that may block.
#[derive(Debug)]
pub struct Store {
    pub(crate) dir: PathBuf,
    pub(crate) options: StoreOptions,
    shared: Arc<Shared>,
    people: crate::People,
    _janitor: Janitor,
}

impl Store {
    /// Opens (creating it if needed) the data directory, with default options.
    pub fn open(data_dir: impl AsRef<Path>) -> Result<Self, StoreError> {
        Self::open_with(data_dir, StoreOptions::default())
    }

    /// Opens (creating it if needed) the data directory.
    pub fn open_with(
        data_dir: impl AsRef<Path>,
        options: StoreOptions,
    ) -> Result<Self, StoreError> {
        let data_dir = data_dir.as_ref();
        let io = |what: &str| {
            let what = format!("{what} {}", data_dir.display());
            move |error| StoreError::file(what, error)
        };
        fs::create_dir_all(data_dir).map_err(io("creating"))?;
        let dir = data_dir.canonicalize().map_err(io("resolving"))?;
        // Temporary files left by a crash are never part of a configuration.
        let temp = dir.join(TEMP_DIR);
        if temp.exists() {
            fs::remove_dir_all(&temp).map_err(io("cleaning the temporary files of"))?;
        }
        fs::create_dir_all(&temp).map_err(io("creating the temporary directory of"))?;
        fs::create_dir_all(dir.join(LOGS_DIR)).map_err(io("creating the log directory of"))?;
        let shared = Arc::new(Shared::default());
        let janitor = Janitor::start(Arc::downgrade(&shared), options.idle_after)?;
        let people = crate::People::open(&dir)?;
        Ok(Self {
            dir,
            options,
            shared,
            people,
            _janitor: janitor,
        })
    }

    /// The server's users, keys and audit trail (decisions §17).
    pub fn people(&self) -> &crate::People {
        &self.people
    }

    /// The data directory (absolute).
    pub fn data_dir(&self) -> &Path {
        &self.dir
    }

    /// Checks that the data directory takes a write now: writes, syncs and
    /// removes a small file in its temporary directory. The answer of the
    /// server's readiness check. Blocks on the disk: call it off the async
    /// workers.
    ///
    /// # Errors
    /// [`StoreError::Io`] with [`IoFault::DiskFull`](crate::IoFault::DiskFull) when the filesystem is
    /// full, [`IoFault::ReadOnly`](crate::IoFault::ReadOnly) when it cannot be written.
    pub fn probe_writable(&self) -> Result<(), StoreError> {
        use std::io::Write;
        /// A page's worth: a full filesystem may still take an empty file.
        const PROBE: [u8; 4096] = [0; 4096];
        let path = files::temp_path(&self.dir, "ready-probe");
        let written = fs::File::create(&path).and_then(|mut file| {
            file.write_all(&PROBE)?;
            file.sync_all()
        });
        // Removing frees the space again; a file that was never created
        // has nothing to remove.
        let _ = fs::remove_file(&path);
        written.map_err(|error| StoreError::file("probing the data directory", error))
    }

    /// The open database of `name`, opening (and migrating) it if needed.
    /// Waits while a lifecycle step works on `name`; the registry is locked
    /// only to look up and to record, the file is opened outside it.
    pub(crate) fn handle(&self, name: &ConfigName) -> Result<Arc<Database>, StoreError> {
        let busy = {
            let mut registry = self.shared.lock_free(&[name]);
            if let Some(db) = registry.open.get(name) {
                return Ok(Arc::clone(db));
            }
            registry.busy.insert(name.clone());
            Busy {
                shared: &self.shared,
                names: vec![name.clone()],
            }
        };
        self.open_busy(&busy, name)
    }

    /// The database of `name`, which the caller marked busy, opening it if
    /// needed (outside the registry lock).
    fn open_busy(&self, _busy: &Busy<'_>, name: &ConfigName) -> Result<Arc<Database>, StoreError> {
        if let Some(db) = self.shared.lock().open.get(name) {
            return Ok(Arc::clone(db));
        }
        let path = files::config_path(&self.dir, name)?;
        if !path.is_file() {
            return Err(StoreError::not_found(
                Missing::Configuration,
                format!("configuration {name}"),
            ));
        }
        let db = Arc::new(Database::open(name, &path, &self.options)?);
        self.shared
            .lock()
            .open
            .insert(name.clone(), Arc::clone(&db));
        Ok(db)
    }

    /// Closes `name` (which the caller marked busy) if it is open: its
    /// running calls finish first, waited for outside the registry lock.
    fn close_busy(&self, _busy: &Busy<'_>, name: &ConfigName) {
        let db = self.shared.lock().open.remove(name);
        if let Some(db) = db {
            db.close();
        }
    }

    /// Refuses `name` when a configuration has it.
    pub(crate) fn check_free(&self, name: &ConfigName) -> Result<PathBuf, StoreError> {
        let path = files::config_path(&self.dir, name)?;
        if path.exists() {
            return Err(StoreError::conflict(
                ConflictKind::Taken,
                format!("configuration {name}"),
                "a configuration with this name exists",
            ));
        }
        Ok(path)
    }

    /// Publishes a finished file of `.tmp/` as configuration `name`: the name
    /// is busy only for the publishing (sync, hard link, directory sync), so
    /// nobody opens or renames onto it meanwhile. An existing name is a
    /// conflict; of concurrent publishers of one name exactly one wins.
    pub(crate) fn publish_new(&self, temp: &Path, name: &ConfigName) -> Result<(), StoreError> {
        // The long part (syncing the whole file) needs no name.
        files::sync_file(temp)?;
        let _busy = Busy::take(&self.shared, &[name]);
        let target = self.check_free(name)?;
        // A file new under this name (created, copied, uploaded) carries no
        // credentials, whatever a crash left behind.
        self.drop_secrets(name)?;
        files::publish(temp, &target, &format!("configuration {name}"))
    }

    /// One configuration, for working on its resources.
    pub fn net(&self, name: &ConfigName) -> Result<Net, StoreError> {
        let db = self.handle(name)?;
        Ok(Net::new(name.clone(), db))
    }

    /// `name`'s configuration if it is open and awake, else `None`; never
    /// waits for I/O (it looks the name up and checks the state), so an
    /// async caller may call it on its own thread, then queue changes with
    /// [`Net::change`]. On `None`, take the configuration with [`Store::net`]
    /// and [`Net::wake`] on a thread that may block (both open files).
    pub fn net_if_awake(&self, name: &ConfigName) -> Option<Net> {
        // Held only for bookkeeping, never across I/O: this waits for
        // nobody's file work.
        let registry = self.shared.lock();
        if registry.busy.contains(name) {
            return None;
        }
        let db = registry.open.get(name).filter(|db| db.is_awake())?;
        Some(Net::new(name.clone(), Arc::clone(db)))
    }

    /// The names of every configuration, sorted.
    pub fn names(&self) -> Result<Vec<ConfigName>, StoreError> {
        let entries = fs::read_dir(&self.dir)
            .map_err(|error| StoreError::file("listing the data directory", error))?;
        let mut names = Vec::new();
        for entry in entries {
            let entry =
                entry.map_err(|error| StoreError::file("listing the data directory", error))?;
            let path = entry.path();
            if path.extension().and_then(|e| e.to_str()) != Some(EXTENSION) || !path.is_file() {
                continue;
            }
            if let Some(name) = path
                .file_stem()
                .and_then(|stem| stem.to_str())
                .and_then(|stem| stem.parse::<ConfigName>().ok())
            {
                names.push(name);
            }
        }
        names.sort();
        Ok(names)
    }

    /// Every configuration, sorted by name. A file that cannot be read (locked,
    /// newer, damaged) is left out of the list and logged. Listing does not
    /// keep the configurations open.
    pub fn list(&self) -> Result<Vec<Configuration>, StoreError> {
        let mut configurations = Vec::new();
        for name in self.names()? {
            let glanced = self.handle(&name).and_then(|db| {
                let name = name.clone();
                db.glance(move |conn| net::configuration(conn, name))
            });
            match glanced {
                Ok(configuration) => configurations.push(configuration),
                Err(error) => log::warn!("configuration {name} left out of the list: {error}"),
            }
        }
        Ok(configurations)
    }

    /// One configuration.
    pub fn get(&self, name: &ConfigName) -> Result<Configuration, StoreError> {
        self.net(name)?.configuration()
    }

    /// Creates a configuration with the defaults of a new one: built-in
    /// roles, default data streams, the `default` RF setting, the catalogue
    /// settings at their defaults (network mode `multitime`). The file is
    /// built aside and appears whole; an existing name is a conflict.
    pub fn create(
        &self,
        name: &ConfigName,
        instance: Instance,
    ) -> Result<Configuration, StoreError> {
        self.check_free(name)?;
        let temp = TempDatabase::create(&self.dir, "create")?;
        {
            let conn = connect(&temp.0, self.options.busy_timeout, true)?;
            schema::create_version_1(&conn)?;
            schema::migrate(&conn, 1, schema::SCHEMA_VERSION)?;
            let transaction = conn.unchecked_transaction()?;
            net::insert_defaults(&transaction, &instance)?;
            transaction.commit()?;
            use_wal(&conn)?;
        }
        self.publish_new(&temp.0, name)?;
        self.get(name)
    }

    /// Renames a configuration and/or changes its instance. Renaming onto an
    /// existing name is a conflict; the log directory moves along.
    pub fn update(
        &self,
        name: &ConfigName,
        new_name: Option<&ConfigName>,
        instance: Option<Instance>,
    ) -> Result<Configuration, StoreError> {
        let new_name = new_name.filter(|new_name| *new_name != name);
        let Some(new_name) = new_name else {
            if let Some(instance) = instance {
                return self.net(name)?.set_instance(instance);
            }
            return self.get(name);
        };
        {
            // Both names at once: a step holding one never waits for another.
            let busy = Busy::take(&self.shared, &[name, new_name]);
            let db = self.open_busy(&busy, name)?;
            let target = self.check_free(new_name)?;
            if let Some(instance) = instance {
                Net::new(name.clone(), db).set_instance(instance)?;
            }
            self.close_busy(&busy, name);
            let source = files::config_path(&self.dir, name)?;
            if files::side_files(&source)[0].exists() {
                // Only another program's open connection keeps the log
                // after ours closed; moving the file would orphan it.
                return Err(StoreError::Locked {
                    what: format!("configuration {name}"),
                });
            }
            fs::rename(&source, &target)
                .map_err(|error| StoreError::file(format!("renaming {name}"), error))?;
            let logs = self.dir.join(LOGS_DIR);
            let (old_logs, new_logs) = (logs.join(name.as_str()), logs.join(new_name.as_str()));
            if old_logs.exists() && !new_logs.exists() {
                fs::rename(&old_logs, &new_logs).map_err(|error| {
                    StoreError::file(format!("moving the logs of {name}"), error)
                })?;
            }
            files::sync_dir(&self.dir)?;
            self.move_secrets(name, new_name)?;
            self.move_recordings(name, new_name)?;
            self.move_survey(name, new_name)?;
        }
        self.get(new_name)
    }

    /// Copies a configuration under a new name: a consistent snapshot of the
    /// source, taken while its writes go on. An existing name is a conflict.
    ///
    /// The snapshot is taken with no lock of the store held, so a long copy
    /// delays no call for another configuration (nor the source's own calls);
    /// the new name is busy only while the finished file is published.
    pub fn copy(&self, from: &ConfigName, to: &ConfigName) -> Result<Configuration, StoreError> {
        let db = self.handle(from)?;
        self.check_free(to)?;
        let temp = TempDatabase::create(&self.dir, "copy")?;
        db.snapshot_into(&temp.0)?;
        drop(db);
        use_wal(&connect(&temp.0, self.options.busy_timeout, false)?)?;
        self.publish_new(&temp.0, to)?;
        self.get(to)
    }

    /// Deletes a configuration's file and its logs.
    pub fn delete(&self, name: &ConfigName) -> Result<(), StoreError> {
        let busy = Busy::take(&self.shared, &[name]);
        let path = files::config_path(&self.dir, name)?;
        if !path.is_file() {
            return Err(StoreError::not_found(
                Missing::Configuration,
                format!("configuration {name}"),
            ));
        }
        self.close_busy(&busy, name);
        files::remove_database(&path)
            .map_err(|error| StoreError::file(format!("deleting {name}"), error))?;
        let logs = self.dir.join(LOGS_DIR).join(name.as_str());
        if logs.exists() {
            fs::remove_dir_all(&logs)
                .map_err(|error| StoreError::file(format!("deleting the logs of {name}"), error))?;
        }
        self.drop_secrets(name)?;
        self.drop_recordings(name)?;
        self.drop_survey(name)?;
        files::sync_dir(&self.dir)
    }
}
