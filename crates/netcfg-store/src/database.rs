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

use std::{
    cell::RefCell,
    future::Future,
    panic::AssertUnwindSafe,
    path::{Path, PathBuf},
    sync::{
        Arc, Mutex, OnceLock, PoisonError, RwLock, RwLockReadGuard, TryLockError,
        atomic::{AtomicBool, AtomicU64, Ordering},
        mpsc,
    },
    thread::JoinHandle,
    time::{Duration, Instant},
};

use netcfg_model::ChangeRecord;
use rusqlite::{Connection, OpenFlags, Transaction, TransactionBehavior, config::DbConfig};
use tokio::sync::oneshot;

use crate::{
    StoreOptions,
    error::{Missing, StoreError},
    schema, sql,
    stamps::{StampKind, Stamps},
    wal_sync::{Answer, LogSync},
};

/// The most changes grouped into one commit.
const MAX_BATCH: usize = 128;
/// Reader connections kept open when idle.
const MAX_IDLE_READERS: usize = 2;
/// SQLite's page cache per connection, in KiB (SQLite's default: 2,000).
/// The operating system caches the file as well; a small cache per
/// connection keeps the server's memory from growing with the files.
const CACHE_KIB: u32 = 256;

/// How long the write-ahead log grows (in pages) before the writer copies
/// it into the file: four times SQLite's default. A checkpoint stops the
/// writer while it copies the log's pages and syncs the log and the file
/// twice; under a steady load of writes it ran about 50 times a second, and
/// the copies rewrote mostly the same pages. At 32 connections this log
/// took 4% more durable PATCHes a second (docs/benchmarks.md, issue 32).
/// The price: a log of up to 16 MiB on disk for each configuration being
/// written (removed when it rests), and a reader that starts while the log
/// is long looks further for its pages.
const WRITER_CHECKPOINT_PAGES: u32 = 4_000;

/// Opens a connection to `path` with the settings every connection of the
/// store uses (see `configure`).
pub(crate) fn connect(
    path: &Path,
    busy_timeout: Duration,
    create: bool,
) -> Result<Connection, StoreError> {
    let mut flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    if create {
        flags |= OpenFlags::SQLITE_OPEN_CREATE;
    }
    let conn = Connection::open_with_flags(path, flags)?;
    configure(&conn, busy_timeout)?;
    Ok(conn)
}

/// Durable commits (the writer's are synced by the store instead:
/// [`crate::wal_sync`]), foreign keys on, a bounded wait for locks, and
/// SQLite's defences against a hostile file (defensive mode, untrusted
/// schema).
fn configure(conn: &Connection, busy_timeout: Duration) -> rusqlite::Result<()> {
    conn.busy_timeout(busy_timeout)?;
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_DEFENSIVE, true)?;
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_TRUSTED_SCHEMA, false)?;
    // Plans that never depend on bound values. Without this, a statement
    // whose plan looked at a value (`device_id = ?1` on a table with a
    // second index is enough) is compiled again at every use from the
    // statement cache, which clears its bindings when it takes it back.
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)?;
    conn.execute_batch(&format!(
        "PRAGMA foreign_keys = ON; PRAGMA synchronous = FULL; PRAGMA cell_size_check = ON;
         PRAGMA cache_size = -{CACHE_KIB};"
    ))?;
    conn.set_prepared_statement_cache_capacity(64);
    Ok(())
}

/// Switches the file to write-ahead logging (a property of the file).
pub(crate) fn use_wal(conn: &Connection) -> Result<(), StoreError> {
    let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0))?;
    if mode.eq_ignore_ascii_case("wal") {
        Ok(())
    } else {
        Err(StoreError::io_message(
            "enabling write-ahead logging",
            format!("SQLite kept journal mode {mode}"),
        ))
    }
}

/// What a queued change hands back to the writer: whether it succeeded (so
/// its savepoint is kept) and how to answer its caller once the commit is known.
struct Ran {
    succeeded: bool,
    answer: Answer,
}

