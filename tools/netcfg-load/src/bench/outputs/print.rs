//! Part 1 to 4's figures, printed beside their goals (`docs/benchmarks.md`
//! quotes these lines: their wording and order are the report's format).

use super::{
    BATCH_MS, CUT_BEFORE_MS, DRAIN_TIMEOUT, GOAL_RATIO, GOAL_SHARE, OUTAGE_SECONDS,
    OUTAGE_VARIABLE, QUEUE_BOUND, SINGLE_NET,
    cpu::{Single, bridge_us, netcfg_us},
    delivery::{Batched, Delivery},
    outage::{Compared, Outage},
};
use crate::bench::{events, met};

fn mean(values: impl Iterator<Item = f64>) -> f64 {
    let values: Vec<f64> = values.collect();
    values.iter().sum::<f64>() / values.len().max(1) as f64
}

pub(super) fn print(seconds: u32, single: &Single, batched: &Batched, outages: &[Outage]) {
    let rate = mean(single.rounds.iter().map(|round| round[0].produced));
    println!("bench: outputs to MQTT (issue 28), mosquitto 2.0 on loopback");
    println!(
        "  load: {} tags at 10 Hz on the simulator give {rate:.0} positions a second per configuration (measured with no output running)",
        events::TAGS
    );

    let delivery = &single.delivery;
    println!(
        "  1. one message per position, QoS 0: one configuration, one run of {:.1} s (start to stop), subscriber mosquitto_sub on netcfg/{SINGLE_NET}/tags/+/position",
        delivery.seconds
    );
    print_delivery(delivery, single.lagged);
    let took = (delivery.total(|status| status.sent)
        + delivery.total(|status| status.dropped)
        + delivery.total(|status| status.queued))
    .saturating_sub(delivery.states);
    println!(
        "     the output took {took} positions (sent − state messages + dropped + queued): {} fewer than produced",
        delivery.produced as i64 - took as i64
    );

    let delivery = &batched.delivery;
    println!(
        "  2. batched every {BATCH_MS} ms: {} configurations at once ({:.0} positions a second over the run, their start included), one run of {:.1} s, subscriber on netcfg/+/positions counting the positions in the arrays",
        delivery.configurations,
        delivery.produced as f64 / delivery.seconds,
        delivery.seconds
    );
    print_delivery(delivery, batched.lagged);

    println!(
        "  3. CPU per position published, {} rounds of {seconds} s each (no output / the output of part 1 / the Python bridge, same broker, same load):",
        single.rounds.len()
    );
    for (index, round) in single.rounds.iter().enumerate() {
        let [none, output, bridge] = round;
        println!(
            "     round {}: server {:.3} cores with no output, {:.3} with it: {:+.3} for {:.0} positions/s published = {:.2} µs a position; bridge {:.3} cores for {:.0} publishes/s = {:.2} µs a position (server beside it {:.3} cores); ratio {:.3}",
            index + 1,
            none.server_cores,
            output.server_cores,
            output.server_cores - none.server_cores,
            output.output_sent,
            netcfg_us(round),
            bridge.bridge_cores,
            bridge.bridge_published,
            bridge_us(round),
            bridge.server_cores,
            netcfg_us(round) / bridge_us(round)
        );
        println!(
            "              subscriber received {:.0} netcfg messages/s with the output, {:.0} bridge messages/s with the bridge; broker {:.3} / {:.3} / {:.3} cores",
            output.received_netcfg,
            bridge.received_bridge,
            none.broker_cores,
            output.broker_cores,
            bridge.broker_cores
        );
    }
    let netcfg = mean(single.rounds.iter().map(netcfg_us));
    let bridge = mean(single.rounds.iter().map(bridge_us));
    let ratio = netcfg / bridge;
    println!(
        "     mean: netcfg {netcfg:.2} µs of CPU a position, the bridge {bridge:.2} µs: ratio {ratio:.3} (goal: at most {GOAL_RATIO:.3}: {})",
        met(ratio <= GOAL_RATIO)
    );
    let noise: Vec<String> = single
        .rounds
        .iter()
        .map(|round| format!("{:+.3}", round[2].server_cores - round[0].server_cores))
        .collect();
    println!(
        "     noise: the server beside the bridge minus with no output, each round: {} cores; the bridge saw {} datagrams missing from the stream and {} errors",
        noise.join(", "),
        single.bridge_gaps,
        single.bridge_errors
    );

    for outage in outages {
        print_outage(outage);
    }
}

