//! MQTT outputs against a real mosquitto: topics, payloads, QoS, retained
//! state, rate limiting, batching, an outage, the last will, missing
//! credentials.

mod common;

use std::sync::Arc;

use common::*;
use netcfg_model::{
    BatchMs, ConfigName, Connectivity, Level, Notification, Qos, RateHz, SerialNumber,
    Synchronisation,
    event::{DeviceEvent, DeviceHappening, StateChange, StateEvent},
};
use netcfg_outputs::{OutputEvent, Outputs, QUEUE_BOUND};

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

fn notification(identifier: u64) -> OutputEvent {
    OutputEvent::Notification(Arc::new(Notification {
        identifier,
        level: Level::Warning,
        message: format!("note {identifier}"),
        serial_number: None,
        timestamp_ms: 5,
        read: false,
    }))
}

fn device() -> OutputEvent {
    OutputEvent::Device(Arc::new(DeviceEvent {
        net: "site".into(),
        serial_number: SerialNumber::from_u32(0x0A0B_0C0D),
        event: DeviceHappening::Joined,
        connectivity: Connectivity::Uwb,
        synchronisation: Synchronisation::Rx,
        status: None,
    }))
}

fn state(change: StateChange) -> OutputEvent {
    OutputEvent::State(StateEvent {
        net: "site".into(),
        state: change,
        renamed_to: None,
    })
}

/// A runtime (to enter while the outputs run), a broker (`persist` keeps
/// its sessions across a restart), the outputs and the network `site`.
fn set_up(persist: bool) -> (tokio::runtime::Runtime, Broker, Outputs, ConfigName) {
    (
        runtime(),
        Broker::start(persist),
        Outputs::new(),
        net("site"),
    )
}

#[test]
fn every_topic_and_payload() {
    let (runtime, broker, outputs, site) = set_up(false);
    let _guard = runtime.enter();
    let subscriber = Subscriber::start(broker.port, "netcfg/#", &[]);
    outputs.run(&site, vec![mqtt_plan("broker", broker.port)]);

    // The retained state comes first, QoS 1.
    let started = subscriber.next_on("netcfg/site/state");
    assert_eq!(
        started.json(),
        serde_json::json!({"net": "site", "state": "started"})
    );
    assert_eq!(started.qos, 1);
    let kept = retained(broker.port, "netcfg/site/state").expect("the state is retained");
    assert!(kept.retained);
    assert_eq!(kept.json()["state"], "started");

    outputs.send(&site, positions(975_000, &[(0x0123_4567, 10)]));
    outputs.send(&site, zone("site", "dock/a+b", 7));
    outputs.send(&site, notification(3));
    outputs.send(&site, device());
    outputs.send(&site, state(StateChange::LinkDown));

    let position = subscriber.next();
    assert_eq!(position.topic, "netcfg/site/tags/01:23:4567/position");
    assert_eq!(position.qos, 0);
    assert_eq!(
        position.json(),
        serde_json::json!({"x": 10, "y": 2, "z": 3, "quality": 9000, "error_mm": 40,
            "network_time": 975_000, "time_ms": 1_700_000_001_000u64})
    );
    let zone = subscriber.next();
    assert_eq!(
        zone.topic, "netcfg/site/zones/dock_a_b",
        "'/' and '+' become '_'"
    );
    assert_eq!(zone.qos, 1);
    assert_eq!(zone.json()["zone"], "dock/a+b");
    assert_eq!(zone.json()["event"], "enter");
    assert_eq!(zone.json()["serial_number"], "01:23:4567");
    let note = subscriber.next();
    assert_eq!(note.topic, "netcfg/site/notifications");
    assert_eq!(note.qos, 1);
    assert_eq!(note.json()["net"], "site");
    assert_eq!(note.json()["identifier"], 3);
    assert_eq!(note.json()["message"], "note 3");
    assert_eq!(note.json()["level"], 2);
    let device = subscriber.next();
    assert_eq!(device.topic, "netcfg/site/devices/0A:0B:0C0D");
    assert_eq!(device.qos, 0, "device events follow the output's QoS");
    assert_eq!(device.json()["event"], "joined");
    assert_eq!(device.json()["connectivity"], "uwb");
    let link_down = subscriber.next();
    assert_eq!(link_down.topic, "netcfg/site/state");
    assert_eq!(link_down.qos, 1);
    assert_eq!(
        link_down.json(),
        serde_json::json!({"net": "site", "state": "link_down"})
    );

    wait_until("every message counted", || {
        status(&outputs, "site", "broker").sent == 6
    });
    let status = status(&outputs, "site", "broker");
    assert!(status.connected && status.running);
    assert_eq!(
        (status.queued, status.dropped, status.dropped_events),
        (0, 0, 0)
    );
    assert_eq!(status.last_error, None);

    // A clean stop: the retained state says "stopped", not "offline".
    outputs.stop(&site);
    let stopped = subscriber.next_on("netcfg/site/state");
    assert_eq!(stopped.json()["state"], "stopped");
    wait_until("the disconnection", || {
        !common::status(&outputs, "site", "broker").connected
    });
    assert!(!common::status(&outputs, "site", "broker").running);
    assert_eq!(
        retained(broker.port, "netcfg/site/state").unwrap().json()["state"],
        "stopped"
    );
}

