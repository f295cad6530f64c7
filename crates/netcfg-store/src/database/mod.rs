//! One open configuration file: a writer thread that groups queued changes
//! into one durable commit, and a pool of reader connections. A
//! configuration nobody used for a while is put to rest (no thread, no
//! connection) and woken by its next call, so that idle configurations cost
//! no memory; a read opens reader connections only, and the first change
//! starts the writer.
//!
//! Every change runs on the writer thread inside its own savepoint of the
//! current batch's transaction, so a change that fails is undone alone while
//! the others of the batch commit. The caller is answered only after the
//! batch's `COMMIT` returned and the write-ahead log was synced
//! ([`crate::wal_sync`]: beside the writer when more changes wait): an
//! acknowledged change is durable.
//!
//! A change is queued with a way to answer its caller: a blocking channel
//! for [`Database::write`], a `tokio::sync::oneshot` for
//! [`Database::submit`], whose future an async caller awaits with no thread
//! blocked in between. Both go through [`Database::enqueue`].
//!
//! The writer thread keeps its connection in a thread-local while it runs,
//! so a change made of other changes ([`crate::Net::change`] runs the
//! ordinary `Net` methods on the writer) reaches it: a write started on the
//! writer thread of its own configuration runs at once, in a nested
//! savepoint of the running change, and a read there sees the change's own
//! writes. A change that reaches for another configuration's writer is
//! refused (waiting for another writer from a writer could deadlock).
//!
//! Its rooms: `connection` (a connection with the store's settings),
//! `changes` (how a change reaches the writer and its caller the answer),
//! `writer` (the writer thread: batches, savepoints, commits). This file
//! holds the open configuration: its state (awake, at rest, closed), its
//! readers and its generation.

mod changes;
mod connection;
mod writer;

use std::{
    path::{Path, PathBuf},
    sync::{
        Arc, Mutex, OnceLock, RwLock, RwLockReadGuard, TryLockError,
        atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering},
    },
    time::Duration,
};

use rusqlite::Connection;

use netcfg_model::sync::{lock, read, write};

use netcfg_model::time::clock::{monotonic_ms, wall_clock_ms_signed};

use crate::{
    StoreOptions,
    error::{Missing, StoreError},
    schema,
    stamps::{StampKind, Stamps},
};
use changes::{Caller, caller, on_writer};
pub(crate) use connection::{connect, use_wal};
use writer::WriterThread;

/// Reader connections kept open when idle.
const MAX_IDLE_READERS: usize = 2;

struct Open {
    readers: Mutex<Vec<Connection>>,
    /// Started by the first change: a configuration that is only read (a
    /// scheduler looking at every configuration's schedules at start-up)
    /// has no thread and no writer connection.
    writer: OnceLock<WriterThread>,
    /// Held while the writer starts, so that it starts once.
    starting: Mutex<()>,
    /// Whether a read came before: see [`Database::read`].
    read_before: AtomicBool,
}

impl Open {
    fn new() -> Self {
        Self {
            readers: Mutex::new(Vec::new()),
            writer: OnceLock::new(),
            starting: Mutex::new(()),
            read_before: AtomicBool::new(false),
        }
    }

    /// Stops the writer (it runs what is queued first) and closes every
    /// connection.
    fn shut(self, name: &str) {
        drop(self.readers);
        let Some(writer) = self.writer.into_inner() else {
            return;
        };
        drop(writer.jobs);
        if writer.thread.thread().id() == std::thread::current().id() {
            // The last handle was dropped by a change running on the writer
            // itself: it cannot wait for itself; with its queue closed it
            // ends (and closes its connection) once this change is done.
            return;
        }
        if writer.thread.join().is_err() {
            log::error!("the writer thread of {name} panicked");
        }
    }
}

/// What a read is, for whether its connection is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reader {
    /// An ordinary read.
    Use,
    /// A glance at many configurations ([`Database::glance`]).
    Glance,
}

