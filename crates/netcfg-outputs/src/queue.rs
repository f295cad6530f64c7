//! One output's bounded queue, shared by the caller (who pushes, never
//! waiting) and the output's task or thread (which pops).
//!
//! Positions and other events sit in two deques stamped with one sequence
//! counter: the oldest position is the first of its deque (so dropping it
//! is O(1) however many events sit before it), and popping in sequence order
//! keeps the order in which they were sent.

use std::{
    collections::{HashMap, VecDeque},
    sync::{Arc, Condvar, Mutex, MutexGuard},
    time::Duration,
};

use netcfg_model::{
    Notification, SerialNumber,
    event::{DeviceEvent, PositionEntry, StateChange, StateEvent, ZoneEvent},
};

use crate::{QUEUE_BOUND, status::Counters};

/// One tag's position, as queued.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct QueuedPosition {
    /// The position, with its tag and the network time that solved it.
    pub(crate) entry: PositionEntry,
    /// When it was delivered, ms since the Unix epoch.
    pub(crate) time_ms: u64,
}

/// An event other than a position, as queued (rendered later, by the
/// output's own task).
#[derive(Debug, Clone)]
pub(crate) enum QueuedEvent {
    Zone(Arc<ZoneEvent>),
    Notification(Arc<Notification>),
    Device(Arc<DeviceEvent>),
    State(StateEvent),
}

/// What the output's task pops.
#[derive(Debug, Clone)]
pub(crate) enum Entry {
    Position(QueuedPosition),
    Event(QueuedEvent),
}

/// How positions are thinned before they are queued.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RateLimit {
    /// The shortest gap between two positions of one tag, in network time
    /// units (1/975,000 s); 0 keeps every position.
    min_gap: u64,
}

/// Network time units a second.
const NETWORK_TIME_HZ: f64 = 975_000.0;

impl RateLimit {
    pub(crate) fn from_hz(hz: f64) -> Self {
        let min_gap = if hz > 0.0 {
            (NETWORK_TIME_HZ / hz).round() as u64
        } else {
            0
        };
        Self { min_gap }
    }
}

#[derive(Debug, Default)]
struct Inner {
    positions: VecDeque<(u64, QueuedPosition)>,
    events: VecDeque<(u64, QueuedEvent)>,
    next_seq: u64,
    /// Each tag's last accepted network time, for the rate limit.
    last_accepted: HashMap<SerialNumber, u64>,
    /// The last state event queued, so a repeat of it is not queued again
    /// (run() queues "started" and the service may send it too).
    last_state: Option<(StateChange, Option<String>)>,
    /// Set when the output stops: its task drains what it can, then exits.
    closing: bool,
}

impl Inner {
    fn len(&self) -> usize {
        self.positions.len() + self.events.len()
    }
}

/// The queue, with the two ways its consumer may wait on it: a tokio
/// `Notify` (MQTT task) and a `Condvar` (webhook thread).
#[derive(Debug)]
pub(crate) struct Queue {
    inner: Mutex<Inner>,
    condvar: Condvar,
    notify: tokio::sync::Notify,
    bound: usize,
    rate: RateLimit,
    counters: Arc<Counters>,
}

impl Queue {
    pub(crate) fn new(rate: RateLimit, counters: Arc<Counters>) -> Self {
        Self::with_bound(QUEUE_BOUND, rate, counters)
    }

