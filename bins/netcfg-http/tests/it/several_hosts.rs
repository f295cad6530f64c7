//! Several hosts through a broker cluster (decisions §20, docs/outputs.md
//! "Past one machine"): three netcfg servers, each publishing to its own
//! mosquitto under its site's prefix, the three bridged to a central one.
//! A subscriber on the central broker sees every site's state (retained),
//! positions and zone events; the central broker down for 30 s loses no
//! zone event; a site's server killed, or frozen with its connection open,
//! shows its `offline` last will centrally.

use std::{process::Command, thread, time::Duration};

use serde_json::json;

use crate::{
    outputs::{add_output, move_the_desk_away, site_with_desk, status_until},
    support::{
        Request, Server, act,
        mqtt::{Broker, Message, Subscriber},
    },
};

const SITES: [&str; 3] = ["lyon", "oslo", "kyiv"];
const STANDING: &str = "01:05:0002";

fn state_of(site: &str) -> String {
    format!("site/{site}/netcfg/room/state")
}

fn is_state(site: &str, state: &str) -> impl Fn(&Message) -> bool {
    let topic = state_of(site);
    let state = state.to_owned();
    move |message| message.topic == topic && message.payload["state"] == state.as_str()
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

    // Every site's start, positions and zone entry reach the centre, in
    // whatever order the three sites' messages interleave.
    let mut wanted: Vec<(String, &str)> = SITES
        .iter()
        .flat_map(|site| {
            [
                (state_of(site), "started"),
                (
                    format!("site/{site}/netcfg/room/tags/{STANDING}/position"),
                    "",
                ),
                (format!("site/{site}/netcfg/room/zones/desk"), "enter"),
            ]
        })
        .collect();
    let deadline = std::time::Instant::now() + crate::support::HUNG;
    while !wanted.is_empty() {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        let Some(message) = watcher.next_within(left) else {
            panic!("the centre never saw {wanted:?}");
        };
        wanted.retain(|(topic, what)| {
            let seen = *topic == message.topic
                && (what.is_empty()
                    || message.payload["state"] == *what
                    || message.payload["event"] == *what);
            !seen
        });
    }
    // A consumer that comes later finds each site's state retained.
    let late = Subscriber::start(&central, "site/+/netcfg/+/state", "netcfg-it-late");
    for site in SITES {
        let started = is_state(site, "started");
        late.until(|message| message.retain && started(message));
    }
    drop(late);

    // The central broker away for 30 s: the zone exits of that time
    // arrive once it is back (the site brokers queue them, QoS 1).
    central.stop();
    for server in &servers {
        move_the_desk_away(server);
    }
    thread::sleep(Duration::from_secs(30));
    central.restart();
    let mut exited: Vec<&str> = Vec::new();
    while exited.len() < SITES.len() {
        let (message, _) = watcher.until(|message| {
            message.topic.ends_with("/zones/desk") && message.payload["event"] == "exit"
        });
        let site = SITES
            .iter()
            .find(|site| message.topic.starts_with(&format!("site/{site}/")))
            .expect("a site's topic");
        if !exited.contains(site) {
            exited.push(site);
        }
    }
    for server in &servers {
        status_until(server, "broker", |status| status["connected"] == true);
    }

    // A site's server killed: its broker publishes its last will.
    signal(&servers[0], "KILL");
    watcher.until(is_state(SITES[0], "offline"));
    // One frozen with its connection open: its broker gives up on it after
    // one and a half keep-alives (30 s) and publishes its last will.
    signal(&servers[1], "STOP");
    watcher.until(is_state(SITES[1], "offline"));
    signal(&servers[1], "CONT");
    // The third kept running all along.
    assert_eq!(
        servers[2].send(&Request::get("/nets/room")).expect(200)["configuration"]["state"],
        "running"
    );
}
