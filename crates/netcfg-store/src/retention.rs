//! Retention (decisions §20): a configuration keeps at most so many history
//! entries and notifications, and none older than so many days. The
//! writer thread prunes the oldest in the background, in small steps taken
//! only while no change waits ([`Pruner`]), so a write never queues behind
//! more than one step; the pages freed are given back to the filesystem
//! (incremental vacuum).
//!
//! A bound passed starts a round that goes below it by a margin
//! ([`Retention::margin`]), so that a steady stream of changes prunes now
//! and then, not at every change. A round of the history first writes an
//! entry of its own (origin `local`) that says how many of the oldest
//! changes go, then deletes their entries, then their undo rows. Entries
//! go before their undo rows, so a restore to any entry still kept finds
//! every undo row it replays; undo rows below the oldest entry are
//! leftovers of a round a crash cut short, removed by the next one.

use std::{
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, AtomicI64, Ordering},
    },
    time::{Duration, Instant},
};

use netcfg_model::{sync::lock, time::clock::wall_clock_ms_signed};
use rusqlite::{Connection, OptionalExtension};

use crate::{error::StoreError, history};

/// How much history and how many notifications a configuration keeps
/// (decisions §20). Counts are per configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retention {
    /// The most history entries kept. Default: 100,000.
    pub history_keep: u64,
    /// History entries older than this many days go. Default: 365.
    pub history_keep_days: u32,
    /// The most notifications kept; past it, the oldest read ones go
    /// first, then the oldest unread ones. Default: 50,000.
    pub notifications_keep: u64,
    /// Notifications older than this many days go, read or not.
    /// Default: 90.
    pub notifications_keep_days: u32,
}

impl Default for Retention {
    fn default() -> Self {
        Self {
            history_keep: 100_000,
            history_keep_days: 365,
            notifications_keep: 50_000,
            notifications_keep_days: 90,
        }
    }
}

const DAY_MS: i64 = 86_400_000;

impl Retention {
    /// How far below a count a round goes: 1% of it, at least one.
    fn margin(keep: u64) -> u64 {
        (keep / 100).max(1)
    }

    /// The oldest time a row may have, and the time a round that passed it
    /// prunes up to (1% of the age later, at least an hour).
    fn age_bounds(now_ms: i64, days: u32) -> (i64, i64) {
        let age = i64::from(days.max(1)) * DAY_MS;
        let oldest = now_ms - age;
        (oldest, oldest + (age / 100).max(3_600_000))
    }
}

/// Rows one step deletes.
const CHUNK: i64 = 128;

/// Pages one step of the vacuum gives back (4 KiB each).
const VACUUM_PAGES: u32 = 128;

/// How soon after a write the writer looks whether a bound was passed.
const LOOK_AFTER: Duration = Duration::from_secs(2);

/// The longest a writer waits for its oldest row to pass an age bound
/// before it looks again: the wall clock may be set meanwhile (forward at
/// a boot without a real-time clock), and the wait is measured on the
/// monotonic one; a look is a few small queries.
const LOOK_AT_LEAST_EVERY: Duration = Duration::from_secs(10);

/// The least wait for the next look when every bound holds (a row dated
/// in the future, a clock set back).
const LOOK_AT_MOST_EVERY: Duration = Duration::from_secs(1);

/// After a step that took `t`, the next one waits `PACE * t` while
/// changes come: pruning takes at most a hundredth of the writer's time
/// then, so fewer than one change in a hundred meets a step (a write's
/// p99 stays its own; with a tenth it doubled, docs/bench/retention.md).
/// 128 rows every 100 steps' time is still over 1,000 rows a second, a
/// busy site's 50 notifications a second many times over; a writer that
/// falls quiet prunes at full speed.
const PACE: u32 = 99;

/// No change for this long: the writer is quiet, and steps follow each
/// other at once.
const QUIET: Duration = Duration::from_millis(100);

