//! One open configuration file: a writer thread that groups queued changes
//! into one durable commit, and a pool of reader connections.
//!
//! Every change runs on the writer thread inside its own savepoint of the
//! current batch's transaction, so a change that fails is undone alone while
//! the others of the batch commit. The caller is answered only after the
//! batch's `COMMIT` returned, that is after SQLite synced the write-ahead log
//! (`synchronous = FULL`): an acknowledged change is durable.

use std::{
    panic::AssertUnwindSafe,
    path::{Path, PathBuf},
    sync::{
        Arc, Mutex, PoisonError, RwLock,
        atomic::{AtomicU64, Ordering},
        mpsc,
    },
    thread::JoinHandle,
    time::Duration,
};

use rusqlite::{Connection, OpenFlags, TransactionBehavior, config::DbConfig};

use crate::{error::StoreError, schema};

/// The most changes grouped into one commit.
const MAX_BATCH: usize = 128;
/// Reader connections kept open when idle.
const MAX_IDLE_READERS: usize = 4;

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

/// Durable commits, foreign keys on, a bounded wait for locks, and SQLite's
/// defences against a hostile file (defensive mode, untrusted schema).
fn configure(conn: &Connection, busy_timeout: Duration) -> rusqlite::Result<()> {
    conn.busy_timeout(busy_timeout)?;
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_DEFENSIVE, true)?;
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_TRUSTED_SCHEMA, false)?;
    conn.execute_batch(
        "PRAGMA foreign_keys = ON; PRAGMA synchronous = FULL; PRAGMA cell_size_check = ON;",
    )?;
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
    answer: Box<dyn FnOnce(Option<StoreError>) + Send>,
}

/// A queued change. It gets the connection, or the error that kept the
/// batch from starting.
type Job = Box<dyn FnOnce(Result<&Connection, StoreError>) -> Ran + Send>;

struct Open {
    jobs: mpsc::Sender<Job>,
    writer: JoinHandle<()>,
    readers: Mutex<Vec<Connection>>,
}

/// The source of generations: process-wide, so that a configuration opened
/// anew (created, renamed, uploaded) never reuses a value another had.
static NEXT_GENERATION: AtomicU64 = AtomicU64::new(1);

fn next_generation() -> u64 {
    NEXT_GENERATION.fetch_add(1, Ordering::SeqCst)
}

/// An open configuration file.
pub(crate) struct Database {
    name: String,
    path: PathBuf,
    busy_timeout: Duration,
    state: RwLock<Option<Open>>,
    /// Changes after every commit, before its callers are answered.
    generation: Arc<AtomicU64>,
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
    pub(crate) fn open(
        name: &str,
        path: &Path,
        busy_timeout: Duration,
    ) -> Result<Self, StoreError> {
        let opened = (|| {
            let conn = connect(path, busy_timeout, false)?;
            schema::prepare(&conn)?;
            use_wal(&conn)?;
            Ok(conn)
        })();
        let conn = opened.map_err(|error: StoreError| error.in_configuration(name))?;
        let (jobs, queue) = mpsc::channel::<Job>();
        let generation = Arc::new(AtomicU64::new(next_generation()));
        let stamp = generation.clone();
        let writer = std::thread::Builder::new()
            .name(format!("store-writer {name}"))
            .spawn(move || run_writer(conn, queue, &stamp))
            .map_err(|error| StoreError::file("starting the writer thread", error))?;
        Ok(Self {
            name: name.to_owned(),
            path: path.to_owned(),
            busy_timeout,
            state: RwLock::new(Some(Open {
                jobs,
                writer,
                readers: Mutex::new(Vec::new()),
            })),
            generation,
        })
    }

    /// A value that changes whenever a commit may have changed the file; read
    /// it before a read transaction, and a result kept under it is never
    /// older than what the value stands for.
    pub(crate) fn generation(&self) -> u64 {
        self.generation.load(Ordering::SeqCst)
    }

    fn closed(&self) -> StoreError {
        StoreError::not_found(format!("configuration {}", self.name))
    }

