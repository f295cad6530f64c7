//! The writer thread of an open configuration: it takes every queued
//! change (up to [`MAX_BATCH`]), runs each in its own savepoint of one
//! transaction, commits once and has the commit synced before the callers
//! hear of it ([`crate::wal_sync`]).

use std::{
    cell::RefCell,
    panic::AssertUnwindSafe,
    sync::{
        atomic::{AtomicU64, Ordering},
        mpsc,
    },
    thread::JoinHandle,
    time::{Duration, Instant},
};

use rusqlite::{Connection, Transaction, TransactionBehavior};

use netcfg_model::sync::lock;

use super::{
    Database, Open,
    changes::{Job, Ran},
    next_generation,
};
use crate::{
    error::StoreError,
    retention::{Pruner, Step},
    sql,
    stamps::Stamps,
    wal_sync::{Answer, LogSync},
};

/// The most changes grouped into one commit.
const MAX_BATCH: usize = 128;

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

/// The writer thread and its queue.
pub(super) struct WriterThread {
    pub(super) jobs: mpsc::Sender<Job>,
    pub(super) thread: JoinHandle<()>,
}

/// The writer thread's connection and the database it writes, kept where
/// the changes it runs can reach them.
pub(super) struct Writer {
    pub(super) database: u64,
    pub(super) conn: Connection,
}

thread_local! {
    /// Set on writer threads only.
    pub(super) static WRITER: RefCell<Option<Writer>> = const { RefCell::new(None) };
}

impl Database {
    /// The queue of `open`'s writer, started if it was not.
    pub(super) fn writer<'open>(
        &self,
        open: &'open Open,
    ) -> Result<&'open mpsc::Sender<Job>, StoreError> {
        if let Some(writer) = open.writer.get() {
            return Ok(&writer.jobs);
        }
        let _starting = lock(&open.starting);
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
        let pruner = Pruner::new(self.retention, self.ages_due_ms.clone());
        let writer = std::thread::Builder::new()
            .name(format!("store-writer {}", self.name))
            .spawn(move || {
                let writer = Writer { database, conn };
                run_writer(writer, &queue, &generation, &stamps, log, pruner);
            })
            .map_err(|error| StoreError::file("starting the writer thread", error))?;
        Ok(WriterThread {
            jobs,
            thread: writer,
        })
    }
}

