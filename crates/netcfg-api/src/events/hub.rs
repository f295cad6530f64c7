//! The fan-out: one hub for the server, fed once per event whoever listens,
//! and a bounded queue per subscriber.
//!
//! - Events other than positions are rendered once and queued by reference
//!   (shared bytes). A queue holds at most [`MAX_QUEUED`]; a subscriber that
//!   falls further behind loses its queue and gets `resync` instead, so it
//!   never loses a notification silently and never holds more.
//! - Positions are gathered per configuration and cut into frames
//!   [`FRAMES_PER_SECOND`] times a second, each rendered once and shared. A
//!   subscriber keeps at most [`MAX_PENDING_FRAMES`] per configuration;
//!   beyond that, or when it may send fewer batches than frames arrive, it
//!   gets one batch of each tag's newest position since its oldest missed
//!   frame, rendered once per frame for all who need the same. Positions are
//!   the first to go; nothing else is dropped.
//! - The hub keeps each tag's newest position only as long as a subscriber
//!   may ask for it in a catch-up batch (owed frames, plus a margin), and
//!   none of a configuration nobody listens to: tags that come and go over
//!   months of running leave nothing behind.

use std::{
    collections::{HashMap, VecDeque},
    sync::{
        Arc, Mutex,
        atomic::{AtomicU64, Ordering},
    },
    time::Duration,
};

use actix_web::web::Bytes;
use netcfg_model::{ConfigName, Notification, SerialNumber, sync::lock};
use tokio::sync::Notify;

use super::data::{
    self, ChangeEvent, DeviceEvent, EventKind, EventKinds, NotificationEvent, PositionEntry,
    PositionForm, ResyncEvent, StateChange, StateEvent,
};

/// The most events (other than positions) a subscriber's queue holds.
pub const MAX_QUEUED: usize = 512;
/// The most position frames a subscriber holds per configuration.
pub const MAX_PENDING_FRAMES: usize = 4;
/// How often positions are cut into frames.
pub const FRAMES_PER_SECOND: u32 = 10;
/// The period of the position frames.
pub const FRAME_PERIOD: Duration = Duration::from_millis(1_000 / FRAMES_PER_SECOND as u64);
/// How many frames of tags' newest positions are kept beyond the oldest
/// frame a subscriber is still owed: a stream takes what it is owed, then
/// asks for the catch-up batch, and a frame may be cut in between.
const CATCH_UP_MARGIN: u64 = 2 * FRAMES_PER_SECOND as u64;

/// The server's event hub.
#[derive(Debug, Default)]
pub struct EventHub {
    inner: Mutex<Inner>,
    next_subscriber: AtomicU64,
    /// Notifications published, by level (1 to 4), for the metrics.
    published: [AtomicU64; 4],
    /// Position batches sent to subscribers: frames as cut, and catch-up
    /// batches that stand for several frames.
    frames_sent: AtomicU64,
    catch_ups_sent: AtomicU64,
}

#[derive(Debug, Default)]
struct Inner {
    subscribers: Vec<Arc<Subscriber>>,
    positions: HashMap<ConfigName, NetPositions>,
    /// Frames cut so far.
    tick: u64,
    closed: bool,
}

/// One configuration's positions.
#[derive(Debug, Default)]
struct NetPositions {
    /// Positions since the last frame, each tag once (its newest).
    pending: Vec<PositionEntry>,
    pending_index: HashMap<SerialNumber, usize>,
    /// Each tag's newest position, with the tick of the frame that carried it.
    latest: HashMap<SerialNumber, (PositionEntry, u64)>,
    /// Catch-up batches rendered since the last frame, by their first tick
    /// and form.
    catch_up: Vec<(u64, PositionForm, Bytes)>,
}

impl NetPositions {
    /// Drops the newest positions no catch-up batch can need: those older
    /// than the oldest frame a subscriber is owed (less a margin). Without
    /// this, a network that runs for months while tags come and go would
    /// keep the last position of every tag it ever had.
    fn forget_unowed(&mut self, net: &ConfigName, subscribers: &[Arc<Subscriber>], tick: u64) {
        let oldest_owed = subscribers
            .iter()
            .filter(|subscriber| subscriber.wants(net, EventKind::Position))
            .filter_map(|subscriber| subscriber.owed_since(net))
            .min()
            .unwrap_or(tick);
        let floor = oldest_owed.saturating_sub(CATCH_UP_MARGIN);
        self.latest.retain(|_, (_, seen)| *seen >= floor);
        if self.latest.capacity() > 4 * self.latest.len().max(64) {
            self.latest.shrink_to_fit();
        }
    }
}

