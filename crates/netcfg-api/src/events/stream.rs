//! One client's stream: replayed notifications first, then what its
//! subscription queues, positions at most `max_rate` batches a second, and
//! a comment when it has been quiet for [`KEEP_ALIVE_PERIOD`].

use std::{
    collections::VecDeque,
    sync::Arc,
    time::{Duration, Instant},
};

use actix_web::web::{Bytes, BytesMut};
use netcfg_model::ConfigName;

use super::{
    data::KEEP_ALIVE,
    hub::{EventHub, FRAMES_PER_SECOND, Queued, Subscription},
};

/// How long a stream stays quiet before a comment line.
pub const KEEP_ALIVE_PERIOD: Duration = Duration::from_secs(15);
/// The most bytes of replayed notifications gathered into one chunk.
const CHUNK: usize = 64 * 1024;
/// The most bytes of a stream handed to the server at once. With the
/// server's HTTP/1 write buffer flushed from [`WRITE_BUFFER_FLUSH`] bytes,
/// each piece is written on its own, so a connection's write buffer grows
/// to 16 KiB at most, whatever the size of a batch, instead of to the
/// largest frame it ever sent (kept for as long as the stream lasts). A
/// compact frame of 330 tags (15 kB) is one piece: one write, the same as
/// before; a frame of objects (35 kB) is three. (Pieces of 8 KiB kept the
/// buffer at its first 8 KiB, 21 KiB a subscriber in all, but a compact
/// frame then took two writes, and the writes are what a subscriber costs
/// the server's CPU: docs/benchmarks.md.)
pub const PIECE: usize = 16 * 1024 - 64;
/// The server's HTTP/1 write buffer size (`h1_write_buffer_size`): a piece
/// of a stream fills it, so it is flushed before the next piece is taken.
pub const WRITE_BUFFER_FLUSH: usize = 8 * 1024;
/// What a stream sends first: how long a client waits before it reconnects.
const OPENING: &[u8] = b": netcfg events\nretry: 3000\n\n";

/// Whether a stream serves one configuration or all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scope {
    /// `/nets/{net_name}/events`: notification ids are identifiers.
    Net,
    /// `/events`: notification ids are `{net}:{identifier}`.
    All,
}

/// At most `rate` position batches in any second, for a rate below the
/// hub's [`FRAMES_PER_SECOND`]; at that rate and above, every frame as cut.
///
/// Why no limit at the frame rate: the hub cuts at most that many frames a
/// second, so a client cannot be sent more on average. Counted against the
/// clock of the sends, a client the server served late by a few
/// milliseconds found its second already full when the next frame came,
/// and that frame was merged into a catch-up batch with the one after it:
/// the worst of 1,000 subscribers received 98% of the frames
/// (docs/bench/events-2026-11-28.md). A client that fell behind gets the
/// frames it missed at once (at most [`super::MAX_PENDING_FRAMES`]).
#[derive(Debug)]
struct RateLimit {
    rate: usize,
    sent: VecDeque<Instant>,
}

impl RateLimit {
    fn new(rate: u32) -> Self {
        let rate = usize::try_from(rate.max(1)).unwrap_or(1);
        Self {
            rate,
            sent: VecDeque::with_capacity(rate),
        }
    }

    /// Whether the rate limits anything: below the frame rate.
    fn limits(&self) -> bool {
        self.rate < usize::try_from(FRAMES_PER_SECOND).unwrap_or(usize::MAX)
    }

    /// When the next send is allowed (now or later).
    fn next_allowed(&self, now: Instant) -> Instant {
        match self.sent.front() {
            Some(oldest) if self.limits() && self.sent.len() >= self.rate => {
                *oldest + Duration::from_secs(1)
            }
            _ => now,
        }
    }

    /// How many sends are allowed now.
    fn budget(&self, now: Instant) -> usize {
        if !self.limits() {
            return usize::MAX;
        }
        let recent = self
            .sent
            .iter()
            .filter(|sent| now.saturating_duration_since(**sent) < Duration::from_secs(1))
            .count();
        self.rate.saturating_sub(recent)
    }

    fn record(&mut self, now: Instant) {
        if !self.limits() {
            return;
        }
        if self.sent.len() >= self.rate {
            self.sent.pop_front();
        }
        self.sent.push_back(now);
    }
}

