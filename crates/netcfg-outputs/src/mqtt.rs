//! An MQTT output: two tokio tasks around one rumqttc client.
//!
//! - The *driver* polls the rumqttc event loop (never cancelled mid-poll:
//!   rumqttc's poll is not cancel-safe), reconnects with back-off, and keeps
//!   the [`Tracker`] of what was handed to the client.
//! - The *pump* takes entries from our queue, renders them and hands them to
//!   the client, only while connected and at most [`WINDOW`] unconfirmed at a
//!   time, so the backlog of an outage stays in our queue, under our drop
//!   policy.
//!
//! With a clean session rumqttc forgets its unacknowledged QoS 1 messages
//! when it reconnects, so the tracker keeps a copy of everything handed over
//! until the broker has it (QoS 1: PUBACK; QoS 0: written to the socket) and
//! hands it over again, in order, after a reconnection.

use std::{
    collections::{HashMap, VecDeque},
    hash::{Hash, Hasher},
    sync::{
        Arc, Mutex, MutexGuard,
        atomic::{AtomicU64, Ordering},
    },
    time::Duration,
};

use rumqttc::{
    AsyncClient, Event, EventLoop, LastWill, MqttOptions, Outgoing, Packet, QoS, TlsConfiguration,
    Transport,
};
use tokio::{task::JoinHandle, time::Instant};

use crate::{
    OutputContext, STOP_GRACE,
    backoff::Backoff,
    payload::{self, Topics},
    queue::{Entry, QueuedEvent},
    tls,
};

/// The most messages handed to rumqttc and not yet confirmed.
const WINDOW: usize = 64;
/// The most positions in one `{prefix}/positions` message.
const MAX_BATCH_POSITIONS: usize = 2_000;
/// The largest packet we send (a full batch is about 300 kB).
const MAX_PACKET_BYTES: usize = 1 << 20;
const KEEP_ALIVE: Duration = Duration::from_secs(30);
/// The longest client identifier we make (MQTT 3.1.1 servers must accept 23
/// characters, and in practice accept far more).
const MAX_CLIENT_ID: usize = 64;

/// A message ready for the client.
#[derive(Debug, Clone)]
struct Message {
    topic: String,
    payload: Vec<u8>,
    qos: QoS,
    retain: bool,
    /// A state message: remembered as the one to republish on reconnection.
    is_state: bool,
}

/// What was handed to the client and not yet confirmed, in hand order.
#[derive(Debug)]
struct Tracker {
    connected: bool,
    /// Handed, not yet written to the socket (rumqttc reports writes in
    /// the order it received the requests).
    handed: VecDeque<(u64, Message)>,
    /// QoS 1, written, waiting for the PUBACK, by packet identifier.
    written: HashMap<u16, (u64, Message)>,
    /// To hand again, first, after a reconnection.
    retry: VecDeque<Message>,
    /// The last state handed: republished on every connection.
    current_state: Message,
    next_order: u64,
}

impl Tracker {
    fn unconfirmed(&self) -> usize {
        self.handed.len() + self.written.len()
    }

    fn in_hand(&self) -> u64 {
        (self.unconfirmed() + self.retry.len()) as u64
    }

    /// The connection is lost: whatever was not confirmed goes back, in the
    /// order it was handed, ahead of what already waited to be retried.
    fn requeue_unconfirmed(&mut self) {
        let mut lost: Vec<(u64, Message)> = self.handed.drain(..).collect();
        lost.extend(self.written.drain().map(|(_, entry)| entry));
        lost.sort_by_key(|(order, _)| *order);
        for (_, message) in lost.into_iter().rev() {
            self.retry.push_front(message);
        }
    }
}

/// What the two tasks share.
#[derive(Debug)]
struct Link {
    context: OutputContext,
    topics: Topics,
    qos: QoS,
    tracker: Mutex<Tracker>,
    /// Wakes the pump: connected, or room in the window.
    wake_pump: tokio::sync::Notify,
}

impl Link {
    fn tracker(&self) -> MutexGuard<'_, Tracker> {
        netcfg_model::sync::lock(&self.tracker)
    }
}

