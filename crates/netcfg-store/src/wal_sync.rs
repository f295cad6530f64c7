//! Making commits durable beside the writer: the writer connection commits
//! with `synchronous = NORMAL` (SQLite writes the commit's frames to the
//! write-ahead log and does not wait for the disk), and the store syncs the
//! log itself before any caller of the commit is answered.
//!
//! Why: with `synchronous = FULL` the writer thread sat idle through every
//! sync, and the changes that queued meanwhile waited for it. Now, when
//! more changes are queued after a commit, the sync goes to this
//! configuration's sync thread and the writer runs the next batch during
//! it; a sync covers every commit written before it began, so the sync
//! thread answers all the commits handed to it with one. When nothing is
//! queued, the writer syncs itself: one connection's changes take no extra
//! thread hop.
//!
//! What is promised stays: a caller hears of its change only after an
//! `fdatasync` of the log that began after the change's frames were
//! written, so an acknowledged change survives a crash of the process and
//! a power cut. `synchronous = NORMAL` still syncs the log before a
//! checkpoint copies it into the file and the file after, so a power cut
//! leaves the file consistent. What differs: another connection may read a
//! commit during the sync that makes it durable (under a millisecond). A
//! power cut in that moment loses it, as it loses any change not yet
//! acknowledged; a process crash does not (the system holds the written
//! log).

use std::{
    fs::File,
    io,
    path::Path,
    sync::{Arc, mpsc},
    thread::JoinHandle,
    time::Instant,
};

use crate::{error::StoreError, wal_room::Room};

/// How a committed change's caller is answered: with the error that kept
/// its commit from being durable, if any.
pub(crate) type Answer = Box<dyn FnOnce(Option<StoreError>) + Send>;

/// What makes the commits written so far durable: `fdatasync` of the log.
type Sync = Arc<dyn Fn() -> io::Result<()> + Send + std::marker::Sync>;

/// The write-ahead log of one open configuration, and the thread that
/// syncs it while the writer goes on. The thread starts when first needed:
/// a configuration written by one caller at a time never has one.
pub(crate) struct LogSync {
    name: String,
    sync: Sync,
    handoff: Handoff,
    /// Room made in the log ahead of the commits (none: it could not be
    /// opened for writing, or lengthening it failed once; the commits then
    /// append, as SQLite's do).
    room: Option<Room>,
}

/// The sync thread, if started.
enum Handoff {
    NotStarted,
    Running {
        commits: mpsc::Sender<Vec<Answer>>,
        thread: JoinHandle<()>,
    },
    /// It could not start: the writer syncs every commit itself.
    Unavailable,
}

impl LogSync {
    /// Opens the log of the database at `database` (SQLite's name for it:
    /// the path with `-wal`). The writer connection must have opened it
    /// already, in write-ahead mode; it stays the same file for as long as
    /// that connection is open (SQLite removes a log only when the last
    /// connection closes).
    pub(crate) fn open(database: &Path, name: &str) -> Result<Self, StoreError> {
        let mut path = database.as_os_str().to_owned();
        path.push("-wal");
        let log = File::open(&path)
            .map_err(|error| StoreError::file("opening the write-ahead log", error))?;
        // A descriptor of its own (not a duplicate of `log`'s): the kernel
        // reports a failed write-back once to each open file, so the
        // room's sync can never take the error that a commit's sync must
        // see.
        let room = File::options().write(true).open(&path).and_then(Room::new);
        let mut log_sync = Self::with_sync(name, Arc::new(move || log.sync_data()));
        match room {
            Ok(room) => log_sync.room = Some(room),
            Err(error) => log::warn!("{name}: no room made ahead in the write-ahead log: {error}"),
        }
        Ok(log_sync)
    }

    /// Whether the commits reached the end of the room made last (a cheap
    /// look at the log's length; [`LogSync::make_room`] looks again).
    pub(crate) fn needs_room(&self) -> bool {
        self.room.as_ref().is_some_and(Room::needed)
    }

    /// Lengthens the log ahead of the commits when they reached its end
    /// ([`crate::wal_room`]). Call on the writer thread between commits,
    /// holding SQLite's write lock (no other connection may append then).
    pub(crate) fn make_room(&mut self) {
        let Some(room) = &mut self.room else {
            return;
        };
        if let Err(error) = room.make() {
            log::warn!(
                "{}: lengthening the write-ahead log failed ({error}); its commits append from now on",
                self.name
            );
            self.room = None;
        }
    }