/// The events of one chunk. Each is rendered once and shared by every
/// stream: a chunk of one event (a position frame, most of the time) is
/// that event's bytes themselves, not a copy; only several are joined.
#[derive(Debug, Default)]
struct Chunk {
    pieces: Vec<Bytes>,
    len: usize,
}

impl Chunk {
    fn push(&mut self, bytes: Bytes) {
        self.len += bytes.len();
        self.pieces.push(bytes);
    }

    /// The chunk's bytes; `None` when it is empty.
    fn into_bytes(mut self) -> Option<Bytes> {
        match self.pieces.len() {
            0 => None,
            1 => self.pieces.pop(),
            _ => {
                let mut joined = BytesMut::with_capacity(self.len);
                for piece in &self.pieces {
                    joined.extend_from_slice(piece);
                }
                Some(joined.freeze())
            }
        }
    }
}

/// A client's stream of events.
#[derive(Debug)]
pub(crate) struct EventStream {
    hub: Arc<EventHub>,
    subscription: Subscription,
    scope: Scope,
    opened: bool,
    /// Notifications read from the store, sent first.
    replay: VecDeque<Bytes>,
    /// The newest notification replayed per configuration: queued ones up
    /// to it were sent already.
    replayed_up_to: Vec<(ConfigName, u64)>,
    positions: RateLimit,
    last_sent: Instant,
    /// What is left of the last chunk: sent first, a piece at a time.
    unsent: Bytes,
}

impl EventStream {
    pub(crate) fn new(
        hub: Arc<EventHub>,
        subscription: Subscription,
        scope: Scope,
        max_rate: u32,
    ) -> Self {
        Self {
            hub,
            subscription,
            scope,
            opened: false,
            replay: VecDeque::new(),
            replayed_up_to: Vec::new(),
            positions: RateLimit::new(max_rate),
            last_sent: Instant::now(),
            unsent: Bytes::new(),
        }
    }

    /// Sends `records` (read from the store) before anything queued.
    pub(crate) fn replay(&mut self, records: Vec<super::hub::NotificationRecord>) {
        for record in records {
            match self
                .replayed_up_to
                .iter_mut()
                .find(|(net, _)| *net == record.net)
            {
                Some((_, newest)) => *newest = (*newest).max(record.identifier),
                None => self
                    .replayed_up_to
                    .push((record.net.clone(), record.identifier)),
            }
            self.replay.push_back(self.bytes_of(&record));
        }
    }

    fn bytes_of(&self, record: &super::hub::NotificationRecord) -> Bytes {
        match self.scope {
            Scope::Net => record.on_net.clone(),
            Scope::All => record.on_all.clone(),
        }
    }

    fn already_sent(&self, record: &super::hub::NotificationRecord) -> bool {
        self.replayed_up_to
            .iter()
            .any(|(net, newest)| *net == record.net && record.identifier <= *newest)
    }

    /// The next piece to send (at most [`PIECE`] bytes); `None` when the
    /// stream ends (the server stops).
    pub(crate) async fn next_chunk(&mut self) -> Option<Bytes> {
        if self.unsent.is_empty() {
            self.unsent = self.next_whole_chunk().await?;
        }
        let length = self.unsent.len().min(PIECE);
        Some(self.unsent.split_to(length))
    }