/// Starts an MQTT output's tasks on the current tokio runtime.
pub(crate) fn start(context: OutputContext) -> Result<(), String> {
    let runtime = tokio::runtime::Handle::try_current()
        .map_err(|_| "not started on a tokio runtime".to_owned())?;
    let output = &context.plan.output;
    let prefix = output
        .topic_prefix
        .clone()
        .unwrap_or_else(netcfg_model::TopicPrefix::default_prefix)
        .for_net(&context.net);
    let topics = Topics::new(prefix);
    let qos = match output.qos.map(|q| q.get()) {
        Some(1) => QoS::AtLeastOnce,
        _ => QoS::AtMostOnce,
    };
    let mut options = MqttOptions::new(
        client_id(&context.net, output.name.as_str()),
        output.url.host(),
        output.url.port(),
    );
    options
        .set_keep_alive(KEEP_ALIVE)
        .set_clean_session(true)
        .set_inflight(WINDOW as u16)
        .set_max_packet_size(MAX_PACKET_BYTES, MAX_PACKET_BYTES)
        .set_last_will(LastWill::new(
            topics.state(),
            payload::offline_body(&context.net),
            QoS::AtLeastOnce,
            true,
        ));
    let secrets = &context.plan.secrets;
    if secrets.username.is_some() || secrets.password.is_some() {
        options.set_credentials(
            secrets.username.clone().unwrap_or_default(),
            secrets.password.clone().unwrap_or_default(),
        );
    }
    if output.url.scheme().is_tls() {
        let config = tls::client_config(output.ca_file.as_deref()).map_err(|e| e.to_string())?;
        options.set_transport(Transport::tls_with_config(TlsConfiguration::Rustls(config)));
    }
    // Room for the window, the republished state and the disconnect.
    let (client, eventloop) = AsyncClient::new(options, WINDOW + 4);
    context.queue.set_last_state(&context.state);
    let current_state = state_message(
        &topics,
        &context.net,
        &QueuedEvent::State(context.state.clone()),
    );
    let link = Arc::new(Link {
        context,
        topics,
        qos,
        tracker: Mutex::new(Tracker {
            connected: false,
            handed: VecDeque::new(),
            written: HashMap::new(),
            retry: VecDeque::new(),
            current_state,
            next_order: 0,
        }),
        wake_pump: tokio::sync::Notify::new(),
    });
    let driver = runtime.spawn(drive(link.clone(), eventloop));
    runtime.spawn(pump(link, client, driver));
    Ok(())
}

/// `netcfg-{net}-{output}-{pid}-{n}`: only letters, digits, `-` and `_`, at
/// most 64 characters. `n` counts the clients this process made, so that a
/// restarted output never takes over the session of the one still
/// disconnecting (a take-over would publish its last will).
fn client_id(net: &str, output: &str) -> String {
    static CLIENTS: AtomicU64 = AtomicU64::new(0);
    let suffix = format!(
        "-{}-{}",
        std::process::id(),
        CLIENTS.fetch_add(1, Ordering::Relaxed)
    );
    let full = format!("netcfg-{net}-{output}");
    let mut id: String = full
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let room = MAX_CLIENT_ID - suffix.len();
    if id.len() > room {
        // Two long names must not end up alike: keep a hash of the whole.
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        full.hash(&mut hasher);
        let hash = format!("-{:08x}", hasher.finish() as u32);
        id.truncate(room - hash.len());
        id.push_str(&hash);
    }
    id + &suffix
}

fn state_message(topics: &Topics, net: &str, event: &QueuedEvent) -> Message {
    Message {
        topic: topics.event(event),
        payload: payload::event_body(net, event),
        qos: QoS::AtLeastOnce,
        retain: true,
        is_state: true,
    }
}

/// Polls the client's event loop until the pump stops it.
async fn drive(link: Arc<Link>, mut eventloop: EventLoop) {
    let counters = &link.context.counters;
    let name = &link.context.plan.output.name;
    let net = &link.context.net;
    let mut backoff = Backoff::default();
    let mut was_connected = false;
    loop {
        match eventloop.poll().await {
            Ok(Event::Incoming(Packet::ConnAck(_))) => {
                log::info!("output {name} of {net}: connected");
                backoff.reset();
                was_connected = true;
                counters.set_connected(true);
                let mut tracker = link.tracker();
                tracker.connected = true;
                if !tracker.retry.iter().any(|m| m.is_state) {
                    let state = tracker.current_state.clone();
                    tracker.retry.push_front(state);
                }
            }
            Ok(Event::Outgoing(Outgoing::Publish(pkid))) => {
                let mut tracker = link.tracker();
                if let Some((order, message)) = tracker.handed.pop_front() {
                    if message.qos == QoS::AtMostOnce {
                        counters.add_sent(1);
                    } else {
                        tracker.written.insert(pkid, (order, message));
                    }
                }
                counters.set_in_hand(tracker.in_hand());
            }
            Ok(Event::Incoming(Packet::PubAck(ack))) => {
                let mut tracker = link.tracker();
                if tracker.written.remove(&ack.pkid).is_some() {
                    counters.add_sent(1);
                }
                counters.set_in_hand(tracker.in_hand());
            }
            Ok(Event::Outgoing(Outgoing::Disconnect)) => {
                log::info!("output {name} of {net}: disconnected");
                counters.set_connected(false);
                link.wake_pump.notify_one();
                return;
            }
            Ok(_) => continue,
            Err(error) => {
                {
                    let mut tracker = link.tracker();
                    tracker.connected = false;
                    tracker.requeue_unconfirmed();
                    counters.set_in_hand(tracker.in_hand());
                }
                counters.set_connected(false);
                let text = format!("broker {}: {error}", link.context.plan.output.url);
                if was_connected {
                    log::warn!("output {name} of {net}: connection lost: {text}");
                } else {
                    log::debug!("output {name} of {net}: {text}");
                }
                was_connected = false;
                counters.set_error(text);
                link.wake_pump.notify_one();
                tokio::time::sleep(backoff.next_wait()).await;
                continue;
            }
        }
        link.wake_pump.notify_one();
    }
}

