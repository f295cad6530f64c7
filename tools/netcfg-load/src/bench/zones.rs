//! Zones (issue 27): what testing every position against the zones costs,
//! and how soon an enter or exit reaches a live-events subscriber, on the
//! real server.
//!
//! - CPU: [`NETS`] configurations of [`events::TAGS`] walking tags at
//!   10 Hz (33,000 positions a second), measured in turn with no zone, with
//!   [`FEW`]² zones each (1,000 in all) and with [`MANY`]² each (10,240 in
//!   all), [`ROUNDS`] times, in one run: the differences are the zones'
//!   cost. The zones are octagons on a grid over the
//!   tags' 30 m square, so the walkers cross them all the time.
//!   No event subscriber listens in these rounds: a subscriber's cost is
//!   the live events' (it grows with subscribers), measured next.
//! - Latency: then one subscriber of `GET /events?types=zone` on the same
//!   machine, each layout again: the server's CPU, the events a second, and
//!   for each event when its last byte was read minus its `time_ms` (when
//!   the engine decided it from the position).

use std::{
    path::Path,
    sync::{
        Arc, Mutex,
        atomic::{AtomicUsize, Ordering},
    },
    thread,
    time::Duration,
};

use anyhow::{Context, Result};

use super::{events, growth, rules, sse, step};
use crate::server::{Client, Launch};

/// Configurations running at once.
const NETS: usize = 10;
/// Rounds of the three layouts.
const ROUNDS: usize = 3;
/// Zones per side of the smaller grid (per configuration).
const FEW: usize = 10;
/// Zones per side of the larger grid.
const MANY: usize = 32;
/// The layouts: zones per side of the grid (per configuration).
const LAYOUTS: [usize; 3] = [0, FEW, MANY];
/// The side of the tags' square, mm.
const SQUARE_MM: f64 = 30_000.0;

/// The slot of [`Received::latency_ms`] for events that arrive while the
/// zones are being changed (not counted: the change itself is the load).
const CHANGING: usize = 3;

/// Zone events received, by the layout running when each arrived.
#[derive(Debug, Default)]
struct Received {
    /// Latency of each event, ms, per layout (0 none, 1 few, 2 many,
    /// [`CHANGING`]).
    latency_ms: [Vec<f64>; 4],
}

pub(crate) fn measure(binary: &Path, dir: &Path, seconds: u32) -> Result<()> {
    let launch = Launch::new(binary, &dir.join("zones"), &dir.join("server-zones.log"));
    step(&format!(
        "zones: {NETS} configurations of {} tags at 10 Hz on the simulator",
        events::TAGS
    ));
    let server = launch.start()?;
    let client = server.client();
    let nets = rules::start_sites(&server, "zones", NETS)?;
    thread::sleep(Duration::from_secs(3));

    let mut cpu = Vec::new();
    for round in 1..=ROUNDS {
        let mut cores = [0.0; 3];
        for (index, side) in LAYOUTS.into_iter().enumerate() {
            step(&format!("zones: round {round}, {} zones each", side * side));
            set_zones(&client, server.port(), &nets, side)?;
            cores[index] = rules::server_cores(&server, seconds)?;
        }
        eprintln!(
            "    server CPU {:.3} cores without zones, {:.3} with {}, {:.3} with {}",
            cores[0],
            cores[1],
            FEW * FEW * NETS,
            cores[2],
            MANY * MANY * NETS
        );
        cpu.push(cores);
    }

    // The same layouts (from the last) with one subscriber of the events.
    let layout = Arc::new(AtomicUsize::new(CHANGING));
    let received = Arc::new(Mutex::new(Received::default()));
    subscribe(server.port(), Arc::clone(&layout), Arc::clone(&received))?;
    let mut subscribed = [(0.0, 0.0); 3];
    for (index, side) in LAYOUTS.into_iter().enumerate().rev() {
        step(&format!(
            "zones: {} zones each, one subscriber of the zone events",
            side * side
        ));
        layout.store(CHANGING, Ordering::SeqCst);
        set_zones(&client, server.port(), &nets, side)?;
        let before = count(&received, index);
        layout.store(index, Ordering::SeqCst);
        let cores = rules::server_cores(&server, seconds)?;
        layout.store(CHANGING, Ordering::SeqCst);
        let arrived = count(&received, index) - before;
        subscribed[index] = (cores, arrived as f64 / f64::from(seconds + 2));
    }
    server.stop()?;
    let received = crate::sync::lock(&received);
    print(&cpu, &subscribed, &received);
    Ok(())
}

