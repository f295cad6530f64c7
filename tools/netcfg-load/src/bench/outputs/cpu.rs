//! Parts 1 and 3, on one server: part 1's delivery run of one
//! configuration, then what publishing costs: [`ROUNDS`] times the
//! server's CPU with no output, with part 1's output, and beside the
//! Python bridge, each over a window of `--seconds`, with the positions
//! published in it.

use std::{
    path::Path,
    thread,
    time::{Duration, Instant},
};

use anyhow::Result;

use super::{
    ROUNDS, SETTLE, SINGLE_NET,
    delivery::{self, Delivery},
    peers::{self, Bridge, Broker, Subscriber},
    server_api::{
        self, add_output, aim_user_stream, lagged_in, positions_produced, set_enabled, status,
    },
};
use crate::{
    bench::{events, net_action, step},
    server::{Client, Server},
};

/// The figures of parts 1 and 3.
#[derive(Debug, Clone, Default)]
pub(super) struct Single {
    pub(super) delivery: Delivery,
    /// Each round: no output, the output, the bridge.
    pub(super) rounds: Vec<[Window; 3]>,
    /// Datagrams missing from the User stream while the bridge read it.
    pub(super) bridge_gaps: u64,
    /// Datagrams or items the bridge could not decode or publish.
    pub(super) bridge_errors: u64,
    /// Lines of the server's log saying its outputs fell behind, and how
    /// many events they missed.
    pub(super) lagged: (usize, u64),
}

/// Cores and rates over one measured window.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Window {
    pub(super) server_cores: f64,
    pub(super) broker_cores: f64,
    pub(super) bridge_cores: f64,
    /// Positions the configuration produced a second.
    pub(super) produced: f64,
    /// Messages the output sent a second (one a position).
    pub(super) output_sent: f64,
    /// Positions the bridge published a second.
    pub(super) bridge_published: f64,
    /// Position messages the subscriber received a second, from netcfg and
    /// from the bridge.
    pub(super) received_netcfg: f64,
    pub(super) received_bridge: f64,
}

/// netcfg's CPU per position published (µs), from one round.
pub(super) fn netcfg_us(round: &[Window; 3]) -> f64 {
    (round[1].server_cores - round[0].server_cores) / round[1].output_sent.max(1e-9) * 1e6
}

/// The bridge's CPU per position published (µs), from one round.
pub(super) fn bridge_us(round: &[Window; 3]) -> f64 {
    round[2].bridge_cores / round[2].bridge_published.max(1e-9) * 1e6
}

pub(super) fn single_and_cpu(
    binary: &Path,
    dir: &Path,
    seconds: u32,
    broker: &Broker,
) -> Result<Single> {
    let (launch, log) = server_api::launch(binary, dir, "single");
    step(&format!(
        "outputs: one configuration of {} tags at 10 Hz, one MQTT message a position (QoS 0)",
        events::TAGS
    ));
    let server = launch.start()?;
    let client = server.client();
    let net = SINGLE_NET.to_owned();
    events::create_site(&server, &net)?;
    let stream_port = peers::free_udp_port()?;
    aim_user_stream(&client, &net, stream_port)?;
    add_output(&client, &net, broker.port(), &["position"], 0, 0)?;
    let subscriber = Subscriber::start(
        broker.port(),
        &[
            format!("netcfg/{net}/tags/+/position"),
            format!("netcfg/{net}/state"),
            format!("bridge/{net}/tags/+/position"),
        ],
        None,
        false,
        &dir.join("mosquitto_sub-single.log"),
    )?;
    let delivery = delivery::delivery_run(
        &server,
        std::slice::from_ref(&net),
        &subscriber,
        delivery::window(seconds),
    )?;
    eprintln!(
        "    produced {}, received {} ({:.3}%) in {:.1} s",
        delivery.produced,
        delivery.received,
        100.0 * delivery.share(),
        delivery.seconds
    );

    step("outputs: CPU with no output, with the output, with the Python bridge");
    let mut bridge = Bridge::start(
        broker.port(),
        ("127.0.0.1", stream_port),
        &format!("bridge/{net}"),
        &dir.join("bridge.log"),
    )?;
    net_action(&client, &net, "start")?;
    thread::sleep(SETTLE);
    let measured = Measured {
        server: &server,
        client: &client,
        broker,
        subscriber: &subscriber,
        net: &net,
        seconds,
    };
    let bridge_before = bridge.count()?;
    let rounds = measured.rounds(&mut bridge)?;
    let bridge_after = bridge.count()?;
    drop(bridge);
    drop(subscriber);
    server.stop()?;
    Ok(Single {
        delivery,
        rounds,
        bridge_gaps: bridge_after.gaps - bridge_before.gaps,
        bridge_errors: bridge_after.errors - bridge_before.errors,
        lagged: lagged_in(&log),
    })
}