    /// Runs `change` on the writer thread and answers once it is committed.
    pub(crate) fn write<T, F>(&self, change: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T, StoreError> + Send + 'static,
    {
        let state = self.state.read().unwrap_or_else(PoisonError::into_inner);
        let open = state.as_ref().ok_or_else(|| self.closed())?;
        let (reply, answer) = mpsc::sync_channel::<Result<T, StoreError>>(1);
        let job: Job = Box::new(move |conn| {
            let result = conn.and_then(change);
            Ran {
                succeeded: result.is_ok(),
                answer: Box::new(move |commit_error| {
                    // The caller may have gone; nobody is left to tell then.
                    let _ = reply.send(match commit_error {
                        Some(error) => Err(error),
                        None => result,
                    });
                }),
            }
        });
        let stopped = || StoreError::io_message("writing", "the writer thread stopped");
        open.jobs.send(job).map_err(|_| stopped())?;
        answer
            .recv()
            .map_err(|_| stopped())?
            .map_err(|error| error.in_configuration(&self.name))
    }

    /// Runs `query` on a reader connection inside one read transaction, so it
    /// sees one consistent state of the file.
    pub(crate) fn read<T>(
        &self,
        query: impl FnOnce(&Connection) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let state = self.state.read().unwrap_or_else(PoisonError::into_inner);
        let open = state.as_ref().ok_or_else(|| self.closed())?;
        let idle = open
            .readers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop();
        let conn = match idle {
            Some(conn) => conn,
            None => connect(&self.path, self.busy_timeout, false)
                .map_err(|error| error.in_configuration(&self.name))?,
        };
        let result = (|| {
            let transaction = conn.unchecked_transaction()?;
            let value = query(&transaction)?;
            transaction.finish()?;
            Ok(value)
        })();
        let mut readers = open.readers.lock().unwrap_or_else(PoisonError::into_inner);
        if readers.len() < MAX_IDLE_READERS && conn.is_autocommit() {
            readers.push(conn);
        }
        result.map_err(|error: StoreError| error.in_configuration(&self.name))
    }

    /// Writes a consistent copy of the file to `target` (which must not
    /// exist), while changes go on.
    pub(crate) fn snapshot_into(&self, target: &Path) -> Result<(), StoreError> {
        let state = self.state.read().unwrap_or_else(PoisonError::into_inner);
        state.as_ref().ok_or_else(|| self.closed())?;
        let target = target.to_str().ok_or_else(|| {
            StoreError::io_message("snapshot", "the data directory's path is not UTF-8")
        })?;
        let conn = connect(&self.path, self.busy_timeout, false)?;
        conn.execute("VACUUM INTO ?1", [target])
            .map_err(|error| StoreError::from(error).in_configuration(&self.name))?;
        Ok(())
    }

    /// Lets every running call finish, stops the writer and closes every
    /// connection. Later calls answer "not found".
    pub(crate) fn close(&self) {
        let mut state = self.state.write().unwrap_or_else(PoisonError::into_inner);
        if let Some(open) = state.take() {
            drop(open.readers);
            drop(open.jobs);
            if open.writer.join().is_err() {
                log::error!("the writer thread of {} panicked", self.name);
            }
        }
    }
}

impl Drop for Database {
    fn drop(&mut self) {
        self.close();
    }
}

/// The writer thread: takes every queued change (up to [`MAX_BATCH`]) and
/// commits them together.
fn run_writer(mut conn: Connection, queue: mpsc::Receiver<Job>, generation: &AtomicU64) {
    while let Ok(first) = queue.recv() {
        let mut batch = vec![first];
        while batch.len() < MAX_BATCH {
            match queue.try_recv() {
                Ok(job) => batch.push(job),
                Err(_) => break,
            }
        }
        run_batch(&mut conn, batch, generation);
    }
}

fn run_batch(conn: &mut Connection, batch: Vec<Job>, generation: &AtomicU64) {
    let mut transaction = match conn.transaction_with_behavior(TransactionBehavior::Immediate) {
        Ok(transaction) => transaction,
        Err(error) => {
            let error = StoreError::from(error);
            for job in batch {
                (job(Err(error.clone())).answer)(None);
            }
            return;
        }
    };
    let mut answers = Vec::with_capacity(batch.len());
    for job in batch {
        let savepoint = match transaction.savepoint() {
            Ok(savepoint) => savepoint,
            Err(error) => {
                answers.push(job(Err(error.into())).answer);
                continue;
            }
        };
        // A panicking change is a bug; it must not take the other changes of
        // the batch (or the writer) down with it. Its caller sees the writer
        // "stopped" because its answer is dropped unsent.
        match std::panic::catch_unwind(AssertUnwindSafe(|| job(Ok(&savepoint)))) {
            Ok(ran) => {
                if ran.succeeded
                    && let Err(error) = savepoint.commit()
                {
                    answers.push(Box::new(move |_| {
                        (ran.answer)(Some(StoreError::from(error)));
                    }));
                    continue;
                }
                answers.push(ran.answer);
            }
            Err(_) => log::error!("a change panicked; it was rolled back"),
        }
    }
    let commit_error = transaction.commit().err().map(StoreError::from);
    // Before any caller hears of the change, so no one can read the old
    // generation after learning that the change is made.
    generation.store(next_generation(), Ordering::SeqCst);
    for answer in answers {
        answer(commit_error.clone());
    }
}
