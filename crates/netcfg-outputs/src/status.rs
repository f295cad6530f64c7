//! One output's counters, updated by the caller (drops) and by the output's
//! task (deliveries, connection, errors), read by `status()`.

use std::sync::{
    Mutex,
    atomic::{AtomicBool, AtomicU64, Ordering},
};

use netcfg_model::OutputStatus;

/// The counters behind [`OutputStatus`], plus what it has no field for.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    running: AtomicBool,
    connected: AtomicBool,
    sent: AtomicU64,
    dropped: AtomicU64,
    dropped_events: AtomicU64,
    /// Webhook deliveries the server refused with a 4xx (not retried).
    rejected: AtomicU64,
    /// Messages taken from the queue but not yet confirmed (handed to the
    /// MQTT client, or a webhook POST in progress or waiting to be retried).
    in_hand: AtomicU64,
    last_error: Mutex<Option<String>>,
}

impl Counters {
    pub(crate) fn set_running(&self, running: bool) {
        self.running.store(running, Ordering::Relaxed);
    }

    pub(crate) fn set_connected(&self, connected: bool) {
        self.connected.store(connected, Ordering::Relaxed);
    }

    /// One message delivered: clears the last error (it says what went
    /// wrong since the output last delivered).
    pub(crate) fn add_sent(&self, count: u64) {
        self.sent.fetch_add(count, Ordering::Relaxed);
        let mut last_error = netcfg_model::sync::lock(&self.last_error);
        *last_error = None;
    }

    pub(crate) fn add_dropped(&self, count: u64) {
        self.dropped.fetch_add(count, Ordering::Relaxed);
    }

    pub(crate) fn add_dropped_events(&self, count: u64) {
        self.dropped_events.fetch_add(count, Ordering::Relaxed);
    }

    pub(crate) fn add_rejected(&self) {
        self.rejected.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn set_in_hand(&self, count: u64) {
        self.in_hand.store(count, Ordering::Relaxed);
    }

    /// Records what went wrong; the text must never hold a credential.
    pub(crate) fn set_error(&self, error: String) {
        let mut last_error = netcfg_model::sync::lock(&self.last_error);
        *last_error = Some(error);
    }

    #[cfg(test)]
    pub(crate) fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }

    #[cfg(test)]
    pub(crate) fn dropped_events(&self) -> u64 {
        self.dropped_events.load(Ordering::Relaxed)
    }

    /// The status, with `queued` entries waiting in the queue.
    pub(crate) fn status(&self, queued: usize) -> OutputStatus {
        OutputStatus {
            running: self.running.load(Ordering::Relaxed),
            connected: self.connected.load(Ordering::Relaxed),
            sent: self.sent.load(Ordering::Relaxed),
            rejected: self.rejected.load(Ordering::Relaxed),
            queued: queued as u64 + self.in_hand.load(Ordering::Relaxed),
            dropped: self.dropped.load(Ordering::Relaxed),
            dropped_events: self.dropped_events.load(Ordering::Relaxed),
            last_error: netcfg_model::sync::lock(&self.last_error).clone(),
        }
    }
}