/// Where an open configuration stands.
enum State {
    /// In use: a pool of readers, and a writer thread once a change came.
    Awake(Open),
    /// Unused for a while, or not used yet: no thread, no connection. The
    /// next call wakes it.
    Dormant,
    /// Closed for good (deleted, renamed, replaced): calls answer not found.
    Closed,
}

/// The source of generations: process-wide, so that a configuration opened
/// anew (created, renamed, uploaded) never reuses a value another had.
static NEXT_GENERATION: AtomicU64 = AtomicU64::new(1);

fn next_generation() -> u64 {
    NEXT_GENERATION.fetch_add(1, Ordering::SeqCst)
}

/// The source of database identities (which writer thread is whose).
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// An open configuration file.
pub(crate) struct Database {
    /// Unique in the process: tells this database's writer thread.
    id: u64,
    name: String,
    path: PathBuf,
    busy_timeout: Duration,
    retention: crate::Retention,
    state: RwLock<State>,
    /// Changes after every commit, before its callers are answered.
    generation: Arc<AtomicU64>,
    /// Change after a commit that touched their kind.
    stamps: Arc<Stamps>,
    /// When a call last began ([`monotonic_ms`]: "last used" fits an atomic).
    last_used: AtomicU64,
    /// When (wall clock, ms) it needs its writer to prune: when it opened,
    /// now if a bound was passed already; else, and when its writer last
    /// stopped, when its oldest history entry or notification passes its
    /// age bound; `i64::MAX` when none will. A resting configuration is
    /// woken then ([`Database::wake_if_aged`]), so that its writer prunes.
    ages_due_ms: Arc<AtomicI64>,
}

impl std::fmt::Debug for Database {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Database")
            .field("name", &self.name)
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl Database {
    /// Opens the file of configuration `name`, migrating it if it is older.
    /// It starts dormant: the first call starts its writer.
    pub(crate) fn open(
        name: &str,
        path: &Path,
        options: &StoreOptions,
    ) -> Result<Self, StoreError> {
        let migrated = (|| {
            let conn = connect(path, options.busy_timeout, false)?;
            schema::prepare(&conn)?;
            crate::retention::use_incremental_vacuum(&conn)?;
            use_wal(&conn)?;
            crate::retention::due_at_open(&conn, &options.retention)
        })();
        let ages_due_ms = migrated.map_err(|error: StoreError| error.in_configuration(name))?;
        let first = next_generation();
        Ok(Self {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            name: name.to_owned(),
            path: path.to_owned(),
            busy_timeout: options.busy_timeout,
            retention: options.retention,
            state: RwLock::new(State::Dormant),
            generation: Arc::new(AtomicU64::new(first)),
            stamps: Arc::new(Stamps::new(first)),
            last_used: AtomicU64::new(monotonic_ms()),
            ages_due_ms: Arc::new(AtomicI64::new(ages_due_ms.unwrap_or(i64::MAX))),
        })
    }

    /// A value that changes whenever a commit may have changed the file; read
    /// it before a read transaction, and a result kept under it is never
    /// older than what the value stands for.
    pub(crate) fn generation(&self) -> u64 {
        self.generation.load(Ordering::SeqCst)
    }

    /// The current stamp of `kind` ([`crate::stamps`]).
    pub(crate) fn stamp(&self, kind: StampKind) -> u64 {
        self.stamps.get(kind)
    }

    /// Inside a change: true when `kind`'s stamp is still `stamp` and no
    /// earlier change of this batch touched `kind`. What a conditional write
    /// checks on the writer thread, so that the check and the write are one
    /// step.
    pub(crate) fn unchanged_stamp(&self, kind: StampKind, stamp: u64) -> Result<bool, StoreError> {
        match caller(self.id) {
            Caller::ThisWriter => {
                Ok(self.stamp(kind) == stamp && !crate::stamps::batch_touched(kind))
            }
            _ => Err(StoreError::io_message(
                "checking a precondition",
                "only a change can check that nothing changed",
            )),
        }
    }

    /// How much history and how many notifications the file keeps.
    pub(crate) fn retention(&self) -> crate::Retention {
        self.retention
    }

    fn closed(&self) -> StoreError {
        StoreError::not_found(
            Missing::Configuration,
            format!("configuration {}", self.name),
        )
    }

    fn connect(&self) -> Result<Connection, StoreError> {
        connect(&self.path, self.busy_timeout, false)
            .map_err(|error| error.in_configuration(&self.name))
    }

    fn state(&self) -> RwLockReadGuard<'_, State> {
        read(&self.state)
    }