fn count(received: &Mutex<Received>, layout: usize) -> usize {
    crate::sync::lock(received).latency_ms[layout].len()
}

/// An octagon in each cell of a `side` × `side` grid over the square.
pub(crate) fn grid(side: usize) -> Vec<String> {
    let cell = SQUARE_MM / side as f64;
    let radius = cell * 0.4;
    let mut bodies = Vec::with_capacity(side * side);
    for row in 0..side {
        for column in 0..side {
            let (cx, cy) = ((column as f64 + 0.5) * cell, (row as f64 + 0.5) * cell);
            let points: Vec<String> = (0..8)
                .map(|corner| {
                    let angle = f64::from(corner) * std::f64::consts::FRAC_PI_4;
                    format!(
                        "[{:.0},{:.0}]",
                        cx + radius * angle.cos(),
                        cy + radius * angle.sin()
                    )
                })
                .collect();
            bodies.push(format!(
                r#"{{"name":"z{row}-{column}","polygon":[{}]}}"#,
                points.join(",")
            ));
        }
    }
    bodies
}

/// Leaves every configuration with the `side` × `side` grid of zones.
fn set_zones(client: &Client, port: u16, nets: &[String], side: usize) -> Result<()> {
    let mut requests = Vec::new();
    for net in nets {
        let listed = client
            .expect_ok("GET", &format!("/nets/{net}/zones"), None)?
            .payload("zones")?;
        for zone in listed.as_array().context("a list of zones")? {
            let name = zone["name"].as_str().context("a zone's name")?;
            requests.push(("DELETE", format!("/nets/{net}/zones/{name}"), String::new()));
        }
    }
    growth::send_concurrently(port, super::LOADERS, &requests)?;
    let adds: Vec<_> = nets
        .iter()
        .flat_map(|net| {
            grid(side)
                .into_iter()
                .map(move |body| ("POST", format!("/nets/{net}/zones"), body))
        })
        .collect();
    growth::send_concurrently(port, super::LOADERS, &adds)?;
    // Let the crossings of the change itself go by.
    thread::sleep(Duration::from_secs(1));
    Ok(())
}

/// Reads `GET /events?types=zone` on a thread of its own, noting each
/// event's latency under the layout running when it arrived.
fn subscribe(port: u16, layout: Arc<AtomicUsize>, received: Arc<Mutex<Received>>) -> Result<()> {
    let mut reader = sse::open(port, "/events?types=zone")?;
    thread::spawn(move || {
        sse::each_event(&mut reader, crate::sync::wall_clock_ms, |event, arrived| {
            let Some(data) = sse::data(event) else {
                return;
            };
            if let Some(time_ms) = data["time_ms"].as_f64() {
                let index = layout.load(Ordering::SeqCst);
                crate::sync::lock(&received).latency_ms[index].push(arrived - time_ms);
            }
        });
    });
    Ok(())
}

fn percentile(sorted: &[f64], share: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let index = ((sorted.len() as f64 * share).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[index]
}

fn print(cpu: &[[f64; 3]], subscribed: &[(f64, f64); 3], received: &Received) {
    let column = |index: usize| {
        cpu.iter()
            .map(|cores| format!("{:.3}", cores[index]))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let extra = |index: usize| {
        cpu.iter()
            .map(|cores| format!("{:+.3}", cores[index] - cores[0]))
            .collect::<Vec<_>>()
            .join(", ")
    };
    println!("bench: zones");
    println!("  server cores without zones, each round: {}", column(0));
    for (index, side) in [(1, FEW), (2, MANY)] {
        println!(
            "  server cores with {} zones ({} each), each round: {}",
            side * side * NETS,
            side * side,
            column(index)
        );
        println!(
            "  their cost, each round (cores; goal at 1,000 zones: at most +0.100): {}",
            extra(index)
        );
    }
    println!(
        "  with one subscriber of the zone events: {:.3} cores without zones",
        subscribed[0].0
    );
    for (index, side) in [(1, FEW), (2, MANY)] {
        let mut sorted = received.latency_ms[index].clone();
        sorted.sort_by(f64::total_cmp);
        println!(
            "  {} zones: {:.3} cores ({:+.3}), {:.0} zone events a second; latency (goal: p99 at most 50 ms): p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms over {} events",
            side * side * NETS,
            subscribed[index].0,
            subscribed[index].0 - subscribed[0].0,
            subscribed[index].1,
            percentile(&sorted, 0.5),
            percentile(&sorted, 0.99),
            sorted.last().copied().unwrap_or(f64::NAN),
            sorted.len()
        );
    }
}