    pub(crate) fn with_bound(bound: usize, rate: RateLimit, counters: Arc<Counters>) -> Self {
        Self {
            inner: Mutex::new(Inner::default()),
            condvar: Condvar::new(),
            notify: tokio::sync::Notify::new(),
            bound,
            rate,
            counters,
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        netcfg_model::sync::lock(&self.inner)
    }

    fn wake(&self) {
        self.notify.notify_one();
        self.condvar.notify_all();
    }

    /// Queues the positions that pass the per-tag rate limit, dropping the
    /// oldest queued positions when full. Never waits (beyond the lock).
    pub(crate) fn push_positions(&self, time_ms: u64, positions: &[PositionEntry]) {
        let mut dropped = 0u64;
        {
            let mut inner = self.lock();
            if inner.closing {
                return;
            }
            for entry in positions {
                let (serial_number, network_time) = (entry.serial_number, entry.network_time);
                if self.rate.min_gap > 0 {
                    match inner.last_accepted.get_mut(&serial_number) {
                        // A network time that went back (a restart of the
                        // network) starts the tag afresh.
                        Some(last)
                            if network_time >= *last
                                && network_time - *last < self.rate.min_gap =>
                        {
                            continue;
                        }
                        Some(last) => *last = network_time,
                        None => {
                            inner.last_accepted.insert(serial_number, network_time);
                        }
                    }
                }
                if inner.len() >= self.bound {
                    if inner.positions.pop_front().is_some() {
                        dropped += 1;
                    } else {
                        // Full of other events: this position goes.
                        dropped += 1;
                        continue;
                    }
                }
                let seq = inner.next_seq;
                inner.next_seq += 1;
                inner.positions.push_back((
                    seq,
                    QueuedPosition {
                        entry: *entry,
                        time_ms,
                    },
                ));
            }
        }
        if dropped > 0 {
            self.counters.add_dropped(dropped);
        }
        self.wake();
    }

    /// Queues an event other than a position; when full, the oldest queued
    /// position makes room, or else this event is dropped.
    pub(crate) fn push_event(&self, event: QueuedEvent) {
        {
            let mut inner = self.lock();
            if inner.closing {
                return;
            }
            if let QueuedEvent::State(state) = &event {
                let key = (state.state, state.renamed_to.clone());
                if inner.last_state.as_ref() == Some(&key) {
                    return;
                }
                inner.last_state = Some(key);
            }
            if inner.len() >= self.bound {
                if inner.positions.pop_front().is_some() {
                    self.counters.add_dropped(1);
                } else {
                    self.counters.add_dropped_events(1);
                    return;
                }
            }
            let seq = inner.next_seq;
            inner.next_seq += 1;
            inner.events.push_back((seq, event));
        }
        self.wake();
    }

    /// Remembers `state` as already queued or published (an output starts
    /// knowing its configuration's state).
    pub(crate) fn set_last_state(&self, state: &StateEvent) {
        self.lock().last_state = Some((state.state, state.renamed_to.clone()));
    }

    /// Queues a last event and closes the queue to further pushes.
    pub(crate) fn close_with(&self, last: Option<QueuedEvent>) {
        if let Some(event) = last {
            self.push_event(event);
        }
        self.lock().closing = true;
        self.wake();
    }

    pub(crate) fn is_closing(&self) -> bool {
        self.lock().closing
    }

    /// The oldest entry; positions only when `with_positions` (a batching
    /// output takes its positions by [`Queue::take_positions`]).
    pub(crate) fn pop(&self, with_positions: bool) -> Option<Entry> {
        let mut inner = self.lock();
        let position_seq = inner.positions.front().map(|(seq, _)| *seq);
        let event_seq = inner.events.front().map(|(seq, _)| *seq);
        match (position_seq, event_seq) {
            (Some(p), Some(e)) if with_positions && p < e => {
                inner.positions.pop_front().map(|(_, p)| Entry::Position(p))
            }
            (Some(_), None) if with_positions => {
                inner.positions.pop_front().map(|(_, p)| Entry::Position(p))
            }
            (_, Some(_)) => inner.events.pop_front().map(|(_, e)| Entry::Event(e)),
            _ => None,
        }
    }

    /// Up to `max` of the oldest positions.
    pub(crate) fn take_positions(&self, max: usize) -> Vec<QueuedPosition> {
        let mut inner = self.lock();
        let count = inner.positions.len().min(max);
        inner.positions.drain(..count).map(|(_, p)| p).collect()
    }

    pub(crate) fn len(&self) -> usize {
        self.lock().len()
    }

    /// Waits (async) until something is pushed or the queue closes.
    pub(crate) async fn notified(&self) {
        self.notify.notified().await;
    }

    /// Waits (blocking, for a thread) at most `timeout` for an event (or,
    /// `with_positions`, a position) to pop, or for the queue to close.
    pub(crate) fn wait_blocking(&self, timeout: Duration, with_positions: bool) {
        let inner = self.lock();
        if inner.closing
            || !inner.events.is_empty()
            || (with_positions && !inner.positions.is_empty())
        {
            return;
        }
        let _unused = netcfg_model::sync::wait_timeout(&self.condvar, inner, timeout);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tag `serial`'s position at `x`, solved at `network_time`.
    fn at(serial: u32, x: i32, network_time: u64) -> PositionEntry {
        PositionEntry {
            serial_number: SerialNumber::from_u32(serial),
            x,
            y: 0,
            z: 0,
            quality: 1,
            error_mm: 0,
            network_time,
            vx: None,
            vy: None,
        }
    }

    fn state(change: StateChange) -> QueuedEvent {
        QueuedEvent::State(StateEvent {
            net: "a".into(),
            state: change,
            renamed_to: None,
        })
    }

    fn queue(bound: usize, hz: f64) -> (Queue, Arc<Counters>) {
        let counters = Arc::new(Counters::default());
        (
            Queue::with_bound(bound, RateLimit::from_hz(hz), counters.clone()),
            counters,
        )
    }

    #[test]
    fn full_queue_drops_the_oldest_positions_and_counts_them() {
        let (queue, counters) = queue(4, 0.0);
        let tags: Vec<_> = (0..6).map(|i| at(i, i as i32, 1)).collect();
        queue.push_positions(1, &tags);
        assert_eq!(queue.len(), 4);
        assert_eq!(counters.dropped(), 2);
        let xs: Vec<_> = std::iter::from_fn(|| queue.pop(true))
            .map(|e| match e {
                Entry::Position(p) => p.entry.x,
                Entry::Event(_) => -1,
            })
            .collect();
        assert_eq!(xs, [2, 3, 4, 5]);
    }

    #[test]
    fn an_event_replaces_the_oldest_position_or_is_dropped() {
        let (queue, counters) = queue(2, 0.0);
        queue.push_positions(1, &[at(1, 1, 1)]);
        queue.push_event(state(StateChange::Started));
        queue.push_event(state(StateChange::Stopped));
        assert_eq!(counters.dropped(), 1);
        queue.push_event(state(StateChange::LinkDown));
        assert_eq!(counters.dropped_events(), 1);
        // Positions cannot enter a queue full of events.
        queue.push_positions(2, &[at(1, 2, 2)]);
        assert_eq!(counters.dropped(), 2);
        assert_eq!(queue.len(), 2);
    }

    #[test]
    fn pops_in_send_order_across_kinds() {
        let (queue, _) = queue(10, 0.0);
        queue.push_positions(1, &[at(1, 1, 1)]);
        queue.push_event(state(StateChange::Started));
        queue.push_positions(2, &[at(1, 2, 2)]);
        let kinds: Vec<_> = std::iter::from_fn(|| queue.pop(true))
            .map(|e| matches!(e, Entry::Position(_)))
            .collect();
        assert_eq!(kinds, [true, false, true]);
        // Without positions, events jump ahead.
        queue.push_positions(3, &[at(1, 3, 3)]);
        queue.push_event(state(StateChange::Stopped));
        assert!(matches!(queue.pop(false), Some(Entry::Event(_))));
        assert!(queue.pop(false).is_none());
        assert_eq!(queue.take_positions(10).len(), 1);
    }

    #[test]
    fn rate_limit_is_per_tag_by_network_time() {
        // 10 Hz: 97,500 units between two positions of a tag.
        let (queue, counters) = queue(100, 10.0);
        for i in 0..10u64 {
            // 20 Hz for tags 1 and 2.
            queue.push_positions(0, &[at(1, 0, i * 48_750), at(2, 1, i * 48_750)]);
        }
        assert_eq!(queue.len(), 10);
        assert_eq!(counters.dropped(), 0, "thinned positions are not drops");
        // The network time going back starts afresh.
        queue.push_positions(0, &[at(1, 0, 0)]);
        assert_eq!(queue.len(), 11);
    }

    #[test]
    fn a_repeated_state_is_queued_once() {
        let (queue, _) = queue(10, 0.0);
        queue.push_event(state(StateChange::Started));
        queue.push_event(state(StateChange::Started));
        assert_eq!(queue.len(), 1);
    }
}
