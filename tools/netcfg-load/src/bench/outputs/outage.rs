//! Part 4, what a broker outage loses: one configuration with zones and a
//! schedule every second, its output carrying positions, zones,
//! notifications and states to a persistent broker, which is stopped for
//! the outage and started again. Each event the server's own event stream
//! heard is then looked for among those the persistent subscriber got,
//! and the positions missing from each tag's sequence are placed in the
//! spans before, around, during and after the outage.

use std::{
    collections::{HashMap, HashSet},
    fs,
    path::Path,
    thread,
    time::{Duration, Instant},
};

use anyhow::{Context, Result};

use super::{
    CUT_BEFORE_MS, DRAIN_TIMEOUT, OUTAGE_NET, SETTLE, ZONE_GRID,
    peers::{self, Broker, EventStream, Heard, Received, Subscriber},
    server_api::{self, Status, add_output, lagged_in, positions_produced, status},
};
use crate::{
    bench::{LOADERS, events, growth, net_action, step, zones},
    server::{Client, Server},
};

/// The figures of part 4.
#[derive(Debug, Clone, Default)]
pub(super) struct Outage {
    /// The output's QoS for positions.
    pub(super) qos: u8,
    pub(super) outage_seconds: u64,
    pub(super) before_seconds: u32,
    /// Just before the broker was stopped, and just before it started again.
    pub(super) at_stop: Status,
    pub(super) at_restart: Status,
    /// From the broker's restart until the output was connected with an
    /// empty queue (`None`: not within [`DRAIN_TIMEOUT`]).
    pub(super) drained_after: Option<f64>,
    /// Zone events and notifications the server emitted while the broker
    /// was down.
    pub(super) emitted_in_outage: [usize; 2],
    /// Positions produced from the broker's restart to the end.
    pub(super) produced_after_restart: u64,
    /// From the broker's restart until the output was seen connected.
    pub(super) reconnected_after: Option<f64>,
    /// The smallest `queued` seen after the restart, if never 0.
    pub(super) least_queued: u64,
    pub(super) final_status: Status,
    pub(super) produced: u64,
    /// Position messages the subscriber received.
    pub(super) delivered: u64,
    /// Messages of every kind it received.
    pub(super) messages: u64,
    /// Positions it received again, or older than their tag's last.
    pub(super) repeats: u64,
    pub(super) out_of_order: u64,
    /// Positions of a tag in the same simulator tick as its last.
    pub(super) same_tick: u64,
    /// Positions missing from each tag's sequence at the subscriber, by
    /// when they were made: from the start to [`CUT_BEFORE_MS`] before the
    /// broker's stop (the simulator's own holes: a tag not located in a
    /// tick), from then to the stop, from the stop to the restart, and from
    /// the restart to the configuration's stop.
    pub(super) missing: [u64; 4],
    /// How long each of those spans lasted.
    pub(super) seconds: [f64; 4],
    /// Positions delivered twice, by when they were made (the same spans).
    pub(super) repeated: [u64; 4],
    pub(super) zones: Compared,
    pub(super) notifications: Compared,
    /// Notifications emitted and not delivered, with their messages.
    pub(super) missing_notifications: Vec<String>,
    /// State events of the event stream, and the state messages delivered
    /// (whether retained, the state).
    pub(super) states_emitted: Vec<String>,
    pub(super) states_delivered: Vec<(bool, String)>,
    pub(super) states_missing: Vec<String>,
    pub(super) resyncs: usize,
    pub(super) lagged: (usize, u64),
}

/// Events the server emitted (its event stream, before the configuration
/// was stopped) against those delivered.
#[derive(Debug, Clone, Default)]
pub(super) struct Compared {
    pub(super) emitted: usize,
    /// Distinct events delivered.
    pub(super) delivered: usize,
    /// Deliveries of an event already delivered (at least once).
    pub(super) repeats: u64,
    /// Emitted and never delivered.
    pub(super) missing: usize,
    /// Delivered and never seen on the event stream.
    pub(super) unknown: usize,
}

fn compare(emitted: &[String], delivered: &HashMap<String, u32>, seen: &HashSet<&str>) -> Compared {
    let emitted_set: HashSet<&str> = emitted.iter().map(String::as_str).collect();
    Compared {
        emitted: emitted_set.len(),
        delivered: delivered.len(),
        repeats: delivered
            .values()
            .map(|times| u64::from(times.saturating_sub(1)))
            .sum(),
        missing: emitted_set
            .iter()
            .filter(|key| !delivered.contains_key(**key))
            .count(),
        unknown: delivered
            .keys()
            .filter(|key| !seen.contains(key.as_str()))
            .count(),
    }
}

