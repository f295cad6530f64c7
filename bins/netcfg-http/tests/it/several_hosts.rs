//! Several hosts through a broker cluster (decisions §20, docs/outputs.md
//! "Past one machine"): three netcfg servers, each publishing to its own
//! mosquitto under its site's prefix, the three bridged to a central one.
//! A subscriber on the central broker sees every site's state (retained),
//! positions and zone events; the central broker down for 30 s loses no
//! zone event; a site's server frozen with its connection open (during
//! that outage, so that the two waits overlap), or killed, shows its
//! `offline` last will centrally.

use std::{
    process::Command,
    thread,
    time::{Duration, Instant},
};

use serde_json::json;

use crate::{
    outputs::{add_output, move_the_desk_away, site_with_desk, status_until},
    support::{
        HUNG, Server, act,
        mqtt::{Broker, Message, Subscriber},
    },
};

const SITES: [&str; 3] = ["lyon", "oslo", "kyiv"];
const STANDING: &str = "01:05:0002";

fn state_of(site: &str) -> String {
    format!("site/{site}/netcfg/room/state")
}

fn is_state(site: &str, state: &str) -> impl Fn(&Message) -> bool + use<> {
    let topic = state_of(site);
    let state = state.to_owned();
    move |message| message.topic == topic && message.payload["state"] == state.as_str()
}

/// Whether a message is one the centre waits for.
type Matches = Box<dyn Fn(&Message) -> bool>;
/// One message the centre must see, with what it is called in a failure.
type OneWanted = (String, Matches);
/// What the centre must see.
type Wanted = Vec<OneWanted>;

/// Reads the central subscriber until each of `wanted` came, in whatever
/// order the sites' messages interleave.
fn see_all(watcher: &Subscriber, mut wanted: Wanted) {
    let deadline = Instant::now() + HUNG;
    while !wanted.is_empty() {
        let left = deadline.saturating_duration_since(Instant::now());
        let Some(message) = watcher.next_within(left) else {
            let names: Vec<&String> = wanted.iter().map(|(name, _)| name).collect();
            panic!("the centre never saw {names:?}");
        };
        wanted.retain(|(_, matches)| !matches(&message));
    }
}

fn on_topic(topic: String) -> Matches {
    Box::new(move |message| message.topic == topic)
}

/// The standing tag's `event` ("enter", "exit") of the desk of `site`.
fn desk_event(site: &str, event: &'static str) -> OneWanted {
    let topic = format!("site/{site}/netcfg/room/zones/desk");
    (
        format!("{topic} {event}"),
        Box::new(move |message| {
            message.topic == topic
                && message.payload["serial_number"] == STANDING
                && message.payload["event"] == event
        }),
    )
}

fn state_is(site: &str, state: &str) -> OneWanted {
    (
        format!("{} {state}", state_of(site)),
        Box::new(is_state(site, state)),
    )
}

fn signal(server: &Server, name: &str) {
    let sent = Command::new("kill")
        .args([&format!("-{name}"), &server.pid().to_string()])
        .status()
        .expect("kill runs");
    assert!(sent.success(), "kill -{name}");
}

#[test]
fn three_sites_reach_a_central_broker_through_bridges_and_none_is_lost_or_silent() {
    let mut central = Broker::start();
    let watcher = Subscriber::start(&central, "site/#", "netcfg-it-central");
    let brokers: Vec<Broker> = SITES
        .iter()
        .map(|site| Broker::start_bridged(&central, site))
        .collect();
    let servers: Vec<Server> = SITES
        .iter()
        .zip(&brokers)
        .map(|(site, broker)| {
            let server = Server::start();
            site_with_desk(&server);
            add_output(
                &server,
                &json!({"name": "broker", "url": broker.url(),
                        "events": ["position", "zone", "state"],
                        "topic_prefix": format!("site/{site}/netcfg/{{net_name}}")}),
            );
            act(&server, "room", "start");
            server
        })
        .collect();

    // Every site's start, positions and zone entry reach the centre.
    let mut wanted: Wanted = Vec::new();
    for site in SITES {
        wanted.push(state_is(site, "started"));
        let position = format!("site/{site}/netcfg/room/tags/{STANDING}/position");
        wanted.push((position.clone(), on_topic(position)));
        wanted.push(desk_event(site, "enter"));
    }
    see_all(&watcher, wanted);
    // A consumer that comes later finds each site's state retained.
    let late = Subscriber::start(&central, "site/+/netcfg/+/state", "netcfg-it-late");
    for site in SITES {
        let started = is_state(site, "started");
        late.until(|message| message.retain && started(message));
    }
    drop(late);

    // The central broker away for 30 s, and meanwhile one site's server
    // frozen with its connection open (SIGSTOP: a host that vanished). The
    // other sites' zone exits of that time arrive once the central broker
    // is back (their brokers queue them, QoS 1); the frozen server's broker
    // gives up on it after one and a half keep-alives (30 s) and publishes
    // its last will, which reaches the centre too.
    let frozen = 1;
    signal(&servers[frozen], "STOP");
    central.stop();
    for (index, server) in servers.iter().enumerate() {
        if index != frozen {
            move_the_desk_away(server);
        }
    }
    thread::sleep(Duration::from_secs(30));
    central.restart();
    let wanted: Wanted = SITES
        .iter()
        .enumerate()
        .map(|(index, site)| {
            if index == frozen {
                state_is(site, "offline")
            } else {
                desk_event(site, "exit")
            }
        })
        .collect();
    see_all(&watcher, wanted);
    signal(&servers[frozen], "CONT");

    // A site's server killed: its broker publishes its last will.
    signal(&servers[0], "KILL");
    watcher.until(is_state(SITES[0], "offline"));
    // The third ran all along, and is connected again.
    status_until(&servers[2], "broker", |status| status["connected"] == true);
}
