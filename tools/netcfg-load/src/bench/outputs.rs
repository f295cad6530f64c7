//! Outputs to MQTT (issue 28): whether every position reaches a broker,
//! what publishing costs the server beside the bridge a user would write,
//! and what a broker outage loses, on the real server with a real
//! mosquitto (started here, on loopback).
//!
//! 1. **One message per position, QoS 0**: one configuration of
//!    [`events::TAGS`] tags at 10 Hz on the simulator, an output with
//!    `events: ["position"]`, `batch_ms: 0`, `qos: 0`, and a subscriber
//!    (`mosquitto_sub`, counted here) on `netcfg/{net}/tags/+/position`.
//!    The window is one whole run of the configuration (start, four times
//!    `--seconds`, stop): `netcfg_engine_positions_received_total` counts
//!    every position it produced (no other configuration runs), the output
//!    starts with the run and flushes at its stop, so the comparison has no
//!    edge to blur it. The output's own status says what it took (`sent` −
//!    its state messages + `dropped` + `queued`).
//! 2. **Batched**: [`NETS`] configurations at once, each with an output of
//!    `batch_ms` [`BATCH_MS`]; the subscriber counts the positions inside
//!    the `{prefix}/positions` arrays; same window.
//! 3. **CPU beside a bridge**: on part 1's configuration, [`ROUNDS`] times:
//!    the server's CPU with no output, with the output of part 1 (the
//!    difference over the positions it published is netcfg's cost of a
//!    position), then the Python bridge (`scripts/mqtt_bridge.py`: cdp-py
//!    reads the configuration's User stream, aimed at a loopback port,
//!    paho-mqtt publishes each PositionV3 at QoS 0 to the same broker) and
//!    its own CPU over the positions it published.
//! 4. **Outage**: one configuration with zones (an octagon grid, as
//!    bench/zones.rs) and a schedule every second (a notification a
//!    second, beside the devices' joins at the start), an output carrying positions, zones, notifications and
//!    states to a broker with persistence; a persistent subscriber (QoS 1,
//!    fixed client id) and the server's event stream (the reference of what
//!    it emitted) listen throughout. The broker is stopped (SIGTERM) for
//!    [`OUTAGE_SECONDS`], started again on the same port, the queue is
//!    left to drain, the configuration is stopped; then every zone,
//!    notification and state event the server emitted is looked for among
//!    those delivered, and `dropped` is compared with the positions
//!    produced minus those delivered.
//!
//! Figures are printed beside their goals; nothing is enforced.
//!
//! The rooms: [`server_api`] drives and reads the server under test (its
//! API, `/metrics`, its log); [`delivery`] runs configurations start to
//! stop and counts what reached the subscriber (parts 1 and 2); [`cpu`]
//! measures part 3's windows around part 1; [`outage`] is part 4;
//! [`print`] writes every figure beside its goal; [`peers`] are the
//! processes around the server (broker, subscriber, bridge, event stream).

mod cpu;
mod delivery;
mod outage;
pub(crate) mod peers;
mod print;
pub(super) mod server_api;

use std::{path::Path, time::Duration};

use anyhow::Result;

use self::peers::Broker;
pub(crate) use self::server_api::positions_produced;

/// The configuration of parts 1 and 3.
const SINGLE_NET: &str = "single";
/// The configurations of part 2 are `batch1`...
const BATCH_PREFIX: &str = "batch";
/// The configuration of part 4.
const OUTAGE_NET: &str = "outage";
/// Every configuration's output.
const OUTPUT: &str = "mqtt";
/// Configurations of the batched part.
const NETS: usize = 10;
/// Rounds of the CPU comparison.
const ROUNDS: usize = 3;
/// The delivery windows last this many times `--seconds`.
const DELIVERY_WINDOWS: u32 = 4;
/// The batched outputs' period.
const BATCH_MS: u32 = 100;
/// How long the broker is down in the reported run.
const OUTAGE_SECONDS: u64 = 60;
/// A shorter outage for quick tries (not a reported figure). Not
/// `NETCFG_...`: the server reads those as its settings, and refuses
/// unknown ones.
const OUTAGE_VARIABLE: &str = "BENCH_OUTAGE_SECONDS";
/// Zones per side of part 4's grid.
const ZONE_GRID: usize = 10;
/// An output's queue bound (`netcfg_outputs::QUEUE_BOUND`).
const QUEUE_BOUND: u64 = 65_536;
/// Share of the positions that must arrive.
const GOAL_SHARE: f64 = 0.999;
/// netcfg's CPU per position over the bridge's, at most.
const GOAL_RATIO: f64 = 0.1;
/// Left to a change before anything is measured.
const SETTLE: Duration = Duration::from_secs(2);
/// The longest wait for a queue to drain after the outage.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(180);
/// The span before the broker's stop whose positions went out before the
/// connection broke: those missing were lost in it (QoS 0, counted as
/// sent), not dropped from the queue (which was empty then).
const CUT_BEFORE_MS: u64 = 1_000;
/// What the server logs when its outputs fell behind the live feed (those
/// events never reached any output's queue).
const LAG_MESSAGE: &str = "live events went by before the outputs could take them";

pub(crate) fn measure(binary: &Path, dir: &Path, seconds: u32) -> Result<()> {
    let outage_seconds =
        super::shortened_seconds(OUTAGE_VARIABLE, OUTAGE_SECONDS, "outputs: a broker outage")?;
    let broker = Broker::start(dir, "mosquitto-outputs", false)?;
    let single = cpu::single_and_cpu(binary, dir, seconds, &broker)?;
    let batched = delivery::batched(binary, dir, seconds, &broker)?;
    drop(broker);
    // Once with positions at QoS 0 (the default), once at QoS 1: what an
    // acknowledged position changes in the drop counter's books.
    let outages = [
        outage::outage(binary, dir, seconds, outage_seconds, 0)?,
        outage::outage(binary, dir, seconds, outage_seconds, 1)?,
    ];
    print::print(seconds, &single, &batched, &outages);
    Ok(())
}