    /// The state, awake (woken if it was dormant), held for one call, and
    /// marked used.
    fn awake(&self) -> Result<RwLockReadGuard<'_, State>, StoreError> {
        loop {
            let state = self.state();
            match &*state {
                State::Awake(_) => {
                    self.last_used.store(monotonic_ms(), Ordering::Relaxed);
                    return Ok(state);
                }
                State::Closed => return Err(self.closed()),
                State::Dormant => drop(state),
            }
            let mut state = write(&self.state);
            if matches!(*state, State::Dormant) {
                *state = State::Awake(Open::new());
            }
        }
    }

    /// True when the configuration is awake and its writer runs: a change
    /// queued now opens nothing and starts no thread.
    pub(crate) fn is_awake(&self) -> bool {
        matches!(
            self.state.try_read().as_deref(),
            Ok(State::Awake(open)) if open.writer.get().is_some()
        )
    }

    /// Wakes the configuration if it rests and starts its writer (opens its
    /// connection), and marks it used.
    pub(crate) fn wake_up(&self) -> Result<(), StoreError> {
        let state = self.awake()?;
        match &*state {
            State::Awake(open) => self.writer(open).map(drop),
            State::Dormant | State::Closed => Err(self.closed()),
        }
    }

    /// Wakes the configuration when it rests and a row of it has passed its
    /// age bound: its writer starts and prunes (decisions §20: a
    /// configuration nobody writes still loses what grew too old). True
    /// when it woke it.
    pub(crate) fn wake_if_aged(&self) -> bool {
        if wall_clock_ms_signed() < self.ages_due_ms.load(Ordering::Relaxed)
            || self.is_awake()
            || matches!(*self.state(), State::Closed)
        {
            return false;
        }
        match self.wake_up() {
            Ok(()) => true,
            Err(error) => {
                log::warn!("{}: could not wake it to prune: {error}", self.name);
                false
            }
        }
    }

    /// Runs `query` on a reader connection inside one read transaction, so it
    /// sees one consistent state of the file.
    pub(crate) fn read<T>(
        &self,
        query: impl FnOnce(&Connection) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        self.read_as(Reader::Use, query)
    }

    fn read_as<T>(
        &self,
        reader: Reader,
        query: impl FnOnce(&Connection) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        if caller(self.id) == Caller::ThisWriter {
            // Inside a change: read what it wrote so far.
            return on_writer(query).map_err(|error| error.in_configuration(&self.name));
        }
        let state = self.awake()?;
        let State::Awake(open) = &*state else {
            return Err(self.closed());
        };
        let idle = lock(&open.readers).pop();
        let conn = match idle {
            Some(conn) => conn,
            None => self.connect()?,
        };
        let result = read_transaction(&conn, query);
        // Kept for the next read once the configuration is in use (its
        // writer runs, or it was read before): one look at every
        // configuration's schedules would otherwise leave a connection and
        // its cache to each. A glance (the list of configurations) is no
        // use: it keeps its connection only where the writer runs.
        let in_use = open.writer.get().is_some()
            || (reader == Reader::Use && open.read_before.swap(true, Ordering::Relaxed));
        let mut readers = lock(&open.readers);
        if readers.len() < MAX_IDLE_READERS && conn.is_autocommit() && in_use {
            readers.push(conn);
        }
        result.map_err(|error| error.in_configuration(&self.name))
    }

    /// Like [`Database::read`], without waking a dormant configuration: for
    /// a glance at many configurations (the list of them), which must not
    /// leave every one of them awake.
    pub(crate) fn glance<T>(
        &self,
        query: impl FnOnce(&Connection) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let state = self.state();
        match &*state {
            State::Awake(_) => {
                drop(state);
                self.read_as(Reader::Glance, query)
            }
            State::Closed => Err(self.closed()),
            State::Dormant => read_transaction(&self.connect()?, query)
                .map_err(|error| error.in_configuration(&self.name)),
        }
    }

    /// Writes a consistent copy of the file to `target` (which must not
    /// exist), while changes go on. The configuration is woken first, so the
    /// read hold kept on its state during the copy (which keeps it from
    /// being closed, renamed or deleted under the copy) never delays its
    /// other calls, which hold the same state for reading.
    pub(crate) fn snapshot_into(&self, target: &Path) -> Result<(), StoreError> {
        let _state = self.awake()?;
        let target = target.to_str().ok_or_else(|| {
            StoreError::io_message("snapshot", "the data directory's path is not UTF-8")
        })?;
        let conn = connect(&self.path, self.busy_timeout, false)?;
        conn.execute("VACUUM INTO ?1", [target])
            .map_err(|error| StoreError::from(error).in_configuration(&self.name))?;
        Ok(())
    }

    /// Puts the configuration to rest (stops its writer, closes its
    /// connections) when no call began for `idle_after` and none is running.
    /// True when it did.
    pub(crate) fn rest_if_idle(&self, idle_after: Duration) -> bool {
        let idle = |db: &Self| {
            monotonic_ms().saturating_sub(db.last_used.load(Ordering::Relaxed))
                >= u64::try_from(idle_after.as_millis()).unwrap_or(u64::MAX)
        };
        if !idle(self) {
            return false;
        }
        // A running call holds the lock for reading: never wait for it.
        let mut state = match self.state.try_write() {
            Ok(state) => state,
            Err(TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
            Err(TryLockError::WouldBlock) => return false,
        };
        if !matches!(*state, State::Awake(_)) || !idle(self) {
            return false;
        }
        if let State::Awake(open) = std::mem::replace(&mut *state, State::Dormant) {
            open.shut(&self.name);
        }
        true
    }

    /// Lets every running call finish, stops the writer and closes every
    /// connection. Later calls answer "not found".
    pub(crate) fn close(&self) {
        let mut state = write(&self.state);
        if let State::Awake(open) = std::mem::replace(&mut *state, State::Closed) {
            open.shut(&self.name);
        }
    }
}