/// The emitted states not found among the delivered live ones (each
/// delivered one answers one emitted).
fn missing_states(emitted: &[String], delivered: &[(bool, String)]) -> Vec<String> {
    let mut live: Vec<&str> = delivered
        .iter()
        .filter(|(retained, _)| !retained)
        .map(|(_, state)| state.as_str())
        .collect();
    emitted
        .iter()
        .filter(|state| match live.iter().position(|got| got == state) {
            Some(index) => {
                live.remove(index);
                false
            }
            None => true,
        })
        .cloned()
        .collect()
}

pub(super) fn outage(
    binary: &Path,
    dir: &Path,
    seconds: u32,
    outage_seconds: u64,
    qos: u8,
) -> Result<Outage> {
    let (launch, log) = server_api::launch(binary, dir, &format!("outage-qos{qos}"));
    step(&format!(
        "outputs: a broker outage of {outage_seconds} s, one configuration with {} zones and a schedule every second",
        ZONE_GRID * ZONE_GRID
    ));
    let mut broker = Broker::start(dir, &format!("mosquitto-outage-qos{qos}"), true)?;
    let server = launch.start()?;
    let client = server.client();
    let (stream, subscriber) = prepare(&server, &broker, dir, qos)?;
    let prefix = format!("netcfg/{OUTAGE_NET}");
    let delivered_before = subscriber.received(&prefix).positions;
    let produced_before = positions_produced(&client)?;
    let timeline = run_through_outage(&client, &mut broker, seconds, outage_seconds)?;
    thread::sleep(SETTLE);
    let produced = positions_produced(&client)? - produced_before;
    let final_status = status(&client, OUTAGE_NET)?;
    let received = subscriber.received(&prefix);
    let track = subscriber.track(&prefix);
    drop(subscriber);
    server.stop()?;
    broker.stop()?;

    let events = Events::compare(&stream.heard(), &received, &timeline);
    let bounds = timeline.bounds();
    write_holes(&dir.join("outage-holes.csv"), &track, &bounds)?;
    let spans = [0, 1, 2, 3].map(|index| bounds[index]..bounds[index + 1]);
    Ok(Outage {
        qos,
        emitted_in_outage: events.emitted_in_outage,
        produced_after_restart: produced - (timeline.produced_at_restart - produced_before),
        reconnected_after: timeline.drain.reconnected_after,
        seconds: spans
            .clone()
            .map(|span| (span.end - span.start) as f64 / 1_000.0),
        repeated: spans
            .clone()
            .map(|span| track.repeated(span.start, span.end)),
        messages: received.messages,
        repeats: track.repeats,
        out_of_order: track.out_of_order,
        same_tick: track.same_tick,
        missing: spans.map(|span| track.missing(span.start, span.end)),
        outage_seconds,
        before_seconds: timeline.before_seconds,
        at_stop: timeline.at_stop,
        at_restart: timeline.at_restart,
        drained_after: timeline.drain.drained_after,
        least_queued: timeline.drain.least_queued,
        final_status,
        produced,
        delivered: received.positions - delivered_before,
        zones: events.zones,
        notifications: events.notifications,
        missing_notifications: events.missing_notifications,
        states_emitted: events.states_emitted,
        states_delivered: received.states,
        states_missing: events.states_missing,
        resyncs: events.resyncs,
        lagged: lagged_in(&log),
    })
}

/// Gives [`OUTAGE_NET`] its site, a grid of zones and an output of every
/// kind at `qos`, and opens what listens to it throughout: the server's
/// event stream and a persistent subscriber that tracks each tag.
fn prepare(
    server: &Server,
    broker: &Broker,
    dir: &Path,
    qos: u8,
) -> Result<(EventStream, Subscriber)> {
    let net = OUTAGE_NET;
    events::create_site(server, net)?;
    let zones: Vec<_> = zones::grid(ZONE_GRID)
        .into_iter()
        .map(|body| ("POST", format!("/nets/{net}/zones"), body))
        .collect();
    growth::send_concurrently(server.port(), LOADERS, &zones)?;
    add_output(
        &server.client(),
        net,
        broker.port(),
        &["position", "zone", "notification", "state"],
        0,
        qos,
    )?;
    let stream = EventStream::open(
        server.port(),
        &format!("/nets/{net}/events?types=zone,notification,state"),
    )?;
    let subscriber = Subscriber::start(
        broker.port(),
        &[format!("netcfg/{net}/#")],
        Some("netcfg-bench-outage"),
        true,
        &dir.join("mosquitto_sub-outage.log"),
    )?;
    Ok((stream, subscriber))
}