/// A turn overdue this long is taken even while changes queue: a writer
/// that is never idle still prunes (at its pace).
const STARVED_AFTER: Duration = Duration::from_millis(500);

/// What a round still has to do, in this order.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Work {
    /// Write the history's entry of the round (`summary`), then delete the
    /// entries up to and including `through`, then their undo rows.
    History {
        through: i64,
        summary: Option<String>,
    },
    /// Delete notifications older than `older_than` (when set), then
    /// `excess` more, read ones first.
    Notifications {
        older_than: Option<i64>,
        excess: u64,
    },
    /// Give the free pages back.
    Vacuum,
}

/// The writer thread's pruning: when to look, and the round under way.
pub(crate) struct Pruner {
    retention: Retention,
    /// When the writer should run [`Pruner::run`] if no change waits.
    next: Option<Instant>,
    /// When the step handed out last began.
    step_began: Option<Instant>,
    /// When the last change was committed.
    last_write: Instant,
    /// The round under way, shared with the step it hands the writer.
    round: Arc<Mutex<Vec<Work>>>,
    /// When the oldest row passes its age (wall clock, ms; `i64::MAX`:
    /// none will), for the store to wake the configuration when it rests.
    ages_due_ms: Arc<AtomicI64>,
    /// A step failed, or its commit: no look until the next write (or the
    /// next wake), rather than failing again at once.
    failed: Arc<AtomicBool>,
}

/// One step for the writer to run in a batch of its own.
pub(crate) type Step = Box<dyn FnOnce(&Connection) -> Result<(), StoreError> + Send>;

impl Pruner {
    /// A pruner that looks as soon as the writer is idle (a configuration
    /// that rested is looked at when it wakes).
    pub(crate) fn new(retention: Retention, ages_due_ms: Arc<AtomicI64>) -> Self {
        Self {
            retention,
            next: Some(Instant::now()),
            step_began: None,
            last_write: Instant::now(),
            round: Arc::default(),
            ages_due_ms,
            failed: Arc::default(),
        }
    }

    /// The writer stops (the configuration rests): notes when its oldest
    /// row passes its age, for the store to wake it then.
    pub(crate) fn note_rest(&self, conn: &Connection) {
        match ages_passed_at(conn, &self.retention) {
            Ok(at_ms) => self
                .ages_due_ms
                .store(at_ms.unwrap_or(i64::MAX), Ordering::Relaxed),
            Err(error) => log::warn!("could not read the oldest rows' ages: {error}"),
        }
    }

    /// When [`Pruner::run`] is due (none: nothing to do until a write).
    pub(crate) fn due_at(&self) -> Option<Instant> {
        self.next
    }

    /// True when the pruner's turn is [`STARVED_AFTER`] overdue.
    pub(crate) fn starved(&self) -> bool {
        self.next.is_some_and(|due| due.elapsed() >= STARVED_AFTER)
    }

    /// A change was committed: look within [`LOOK_AFTER`] (a round under
    /// way keeps its pace).
    pub(crate) fn note_write(&mut self) {
        self.last_write = Instant::now();
        let soon = self.last_write + LOOK_AFTER;
        self.next = Some(match self.next {
            None => soon,
            Some(next) if lock(&self.round).is_empty() => next.min(soon),
            Some(next) => next,
        });
    }