impl Drop for Database {
    fn drop(&mut self) {
        self.close();
    }
}

/// Runs `query` inside one read transaction of `conn`.
fn read_transaction<T>(
    conn: &Connection,
    query: impl FnOnce(&Connection) -> Result<T, StoreError>,
) -> Result<T, StoreError> {
    let transaction = conn.unchecked_transaction()?;
    let value = query(&transaction)?;
    transaction.finish()?;
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A configuration of the current schema in `dir`, opened.
    pub(super) fn new_database(dir: &Path) -> Database {
        let path = dir.join("net.sqlite");
        let conn = connect(&path, Duration::from_secs(1), true).unwrap();
        crate::schema::create_version_1(&conn).unwrap();
        crate::schema::prepare(&conn).unwrap();
        drop(conn);
        Database::open("net", &path, &StoreOptions::default()).unwrap()
    }

    /// One look at a configuration (a scan of all of them) starts no
    /// writer and keeps no connection, nor does a glance after it; a second
    /// read keeps one for the next.
    #[test]
    fn a_single_look_keeps_no_connection_and_a_second_read_keeps_one() {
        let dir = tempfile::tempdir().unwrap();
        let db = new_database(dir.path());
        let kept = |db: &Database| match &*db.state() {
            State::Awake(open) => open.readers.lock().unwrap().len(),
            State::Dormant | State::Closed => usize::MAX,
        };
        db.read(|_| Ok(())).unwrap();
        assert_eq!(kept(&db), 0);
        assert!(!db.is_awake(), "a read starts no writer");
        // A glance (the list of configurations) is not a use either.
        db.glance(|_| Ok(())).unwrap();
        assert_eq!(kept(&db), 0);
        db.read(|_| Ok(())).unwrap();
        assert_eq!(kept(&db), 1);
    }
}