#[test]
fn qos_1_positions_batches_and_rate_limit() {
    let (runtime, broker, outputs, site) = set_up(false);
    let _guard = runtime.enter();
    let subscriber = Subscriber::start(broker.port, "netcfg/#", &[]);
    let mut batched = mqtt_plan("batched", broker.port);
    batched.output.topic_prefix = Some("batch/{net_name}".to_owned().try_into().unwrap());
    batched.output.batch_ms = BatchMs::try_from(50).unwrap();
    batched.output.qos = Some(Qos::AT_LEAST_ONCE);
    let mut limited = mqtt_plan("limited", broker.port);
    limited.output.max_rate_hz = RateHz::try_from(10.0).unwrap();
    limited.output.events = vec![
        netcfg_model::OutputEventKind::Position,
        netcfg_model::OutputEventKind::Zone,
    ];
    outputs.run(&site, vec![batched, limited]);
    let batch_subscriber = Subscriber::start(broker.port, "batch/#", &[]);
    subscriber.next_on("netcfg/site/state");
    batch_subscriber.next_on("batch/site/state");

    // Two tags at 20 Hz for one second: 10 Hz lets every other through.
    for i in 0..20u64 {
        outputs.send(
            &site,
            positions(i * 48_750, &[(1, i as i32), (2, i as i32)]),
        );
    }
    // A marker after the positions, on the same connection.
    outputs.send(&site, zone("site", "end", 0));

    let mut per_tag = std::collections::BTreeMap::<String, Vec<i64>>::new();
    loop {
        let m = subscriber.next();
        if m.topic.starts_with("netcfg/site/zones/") {
            break;
        }
        let serial = m.topic.split('/').nth(3).unwrap().to_owned();
        per_tag
            .entry(serial)
            .or_default()
            .push(m.json()["x"].as_i64().unwrap());
    }
    let expected: Vec<i64> = (0..20).step_by(2).collect();
    assert_eq!(per_tag["00:00:0001"], expected);
    assert_eq!(per_tag["00:00:0002"], expected);
    let limited = status(&outputs, "site", "limited");
    assert_eq!(
        limited.dropped, 0,
        "positions thinned by rate are not drops"
    );

    // The batching output: arrays on {prefix}/positions, 40 positions in all,
    // in order, QoS 1, each with its serial number.
    let mut seen = Vec::new();
    while seen.len() < 40 {
        let m = batch_subscriber.next();
        if m.topic == "batch/site/zones/end" {
            continue;
        }
        assert_eq!(m.topic, "batch/site/positions");
        assert_eq!(m.qos, 1);
        for entry in m.json().as_array().unwrap() {
            seen.push((
                entry["serial_number"].as_str().unwrap().to_owned(),
                entry["x"].as_i64().unwrap(),
                entry["network_time"].as_u64().unwrap(),
            ));
        }
    }
    let expected: Vec<_> = (0..20u64)
        .flat_map(|i| {
            [
                ("00:00:0001".to_owned(), i as i64, i * 48_750),
                ("00:00:0002".to_owned(), i as i64, i * 48_750),
            ]
        })
        .collect();
    assert_eq!(seen, expected);
    wait_until("the batches counted", || {
        let s = status(&outputs, "site", "batched");
        s.queued == 0 && s.sent >= 3
    });
    assert!(
        status(&outputs, "site", "batched").sent < 40,
        "batched, not one per position"
    );
}

