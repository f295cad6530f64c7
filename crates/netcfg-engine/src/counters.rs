//! What the engine has done since the process started, for the server's
//! metrics: positions the networks reported, positions and datagrams sent
//! on the data streams, datagrams that could not be sent. Plain atomic
//! counters, process-wide: the engine knows nothing of how they are
//! published.

use std::sync::atomic::{AtomicU64, Ordering};

static POSITIONS_RECEIVED: AtomicU64 = AtomicU64::new(0);
static POSITIONS_SENT: AtomicU64 = AtomicU64::new(0);
static DATAGRAMS_SENT: AtomicU64 = AtomicU64::new(0);
static DATAGRAMS_DROPPED: AtomicU64 = AtomicU64::new(0);

/// A reading of the engine's counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EngineCounters {
    /// Tag positions the running networks reported.
    pub positions_received: u64,
    /// Tag positions sent on a User data stream (in datagrams that left).
    pub positions_sent: u64,
    /// CDP datagrams sent on the data streams.
    pub datagrams_sent: u64,
    /// CDP datagrams that could not be sent (the socket refused them).
    pub datagrams_dropped: u64,
}

/// The counters now.
pub fn counters() -> EngineCounters {
    EngineCounters {
        positions_received: POSITIONS_RECEIVED.load(Ordering::Relaxed),
        positions_sent: POSITIONS_SENT.load(Ordering::Relaxed),
        datagrams_sent: DATAGRAMS_SENT.load(Ordering::Relaxed),
        datagrams_dropped: DATAGRAMS_DROPPED.load(Ordering::Relaxed),
    }
}

pub(crate) fn positions_received(count: usize) {
    POSITIONS_RECEIVED.fetch_add(count as u64, Ordering::Relaxed);
}

pub(crate) fn positions_sent(count: usize) {
    POSITIONS_SENT.fetch_add(count as u64, Ordering::Relaxed);
}

pub(crate) fn datagram_sent() {
    DATAGRAMS_SENT.fetch_add(1, Ordering::Relaxed);
}

pub(crate) fn datagram_dropped() {
    DATAGRAMS_DROPPED.fetch_add(1, Ordering::Relaxed);
}