/// What is read at each end of a window.
struct Sample {
    at: Instant,
    server: u64,
    broker: u64,
    bridge: u64,
    produced: u64,
    sent: u64,
    published: u64,
    netcfg: u64,
    bridged: u64,
}

/// What a CPU window reads.
struct Measured<'a> {
    server: &'a Server,
    client: &'a Client,
    broker: &'a Broker,
    subscriber: &'a Subscriber,
    net: &'a str,
    seconds: u32,
}

impl Measured<'_> {
    /// [`ROUNDS`] rounds of three windows: no output, the output, the
    /// bridge (paused again after its window).
    fn rounds(&self, bridge: &mut Bridge) -> Result<Vec<[Window; 3]>> {
        let (client, net) = (self.client, self.net);
        let mut rounds = Vec::new();
        for round in 1..=ROUNDS {
            set_enabled(client, net, false)?;
            thread::sleep(SETTLE);
            let none = self.window(bridge, false, false)?;
            set_enabled(client, net, true)?;
            thread::sleep(SETTLE);
            let output = self.window(bridge, true, false)?;
            set_enabled(client, net, false)?;
            bridge.resume()?;
            thread::sleep(SETTLE);
            let bridged = self.window(bridge, false, true)?;
            bridge.pause()?;
            eprintln!(
                "    round {round}: server {:.3} cores, {:.3} with the output ({:.0} messages/s), {:.3} beside the bridge ({:.3} cores, {:.0} publishes/s)",
                none.server_cores,
                output.server_cores,
                output.output_sent,
                bridged.server_cores,
                bridged.bridge_cores,
                bridged.bridge_published
            );
            rounds.push([none, output, bridged]);
        }
        Ok(rounds)
    }

    fn sample(&self, bridge: &mut Bridge, output: bool, bridging: bool) -> Result<Sample> {
        let at = Instant::now();
        let broker = match self.broker.pid() {
            Some(pid) => peers::ticks(pid)?,
            None => 0,
        };
        Ok(Sample {
            at,
            server: peers::ticks(self.server.pid())?,
            broker,
            bridge: peers::ticks(bridge.pid())?,
            produced: positions_produced(self.client)?,
            sent: if output {
                status(self.client, self.net)?.sent
            } else {
                0
            },
            published: if bridging {
                bridge.count()?.published
            } else {
                0
            },
            netcfg: self
                .subscriber
                .received(&format!("netcfg/{}", self.net))
                .positions,
            bridged: self
                .subscriber
                .received(&format!("bridge/{}", self.net))
                .positions,
        })
    }

    fn window(&self, bridge: &mut Bridge, output: bool, bridging: bool) -> Result<Window> {
        let before = self.sample(bridge, output, bridging)?;
        thread::sleep(Duration::from_secs(u64::from(self.seconds)));
        let after = self.sample(bridge, output, bridging)?;
        let seconds = after.at.duration_since(before.at).as_secs_f64();
        let rate = |now: u64, then: u64| now.saturating_sub(then) as f64 / seconds;
        let cores = |now: u64, then: u64| rate(now, then) / 100.0;
        Ok(Window {
            server_cores: cores(after.server, before.server),
            broker_cores: cores(after.broker, before.broker),
            bridge_cores: cores(after.bridge, before.bridge),
            produced: rate(after.produced, before.produced),
            output_sent: rate(after.sent, before.sent),
            bridge_published: rate(after.published, before.published),
            received_netcfg: rate(after.netcfg, before.netcfg),
            received_bridge: rate(after.bridged, before.bridged),
        })
    }
}