/// A frame of positions, rendered once for every subscriber in each form
/// some subscriber asked for.
#[derive(Debug)]
pub(crate) struct Frame {
    pub(crate) tick: u64,
    forms: [Option<Bytes>; 2],
}

impl Frame {
    /// The frame as `form` writes it (rendered for every form a subscriber
    /// of it asked for).
    pub(crate) fn bytes(&self, form: PositionForm) -> Option<&Bytes> {
        self.forms[form.index()].as_ref()
    }
}

/// A notification event, rendered for both kinds of stream.
#[derive(Debug)]
pub(crate) struct NotificationRecord {
    pub(crate) net: ConfigName,
    pub(crate) identifier: u64,
    /// As `/nets/{net_name}/events` sends it (`id:` the identifier).
    pub(crate) on_net: Bytes,
    /// As `/events` sends it (`id:` `{net}:{identifier}`).
    pub(crate) on_all: Bytes,
}

impl NotificationRecord {
    pub(crate) fn new(net: &ConfigName, notification: &Notification) -> Self {
        let data = NotificationEvent {
            net: net.as_str(),
            notification,
        };
        let identifier = notification.identifier;
        Self {
            net: net.clone(),
            identifier,
            on_net: data::render(
                EventKind::Notification,
                Some(&identifier.to_string()),
                &data,
            ),
            on_all: data::render(
                EventKind::Notification,
                Some(&format!("{net}:{identifier}")),
                &data,
            ),
        }
    }
}

/// An event waiting in a queue.
#[derive(Debug, Clone)]
pub(crate) enum Queued {
    /// Any event but a notification or positions, as sent.
    Event(Bytes),
    /// A notification.
    Notification(Arc<NotificationRecord>),
}

/// A subscriber: what it wants and what waits for it.
#[derive(Debug)]
pub(crate) struct Subscriber {
    id: u64,
    net: Option<ConfigName>,
    kinds: EventKinds,
    /// How its position batches are written.
    pub(crate) form: PositionForm,
    queue: Mutex<Queue>,
    pub(crate) wake: Notify,
}

/// What waits for a subscriber.
#[derive(Debug, Default)]
pub(crate) struct Queue {
    pub(crate) events: VecDeque<Queued>,
    /// Events were dropped: `resync` goes first.
    pub(crate) resync: bool,
    pub(crate) positions: Vec<PendingPositions>,
    pub(crate) closed: bool,
}

/// Position frames of one configuration waiting for a subscriber.
#[derive(Debug)]
pub(crate) struct PendingPositions {
    pub(crate) net: ConfigName,
    pub(crate) frames: Vec<Arc<Frame>>,
    /// The tick of the oldest frame not sent.
    pub(crate) since_tick: u64,
    /// More frames came than are kept.
    pub(crate) overflowed: bool,
}

impl Subscriber {
    fn wants(&self, net: &ConfigName, kind: EventKind) -> bool {
        self.kinds.contains(kind) && self.net.as_ref().is_none_or(|wanted| wanted == net)
    }

    /// Whether it listens to one configuration and that is `net`.
    fn listens_to(&self, net: &ConfigName) -> bool {
        self.net.as_ref() == Some(net)
    }

    fn push(&self, event: Queued) {
        {
            let mut queue = lock(&self.queue);
            if queue.events.len() >= MAX_QUEUED {
                // Its memory goes too: a client that stopped reading holds no more.
                queue.events = VecDeque::new();
                queue.resync = true;
            }
            queue.events.push_back(event);
        }
        self.wake.notify_one();
    }

    /// The tick of the oldest frame of `net` it is owed, if any.
    fn owed_since(&self, net: &ConfigName) -> Option<u64> {
        lock(&self.queue)
            .positions
            .iter()
            .find(|pending| pending.net == *net)
            .filter(|pending| !pending.frames.is_empty() || pending.overflowed)
            .map(|pending| pending.since_tick)
    }

