//! Whether every position reaches the broker: configurations run from
//! their start to their stop, each with an output, while a subscriber
//! counts what arrived against what `/metrics` says they produced. Part 1
//! runs one configuration (from [`super::cpu`], which shares its server);
//! part 2, [`batched`], runs [`NETS`] at once with batched outputs.

use std::{
    path::Path,
    thread,
    time::{Duration, Instant},
};

use anyhow::Result;

use super::{
    BATCH_MS, BATCH_PREFIX, DELIVERY_WINDOWS, NETS, SETTLE,
    peers::{self, Broker, Received, Subscriber},
    server_api::{self, Status, add_output, lagged_in, positions_produced},
};
use crate::{
    bench::{events, net_action, step},
    server::Server,
};

/// One run of configurations, each with an output, from their start to
/// their stop.
#[derive(Debug, Clone, Default)]
pub(super) struct Delivery {
    pub(super) configurations: usize,
    /// From the first start to the last stop.
    pub(super) seconds: f64,
    /// Positions the configurations produced over the run.
    pub(super) produced: u64,
    /// Positions the subscriber received.
    pub(super) received: u64,
    /// Messages they came in.
    pub(super) messages: u64,
    /// State messages the subscriber received (live, not retained ones).
    pub(super) states: u64,
    /// The outputs' statuses after the stop.
    pub(super) statuses: Vec<Status>,
    /// The server's cores over the run (after its first 2 s).
    pub(super) server_cores: f64,
}

impl Delivery {
    pub(super) fn share(&self) -> f64 {
        self.received as f64 / self.produced.max(1) as f64
    }

    pub(super) fn total(&self, field: fn(&Status) -> u64) -> u64 {
        self.statuses.iter().map(field).sum()
    }
}

/// The window of a delivery run: [`DELIVERY_WINDOWS`] times `--seconds`.
pub(super) fn window(seconds: u32) -> Duration {
    Duration::from_secs(u64::from(seconds * DELIVERY_WINDOWS))
}

/// Runs `nets` (stopped, each with an output) for `window` and counts what
/// the subscriber received from them.
pub(super) fn delivery_run(
    server: &Server,
    nets: &[String],
    subscriber: &Subscriber,
    window: Duration,
) -> Result<Delivery> {
    let client = server.client();
    let prefix = |net: &String| format!("netcfg/{net}");
    let before: Vec<Received> = nets
        .iter()
        .map(|net| subscriber.received(&prefix(net)))
        .collect();
    let produced_before = positions_produced(&client)?;
    let started = Instant::now();
    for net in nets {
        net_action(&client, net, "start")?;
    }
    thread::sleep(SETTLE);
    let (cpu_from, ticks_from) = (Instant::now(), peers::ticks(server.pid())?);
    thread::sleep(window.saturating_sub(started.elapsed()));
    let server_cores = peers::ticks(server.pid())?.saturating_sub(ticks_from) as f64
        / 100.0
        / cpu_from.elapsed().as_secs_f64();
    for net in nets {
        net_action(&client, net, "stop")?;
    }
    let seconds = started.elapsed().as_secs_f64();
    server_api::wait_disconnected(&client, nets)?;
    // What the broker still had on its way to the subscriber.
    thread::sleep(Duration::from_secs(1));
    let produced = positions_produced(&client)? - produced_before;
    let mut delivery = Delivery {
        configurations: nets.len(),
        seconds,
        produced,
        server_cores,
        ..Delivery::default()
    };
    for (net, before) in nets.iter().zip(&before) {
        let after = subscriber.received(&prefix(net));
        let positions = after.positions - before.positions;
        let batches = after.batches - before.batches;
        delivery.received += positions + after.batch_positions - before.batch_positions;
        delivery.messages += positions + batches;
        delivery.states += after.states[before.states.len()..]
            .iter()
            .filter(|(retained, _)| !retained)
            .count() as u64;
        delivery.statuses.push(server_api::status(&client, net)?);
    }
    Ok(delivery)
}

/// The figures of part 2.
#[derive(Debug, Clone, Default)]
pub(super) struct Batched {
    pub(super) delivery: Delivery,
    pub(super) lagged: (usize, u64),
}

pub(super) fn batched(binary: &Path, dir: &Path, seconds: u32, broker: &Broker) -> Result<Batched> {
    let (launch, log) = server_api::launch(binary, dir, "batched");
    step(&format!(
        "outputs: {NETS} configurations of {} tags at 10 Hz, each batched every {BATCH_MS} ms",
        events::TAGS
    ));
    let server = launch.start()?;
    let client = server.client();
    let nets: Vec<String> = (1..=NETS)
        .map(|index| format!("{BATCH_PREFIX}{index}"))
        .collect();
    for net in &nets {
        events::create_site(&server, net)?;
        add_output(&client, net, broker.port(), &["position"], BATCH_MS, 0)?;
    }
    let subscriber = Subscriber::start(
        broker.port(),
        &["netcfg/+/positions".to_owned(), "netcfg/+/state".to_owned()],
        None,
        false,
        &dir.join("mosquitto_sub-batched.log"),
    )?;
    let delivery = delivery_run(&server, &nets, &subscriber, window(seconds))?;
    eprintln!(
        "    produced {}, received {} ({:.3}%) in {} messages over {:.1} s",
        delivery.produced,
        delivery.received,
        100.0 * delivery.share(),
        delivery.messages,
        delivery.seconds
    );
    drop(subscriber);
    server.stop()?;
    Ok(Batched {
        delivery,
        lagged: lagged_in(&log),
    })
}