    fn with_sync(name: &str, sync: Sync) -> Self {
        Self {
            name: name.to_owned(),
            sync,
            handoff: Handoff::NotStarted,
            room: None,
        }
    }

    /// The sync thread's queue, the thread started if it was not.
    fn handoff(&mut self) -> Option<&mpsc::Sender<Vec<Answer>>> {
        if matches!(self.handoff, Handoff::NotStarted) {
            let (commits, handed) = mpsc::channel::<Vec<Answer>>();
            let synced = self.sync.clone();
            let started = std::thread::Builder::new()
                .name(format!("store-sync {}", self.name))
                .spawn(move || {
                    ask_for_short_slice();
                    while let Ok(mut answers) = handed.recv() {
                        while let Ok(more) = handed.try_recv() {
                            answers.extend(more);
                        }
                        sync_then_answer(&*synced, answers);
                    }
                });
            self.handoff = match started {
                Ok(thread) => Handoff::Running { commits, thread },
                Err(error) => {
                    log::warn!(
                        "no sync thread for {} ({error}): its writer syncs each commit",
                        self.name
                    );
                    Handoff::Unavailable
                }
            };
        }
        match &self.handoff {
            Handoff::Running { commits, .. } => Some(commits),
            Handoff::NotStarted | Handoff::Unavailable => None,
        }
    }

    /// Makes a commit durable, then answers its callers: on the sync thread
    /// when the writer has more to do (`busy`), here otherwise.
    pub(crate) fn settle(&mut self, answers: Vec<Answer>, busy: bool) {
        let answers = match busy.then(|| self.handoff()).flatten() {
            Some(commits) => match commits.send(answers) {
                Ok(()) => return,
                Err(mpsc::SendError(answers)) => answers,
            },
            None => answers,
        };
        sync_then_answer(&*self.sync, answers);
    }
}

impl Drop for LogSync {
    /// Lets the sync thread answer everything handed to it.
    fn drop(&mut self) {
        if let Handoff::Running { commits, thread } =
            std::mem::replace(&mut self.handoff, Handoff::Unavailable)
        {
            drop(commits);
            if thread.join().is_err() {
                log::error!("the sync thread of {} panicked", self.name);
            }
        }
    }
}

/// Asks the kernel for a short scheduler slice for the sync thread
/// (`netcfg_threads` says how). Why: under load the sync thread sleeps in
/// each `fdatasync` and, woken when the disk is done, waited about 50 µs
/// for a core busy with other threads while every change of its commits
/// waited for it; with the short slice it runs first, and 32 connections
/// took about a seventh more durable PATCHes a second (docs/benchmarks.md,
/// issue 32). Not for the writer: it polls for changes between batches,
/// and with a short slice too 32 connections were no faster and one
/// connection's PATCH was 3 to 10 µs slower in five rounds of five.
/// Without the hint it works as before.
fn ask_for_short_slice() {
    match netcfg_threads::ask_for_slice(netcfg_threads::SHORT_SLICE) {
        Ok(slice) => log::debug!("the store's sync thread runs with {slice:?}"),
        Err(error) => log::debug!("asking a short slice for the store's sync thread: {error}"),
    }
}

fn sync_then_answer(sync: &dyn Fn() -> io::Result<()>, answers: Vec<Answer>) {
    let started = Instant::now();
    let synced = sync();
    crate::counters::count_sync(started.elapsed());
    // The commits are in the log but may not be on the disk: their callers
    // hear that the change failed.
    let error = synced
        .err()
        .map(|error| StoreError::file("syncing the write-ahead log", error));
    for answer in answers {
        answer(error.clone());
    }
}

#[cfg(test)]
mod tests {
    use std::{
        sync::{
            Mutex,
            atomic::{AtomicUsize, Ordering},
        },
        time::Duration,
    };

    use super::*;

    /// A log whose syncs wait until the test lets them end, counting them.
    #[derive(Default)]
    struct HeldLog {
        open: Mutex<bool>,
        released: std::sync::Condvar,
        synced: AtomicUsize,
    }

    impl HeldLog {
        fn sync(&self) -> io::Result<()> {
            let mut open = self.open.lock().unwrap();
            while !*open {
                open = self.released.wait(open).unwrap();
            }
            self.synced.fetch_add(1, Ordering::SeqCst);
            Ok(())
        }

        fn release(&self) {
            *self.open.lock().unwrap() = true;
            self.released.notify_all();
        }
    }

    fn log_sync(log: &Arc<HeldLog>) -> LogSync {
        let held = log.clone();
        LogSync::with_sync("test", Arc::new(move || held.sync()))
    }