    fn push_frame(&self, net: &ConfigName, frame: &Arc<Frame>) {
        {
            let mut queue = lock(&self.queue);
            match queue
                .positions
                .iter_mut()
                .find(|pending| pending.net == *net)
            {
                Some(pending) if pending.frames.is_empty() && !pending.overflowed => {
                    pending.since_tick = frame.tick;
                    pending.frames.push(Arc::clone(frame));
                }
                Some(pending) if pending.frames.len() >= MAX_PENDING_FRAMES => {
                    pending.frames.clear();
                    pending.overflowed = true;
                }
                Some(pending) if pending.overflowed => {}
                Some(pending) => pending.frames.push(Arc::clone(frame)),
                None => queue.positions.push(PendingPositions {
                    net: net.clone(),
                    frames: vec![Arc::clone(frame)],
                    since_tick: frame.tick,
                    overflowed: false,
                }),
            }
        }
        self.wake.notify_one();
    }

    /// Takes what waits (positions excepted).
    pub(crate) fn take(&self) -> (bool, Vec<Queued>, bool) {
        let mut queue = lock(&self.queue);
        let resync = std::mem::take(&mut queue.resync);
        let events = queue.events.drain(..).collect();
        (resync, events, queue.closed)
    }

    /// Whether positions wait.
    pub(crate) fn has_positions(&self) -> bool {
        lock(&self.queue)
            .positions
            .iter()
            .any(|pending| !pending.frames.is_empty() || pending.overflowed)
    }

    /// Takes the positions of the configuration that waited longest: its
    /// frames as they are when the stream may send that many batches now
    /// (`budget`), so a stream woken late sends every frame it missed;
    /// else (or after an overflow) the tick from which to catch up in one
    /// batch.
    pub(crate) fn take_positions_within(
        &self,
        budget: usize,
    ) -> Option<(ConfigName, TakenPositions)> {
        let mut queue = lock(&self.queue);
        let pending = queue
            .positions
            .iter_mut()
            .filter(|pending| !pending.frames.is_empty() || pending.overflowed)
            .min_by_key(|pending| pending.since_tick)?;
        let taken = if pending.frames.len() <= budget && !pending.overflowed {
            Ok(std::mem::take(&mut pending.frames))
        } else {
            pending.frames.clear();
            Err(pending.since_tick)
        };
        pending.overflowed = false;
        Some((pending.net.clone(), taken))
    }

    /// [`Subscriber::take_positions_within`] one batch.
    #[cfg(test)]
    pub(crate) fn take_positions(&self) -> Option<(ConfigName, Result<Arc<Frame>, u64>)> {
        let (net, taken) = self.take_positions_within(1)?;
        Some((net, taken.map(|mut frames| frames.remove(0))))
    }
}

/// What a stream takes of a configuration's positions: its frames as cut,
/// or the tick from which one catch-up batch stands for them.
pub(crate) type TakenPositions = Result<Vec<Arc<Frame>>, u64>;

/// A subscription: it leaves the hub when dropped (the client went away).
#[derive(Debug)]
pub(crate) struct Subscription {
    hub: Arc<EventHub>,
    pub(crate) subscriber: Arc<Subscriber>,
}

impl Drop for Subscription {
    fn drop(&mut self) {
        let id = self.subscriber.id;
        lock(&self.hub.inner)
            .subscribers
            .retain(|subscriber| subscriber.id != id);
    }
}

impl EventHub {
    /// A hub with no subscriber.
    pub fn new() -> Self {
        Self::default()
    }

    /// Notifications published since the start, by level: `[error,
    /// warning, information, debug]`.
    pub fn notifications_published(&self) -> [u64; 4] {
        self.published
            .each_ref()
            .map(|count| count.load(Ordering::Relaxed))
    }

    /// Counts a position batch sent to a subscriber.
    pub(crate) fn count_position_batch(&self, catch_up: bool) {
        let counter = if catch_up {
            &self.catch_ups_sent
        } else {
            &self.frames_sent
        };
        counter.fetch_add(1, Ordering::Relaxed);
    }

    /// Position batches sent since the start: (frames as cut, catch-up
    /// batches). A catch-up batch is sent where a subscriber could not
    /// take every frame it was owed, so it says how often one fell behind.
    pub fn position_batches_sent(&self) -> (u64, u64) {
        (
            self.frames_sent.load(Ordering::Relaxed),
            self.catch_ups_sent.load(Ordering::Relaxed),
        )
    }