#[test]
fn an_outage_delays_but_loses_nothing_that_fits() {
    let (runtime, mut broker, outputs, site) = set_up(true);
    let _guard = runtime.enter();
    let subscriber = Subscriber::start(broker.port, "netcfg/#", &["-c", "-i", "outage-sub"]);
    let mut plan = mqtt_plan("broker", broker.port);
    plan.output.qos = Some(Qos::AT_LEAST_ONCE);
    outputs.run(&site, vec![plan]);
    assert_eq!(
        subscriber.next_on("netcfg/site/state").json()["state"],
        "started"
    );
    wait_until("the state counted", || {
        status(&outputs, "site", "broker").sent == 1
    });

    broker.stop();
    wait_until("the loss noticed", || {
        !status(&outputs, "site", "broker").connected
    });
    // The caller keeps going while the broker is down.
    for i in 0..5 {
        outputs.send(&site, zone("site", "dock", i));
        outputs.send(&site, positions(1_000 + i as u64, &[(1, i)]));
    }
    outputs.send(&site, notification(9));
    outputs.send(&site, state(StateChange::LinkDown));
    let waiting = status(&outputs, "site", "broker");
    assert!(waiting.queued >= 12, "{waiting:?}");
    assert!(waiting.last_error.is_some());

    broker.restart();
    let mut got = Vec::new();
    while got.len() < 12 {
        let m = subscriber.next();
        if m.topic == "netcfg/site/state"
            && (m.json()["state"] == "started" || m.json()["state"] == "offline")
        {
            // The state republished on reconnection, and the last will
            // (a broker shutting down publishes its clients' wills).
            continue;
        }
        got.push((m.topic.clone(), m.payload.clone()));
    }
    let mut expected = Vec::new();
    for i in 0..5 {
        expected.push(("netcfg/site/zones/dock".to_owned(), format!("\"x\":{i},")));
        expected.push((
            "netcfg/site/tags/00:00:0001/position".to_owned(),
            format!("{{\"x\":{i},"),
        ));
    }
    expected.push((
        "netcfg/site/notifications".to_owned(),
        "\"identifier\":9".to_owned(),
    ));
    expected.push(("netcfg/site/state".to_owned(), "link_down".to_owned()));
    for ((topic, payload), (want_topic, want_part)) in got.iter().zip(&expected) {
        assert_eq!(topic, want_topic, "{got:#?}");
        assert!(
            payload.contains(want_part.as_str()),
            "{payload} lacks {want_part}"
        );
    }
    wait_until("everything counted", || {
        let s = status(&outputs, "site", "broker");
        s.connected && s.queued == 0 && s.last_error.is_none()
    });
    assert_eq!(status(&outputs, "site", "broker").dropped, 0);
}