/// A queued change. It gets the connection, or the error that kept the
/// batch from starting.
type Job = Box<dyn FnOnce(Result<&Connection, StoreError>) -> Ran + Send>;

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

/// The writer thread and its queue.
struct WriterThread {
    jobs: mpsc::Sender<Job>,
    thread: JoinHandle<()>,
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

/// The writer thread's connection and the database it writes, kept where
/// the changes it runs can reach them.
struct Writer {
    database: u64,
    conn: Connection,
}

thread_local! {
    /// Set on writer threads only.
    static WRITER: RefCell<Option<Writer>> = const { RefCell::new(None) };
}

/// Where the calling thread stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Caller {
    /// Not on a writer thread.
    Elsewhere,
    /// On the writer thread of this database, inside a change.
    ThisWriter,
    /// On the writer thread of another database.
    OtherWriter,
}

fn caller(database: u64) -> Caller {
    WRITER.with_borrow(|writer| match writer {
        None => Caller::Elsewhere,
        Some(writer) if writer.database == database => Caller::ThisWriter,
        Some(_) => Caller::OtherWriter,
    })
}

/// Runs `run` on the writer connection of the calling thread.
fn on_writer<T>(run: impl FnOnce(&Connection) -> Result<T, StoreError>) -> Result<T, StoreError> {
    WRITER.with_borrow(|writer| match writer {
        Some(writer) => run(&writer.conn),
        None => Err(StoreError::io_message("writing", "not on a writer thread")),
    })
}

