//! Stamps: values that change whenever a kind of a configuration's data
//! changes, so that an entity tag can name a state without reading it.
//!
//! Three kinds: the content (every table the change history tracks), the
//! notifications, and the schedules with where each stands. A pump that
//! stores the engine's notifications, or marks them read, moves the
//! notifications' stamp and leaves the content's alone, so an editor's tag
//! stays current while the network runs; a scheduled run moves the
//! schedules' stamp alone (a change of a schedule moves both).
//!
//! The writer connection's update hook sees the rows a change writes in
//! tables with a rowid: the notifications and the schedules' tables. The
//! content is noted by the history instead ([`note_content`]): a change
//! touched it when it wrote undo rows (every tracked table has triggers
//! that write one; the undo rows and some tracked tables have no rowid the
//! hook could see). A stamp takes a new
//! value from the generations' source after a commit that touched its kind,
//! before any caller hears of the commit; no two stamps of the process are
//! equal, across configurations and openings.

use std::{
    cell::Cell,
    sync::atomic::{AtomicU64, Ordering},
};

use rusqlite::hooks::Action;

/// What a stamp stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StampKind {
    /// The configuration's content: everything its change history tracks
    /// (devices, interfaces, roles, settings, ...).
    Content,
    /// Its notifications and whether each is read.
    Notifications,
    /// Its schedules and their runs.
    Schedules,
}

impl StampKind {
    const fn bit(self) -> u8 {
        match self {
            Self::Content => 1,
            Self::Notifications => 2,
            Self::Schedules => 4,
        }
    }
}

thread_local! {
    /// On a writer thread: the kinds the change being run has touched.
    static CHANGE_TOUCHED: Cell<u8> = const { Cell::new(0) };
    /// On a writer thread: the kinds the batch's changes that succeeded so
    /// far have touched.
    static BATCH_TOUCHED: Cell<u8> = const { Cell::new(0) };
}

/// The writer connection's update hook: notes the kind a written row
/// belongs to.
pub(crate) fn note_row(action: Action, database: &str, table: &str) {
    let kind = match (database, table, action) {
        ("main", "notifications", _) => StampKind::Notifications,
        ("main", "schedules" | "schedule_runs", _) => StampKind::Schedules,
        _ => return,
    };
    CHANGE_TOUCHED.with(|touched| touched.set(touched.get() | kind.bit()));
}

/// The change being run touched the content (it wrote undo rows).
pub(crate) fn note_content() {
    CHANGE_TOUCHED.with(|touched| touched.set(touched.get() | StampKind::Content.bit()));
}

/// Before a batch runs.
pub(crate) fn begin_batch() {
    BATCH_TOUCHED.with(|touched| touched.set(0));
    CHANGE_TOUCHED.with(|touched| touched.set(0));
}

/// After one change of the batch: what it touched counts when it
/// succeeded, and is forgotten when it was rolled back.
pub(crate) fn end_change(succeeded: bool) {
    let touched = CHANGE_TOUCHED.with(|touched| touched.replace(0));
    if succeeded {
        BATCH_TOUCHED.with(|batch| batch.set(batch.get() | touched));
    }
}

/// True when a change of the running batch that succeeded touched `kind`.
pub(crate) fn batch_touched(kind: StampKind) -> bool {
    BATCH_TOUCHED.with(|touched| touched.get() & kind.bit() != 0)
}

/// A configuration's stamps.
#[derive(Debug)]
pub(crate) struct Stamps {
    content: AtomicU64,
    notifications: AtomicU64,
    schedules: AtomicU64,
}

impl Stamps {
    /// Each at `first`, a value no other stamp of the process had.
    pub(crate) fn new(first: u64) -> Self {
        Self {
            content: AtomicU64::new(first),
            notifications: AtomicU64::new(first),
            schedules: AtomicU64::new(first),
        }
    }

    fn slot(&self, kind: StampKind) -> &AtomicU64 {
        match kind {
            StampKind::Content => &self.content,
            StampKind::Notifications => &self.notifications,
            StampKind::Schedules => &self.schedules,
        }
    }

    /// The current stamp of `kind`.
    pub(crate) fn get(&self, kind: StampKind) -> u64 {
        self.slot(kind).load(Ordering::SeqCst)
    }

    /// After a batch committed: each kind it touched takes `next`.
    pub(crate) fn advance(&self, next: u64) {
        for kind in [
            StampKind::Content,
            StampKind::Notifications,
            StampKind::Schedules,
        ] {
            if batch_touched(kind) {
                self.slot(kind).store(next, Ordering::SeqCst);
            }
        }
    }
}