    /// Answers that record how many syncs had ended when they ran.
    fn answers(count: usize, log: &Arc<HeldLog>, heard: &Arc<Mutex<Vec<usize>>>) -> Vec<Answer> {
        (0..count)
            .map(|_| {
                let (log, heard) = (log.clone(), heard.clone());
                Box::new(move |error: Option<StoreError>| {
                    assert!(error.is_none());
                    heard
                        .lock()
                        .unwrap()
                        .push(log.synced.load(Ordering::SeqCst));
                }) as Answer
            })
            .collect()
    }

    #[test]
    fn a_commit_handed_to_the_sync_thread_is_answered_only_after_a_sync() {
        let log = Arc::new(HeldLog::default());
        let heard = Arc::new(Mutex::new(Vec::new()));
        let mut sync = log_sync(&log);
        sync.settle(answers(3, &log, &heard), true);
        sync.settle(answers(2, &log, &heard), true);
        std::thread::sleep(std::time::Duration::from_millis(50));
        assert!(
            heard.lock().unwrap().is_empty(),
            "answered before the sync ended"
        );
        log.release();
        // Dropping it lets the sync thread answer all it was handed.
        drop(sync);
        let heard = heard.lock().unwrap();
        assert_eq!(heard.len(), 5);
        assert!(heard.iter().all(|&synced| synced >= 1), "{heard:?}");
    }

    #[test]
    fn a_commit_with_nothing_queued_behind_it_is_synced_by_the_writer_itself() {
        let log = Arc::new(HeldLog::default());
        let heard = Arc::new(Mutex::new(Vec::new()));
        let mut sync = log_sync(&log);
        let writer = {
            let answers = answers(1, &log, &heard);
            std::thread::spawn(move || {
                sync.settle(answers, false);
                // Nothing was handed over: no sync thread was started.
                assert!(matches!(sync.handoff, Handoff::NotStarted));
            })
        };
        std::thread::sleep(std::time::Duration::from_millis(50));
        assert!(
            heard.lock().unwrap().is_empty(),
            "answered before the sync ended"
        );
        assert!(!writer.is_finished(), "the writer syncs before it goes on");
        log.release();
        writer.join().unwrap();
        assert_eq!(*heard.lock().unwrap(), [1]);
    }

    /// The slice of the thread that ran each sync, in order.
    fn slices_of_syncs() -> (LogSync, Arc<Mutex<Vec<Option<Duration>>>>) {
        let slices = Arc::new(Mutex::new(Vec::new()));
        let recorded = slices.clone();
        let sync = LogSync::with_sync(
            "test",
            Arc::new(move || {
                let slice = netcfg_threads::current_slice()?;
                recorded.lock().unwrap().push(slice);
                Ok(())
            }),
        );
        (sync, slices)
    }

    #[test]
    fn the_sync_thread_runs_with_the_short_slice_and_the_writer_keeps_its_own() {
        let kernel_default = std::thread::spawn(|| netcfg_threads::current_slice().unwrap())
            .join()
            .unwrap();
        let (mut sync, slices) = slices_of_syncs();
        // The writer's own sync, then one handed to the sync thread.
        let writer = std::thread::spawn(move || {
            sync.settle(Vec::new(), false);
            sync.settle(Vec::new(), true);
            sync
        });
        drop(writer.join().unwrap());
        let expected = match kernel_default {
            // A kernel with custom slices: every thread reports one.
            Some(_) => vec![kernel_default, Some(netcfg_threads::SHORT_SLICE)],
            None => vec![None, None],
        };
        assert_eq!(*slices.lock().unwrap(), expected);
        assert_ne!(kernel_default, Some(netcfg_threads::SHORT_SLICE));
    }

    #[test]
    fn a_failed_sync_fails_the_changes_it_was_to_make_durable() {
        let failed = Arc::new(Mutex::new(Vec::new()));
        let mut sync =
            LogSync::with_sync("test", Arc::new(|| Err(io::Error::from_raw_os_error(5))));
        let answers = (0..2)
            .map(|_| {
                let failed = failed.clone();
                Box::new(move |error: Option<StoreError>| {
                    failed
                        .lock()
                        .unwrap()
                        .push(error.map(|error| error.to_string()));
                }) as Answer
            })
            .collect();
        sync.settle(answers, true);
        drop(sync);
        let failed = failed.lock().unwrap();
        assert_eq!(failed.len(), 2);
        assert!(
            failed.iter().all(|error| error
                .as_deref()
                .is_some_and(|error| error.contains("syncing the write-ahead log"))),
            "{failed:?}"
        );
    }
}