    /// The next chunk (events gathered since the last), whole.
    async fn next_whole_chunk(&mut self) -> Option<Bytes> {
        if !self.opened {
            self.opened = true;
            return Some(Bytes::from_static(OPENING));
        }
        loop {
            let mut chunk = Chunk::default();
            while chunk.len < CHUNK
                && let Some(bytes) = self.replay.pop_front()
            {
                chunk.push(bytes);
            }
            let subscriber = Arc::clone(&self.subscription.subscriber);
            let (resync, queued, closed) = subscriber.take();
            if resync {
                chunk.push(EventHub::resync_event());
                // What it replayed is stale too: the client reloads.
                self.replayed_up_to.clear();
            }
            for event in queued {
                match event {
                    Queued::Event(bytes) => chunk.push(bytes),
                    Queued::Notification(record) => {
                        if !self.already_sent(&record) {
                            chunk.push(self.bytes_of(&record));
                        }
                    }
                }
            }
            let now = Instant::now();
            let allowed_at = self.positions.next_allowed(now);
            let budget = self.positions.budget(now);
            if budget > 0
                && let Some((net, taken)) = subscriber.take_positions_within(budget)
            {
                let form = subscriber.form;
                match taken {
                    Ok(frames) => {
                        for bytes in frames.iter().filter_map(|frame| frame.bytes(form)) {
                            chunk.push(bytes.clone());
                            self.positions.record(now);
                            self.hub.count_position_batch(false);
                        }
                    }
                    Err(since_tick) => {
                        if let Some(bytes) = self.hub.positions_since(&net, since_tick, form) {
                            chunk.push(bytes);
                            self.positions.record(now);
                            self.hub.count_position_batch(true);
                        }
                    }
                }
            }
            if let Some(bytes) = chunk.into_bytes() {
                self.last_sent = now;
                return Some(bytes);
            }
            if closed {
                return None;
            }
            let keep_alive_at = self.last_sent + KEEP_ALIVE_PERIOD;
            if keep_alive_at <= now {
                self.last_sent = now;
                return Some(Bytes::from_static(KEEP_ALIVE));
            }
            let wake_at = if subscriber.has_positions() {
                keep_alive_at.min(allowed_at)
            } else {
                keep_alive_at
            };
            tokio::select! {
                () = subscriber.wake.notified() => {}
                () = tokio::time::sleep_until(wake_at.into()) => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::data::{ChangeEvent, EventKinds, PositionForm};

    fn text(chunk: &Bytes) -> String {
        String::from_utf8_lossy(chunk).into_owned()
    }

    /// A stream of every event of `site`, positions as objects, past its
    /// opening.
    async fn opened_stream() -> (Arc<EventHub>, ConfigName, EventStream) {
        let hub = Arc::new(EventHub::new());
        let site: ConfigName = "site".parse().unwrap();
        let subscription =
            hub.subscribe(Some(site.clone()), EventKinds::all(), PositionForm::Objects);
        let mut stream = EventStream::new(hub.clone(), subscription, Scope::Net, 10);
        assert_eq!(stream.next_chunk().await.unwrap(), OPENING);
        (hub, site, stream)
    }

    fn move_tags(hub: &EventHub, site: &ConfigName, tags: u32) {
        let positions: Vec<_> = (1..=tags)
            .map(|tag| netcfg_model::event::PositionEntry {
                serial_number: netcfg_model::SerialNumber::from_u32(tag),
                x: 1_000,
                y: 2_000,
                z: 0,
                quality: 100,
                error_mm: 80,
                network_time: 1,
                vx: None,
                vy: None,
            })
            .collect();
        hub.positions(site, &positions);
        hub.cut_frames();
    }

    #[tokio::test]
    async fn a_frame_alone_is_sent_as_the_shared_bytes_not_a_copy() {
        let (hub, site, mut stream) = opened_stream().await;
        move_tags(&hub, &site, 3);
        let piece = stream.next_chunk().await.unwrap();
        let (_, frame) = {
            // The frame the hub cut, as another subscriber would take it.
            let other = hub.subscribe(Some(site.clone()), EventKinds::all(), PositionForm::Objects);
            move_tags(&hub, &site, 3);
            other.subscriber.take_positions().unwrap()
        };
        let next = stream.next_chunk().await.unwrap();
        let shared = frame.unwrap();
        let bytes = shared.bytes(PositionForm::Objects).unwrap();
        assert_eq!(next.as_ptr(), bytes.as_ptr(), "the frame's own bytes");
        assert!(text(&piece).starts_with("event: position\n"));
    }

    #[tokio::test]
    async fn a_client_that_fell_behind_gets_resync_first_then_what_followed() {
        let (hub, site, mut stream) = opened_stream().await;
        for number in 0..=super::super::MAX_QUEUED {
            hub.change(&site, || ChangeEvent {
                net: "site".to_owned(),
                resource: "/nets/{net_name}".to_owned(),
                method: "PATCH".to_owned(),
                path: format!("/nets/site/{number}"),
            });
        }
        let chunk = text(&stream.next_chunk().await.unwrap());
        assert!(chunk.starts_with("event: resync\n"), "{chunk}");
        assert_eq!(chunk.matches("event: change").count(), 1, "{chunk}");
        assert!(chunk.contains(&format!("/nets/site/{}", super::super::MAX_QUEUED)));
    }

    #[tokio::test]
    async fn a_stream_woken_late_sends_each_frame_it_may_not_one_merged_batch() {
        let (hub, site, mut stream) = opened_stream().await;
        move_tags(&hub, &site, 2);
        move_tags(&hub, &site, 3);
        let chunk = text(&stream.next_chunk().await.unwrap());
        assert_eq!(chunk.matches("event: position").count(), 2, "{chunk}");
        assert_eq!(hub.position_batches_sent(), (2, 0));
        // More frames than a stream keeps (4) come as one catch-up batch
        // of each tag's newest position.
        for tags in 1..=5 {
            move_tags(&hub, &site, tags);
        }
        let chunk = text(&stream.next_chunk().await.unwrap());
        assert_eq!(chunk.matches("event: position").count(), 1, "{chunk}");
        assert_eq!(chunk.matches("serial_number").count(), 5, "{chunk}");
        assert_eq!(hub.position_batches_sent(), (2, 1));
    }

    #[tokio::test]
    async fn at_the_frame_rate_a_second_already_full_of_sends_merges_nothing() {
        let (hub, site, mut stream) = opened_stream().await;
        // Nine frames sent one by one, within a second of the clock.
        for _ in 0..9 {
            move_tags(&hub, &site, 1);
            stream.next_chunk().await.unwrap();
        }
        // The stream is served late: two frames wait. Counted against the
        // clock its second had room for one; both go, each its own batch.
        move_tags(&hub, &site, 2);
        move_tags(&hub, &site, 3);
        let chunk = text(&stream.next_chunk().await.unwrap());
        assert_eq!(chunk.matches("event: position").count(), 2, "{chunk}");
        assert_eq!(hub.position_batches_sent(), (11, 0));
    }

    #[test]
    fn a_rate_below_the_frame_rate_allows_that_many_sends_in_any_second() {
        let start = Instant::now();
        let mut limit = RateLimit::new(2);
        assert_eq!(limit.budget(start), 2);
        limit.record(start);
        limit.record(start + Duration::from_millis(100));
        let soon = start + Duration::from_millis(500);
        assert_eq!(limit.budget(soon), 0);
        assert_eq!(limit.next_allowed(soon), start + Duration::from_secs(1));
        assert_eq!(limit.budget(start + Duration::from_millis(1_050)), 1);
    }

    #[tokio::test]
    async fn a_large_batch_leaves_in_pieces_that_join_into_it() {
        let (hub, site, mut stream) = opened_stream().await;
        move_tags(&hub, &site, 500);
        let mut joined = Vec::new();
        let mut pieces = 0;
        while !joined.ends_with(b"\n\n") {
            let piece = stream.next_chunk().await.unwrap();
            assert!(piece.len() <= PIECE, "a piece of {} bytes", piece.len());
            joined.extend_from_slice(&piece);
            pieces += 1;
        }
        let text = String::from_utf8(joined).unwrap();
        assert!(text.starts_with("event: position\ndata: {"), "{text}");
        assert_eq!(text.matches("serial_number").count(), 500);
        assert_eq!(pieces, text.len().div_ceil(PIECE));
        assert!(pieces >= 3, "{} bytes in {pieces} pieces", text.len());
    }

    #[tokio::test]
    async fn replayed_notifications_are_not_sent_again_and_the_stream_ends_when_the_hub_closes() {
        let hub = Arc::new(EventHub::new());
        let site: ConfigName = "site".parse().unwrap();
        let subscription = hub.subscribe(None, EventKinds::all(), PositionForm::Objects);
        let mut stream = EventStream::new(hub.clone(), subscription, Scope::All, 10);
        let notification = |identifier| netcfg_model::Notification {
            identifier,
            level: netcfg_model::Level::Information,
            message: format!("number {identifier}"),
            serial_number: None,
            timestamp_ms: identifier,
            read: false,
        };
        // 3 is stored before the replay is read and published after it.
        stream.replay(vec![
            super::super::NotificationRecord::new(&site, &notification(2)),
            super::super::NotificationRecord::new(&site, &notification(3)),
        ]);
        hub.notifications(&site, &[notification(3), notification(4)]);
        let _ = stream.next_chunk().await;
        let chunk = text(&stream.next_chunk().await.unwrap());
        let ids: Vec<&str> = chunk
            .lines()
            .filter_map(|line| line.strip_prefix("id: "))
            .collect();
        assert_eq!(ids, ["site:2", "site:3", "site:4"], "{chunk}");
        hub.close();
        assert!(stream.next_chunk().await.is_none());
    }
}