/// When each thing happened in the outage's run, and the output's status
/// at its turns.
#[derive(Debug)]
struct Timeline {
    before_seconds: u32,
    started_ms: u64,
    stopped_ms: u64,
    stopped: Instant,
    restarted: Instant,
    restarted_ms: u64,
    stop_requested: Instant,
    stop_requested_ms: u64,
    at_stop: Status,
    at_restart: Status,
    /// `positions_produced` at the broker's restart.
    produced_at_restart: u64,
    drain: Drain,
}

impl Timeline {
    /// The `time_ms` bounds of the four spans of [`Outage::missing`].
    fn bounds(&self) -> [u64; 5] {
        [
            self.started_ms,
            self.stopped_ms - CUT_BEFORE_MS,
            self.stopped_ms,
            self.restarted_ms,
            self.stop_requested_ms,
        ]
    }
}

/// Starts the configuration and its schedule, stops the broker for
/// `outage_seconds` after twice `seconds`, starts it again, waits for the
/// queue to drain, and stops the configuration.
fn run_through_outage(
    client: &Client,
    broker: &mut Broker,
    seconds: u32,
    outage_seconds: u64,
) -> Result<Timeline> {
    let net = OUTAGE_NET;
    let started_ms = crate::sync::wall_clock_whole_ms();
    net_action(client, net, "start")?;
    client.expect_ok(
        "POST",
        &format!("/nets/{net}/schedules"),
        Some(r#"{"name": "tick", "cron": "* * * * * *", "action": "start"}"#),
    )?;
    let before_seconds = seconds * 2;
    thread::sleep(Duration::from_secs(u64::from(before_seconds)));

    step(&format!(
        "outputs: the broker stopped (SIGTERM) for {outage_seconds} s"
    ));
    let at_stop = status(client, net)?;
    let stopped_ms = crate::sync::wall_clock_whole_ms();
    let stopped = Instant::now();
    broker.stop()?;
    thread::sleep(Duration::from_secs(outage_seconds));
    let at_restart = status(client, net)?;
    eprintln!(
        "    at the end of the outage: queued {}, dropped {}, dropped_events {}",
        at_restart.queued, at_restart.dropped, at_restart.dropped_events
    );
    broker.restart()?;
    let restarted = Instant::now();
    let restarted_ms = crate::sync::wall_clock_whole_ms();
    let produced_at_restart = positions_produced(client)?;
    let drain = wait_drained(client, restarted, restarted_ms)?;
    thread::sleep(SETTLE);
    client.expect_ok("DELETE", &format!("/nets/{net}/schedules/tick"), None)?;
    let stop_requested = Instant::now();
    let stop_requested_ms = crate::sync::wall_clock_whole_ms();
    net_action(client, net, "stop")?;
    server_api::wait_disconnected(client, &[net.to_owned()])?;
    Ok(Timeline {
        before_seconds,
        started_ms,
        stopped_ms,
        stopped,
        restarted,
        restarted_ms,
        stop_requested,
        stop_requested_ms,
        at_stop,
        at_restart,
        produced_at_restart,
        drain,
    })
}

/// How the output came back after the broker's restart.
#[derive(Debug)]
struct Drain {
    /// Until it was connected with an empty queue (`None`: not within
    /// [`DRAIN_TIMEOUT`]).
    drained_after: Option<f64>,
    /// Until it was first seen connected.
    reconnected_after: Option<f64>,
    /// The smallest `queued` seen while connected, if never 0.
    least_queued: u64,
}

/// Polls the output's status until it is connected with an empty queue,
/// or [`DRAIN_TIMEOUT`] has passed since the restart.
fn wait_drained(client: &Client, restarted: Instant, restarted_ms: u64) -> Result<Drain> {
    let mut least_queued = u64::MAX;
    let mut reconnected_ms = None;
    let drained_after = loop {
        let now = status(client, OUTAGE_NET)?;
        if now.connected {
            least_queued = least_queued.min(now.queued);
            reconnected_ms.get_or_insert_with(crate::sync::wall_clock_whole_ms);
        }
        if now.connected && now.queued == 0 {
            break Some(restarted.elapsed().as_secs_f64());
        }
        if restarted.elapsed() > DRAIN_TIMEOUT {
            break None;
        }
        thread::sleep(Duration::from_millis(20));
    };
    let reconnected_after =
        reconnected_ms.map(|at| at.saturating_sub(restarted_ms) as f64 / 1_000.0);
    match drained_after {
        Some(after) => eprintln!(
            "    connected {:.1} s after the restart, with an empty queue {after:.1} s after it",
            reconnected_after.unwrap_or(f64::NAN)
        ),
        None => {
            eprintln!("    the queue did not empty within {DRAIN_TIMEOUT:?} (least {least_queued})")
        }
    }
    Ok(Drain {
        drained_after,
        reconnected_after,
        least_queued,
    })
}

/// The zone, notification and state events the event stream heard against
/// those the subscriber got.
struct Events {
    zones: Compared,
    notifications: Compared,
    missing_notifications: Vec<String>,
    emitted_in_outage: [usize; 2],
    states_emitted: Vec<String>,
    states_missing: Vec<String>,
    resyncs: usize,
}

impl Events {
    fn compare(heard: &[Heard], received: &Received, timeline: &Timeline) -> Events {
        // Emitted: heard before the configuration's stop was asked for
        // (the output stops with it). Any event heard at all counts as
        // known when a delivery is matched.
        let of = |kind: &str, before_stop: bool| -> Vec<&Heard> {
            heard
                .iter()
                .filter(|event| {
                    event.kind == kind && (!before_stop || event.at < timeline.stop_requested)
                })
                .collect()
        };
        let keys = |events: &[&Heard]| -> Vec<String> {
            events.iter().map(|event| event.key.clone()).collect()
        };
        let all_zones = keys(&of("zone", false));
        let all_notifications = keys(&of("notification", false));
        let zones = compare(
            &keys(&of("zone", true)),
            &received.zones,
            &all_zones.iter().map(String::as_str).collect(),
        );
        let delivered_notifications: HashMap<String, u32> = received
            .notifications
            .iter()
            .map(|(identifier, times)| (identifier.to_string(), *times))
            .collect();
        let emitted_notifications = of("notification", true);
        let notifications = compare(
            &keys(&emitted_notifications),
            &delivered_notifications,
            &all_notifications.iter().map(String::as_str).collect(),
        );
        let missing_notifications = emitted_notifications
            .iter()
            .filter(|event| !delivered_notifications.contains_key(&event.key))
            .map(|event| format!("{} {:?}", event.key, event.message))
            .collect();
        let in_outage = |kind: &str| {
            heard
                .iter()
                .filter(|event| {
                    event.kind == kind && (timeline.stopped..timeline.restarted).contains(&event.at)
                })
                .count()
        };
        let states_emitted = keys(&of("state", false));
        Events {
            zones,
            notifications,
            missing_notifications,
            emitted_in_outage: [in_outage("zone"), in_outage("notification")],
            states_missing: missing_states(&states_emitted, &received.states),
            states_emitted,
            resyncs: of("resync", false).len(),
        }
    }
}

/// Writes each hole of the subscriber's positions (tag, the `time_ms` of
/// the positions either side, how many are missing), the times relative to
/// the broker's stop: to look into where positions went.
fn write_holes(path: &Path, track: &peers::Track, bounds: &[u64; 5]) -> Result<()> {
    let stop = bounds[1] + CUT_BEFORE_MS;
    let relative = |at: u64| at as i64 - stop as i64;
    let mut text = format!(
        "# ms relative to the broker's stop; restart at {}, end at {}\ntag,before_ms,after_ms,missing\n",
        relative(bounds[3]),
        relative(bounds[4])
    );
    for (tag, (before, after, missing)) in track.gap_tags.iter().zip(&track.gaps) {
        text.push_str(&format!(
            "{tag},{},{},{missing}\n",
            relative(*before),
            relative(*after)
        ));
    }
    fs::write(path, text).with_context(|| format!("could not write {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compares_emitted_and_delivered_events() {
        let emitted = vec!["a".to_owned(), "b".to_owned(), "c".to_owned()];
        let delivered = HashMap::from([
            ("a".to_owned(), 2),
            ("c".to_owned(), 1),
            ("d".to_owned(), 1),
        ]);
        let seen: HashSet<&str> = ["a", "b", "c"].into();
        let compared = compare(&emitted, &delivered, &seen);
        assert_eq!(
            (
                compared.emitted,
                compared.delivered,
                compared.repeats,
                compared.missing,
                compared.unknown
            ),
            (3, 3, 1, 1, 1)
        );
    }

    #[test]
    fn matches_states_one_for_one_and_ignores_retained_ones() {
        let delivered = [
            (false, "started".to_owned()),
            (true, "offline".to_owned()),
            (true, "started".to_owned()),
            (false, "started".to_owned()),
        ];
        let emitted = ["started".to_owned(), "stopped".to_owned()];
        assert_eq!(missing_states(&emitted, &delivered), ["stopped"]);
        let emitted = [
            "started".to_owned(),
            "started".to_owned(),
            "started".to_owned(),
        ];
        assert_eq!(missing_states(&emitted, &delivered), ["started"]);
    }
}