    /// How many clients listen.
    pub fn subscribers(&self) -> usize {
        lock(&self.inner).subscribers.len()
    }

    /// Subscribes to the events of `net` (every configuration when `None`)
    /// of `kinds`.
    pub(crate) fn subscribe(
        self: &Arc<Self>,
        net: Option<ConfigName>,
        kinds: EventKinds,
        form: PositionForm,
    ) -> Subscription {
        let subscriber = Arc::new(Subscriber {
            id: self.next_subscriber.fetch_add(1, Ordering::Relaxed),
            net,
            kinds,
            form,
            queue: Mutex::default(),
            wake: Notify::new(),
        });
        let mut inner = lock(&self.inner);
        if inner.closed {
            lock(&subscriber.queue).closed = true;
        }
        inner.subscribers.push(Arc::clone(&subscriber));
        Subscription {
            hub: Arc::clone(self),
            subscriber,
        }
    }

    /// Ends every stream (the server stops); later subscriptions end at once.
    pub fn close(&self) {
        let mut inner = lock(&self.inner);
        inner.closed = true;
        for subscriber in &inner.subscribers {
            lock(&subscriber.queue).closed = true;
            subscriber.wake.notify_one();
        }
    }

    fn publish(&self, net: &ConfigName, kind: EventKind, event: Queued) {
        self.publish_where(kind, event, |subscriber| subscriber.wants(net, kind));
    }

    fn publish_where(&self, kind: EventKind, event: Queued, to: impl Fn(&Subscriber) -> bool) {
        let inner = lock(&self.inner);
        for subscriber in &inner.subscribers {
            if subscriber.kinds.contains(kind) && to(subscriber) {
                subscriber.push(event.clone());
            }
        }
    }

    /// Publishes new notifications of `net` (stored, with their identifiers).
    pub fn notifications(&self, net: &ConfigName, notifications: &[Notification]) {
        for notification in notifications {
            let level = usize::try_from(notification.level.value()).unwrap_or(1);
            if let Some(count) = self.published.get(level.saturating_sub(1)) {
                count.fetch_add(1, Ordering::Relaxed);
            }
            let record = Arc::new(NotificationRecord::new(net, notification));
            self.publish(net, EventKind::Notification, Queued::Notification(record));
        }
    }

    /// Publishes what happened to a configuration.
    pub fn state(&self, net: &ConfigName, state: StateChange, renamed_to: Option<&ConfigName>) {
        if matches!(
            state,
            StateChange::Deleted | StateChange::Renamed | StateChange::Stopped
        ) {
            lock(&self.inner).positions.remove(net);
        }
        let event = StateEvent {
            net: net.to_string(),
            state,
            renamed_to: renamed_to.map(ToString::to_string),
        };
        let bytes = data::render(EventKind::State, None, &event);
        // A rename is news for the listeners of both names.
        self.publish_where(EventKind::State, Queued::Event(bytes), |subscriber| {
            subscriber.net.is_none()
                || subscriber.listens_to(net)
                || renamed_to.is_some_and(|to| subscriber.listens_to(to))
        });
    }

    /// Publishes what happened to a device.
    pub fn device(&self, event: &DeviceEvent, net: &ConfigName) {
        let bytes = data::render(EventKind::Device, None, event);
        self.publish(net, EventKind::Device, Queued::Event(bytes));
    }

    /// Publishes a tag entering or leaving a zone (rendered only when
    /// someone listens: a busy site crosses zones thousands of times a
    /// second).
    pub fn zone(&self, event: &data::ZoneEvent, net: &ConfigName) {
        if !self.wanted(net, EventKind::Zone) {
            return;
        }
        let bytes = data::render(EventKind::Zone, None, event);
        self.publish(net, EventKind::Zone, Queued::Event(bytes));
    }

    /// Publishes a change made through the API, `event` made and rendered
    /// only when a subscriber listens (every change passes here).
    pub fn change(&self, net: &ConfigName, event: impl FnOnce() -> ChangeEvent) {
        if !self.wanted(net, EventKind::Change) {
            return;
        }
        let bytes = data::render(EventKind::Change, None, &event());
        self.publish(net, EventKind::Change, Queued::Event(bytes));
    }