    /// The writer is idle and [`Pruner::due_at`] passed: looks (on `conn`,
    /// outside any transaction) when no round is under way, and hands back
    /// the round's next step, if any. When every bound holds, the next look
    /// is when the oldest row passes its age (a configuration nobody
    /// writes still loses its old rows). A look that fails is logged and
    /// tried again after the next write.
    pub(crate) fn run(&mut self, conn: &Connection) -> Option<Step> {
        if lock(&self.round).is_empty() {
            let now_ms = wall_clock_ms_signed();
            match look(conn, &self.retention, now_ms) {
                Ok(work) if !work.is_empty() => *lock(&self.round) = work,
                Ok(_) => {
                    self.next = match ages_passed_at(conn, &self.retention) {
                        Ok(at_ms) => at_ms.map(|at_ms| wait_until(now_ms, at_ms)),
                        Err(error) => {
                            log::warn!("could not read the oldest rows' ages: {error}");
                            None
                        }
                    };
                    return None;
                }
                Err(error) => {
                    log::warn!("could not check the retention bounds: {error}");
                    self.next = None;
                    return None;
                }
            }
        }
        let (round, failed) = (self.round.clone(), self.failed.clone());
        self.next = None;
        self.step_began = Some(Instant::now());
        Some(Box::new(move |conn| {
            let mut round = lock(&round);
            let Some(work) = round.first_mut() else {
                return Ok(());
            };
            match step(conn, work) {
                Ok(true) => {
                    round.remove(0);
                    Ok(())
                }
                Ok(false) => Ok(()),
                Err(error) => {
                    // The round is dropped; the next look starts another.
                    round.clear();
                    failed.store(true, Ordering::Relaxed);
                    Err(error)
                }
            }
        }))
    }

    /// What the writer calls when the commit of a step fails: the round is
    /// dropped (what it believed written was not), and the next look
    /// starts another.
    pub(crate) fn on_commit_failure(&self) -> impl FnOnce(Option<StoreError>) + Send + 'static {
        let (round, failed) = (self.round.clone(), self.failed.clone());
        move |error| {
            if error.is_some() {
                lock(&round).clear();
                failed.store(true, Ordering::Relaxed);
            }
        }
    }

    /// The step handed out by [`Pruner::run`] ran (and was committed):
    /// the next one waits its pace. After the round's last step the writer
    /// looks again at once: changes made during the round may have passed
    /// a bound again.
    pub(crate) fn stepped(&mut self) {
        let Some(began) = self.step_began.take() else {
            return;
        };
        if self.failed.swap(false, Ordering::Relaxed) {
            self.next = None;
            return;
        }
        let quiet = self.last_write.elapsed() >= QUIET;
        self.next = Some(if lock(&self.round).is_empty() || quiet {
            Instant::now()
        } else {
            Instant::now() + began.elapsed() * PACE
        });
    }
}

/// The instant a look is due for a row that passes its age bound at
/// `at_ms` on the wall clock: then, or after [`LOOK_AT_LEAST_EVERY`].
fn wait_until(now_ms: i64, at_ms: i64) -> Instant {
    let wait = u64::try_from(at_ms.saturating_sub(now_ms)).unwrap_or(0);
    Instant::now() + Duration::from_millis(wait).clamp(LOOK_AT_MOST_EVERY, LOOK_AT_LEAST_EVERY)
}

/// When (wall clock, ms) the oldest history entry or notification passes
/// its age bound; none when both tables are empty.
pub(crate) fn ages_passed_at(
    conn: &Connection,
    retention: &Retention,
) -> Result<Option<i64>, StoreError> {
    let oldest_entry: Option<i64> = conn
        .prepare_cached("SELECT timestamp_ms FROM history ORDER BY id LIMIT 1")?
        .query_row([], |row| row.get(0))
        .optional()?;
    let oldest_notification: Option<i64> = conn
        .prepare_cached("SELECT timestamp_ms FROM notifications ORDER BY identifier LIMIT 1")?
        .query_row([], |row| row.get(0))
        .optional()?;
    // A row passes its bound when it is older than the bound's start
    // ([`Retention::age_bounds`]): a millisecond after it is exactly that.
    let passes =
        |time: Option<i64>, days: u32| time.map(|time| time + i64::from(days.max(1)) * DAY_MS + 1);
    Ok([
        passes(oldest_entry, retention.history_keep_days),
        passes(oldest_notification, retention.notifications_keep_days),
    ]
    .into_iter()
    .flatten()
    .min())
}

