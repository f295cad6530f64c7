//! The harness's one way to take a lock and its one wall clock (it uses
//! none of the server's crates, which have theirs in `netcfg-model`).

use std::{
    sync::{Mutex, MutexGuard, PoisonError},
    time::{SystemTime, UNIX_EPOCH},
};

/// Locks `mutex`, whatever a panicking holder left: the tallies kept
/// behind one stay readable for the report.
pub fn lock<T: ?Sized>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Now by the wall clock, in milliseconds since the Unix epoch (the
/// clock of the server's `time_ms`), with its fraction.
pub fn wall_clock_ms() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |elapsed| elapsed.as_secs_f64() * 1_000.0)
}

/// [`wall_clock_ms`] in whole milliseconds.
pub fn wall_clock_whole_ms() -> u64 {
    wall_clock_ms() as u64
}