fn print_delivery(delivery: &Delivery, lagged: (usize, u64)) {
    println!(
        "     the server produced {} positions (netcfg_engine_positions_received_total over the run); the subscriber received {} in {} messages: {:.3}% (goal: at least {:.1}%: {})",
        delivery.produced,
        delivery.received,
        delivery.messages,
        100.0 * delivery.share(),
        100.0 * GOAL_SHARE,
        met(delivery.share() >= GOAL_SHARE)
    );
    println!(
        "     the outputs' statuses after the stop: sent {} messages ({} of them state messages the subscriber saw), dropped {}, dropped_events {}, queued {}; server {:.3} cores over the run",
        delivery.total(|status| status.sent),
        delivery.states,
        delivery.total(|status| status.dropped),
        delivery.total(|status| status.dropped_events),
        delivery.total(|status| status.queued),
        delivery.server_cores
    );
    if lagged.0 > 0 {
        println!(
            "     the server's log: {} times its outputs fell behind the live feed, {} events missed before any queue",
            lagged.0, lagged.1
        );
    }
}

fn print_outage(outage: &Outage) {
    println!(
        "  4. outage (positions at QoS {}): output with position, zone, notification, state; broker stopped (SIGTERM) {} s after the start, down {} s{}, started again on the same port",
        outage.qos,
        outage.before_seconds,
        outage.outage_seconds,
        if outage.outage_seconds == OUTAGE_SECONDS {
            String::new()
        } else {
            format!(" (NOT the reported {OUTAGE_SECONDS} s: {OUTAGE_VARIABLE})")
        }
    );
    println!(
        "     before the stop: queued {}, dropped {}; at the end of the outage: queued {} (bound {QUEUE_BOUND}), dropped {}, dropped_events {}",
        outage.at_stop.queued,
        outage.at_stop.dropped,
        outage.at_restart.queued,
        outage.at_restart.dropped,
        outage.at_restart.dropped_events
    );
    match outage.drained_after {
        Some(after) => println!(
            "     connected again {:.1} s after the broker's restart, with an empty queue {after:.1} s after it",
            outage.reconnected_after.unwrap_or(f64::NAN)
        ),
        None => println!(
            "     the queue did NOT empty within {} s of the restart (least queued {})",
            DRAIN_TIMEOUT.as_secs(),
            outage.least_queued
        ),
    }
    print_outage_events(outage);
    print_outage_positions(outage);
}

/// Part 4's zone events, notifications and states: emitted against
/// delivered.
fn print_outage_events(outage: &Outage) {
    let compared = |what: &str, compared: &Compared| {
        println!(
            "     {what}: the server emitted {} (its event stream, until the stop), the persistent subscriber got {} distinct ({} repeated deliveries), missing {}, unknown to the stream {} (goal: none lost: {})",
            compared.emitted,
            compared.delivered,
            compared.repeats,
            compared.missing,
            compared.unknown,
            met(compared.missing == 0)
        );
    };
    println!(
        "     while the broker was down the server emitted {} zone events and {} notifications",
        outage.emitted_in_outage[0], outage.emitted_in_outage[1]
    );
    compared("zone events", &outage.zones);
    compared("notifications", &outage.notifications);
    if !outage.missing_notifications.is_empty() {
        let shown: Vec<&str> = outage
            .missing_notifications
            .iter()
            .take(5)
            .map(String::as_str)
            .collect();
        println!("       missing: {}", shown.join("; "));
    }
    let delivered: Vec<String> = outage
        .states_delivered
        .iter()
        .map(|(retained, state)| {
            if *retained {
                format!("{state} (retained)")
            } else {
                state.clone()
            }
        })
        .collect();
    println!(
        "     state events: the server emitted [{}], the subscriber got [{}]: missing [{}] (goal: none lost: {})",
        outage.states_emitted.join(", "),
        delivered.join(", "),
        outage.states_missing.join(", "),
        met(outage.states_missing.is_empty())
    );
    if outage.resyncs > 0 {
        println!(
            "     the event stream fell behind {} times (resync): the emitted counts above are short",
            outage.resyncs
        );
    }
}