/// When (wall clock, ms) a configuration just opened needs its writer to
/// prune: now when a bound is passed already (bounds lowered in the
/// settings, or a file that rested long), else when its oldest row passes
/// its age.
pub(crate) fn due_at_open(
    conn: &Connection,
    retention: &Retention,
) -> Result<Option<i64>, StoreError> {
    let now_ms = wall_clock_ms_signed();
    if look(conn, retention, now_ms)?.is_empty() {
        ages_passed_at(conn, retention)
    } else {
        Ok(Some(now_ms))
    }
}

/// What the bounds ask for now: nothing when every bound holds.
fn look(conn: &Connection, retention: &Retention, now_ms: i64) -> Result<Vec<Work>, StoreError> {
    let mut work = Vec::new();
    if let Some(history) = look_at_history(conn, retention, now_ms)? {
        work.push(history);
    }
    if let Some(notifications) = look_at_notifications(conn, retention, now_ms)? {
        work.push(notifications);
    }
    if !work.is_empty() {
        work.push(Work::Vacuum);
    }
    Ok(work)
}

fn look_at_history(
    conn: &Connection,
    retention: &Retention,
    now_ms: i64,
) -> Result<Option<Work>, StoreError> {
    let (oldest, newest): (Option<i64>, Option<i64>) = conn
        .prepare_cached("SELECT min(id), max(id) FROM history")?
        .query_row([], |row| Ok((row.get(0)?, row.get(1)?)))?;
    let (Some(oldest), Some(newest)) = (oldest, newest) else {
        return Ok(None);
    };
    // Entries are numbered without gaps and only the oldest are deleted,
    // so the ids count them.
    let count = u64::try_from(newest - oldest + 1).unwrap_or(0);
    let keep = retention.history_keep.max(1);
    let mut through = oldest - 1;
    let mut why = Vec::new();
    if count > keep {
        // The round's own entry is one more: it keeps `keep - margin + 1`.
        let kept = keep - Retention::margin(keep);
        through = newest - i64::try_from(kept).unwrap_or(i64::MAX);
        why.push(format!("more than history_keep ({keep})"));
    }
    let (oldest_allowed, keep_from) = Retention::age_bounds(now_ms, retention.history_keep_days);
    let oldest_time: i64 = conn
        .prepare_cached("SELECT timestamp_ms FROM history WHERE id = ?1")?
        .query_row([oldest], |row| row.get(0))?;
    if oldest_time < oldest_allowed {
        let first_kept: Option<i64> = conn
            .prepare_cached("SELECT id FROM history WHERE timestamp_ms >= ?1 ORDER BY id LIMIT 1")?
            .query_row([keep_from], |row| row.get(0))
            .optional()?;
        through = through.max(first_kept.map_or(newest, |id| id - 1));
        why.push(format!(
            "older than history_keep_days ({} days)",
            retention.history_keep_days
        ));
    }
    if through < oldest {
        return Ok(None);
    }
    let gone = through - oldest + 1;
    let summary = format!(
        "History pruned: the oldest {gone} {} ({oldest} to {through}) went, {}; a restore reaches back to change {}",
        if gone == 1 { "change" } else { "changes" },
        why.join(" and "),
        through + 1,
    );
    Ok(Some(Work::History {
        through,
        summary: Some(summary),
    }))
}

fn look_at_notifications(
    conn: &Connection,
    retention: &Retention,
    now_ms: i64,
) -> Result<Option<Work>, StoreError> {
    let count: i64 = conn
        .prepare_cached("SELECT count(*) FROM notifications")?
        .query_row([], |row| row.get(0))?;
    let count = u64::try_from(count).unwrap_or(0);
    let keep = retention.notifications_keep.max(1);
    let excess = if count > keep {
        count - (keep - Retention::margin(keep))
    } else {
        0
    };
    let (oldest_allowed, keep_from) =
        Retention::age_bounds(now_ms, retention.notifications_keep_days);
    let oldest_time: Option<i64> = conn
        .prepare_cached("SELECT timestamp_ms FROM notifications ORDER BY identifier LIMIT 1")?
        .query_row([], |row| row.get(0))
        .optional()?;
    let older_than = oldest_time
        .filter(|time| *time < oldest_allowed)
        .map(|_| keep_from);
    Ok((excess > 0 || older_than.is_some()).then_some(Work::Notifications { older_than, excess }))
}