/// The writer thread: takes every queued change (up to [`MAX_BATCH`]),
/// commits them together and has the commit synced before their callers
/// hear of it: by `log`'s sync thread when more changes are queued (this
/// thread runs them meanwhile), here otherwise. Its connection lives in
/// [`WRITER`] meanwhile. While changes come close together it waits for
/// the next one awake ([`SPIN_FOR`]). When no change waits, `pruner`
/// takes its steps ([`crate::retention`]), each a batch of its own.
fn run_writer(
    writer: Writer,
    queue: &mpsc::Receiver<Job>,
    generation: &AtomicU64,
    stamps: &Stamps,
    mut log: LogSync,
    mut pruner: Pruner,
) {
    WRITER.with_borrow_mut(|slot| *slot = Some(writer));
    let mut batch = Vec::with_capacity(MAX_BATCH);
    let mut waiting = None;
    let mut spin = false;
    loop {
        if pruner.starved() {
            prune(&mut pruner, generation, stamps, &mut log);
        }
        let first = match waiting.take() {
            Some(job) => job,
            None => match next_job(queue, &mut spin, pruner.due_at()) {
                Ok(Some(job)) => job,
                Ok(None) => {
                    prune(&mut pruner, generation, stamps, &mut log);
                    continue;
                }
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
        pruner.note_write();
        if let Some(answers) = committed.filter(|answers| !answers.is_empty()) {
            waiting = queue.try_recv().ok();
            log.settle(answers, waiting.is_some());
            if waiting.is_none() && log.needs_room() {
                make_room(&mut log);
            }
        }
    }
    // Every commit handed to the sync thread is answered while the log is
    // still the connection's (closing the last connection removes it).
    drop(log);
    WRITER.with_borrow(|writer| {
        if let Some(writer) = writer {
            pruner.note_rest(&writer.conn);
        }
    });
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

/// Lengthens the log ahead of the commits ([`crate::wal_room`]) holding
/// SQLite's write lock, so that no other connection appends meanwhile; a
/// lock it cannot take now (another connection writes) leaves it for a
/// later commit.
fn make_room(log: &mut LogSync) {
    WRITER.with_borrow(|writer| {
        let Some(writer) = writer else {
            return;
        };
        match writer.conn.execute_batch("BEGIN IMMEDIATE") {
            Ok(()) => {
                log.make_room();
                if let Err(error) = writer.conn.execute_batch("ROLLBACK") {
                    log::warn!("ending the transaction that made room in the log: {error}");
                }
            }
            Err(error) => log::debug!("no room made in the log now: {error}"),
        }
    });
}

/// Takes the pruner's turn: its next step, if it has one, as a batch of
/// its own, synced here.
fn prune(pruner: &mut Pruner, generation: &AtomicU64, stamps: &Stamps, log: &mut LogSync) {
    let step =
        WRITER.with_borrow(|writer| writer.as_ref().and_then(|writer| pruner.run(&writer.conn)));
    if let Some(step) = step {
        let answers = run_step(step, pruner.on_commit_failure(), generation, stamps);
        log.settle(answers, false);
        pruner.stepped();
    }
}

/// Runs a pruning step as a batch of its own; the answers to settle.
fn run_step(
    step: Step,
    on_commit: impl FnOnce(Option<StoreError>) + Send + 'static,
    generation: &AtomicU64,
    stamps: &Stamps,
) -> Vec<Answer> {
    let job: Job = Box::new(move |conn| {
        let result = conn.and_then(step);
        if let Err(error) = &result {
            log::warn!("a pruning step failed (the next look starts again): {error}");
        }
        Ran {
            succeeded: result.is_ok(),
            answer: Box::new(on_commit),
        }
    });
    WRITER.with_borrow(|writer| {
        writer.as_ref().map_or_else(Vec::new, |writer| {
            run_batch(&writer.conn, std::iter::once(job), generation, stamps)
        })
    })
}

/// The next queued change, polled for first when `spin` says so; `spin`
/// then says whether this one came within [`SPIN_FOR`]. None when `due`
/// passed with no change queued: the pruner's turn.
fn next_job(
    queue: &mpsc::Receiver<Job>,
    spin: &mut bool,
    due: Option<Instant>,
) -> Result<Option<Job>, mpsc::RecvError> {
    let idle_since = Instant::now();
    if *spin {
        loop {
            match queue.try_recv() {
                Ok(job) => return Ok(Some(job)),
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
    let job = match due {
        None => queue.recv()?,
        Some(due) => match queue.recv_timeout(due.saturating_duration_since(Instant::now())) {
            Ok(job) => job,
            Err(mpsc::RecvTimeoutError::Timeout) => return Ok(None),
            Err(mpsc::RecvTimeoutError::Disconnected) => return Err(mpsc::RecvError),
        },
    };
    *spin = idle_since.elapsed() < SPIN_FOR;
    Ok(Some(job))
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
    use super::*;
    use crate::database::tests::new_database;

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
            assert!(next_job(&queue, &mut spin, None).unwrap().is_some());
            assert!(!spin, "spinning {spinning}: a far change turns it off");
            later.join().unwrap();
        }
        // A change already queued is taken at once, spinning or not.
        jobs.send(no_op_job()).unwrap();
        let mut spin = true;
        assert!(next_job(&queue, &mut spin, None).unwrap().is_some());
        assert!(spin);
        // With nothing queued, a due pruner gets its turn.
        assert!(
            next_job(&queue, &mut spin, Some(Instant::now()))
                .unwrap()
                .is_none()
        );
        drop(jobs);
        assert!(
            next_job(&queue, &mut spin, None).is_err(),
            "a closed queue ends the writer"
        );
    }
}
