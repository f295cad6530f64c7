//! What the store has done since the process started, for the server's
//! metrics: commits of the writer threads and the time they took, the sync
//! of the write-ahead log to the disk included. Plain
//! atomic counters, process-wide: the store knows nothing of how they are
//! published.

use std::{
    sync::atomic::{AtomicU64, Ordering},
    time::Duration,
};

static COMMITS: AtomicU64 = AtomicU64::new(0);
static FAILED_COMMITS: AtomicU64 = AtomicU64::new(0);
static CHANGES: AtomicU64 = AtomicU64::new(0);
static COMMIT_NANOS: AtomicU64 = AtomicU64::new(0);

/// A reading of the store's counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct StoreCounters {
    /// Transactions the writer threads committed.
    pub commits: u64,
    /// Transactions whose commit failed (a full or read-only disk).
    pub failed_commits: u64,
    /// Changes those transactions held (several changes share a commit).
    pub changes: u64,
    /// Time spent committing, syncing included.
    pub commit_time: Duration,
}

/// The counters now.
pub fn counters() -> StoreCounters {
    StoreCounters {
        commits: COMMITS.load(Ordering::Relaxed),
        failed_commits: FAILED_COMMITS.load(Ordering::Relaxed),
        changes: CHANGES.load(Ordering::Relaxed),
        commit_time: Duration::from_nanos(COMMIT_NANOS.load(Ordering::Relaxed)),
    }
}

/// Counts one commit of `changes` changes that took `took`.
pub(crate) fn count_commit(changes: usize, took: Duration, succeeded: bool) {
    if succeeded {
        COMMITS.fetch_add(1, Ordering::Relaxed);
    } else {
        FAILED_COMMITS.fetch_add(1, Ordering::Relaxed);
    }
    CHANGES.fetch_add(changes as u64, Ordering::Relaxed);
    let nanos = u64::try_from(took.as_nanos()).unwrap_or(u64::MAX);
    COMMIT_NANOS.fetch_add(nanos, Ordering::Relaxed);
}

/// Counts the sync of the write-ahead log that made commits durable (part
/// of their commit time).
pub(crate) fn count_sync(took: Duration) {
    let nanos = u64::try_from(took.as_nanos()).unwrap_or(u64::MAX);
    COMMIT_NANOS.fetch_add(nanos, Ordering::Relaxed);
}