fn stopped() -> StoreError {
    StoreError::io_message("writing", "the writer thread stopped")
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

/// Milliseconds since the first call: a clock for "last used" that fits an
/// atomic.
fn now_ms() -> u64 {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    let epoch = *EPOCH.get_or_init(Instant::now);
    u64::try_from(epoch.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// An open configuration file.
pub(crate) struct Database {
    /// Unique in the process: tells this database's writer thread.
    id: u64,
    name: String,
    path: PathBuf,
    busy_timeout: Duration,
    notifications_kept: u32,
    state: RwLock<State>,
    /// Changes after every commit, before its callers are answered.
    generation: Arc<AtomicU64>,
    /// Change after a commit that touched their kind.
    stamps: Arc<Stamps>,
    /// When a call last began ([`now_ms`]).
    last_used: AtomicU64,
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
            use_wal(&conn)
        })();
        migrated.map_err(|error: StoreError| error.in_configuration(name))?;
        let first = next_generation();
        Ok(Self {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            name: name.to_owned(),
            path: path.to_owned(),
            busy_timeout: options.busy_timeout,
            notifications_kept: options.notifications_kept,
            state: RwLock::new(State::Dormant),
            generation: Arc::new(AtomicU64::new(first)),
            stamps: Arc::new(Stamps::new(first)),
            last_used: AtomicU64::new(now_ms()),
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

    /// How many notifications the configuration keeps.
    pub(crate) fn notifications_kept(&self) -> u32 {
        self.notifications_kept
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
        self.state.read().unwrap_or_else(PoisonError::into_inner)
    }

    /// The state, awake (woken if it was dormant), held for one call, and
    /// marked used.
    fn awake(&self) -> Result<RwLockReadGuard<'_, State>, StoreError> {
        loop {
            let state = self.state();
            match &*state {
                State::Awake(_) => {
                    self.last_used.store(now_ms(), Ordering::Relaxed);
                    return Ok(state);
                }
                State::Closed => return Err(self.closed()),
                State::Dormant => drop(state),
            }
            let mut state = self.state.write().unwrap_or_else(PoisonError::into_inner);
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

    /// The queue of `open`'s writer, started if it was not.
    fn writer<'open>(&self, open: &'open Open) -> Result<&'open mpsc::Sender<Job>, StoreError> {
        if let Some(writer) = open.writer.get() {
            return Ok(&writer.jobs);
        }
        let _starting = open.starting.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(writer) = open.writer.get() {
            return Ok(&writer.jobs);
        }
        let started = self.start_writer()?;
        Ok(&open.writer.get_or_init(|| started).jobs)
    }

    /// Starts the writer thread.
    fn start_writer(&self) -> Result<WriterThread, StoreError> {
        let mut conn = self.connect()?;
        // The writer's commits are synced by the store, not by SQLite
        // (crate::wal_sync); a read opens the log it syncs. Its temporary
        // data in memory: each change runs in a savepoint, whose journal
        // (the pages it changed, as they were) was otherwise made of 64 KiB
        // blocks, a large allocation per change. Set before the triggers:
        // changing `temp_store` drops what the temporary database holds.
        conn.execute_batch(&format!(
            "PRAGMA synchronous = NORMAL; PRAGMA temp_store = MEMORY;
             PRAGMA wal_autocheckpoint = {WRITER_CHECKPOINT_PAGES}"
        ))?;
        conn.query_row("SELECT count(*) FROM sqlite_schema", [], |_| Ok(()))?;
        crate::history::install_triggers(&conn)
            .map_err(|error| error.in_configuration(&self.name))?;
        conn.update_hook(Some(|action, database: &str, table: &str, _row| {
            crate::stamps::note_row(action, database, table);
        }))?;
        let log = LogSync::open(&self.path, &self.name)
            .map_err(|error| error.in_configuration(&self.name))?;
        let (jobs, queue) = mpsc::channel::<Job>();
        let generation = self.generation.clone();
        let stamps = self.stamps.clone();
        let database = self.id;
        let writer = std::thread::Builder::new()
            .name(format!("store-writer {}", self.name))
            .spawn(move || {
                run_writer(Writer { database, conn }, &queue, &generation, &stamps, log);
            })
            .map_err(|error| StoreError::file("starting the writer thread", error))?;
        Ok(WriterThread {
            jobs,
            thread: writer,
        })
    }

    /// Queues `change` to the writer thread; `reply` gets its outcome once
    /// its batch is committed (or why it failed). Called on this database's
    /// own writer thread (a change made of changes), `change` runs at once
    /// in a nested savepoint of the running change. Opens files only when
    /// the configuration rests (waking it). The change is journalled in the
    /// history under `record` (a request's), or as a local change when it
    /// touched the content (a nested change is part of its outer one).
    fn enqueue<T, F>(
        &self,
        record: Option<ChangeRecord>,
        change: F,
        reply: impl FnOnce(Result<T, StoreError>) + Send + 'static,
    ) -> Result<(), StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T, StoreError> + Send + 'static,
    {
        match caller(self.id) {
            Caller::ThisWriter => {
                reply(on_writer(|conn| sql::nested(conn, change)));
                return Ok(());
            }
            Caller::OtherWriter => {
                return Err(StoreError::io_message(
                    "writing",
                    format!(
                        "a change of another configuration reached {}; a change touches its own configuration only",
                        self.name
                    ),
                ));
            }
            Caller::Elsewhere => {}
        }
        let state = self.awake()?;
        let State::Awake(open) = &*state else {
            return Err(self.closed());
        };
        let job: Job = Box::new(move |conn| {
            let result =
                conn.and_then(|conn| crate::history::journaled(conn, record.as_ref(), change));
            Ran {
                succeeded: result.is_ok(),
                answer: Box::new(move |commit_error| {
                    reply(match commit_error {
                        Some(error) => Err(error),
                        None => result,
                    });
                }),
            }
        });
        self.writer(open)?.send(job).map_err(|_| stopped())
    }

    /// Runs `change` on the writer thread and answers once it is committed.
    /// Blocks the calling thread until then.
    pub(crate) fn write<T, F>(&self, change: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T, StoreError> + Send + 'static,
    {
        let (reply, answer) = mpsc::sync_channel::<Result<T, StoreError>>(1);
        self.enqueue(None, change, move |result| {
            // The caller may have gone; nobody is left to tell then.
            let _ = reply.send(result);
        })?;
        answer
            .recv()
            .map_err(|_| stopped())?
            .map_err(|error| error.in_configuration(&self.name))
    }

    /// Queues `change` now and returns a future that the writer thread
    /// completes once the change is committed (durable). Nothing blocks
    /// while it is awaited; queuing opens files only when the configuration
    /// rests. Dropping the future does not withdraw the change.
    pub(crate) fn submit<T, F>(
        &self,
        record: Option<ChangeRecord>,
        change: F,
    ) -> impl Future<Output = Result<T, StoreError>> + Send + 'static
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T, StoreError> + Send + 'static,
    {
        let (reply, answer) = oneshot::channel::<Result<T, StoreError>>();
        let queued = self.enqueue(record, change, move |result| {
            let _ = reply.send(result);
        });
        let name = self.name.clone();
        async move {
            queued?;
            answer
                .await
                .map_err(|_| stopped())?
                .map_err(|error| error.in_configuration(&name))
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
        let idle = open
            .readers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop();
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
        let mut readers = open.readers.lock().unwrap_or_else(PoisonError::into_inner);
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
            now_ms().saturating_sub(db.last_used.load(Ordering::Relaxed))
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
        let mut state = self.state.write().unwrap_or_else(PoisonError::into_inner);
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

/// The writer thread: takes every queued change (up to [`MAX_BATCH`]),
/// commits them together and has the commit synced before their callers
/// hear of it: by `log`'s sync thread when more changes are queued (this
/// thread runs them meanwhile), here otherwise. Its connection lives in
/// [`WRITER`] meanwhile. While changes come close together it waits for
/// the next one awake ([`SPIN_FOR`]).
fn run_writer(
    writer: Writer,
    queue: &mpsc::Receiver<Job>,
    generation: &AtomicU64,
    stamps: &Stamps,
    mut log: LogSync,
) {
    WRITER.with_borrow_mut(|slot| *slot = Some(writer));
    let mut batch = Vec::with_capacity(MAX_BATCH);
    let mut waiting = None;
    let mut spin = false;
    loop {
        let first = match waiting.take() {
            Some(job) => job,
            None => match next_job(queue, &mut spin) {
                Ok(job) => job,
                Err(_) => break,
            },
        };
        batch.push(first);
        while batch.len() < MAX_BATCH {
            match queue.try_recv() {
                Ok(job) => batch.push(job),
                Err(_) => break,
            }
        }
        let committed = WRITER.with_borrow(|writer| {
            writer
                .as_ref()
                .map(|writer| run_batch(&writer.conn, batch.drain(..), generation, stamps))
        });
        if let Some(answers) = committed.filter(|answers| !answers.is_empty()) {
            waiting = queue.try_recv().ok();
            log.settle(answers, waiting.is_some());
        }
    }
    // Every commit handed to the sync thread is answered while the log is
    // still the connection's (closing the last connection removes it).
    drop(log);
    // Close the connection now rather than at the thread's end.
    drop(WRITER.with_borrow_mut(Option::take));
}

/// How long the writer waits for the next change awake (polling its queue)
/// before it sleeps, while changes come this close together. Waking the
/// sleeping writer added about 0.1 ms to one connection's PATCH on the
/// 2-core virtual machine of the benchmarks (p50 0.33 ms asleep, 0.22 ms
/// awake), as much as the disk's sync of its commit. Waiting awake costs
/// the CPU it polls, so the writer does it only while the last change came
/// within this time (writes at thousands a second), and a wait in vain
/// turns it off until changes come close again.
const SPIN_FOR: Duration = Duration::from_micros(300);

/// The next queued change, polled for first when `spin` says so; `spin`
/// then says whether this one came within [`SPIN_FOR`].
fn next_job(queue: &mpsc::Receiver<Job>, spin: &mut bool) -> Result<Job, mpsc::RecvError> {
    let idle_since = Instant::now();
    if *spin {
        loop {
            match queue.try_recv() {
                Ok(job) => return Ok(job),
                Err(mpsc::TryRecvError::Disconnected) => return Err(mpsc::RecvError),
                Err(mpsc::TryRecvError::Empty) if idle_since.elapsed() < SPIN_FOR => {
                    // Yielding, not spinning on the CPU: a thread that
                    // is ready on this core (the one about to send the
                    // next change) runs first.
                    std::thread::yield_now();
                }
                Err(mpsc::TryRecvError::Empty) => break,
            }
        }
    }
    let job = queue.recv()?;
    *spin = idle_since.elapsed() < SPIN_FOR;
    Ok(job)
}

/// Runs a batch and commits it. Returns the answers that wait for the
/// commit to be synced; a batch that could not start or commit is answered
/// here (nothing of it is in the log).
fn run_batch(
    conn: &Connection,
    batch: impl ExactSizeIterator<Item = Job>,
    generation: &AtomicU64,
    stamps: &Stamps,
) -> Vec<Answer> {
    let transaction = match Transaction::new_unchecked(conn, TransactionBehavior::Immediate) {
        Ok(transaction) => transaction,
        Err(error) => {
            let error = StoreError::from(error);
            for job in batch {
                (job(Err(error.clone())).answer)(None);
            }
            return Vec::new();
        }
    };
    let mut answers = Vec::with_capacity(batch.len());
    crate::stamps::begin_batch();
    // The savepoint's statements run around every change: taken from the
    // cache once for the batch, not looked up for each change.
    let mut open_savepoint = conn.prepare_cached("SAVEPOINT change");
    let mut release_savepoint = conn.prepare_cached("RELEASE change");
    for job in batch {
        if let Err(error) = run_statement(conn, &mut open_savepoint, "SAVEPOINT change") {
            answers.push(job(Err(error.into())).answer);
            crate::stamps::end_change(false);
            continue;
        }
        // A panicking change is a bug; it must not take the other changes of
        // the batch (or the writer) down with it. Its caller sees the writer
        // "stopped" because its answer is dropped unsent.
        let ran = std::panic::catch_unwind(AssertUnwindSafe(|| job(Ok(&transaction))));
        let succeeded = matches!(&ran, Ok(ran) if ran.succeeded);
        let closed = if succeeded {
            run_statement(conn, &mut release_savepoint, "RELEASE change")
        } else {
            sql::cached(conn, "ROLLBACK TO change")
                .and_then(|()| run_statement(conn, &mut release_savepoint, "RELEASE change"))
        };
        crate::stamps::end_change(succeeded && closed.is_ok());
        match (ran, closed) {
            (Ok(ran), Ok(())) => answers.push(ran.answer),
            (Ok(ran), Err(error)) => {
                answers.push(Box::new(move |_| {
                    (ran.answer)(Some(StoreError::from(error)));
                }) as Answer);
            }
            (Err(_), _) => log::error!("a change panicked; it was rolled back"),
        }
    }
    drop((open_savepoint, release_savepoint));
    let committing = std::time::Instant::now();
    let commit_error = transaction.commit().err().map(StoreError::from);
    crate::counters::count_commit(answers.len(), committing.elapsed(), commit_error.is_none());
    // Before any caller hears of the change, so no one can read the old
    // generation after learning that the change is made.
    let next = next_generation();
    generation.store(next, Ordering::SeqCst);
    stamps.advance(next);
    if let Some(error) = commit_error {
        for answer in answers {
            answer(Some(error.clone()));
        }
        return Vec::new();
    }
    answers
}

/// Runs `statement`, prepared ahead from `sql`; when it could not be
/// prepared, tries again (and reports why not).
fn run_statement(
    conn: &Connection,
    statement: &mut rusqlite::Result<rusqlite::CachedStatement<'_>>,
    sql: &str,
) -> rusqlite::Result<()> {
    match statement {
        Ok(statement) => statement.execute([]).map(drop),
        Err(_) => sql::cached(conn, sql),
    }
}

#[cfg(test)]
mod tests {
    use rusqlite::StatementStatus;

    use super::*;

    /// A configuration of the current schema in `dir`, opened.
    fn new_database(dir: &Path) -> Database {
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

    /// The writer copies its log into the file every
    /// [`WRITER_CHECKPOINT_PAGES`] pages, not SQLite's default 1,000; other
    /// connections keep the default.
    #[test]
    fn the_writer_checkpoints_its_log_less_often_than_other_connections() {
        let dir = tempfile::tempdir().unwrap();
        let db = new_database(dir.path());
        let pages = |conn: &Connection| -> Result<u32, StoreError> {
            Ok(conn.query_row("PRAGMA wal_autocheckpoint", [], |row| row.get(0))?)
        };
        assert_eq!(db.write(pages).unwrap(), WRITER_CHECKPOINT_PAGES);
        assert_eq!(db.read(pages).unwrap(), 1_000);
    }

    fn no_op_job() -> Job {
        Box::new(|_| Ran {
            succeeded: true,
            answer: Box::new(|_| {}),
        })
    }

    /// The writer spins only while changes come close together: a change
    /// that came after a longer wait turns spinning off, whether the
    /// writer spun for it or slept.
    #[test]
    fn the_writer_stops_spinning_when_changes_come_far_apart() {
        let (jobs, queue) = mpsc::channel::<Job>();
        for spinning in [true, false] {
            // The change comes long after the writer starts waiting for it:
            // the sender counts from the moment the writer is about to wait
            // (not from its own start, which a busy machine may delay).
            let (ready, waiting) = mpsc::channel::<()>();
            let later = {
                let jobs = jobs.clone();
                std::thread::spawn(move || {
                    waiting.recv().unwrap();
                    std::thread::sleep(SPIN_FOR * 100);
                    jobs.send(no_op_job()).unwrap();
                })
            };
            let mut spin = spinning;
            ready.send(()).unwrap();
            assert!(next_job(&queue, &mut spin).is_ok());
            assert!(!spin, "spinning {spinning}: a far change turns it off");
            later.join().unwrap();
        }
        // A change already queued is taken at once, spinning or not.
        jobs.send(no_op_job()).unwrap();
        let mut spin = true;
        assert!(next_job(&queue, &mut spin).is_ok());
        assert!(spin);
        drop(jobs);
        assert!(
            next_job(&queue, &mut spin).is_err(),
            "a closed queue ends the writer"
        );
    }

    /// A statement taken again from the cache runs the plan it was compiled
    /// with, whatever was bound to it before: with plans that may depend on
    /// bound values, the interfaces of a device (a table with a second
    /// index) were compiled again at every read and every PATCH.
    #[test]
    fn a_cached_statement_is_not_compiled_again_for_new_values() {
        let dir = tempfile::tempdir().unwrap();
        let conn = connect(&dir.path().join("net.sqlite"), Duration::from_secs(1), true).unwrap();
        crate::schema::create_version_1(&conn).unwrap();
        crate::schema::prepare(&conn).unwrap();
        let sql = "SELECT identifier, role_id, x, y, z FROM interfaces WHERE device_id = ?1 ORDER BY identifier";
        for device_id in 1..=4 {
            let mut statement = conn.prepare_cached(sql).unwrap();
            assert_eq!(
                statement
                    .query_map([device_id], |_| Ok(()))
                    .unwrap()
                    .count(),
                0
            );
        }
        let statement = conn.prepare_cached(sql).unwrap();
        assert_eq!(statement.get_status(StatementStatus::RePrepare), 0);
        assert_eq!(statement.get_status(StatementStatus::Run), 4);
    }
}