    /// Whether a subscriber listens to `kind` of `net`.
    fn wanted(&self, net: &ConfigName, kind: EventKind) -> bool {
        lock(&self.inner)
            .subscribers
            .iter()
            .any(|subscriber| subscriber.wants(net, kind))
    }

    /// Tells every subscriber to reload: events went by before the hub
    /// could pass them on.
    pub fn resync_all(&self) {
        let inner = lock(&self.inner);
        for subscriber in &inner.subscribers {
            lock(&subscriber.queue).resync = true;
            subscriber.wake.notify_one();
        }
    }

    /// Gathers positions for the next frame.
    pub fn positions(&self, net: &ConfigName, positions: &[PositionEntry]) {
        let mut inner = lock(&self.inner);
        let net_positions = inner.positions.entry(net.clone()).or_default();
        for entry in positions {
            match net_positions.pending_index.get(&entry.serial_number) {
                Some(index) => net_positions.pending[*index] = *entry,
                None => {
                    net_positions
                        .pending_index
                        .insert(entry.serial_number, net_positions.pending.len());
                    net_positions.pending.push(*entry);
                }
            }
        }
    }

    /// Cuts a frame of every configuration's gathered positions and hands
    /// it to their subscribers.
    pub fn cut_frames(&self) {
        let mut inner = lock(&self.inner);
        inner.tick += 1;
        let tick = inner.tick;
        let Inner {
            subscribers,
            positions,
            ..
        } = &mut *inner;
        for (net, net_positions) in positions.iter_mut() {
            net_positions.catch_up.clear();
            if tick.is_multiple_of(u64::from(FRAMES_PER_SECOND)) {
                net_positions.forget_unowed(net, subscribers, tick);
            }
            if net_positions.pending.is_empty() {
                continue;
            }
            net_positions.pending_index.clear();
            let entries = std::mem::take(&mut net_positions.pending);
            let mut wanted = [false; 2];
            for subscriber in subscribers.iter() {
                if subscriber.wants(net, EventKind::Position) {
                    wanted[subscriber.form.index()] = true;
                }
            }
            if wanted == [false; 2] {
                // Nobody listens: no frame to render, and no one who could
                // be owed one later.
                net_positions.latest.clear();
                net_positions.pending = Vec::with_capacity(entries.len());
                continue;
            }
            for entry in &entries {
                net_positions
                    .latest
                    .insert(entry.serial_number, (*entry, tick));
            }
            let frame = Arc::new(Frame {
                tick,
                forms: PositionForm::ALL.map(|form| {
                    wanted[form.index()]
                        .then(|| data::render_positions(net.as_str(), &entries, form))
                }),
            });
            net_positions.pending = Vec::with_capacity(entries.len());
            for subscriber in subscribers.iter() {
                if subscriber.wants(net, EventKind::Position) {
                    subscriber.push_frame(net, &frame);
                }
            }
        }
    }

    /// One batch of each tag's newest position of `net` carried by frames
    /// since `since_tick` (for a subscriber that missed some), rendered once
    /// per frame whoever asks.
    pub(crate) fn positions_since(
        &self,
        net: &ConfigName,
        since_tick: u64,
        form: PositionForm,
    ) -> Option<Bytes> {
        let mut inner = lock(&self.inner);
        let net_positions = inner.positions.get_mut(net)?;
        if let Some((_, _, bytes)) = net_positions
            .catch_up
            .iter()
            .find(|(tick, catch_up_form, _)| *tick == since_tick && *catch_up_form == form)
        {
            return Some(bytes.clone());
        }
        let entries: Vec<PositionEntry> = net_positions
            .latest
            .values()
            .filter(|(_, tick)| *tick >= since_tick)
            .map(|(entry, _)| *entry)
            .collect();
        if entries.is_empty() {
            return None;
        }
        let bytes = data::render_positions(net.as_str(), &entries, form);
        net_positions
            .catch_up
            .push((since_tick, form, bytes.clone()));
        Some(bytes)
    }

    /// The `resync` event.
    pub(crate) fn resync_event() -> Bytes {
        data::render(
            EventKind::Resync,
            None,
            &ResyncEvent {
                reason: "this client fell behind and missed events; reload the state".to_owned(),
            },
        )
    }
}

#[cfg(test)]
#[path = "hub_tests.rs"]
mod tests;