/// Hands queued entries to the client until the output stops and has
/// flushed (or its grace ran out); then disconnects cleanly.
async fn pump(link: Arc<Link>, client: AsyncClient, mut driver: JoinHandle<()>) {
    let context = &link.context;
    let batch = Duration::from_millis(u64::from(context.plan.output.batch_ms.get()));
    let batching = !batch.is_zero();
    let mut next_batch = Instant::now() + batch;
    let mut batch_due = false;
    let mut deadline: Option<Instant> = None;
    loop {
        let now = Instant::now();
        if batching && now >= next_batch {
            batch_due = true;
            next_batch = now + batch;
        }
        let closing = context.queue.is_closing();
        if closing {
            // Whatever is gathered goes now.
            batch_due = true;
        }
        batch_due = fill(&link, &client, batching, batch_due);
        if closing {
            let end = *deadline.get_or_insert(now + STOP_GRACE);
            let flushed = {
                let tracker = link.tracker();
                tracker.in_hand() == 0 && context.queue.len() == 0
            };
            if flushed || now >= end {
                break;
            }
        }
        let until_batch = next_batch;
        let until_end = deadline.unwrap_or(now);
        tokio::select! {
            () = context.queue.notified() => {}
            () = link.wake_pump.notified() => {}
            () = tokio::time::sleep_until(until_batch), if batching => {}
            () = tokio::time::sleep_until(until_end), if deadline.is_some() => {}
        }
    }
    if link.tracker().connected && client.try_disconnect().is_ok() {
        // The driver returns once the DISCONNECT is written.
        let _finished = tokio::time::timeout(Duration::from_millis(500), &mut driver).await;
    }
    driver.abort();
    let counters = &context.counters;
    counters.set_connected(false);
    let left = link.tracker().in_hand() + context.queue.len() as u64;
    if left > 0 {
        log::warn!(
            "output {} of {} stopped with {left} messages undelivered",
            context.plan.output.name,
            context.net
        );
    }
    counters.set_in_hand(0);
}

/// Hands what the window allows; returns whether a batch is still due
/// (positions remain to go as batches).
fn fill(link: &Link, client: &AsyncClient, batching: bool, mut batch_due: bool) -> bool {
    let context = &link.context;
    let mut tracker = link.tracker();
    while tracker.connected && tracker.unconfirmed() < WINDOW {
        let message = if let Some(message) = tracker.retry.pop_front() {
            message
        } else if let Some(entry) = context.queue.pop(!batching) {
            render(link, &entry)
        } else if batch_due {
            let positions = context.queue.take_positions(MAX_BATCH_POSITIONS);
            if positions.is_empty() {
                batch_due = false;
                break;
            }
            Message {
                topic: link.topics.positions(),
                payload: payload::position_batch(&positions),
                qos: link.qos,
                retain: false,
                is_state: false,
            }
        } else {
            break;
        };
        if message.is_state {
            tracker.current_state = message.clone();
        }
        // Under the tracker's lock, so the driver sees the write of this
        // message only after it is recorded as handed.
        match client.try_publish(
            message.topic.clone(),
            message.qos,
            message.retain,
            message.payload.clone(),
        ) {
            Ok(()) => {
                let order = tracker.next_order;
                tracker.next_order += 1;
                tracker.handed.push_back((order, message));
            }
            Err(error) => {
                // The channel has room for the whole window: only a client
                // whose event loop is gone gets here.
                log::debug!(
                    "output {}: handing over failed: {error}",
                    context.plan.output.name
                );
                tracker.retry.push_front(message);
                break;
            }
        }
    }
    context.counters.set_in_hand(tracker.in_hand());
    batch_due
}

fn render(link: &Link, entry: &Entry) -> Message {
    let net = &link.context.net;
    match entry {
        Entry::Position(position) => Message {
            topic: link.topics.position(position.entry.serial_number),
            payload: payload::mqtt_position(position),
            qos: link.qos,
            retain: false,
            is_state: false,
        },
        Entry::Event(event @ QueuedEvent::State(_)) => state_message(&link.topics, net, event),
        Entry::Event(event) => Message {
            topic: link.topics.event(event),
            payload: payload::event_body(net, event),
            // Zone enters and exits and notifications are never lost;
            // device events follow the output's QoS like positions.
            qos: match event {
                QueuedEvent::Device(_) => link.qos,
                _ => QoS::AtLeastOnce,
            },
            retain: false,
            is_state: false,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_ids_are_short_and_plain() {
        let id = client_id("site A", "out/1");
        assert!(id.starts_with("netcfg-site_A-out_1-"), "{id}");
        let long = "x".repeat(100);
        let a = client_id(&long, "a");
        let b = client_id(&long, "b");
        assert!(a.len() <= MAX_CLIENT_ID && b.len() <= MAX_CLIENT_ID);
        assert_ne!(a.rsplit_once('-').unwrap().0, b.rsplit_once('-').unwrap().0);
        assert!(
            a.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        );
    }
}