#[test]
fn a_full_queue_drops_exactly_the_positions_that_do_not_fit() {
    let (runtime, mut broker, outputs, site) = set_up(false);
    let _guard = runtime.enter();
    outputs.run(&site, vec![mqtt_plan("broker", broker.port)]);
    wait_until("connected", || status(&outputs, "site", "broker").sent == 1);
    broker.stop();
    wait_until("the loss noticed", || {
        !status(&outputs, "site", "broker").connected
    });

    let batch: Vec<(u32, i32)> = (0..1_024).map(|tag| (tag, 0)).collect();
    let total = QUEUE_BOUND + 1_024;
    for round in 0..(total / 1_024) as u64 {
        outputs.send(&site, positions(round, &batch));
    }
    let s = status(&outputs, "site", "broker");
    assert_eq!(s.dropped, (total - QUEUE_BOUND) as u64);
    // A zone event makes room by dropping one more position.
    outputs.send(&site, zone("site", "z", 1));
    let s = status(&outputs, "site", "broker");
    assert_eq!(s.dropped, (total - QUEUE_BOUND) as u64 + 1);
    assert_eq!(s.dropped_events, 0);
    assert!(s.queued >= QUEUE_BOUND as u64, "{s:?}");

    broker.restart();
    let subscriber = Subscriber::start(broker.port, "netcfg/site/zones/#", &[]);
    let zone = subscriber.next();
    assert_eq!(zone.topic, "netcfg/site/zones/z");
    wait_until("the backlog delivered", || {
        let s = status(&outputs, "site", "broker");
        s.queued == 0 && s.sent > QUEUE_BOUND as u64
    });
}

#[test]
fn the_last_will_says_offline() {
    let broker = Broker::start(false);
    let outputs = Outputs::new();
    let site = net("site");
    let doomed = runtime();
    {
        let _guard = doomed.enter();
        outputs.run(&site, vec![mqtt_plan("broker", broker.port)]);
    }
    wait_until("connected", || status(&outputs, "site", "broker").sent == 1);
    // The tasks vanish without a DISCONNECT (as when the process dies).
    doomed.shutdown_background();
    wait_until("the will", || {
        retained(broker.port, "netcfg/site/state").is_some_and(|m| {
            m.retained && m.json() == serde_json::json!({"net": "site", "state": "offline"})
        })
    });
}

#[test]
fn an_output_lacking_its_password_does_not_connect() {
    let (runtime, broker, outputs, site) = set_up(false);
    let _guard = runtime.enter();
    let mut plan = mqtt_plan("copied", broker.port);
    plan.output.username_set = true;
    plan.output.password_set = true;
    plan.secrets.username = Some("user".into());
    outputs.run(&site, vec![plan]);
    outputs.send(&site, zone("site", "z", 1));
    let s = status(&outputs, "site", "copied");
    assert!(s.running && !s.connected);
    assert_eq!(s.queued, 1, "it still queues");
    assert_eq!(
        s.last_error.as_deref(),
        Some(
            "lacks its password: the configuration was copied or uploaded without its credentials; PATCH the output to set it again"
        )
    );
    assert!(
        retained(broker.port, "netcfg/site/state").is_none(),
        "it never connected"
    );
    assert_eq!(outputs.statuses().len(), 1);
    outputs.forget(&site);
    assert!(outputs.status(&site, &item("copied")).is_none());
}

#[test]
fn an_unchanged_plan_keeps_running_and_a_removed_one_stops() {
    let (runtime, broker, outputs, site) = set_up(false);
    let _guard = runtime.enter();
    let a = mqtt_plan("a", broker.port);
    let mut b = mqtt_plan("b", broker.port);
    b.output.topic_prefix = Some("other/{net_name}".to_owned().try_into().unwrap());
    outputs.run(&site, vec![a.clone(), b]);
    wait_until("both connected", || {
        status(&outputs, "site", "a").sent == 1 && status(&outputs, "site", "b").sent == 1
    });
    outputs.send(&site, zone("site", "z", 1));
    wait_until("a zone sent", || status(&outputs, "site", "a").sent == 2);
    outputs.run(&site, vec![a]);
    // a kept its counters; b went.
    assert_eq!(status(&outputs, "site", "a").sent, 2);
    assert!(outputs.status(&site, &item("b")).is_none());
    wait_until("b said stopped", || {
        retained(broker.port, "other/site/state").is_some_and(|m| m.json()["state"] == "stopped")
    });
}