/// Prunes now, in one change, what the bounds ask for ([`crate::Net::prune`]).
pub(crate) fn prune_all(conn: &Connection, retention: &Retention) -> Result<(), StoreError> {
    for mut work in look(conn, retention, wall_clock_ms_signed())? {
        while !step(conn, &mut work)? {}
    }
    Ok(())
}

/// Runs one step of `work`; true when `work` is done.
fn step(conn: &Connection, work: &mut Work) -> Result<bool, StoreError> {
    match work {
        Work::History { through, summary } => {
            if let Some(summary) = summary.take() {
                history::record_pruning(conn, &summary)?;
                return Ok(false);
            }
            let entries = conn
                .prepare_cached(
                    "DELETE FROM history WHERE id IN
                     (SELECT id FROM history WHERE id <= ?1 ORDER BY id LIMIT ?2)",
                )?
                .execute([*through, CHUNK])?;
            if entries > 0 {
                return Ok(false);
            }
            let undo_rows = conn
                .prepare_cached(
                    "DELETE FROM history_undo WHERE id IN
                     (SELECT id FROM history_undo WHERE id < ?1 ORDER BY id LIMIT ?2)",
                )?
                .execute([history::first_undo_kept(conn)?, CHUNK])?;
            Ok(undo_rows == 0)
        }
        Work::Notifications { older_than, excess } => {
            if let Some(time) = *older_than {
                let gone = delete_notifications(conn, "timestamp_ms < ?1", time, CHUNK)?;
                *excess = excess.saturating_sub(gone);
                if gone < CHUNK.unsigned_abs() {
                    *older_than = None;
                }
                return Ok(false);
            }
            let limit = CHUNK.min(i64::try_from(*excess).unwrap_or(CHUNK));
            let mut gone = delete_notifications(conn, "read = ?1", 1, limit)?;
            if gone == 0 {
                gone = delete_notifications(conn, "read = ?1", 0, limit)?;
            }
            *excess = excess.saturating_sub(gone);
            Ok(*excess == 0 || gone == 0)
        }
        Work::Vacuum => {
            conn.execute_batch(&format!("PRAGMA incremental_vacuum({VACUUM_PAGES})"))?;
            let free: i64 = conn.query_row("PRAGMA freelist_count", [], |row| row.get(0))?;
            Ok(free == 0)
        }
    }
}

/// Deletes at most `limit` of the oldest notifications for which
/// `condition` holds with `?1` = `value`; how many it deleted.
fn delete_notifications(
    conn: &Connection,
    condition: &str,
    value: i64,
    limit: i64,
) -> Result<u64, StoreError> {
    let deleted = conn
        .prepare_cached(&format!(
            "DELETE FROM notifications WHERE identifier IN
             (SELECT identifier FROM notifications WHERE {condition} ORDER BY identifier LIMIT ?2)"
        ))?
        .execute([value, limit])?;
    Ok(deleted as u64)
}

/// Gives a file incremental vacuum: new files are made with it
/// ([`crate::schema::create_version_1`]); an older or uploaded file is
/// rebuilt once (`VACUUM`), when it is opened.
pub(crate) fn use_incremental_vacuum(conn: &Connection) -> Result<(), StoreError> {
    const INCREMENTAL: i64 = 2;
    let mode: i64 = conn.query_row("PRAGMA auto_vacuum", [], |row| row.get(0))?;
    if mode != INCREMENTAL {
        conn.execute_batch("PRAGMA auto_vacuum = INCREMENTAL; VACUUM;")?;
    }
    Ok(())
}