/// Part 4's positions: delivered, dropped and missing, by span, and the
/// output's own books.
fn print_outage_positions(outage: &Outage) {
    let status = &outage.final_status;
    let distinct = outage.delivered - outage.repeats;
    let lost = outage.produced as i64 - distinct as i64;
    let unexplained = lost - status.dropped as i64;
    let [before, at_cut, during, after] = outage.missing;
    // The simulator's own holes a second, from before the stop.
    let natural = before as f64 / outage.seconds[0].max(1e-3);
    let expected = |index: usize| natural * outage.seconds[index];
    // netcfg's own books: the positions it counted as sent are its sent
    // messages but the zone, notification and state messages it sent
    // (those delivered, once each; the retained and the broker's last will
    // are not netcfg's).
    let others = outage.zones.delivered as u64
        + outage.notifications.delivered as u64
        + outage
            .states_delivered
            .iter()
            .filter(|(retained, state)| !retained && state != "offline")
            .count() as u64;
    let positions_sent = status.sent.saturating_sub(others);
    let books = outage.produced as i64 - positions_sent as i64 - status.dropped as i64;
    let in_connection = positions_sent as i64 - distinct as i64;
    println!(
        "     positions: produced {} (the whole run), delivered {} ({distinct} distinct: {} delivered twice, {} out of order, {} a tag's second in one late tick of the simulator), so {lost} not delivered; the status says dropped {}: produced − distinct delivered − dropped = {unexplained}",
        outage.produced,
        outage.delivered,
        outage.repeats,
        outage.out_of_order,
        outage.same_tick,
        status.dropped,
    );
    println!(
        "     the output's books: sent {} messages, of which {positions_sent} positions (without the {others} zone, notification and state messages delivered); produced − positions sent − dropped = {books}; positions sent and not delivered: {in_connection}",
        status.sent
    );
    println!(
        "     positions missing from each tag's sequence at the subscriber, by when they were made: {before} in the {:.1} s up to {:.1} s before the stop ({natural:.1} a second: ones the simulator did not make); {at_cut} in the last {:.1} s before the stop, when the queue was empty (≈{:.0} of the simulator's: the rest went out into the connection the broker was closing); {during} made during the outage (dropped {}; ≈{:.0} of the simulator's); {after} in the {:.1} s after the restart (≈{:.0} of the simulator's; it made {} positions then, {:.0} a second)",
        outage.seconds[0],
        CUT_BEFORE_MS as f64 / 1_000.0,
        CUT_BEFORE_MS as f64 / 1_000.0,
        expected(1),
        status.dropped,
        expected(2),
        outage.seconds[3],
        expected(3),
        outage.produced_after_restart,
        outage.produced_after_restart as f64 / outage.seconds[3].max(1e-3),
    );
    let [before, at_cut, during, after] = outage.repeated;
    println!(
        "     positions delivered twice, by when they were made (the same spans): {before}, {at_cut}, {during}, {after}"
    );
    println!(
        "     the drop counter: dropped = produced − delivered exactly (the goal as written): {}; dropped = produced − positions sent (the queue's own drops): {}{}",
        met(unexplained == 0),
        met(books == 0),
        if unexplained != 0 && books == 0 {
            format!(
                "; the {unexplained} others were sent at QoS 0 as the broker went down and lost with its connection (counted as sent, not as dropped)"
            )
        } else {
            String::new()
        }
    );
    println!(
        "     messages of every kind the subscriber received: {}; the status's sent: {}",
        outage.messages, status.sent
    );
    println!(
        "     dropped_events {} (goal: 0 within the queue's bound: {})",
        status.dropped_events,
        met(status.dropped_events == 0)
    );
    if outage.lagged.0 > 0 {
        println!(
            "     the server's log: {} times its outputs fell behind the live feed, {} events missed before any queue",
            outage.lagged.0, outage.lagged.1
        );
    }
}
