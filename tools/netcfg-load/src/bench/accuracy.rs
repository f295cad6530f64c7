//! Solved locations (issue 26): how close the engine's fixes come to the
//! physical limit, on the real server, from outside.
//!
//! The layout of the goals: 6 anchors at 2 to 4 m in a 20 m × 15 m room
//! (the first the seeder) and nine reference tags standing at 1 m on a
//! 3 × 3 grid. Each scenario sets the simulator's radio in the instance,
//! runs for a while and reads `GET /accuracy`:
//! - `toa_noise_mm=30`: each tag's horizontal RMS against the Cramér–Rao
//!   bound of its geometry, computed here independently of the server
//!   (TDoA: x, y, the emission time, and z where the server solves it);
//!   the share of fixes
//!   within their own `error_mm`; and `GET /coverage` at each tag's point
//!   against the tag's measured R95 and against this bound's R95;
//! - `toa_noise_mm=300`: ten times the noise, the RMS ratio;
//! - 5% NLOS (mean 500 mm): R95 against 2.5 × the clean R95 + 50 mm;
//! - one reference tag displaced by 300 mm: its mean error shows it;
//! - one anchor displaced by 1.5 m: the survey's verdicts and suggestion.

use std::{path::Path, thread, time::Duration};

use anyhow::{Context, Result};

use super::{create_net, met, net_action, step};
use crate::server::{Client, Launch, Rng, Value};

/// Anchors: serial, role, x, y, z (mm).
const ANCHORS: [(&str, u8, f64, f64, f64); 6] = [
    ("01:04:0001", 3, 0.0, 0.0, 2_000.0),
    ("01:04:0002", 2, 20_000.0, 0.0, 3_000.0),
    ("01:04:0003", 2, 20_000.0, 15_000.0, 4_000.0),
    ("01:04:0004", 2, 0.0, 15_000.0, 2_500.0),
    ("01:04:0005", 2, 10_000.0, 0.0, 3_500.0),
    ("01:04:0006", 2, 10_000.0, 15_000.0, 2_000.0),
];
/// The reference tags' grid (mm); each point is a coverage cell's centre
/// at 500 mm (the grid starts 2 m before the anchors).
const XS: [f64; 3] = [4_000.0, 10_000.0, 16_000.0];
const YS: [f64; 3] = [3_500.0, 7_500.0, 11_500.0];
const TAG_HEIGHT: f64 = 1_000.0;
/// The displacements of the last two scenarios (mm).
const TAG_DISPLACED_MM: f64 = 300.0;
const ANCHOR_DISPLACED_MM: f64 = 1_500.0;

/// One reference tag's figures in one scenario.
#[derive(Debug, Clone)]
struct TagFigures {
    serial: String,
    at: [f64; 2],
    fixes: u64,
    mean: f64,
    rms: f64,
    r95: f64,
    within: f64,
}

fn reference_serial(index: usize) -> String {
    format!("01:05:{:04X}", index + 1)
}

fn reference_points() -> Vec<[f64; 2]> {
    YS.iter()
        .flat_map(|y| XS.iter().map(move |x| [*x, *y]))
        .collect()
}

/// A device's body: one interface of `role` at `at` (mm).
pub(super) fn device_body(serial: &str, role: u8, at: [f64; 3]) -> String {
    format!(
        r#"{{"serial_number": "{serial}", "disabled": false, "interfaces": [{{"identifier": 0, "role_id": {role}, "x": {}, "y": {}, "z": {}}}]}}"#,
        at[0], at[1], at[2]
    )
}

/// The room's configuration on the simulator, with its six anchors (the
/// tracking bench's room too).
pub(super) fn room_with_anchors(client: &Client, net: &str) -> Result<()> {
    create_net(client, net)?;
    for (serial, role, x, y, z) in ANCHORS {
        let body = device_body(serial, role, [x, y, z]);
        client.expect_ok("POST", &format!("/nets/{net}/devices"), Some(&body))?;
    }
    Ok(())
}

/// The room: its anchors and reference tags, on the simulator.
fn build_room(client: &Client, net: &str) -> Result<()> {
    room_with_anchors(client, net)?;
    for (index, [x, y]) in reference_points().into_iter().enumerate() {
        let body = device_body(&reference_serial(index), 4, [x, y, TAG_HEIGHT]);
        client.expect_ok("POST", &format!("/nets/{net}/devices"), Some(&body))?;
    }
    // This bench measures the solver's fixes against the bound: untracked
    // (the tracker's own figures are `--only tracking`'s).
    client.expect_ok(
        "PATCH",
        &format!("/nets/{net}/roles/4"),
        Some(r#"{"tracking": "off"}"#),
    )?;
    Ok(())
}

/// Runs `net` with `instance` for `seconds` and reads each reference tag's
/// accuracy.
fn run_scenario(
    client: &Client,
    net: &str,
    instance: &str,
    seconds: u32,
) -> Result<Vec<TagFigures>> {
    let body = format!(r#"{{"name": "{net}", "instance": "{instance}"}}"#);
    client.expect_ok("PATCH", &format!("/nets/{net}"), Some(&body))?;
    net_action(client, net, "start")?;
    thread::sleep(Duration::from_secs(u64::from(seconds)));
    let accuracy = client
        .expect_ok("GET", &format!("/nets/{net}/accuracy"), None)?
        .payload("accuracy")?;
    net_action(client, net, "stop")?;
    let points = reference_points();
    accuracy
        .as_array()
        .context("accuracy is a list")?
        .iter()
        .map(|tag| {
            let serial = tag["serial_number"]
                .as_str()
                .context("a serial")?
                .to_owned();
            let index = (0..points.len())
                .find(|index| reference_serial(*index) == serial)
                .context("a reference tag of the grid")?;
            let number = |field: &str| tag[field].as_f64().with_context(|| field.to_owned());
            Ok(TagFigures {
                serial,
                at: points[index],
                fixes: tag["fixes"].as_u64().unwrap_or(0),
                mean: number("mean_error_mm")?,
                rms: number("rms_mm")?,
                r95: number("r95_mm")?,
                within: number("within_estimate")?,
            })
        })
        .collect()
}

pub(crate) fn measure(binary: &Path, dir: &Path, seconds: u32) -> Result<()> {
    let launch = Launch::new(
        binary,
        &dir.join("accuracy"),
        &dir.join("server-accuracy.log"),
    );
    let server = launch.start()?;
    let client = server.client();
    let run_seconds = (seconds * 4).max(20);
    let net = "room";
    build_room(&client, net)?;

    step("accuracy: coverage predicted at the reference points");
    let coverage = client
        .expect_ok(
            "GET",
            &format!("/nets/{net}/coverage?resolution_mm=500&toa_noise_mm=30"),
            None,
        )?
        .payload("coverage")?;
    let predicted: Vec<f64> = reference_points()
        .iter()
        .map(|point| coverage_at(&coverage, *point))
        .collect::<Result<_>>()?;

    // Each run draws new radio noise (the simulator's seed repeats a run).
    let seed = Rng::seed_from_clock() % 1_000_000_000;
    println!("accuracy: simulator seeds {seed} to {}", seed + 4);
    let mut scenarios = Vec::new();
    for (label, instance) in [
        ("30 mm", format!("sim?toa_noise_mm=30&seed={seed}")),
        ("300 mm", format!("sim?toa_noise_mm=300&seed={}", seed + 1)),
        (
            "30 mm, 5% NLOS of 500 mm",
            format!(
                "sim?toa_noise_mm=30&nlos=0.05&nlos_bias_mm=500&seed={}",
                seed + 2
            ),
        ),
        (
            "30 mm, 01:05:0005 displaced 300 mm",
            format!(
                "sim?toa_noise_mm=30&seed={}&survey_error=01:05:0005:{TAG_DISPLACED_MM}:0:0",
                seed + 3
            ),
        ),
    ] {
        step(&format!("accuracy: {label} for {run_seconds} s"));
        let figures = run_scenario(&client, net, &instance, run_seconds)?;
        scenarios.push((label, figures));
    }

    step("accuracy: a survey with 01:04:0003 displaced 1.5 m");
    let body = format!(
        r#"{{"name": "{net}", "instance": "sim?toa_noise_mm=30&seed={}&survey_error=01:04:0003:{ANCHOR_DISPLACED_MM}:0:0"}}"#,
        seed + 4
    );
    client.expect_ok("PATCH", &format!("/nets/{net}"), Some(&body))?;
    net_action(&client, net, "start")?;
    thread::sleep(Duration::from_secs(2));
    let survey = client
        .expect_ok("POST", &format!("/nets/{net}/survey"), None)?
        .payload("survey")?;
    net_action(&client, net, "stop")?;
    drop(client);
    server.stop()?;

    print(&scenarios, &predicted, &survey)
}

/// The coverage's predicted error at a cell centre.
fn coverage_at(coverage: &Value, point: [f64; 2]) -> Result<f64> {
    let number = |field: &str| {
        coverage[field]
            .as_f64()
            .with_context(|| format!("coverage {field}"))
    };
    let (x0, y0, step) = (number("x0")?, number("y0")?, number("resolution_mm")?);
    let columns = number("columns")? as usize;
    let col = ((point[0] - x0) / step).round() as usize;
    let row = ((point[1] - y0) / step).round() as usize;
    coverage["error_mm"][row * columns + col]
        .as_f64()
        .context("the reference point is covered")
}

fn print(scenarios: &[(&str, Vec<TagFigures>)], predicted: &[f64], survey: &Value) -> Result<()> {
    let clean = &scenarios[0].1;
    print_clean(clean, predicted)?;
    print_noise_and_nlos(clean, &scenarios[1].1, &scenarios[2].1);
    print_displaced_tag(&scenarios[3].1);
    print_survey(survey)
}

/// The clean scenario's table: each reference tag against the bound and
/// the coverage map's prediction.
fn print_clean(clean: &[TagFigures], predicted: &[f64]) -> Result<()> {
    let anchors: Vec<[f64; 3]> = ANCHORS.iter().map(|(_, _, x, y, z)| [*x, *y, *z]).collect();
    println!(
        "accuracy (issue 26): 6 anchors at 2 to 4 m in a 20 m × 15 m room, nine reference tags at 1 m"
    );
    println!(
        "| tag | point (m) | fixes | RMS (mm) | CRB RMS (mm) | RMS ÷ CRB (goal ≤ 1.2) | within error_mm (goal 85–99.5%) | R95 (mm) | coverage R95 (mm) | measured ÷ coverage (goal 0.75–1.25) | CRB R95 here (mm) |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    let mut ratios = Vec::new();
    for (index, tag) in clean.iter().enumerate() {
        let point = [tag.at[0], tag.at[1], TAG_HEIGHT];
        let bound = crb::horizontal(&anchors, point, 30.0).context("the bound exists")?;
        let crb_rms = (bound[0][0] + bound[1][1]).sqrt();
        let ratio = tag.rms / crb_rms;
        ratios.push(ratio);
        let coverage = predicted.get(index).copied().unwrap_or(f64::NAN);
        println!(
            "| {} | {:.1}, {:.1} | {} | {:.1} | {:.1} | {:.3} | {:.1}% | {:.1} | {:.1} | {:.2} | {:.1} |",
            tag.serial,
            tag.at[0] / 1_000.0,
            tag.at[1] / 1_000.0,
            tag.fixes,
            tag.rms,
            crb_rms,
            ratio,
            tag.within * 100.0,
            tag.r95,
            coverage,
            tag.r95 / coverage,
            crb::r95(bound),
        );
    }
    let worst = ratios.iter().copied().fold(0.0, f64::max);
    println!(
        "worst RMS ÷ CRB {worst:.3} (goal ≤ 1.2: {})",
        met(worst <= 1.2)
    );
    Ok(())
}

/// Ten times the noise, and 5% of the measurements NLOS, against the clean
/// scenario.
fn print_noise_and_nlos(clean: &[TagFigures], noisy: &[TagFigures], nlos: &[TagFigures]) {
    let scale: Vec<f64> = noisy
        .iter()
        .zip(clean)
        .map(|(noisy, clean)| noisy.rms / clean.rms)
        .collect();
    println!(
        "ten times the noise: RMS × {} (about 10)",
        scale
            .iter()
            .map(|s| format!("{s:.1}"))
            .collect::<Vec<_>>()
            .join(", ")
    );

    let mut nlos_met = true;
    let rows: Vec<String> = nlos
        .iter()
        .zip(clean)
        .map(|(nlos, clean)| {
            let limit = 2.5 * clean.r95 + 50.0;
            nlos_met &= nlos.r95 <= limit;
            format!("{:.0}/{limit:.0}", nlos.r95)
        })
        .collect();
    println!(
        "5% NLOS: R95 ÷ its limit 2.5 × clean + 50 mm, per tag: {} ({})",
        rows.join(", "),
        met(nlos_met)
    );
    let within: Vec<String> = nlos
        .iter()
        .map(|tag| format!("{:.1}%", tag.within * 100.0))
        .collect();
    println!("5% NLOS: within error_mm {}", within.join(", "));
}

/// One reference tag displaced: its mean error against the others'.
fn print_displaced_tag(displaced: &[TagFigures]) {
    for tag in displaced {
        if tag.serial == "01:05:0005" {
            println!(
                "01:05:0005 displaced {TAG_DISPLACED_MM:.0} mm: mean error {:.1} mm (the others {})",
                tag.mean,
                displaced
                    .iter()
                    .filter(|other| other.serial != tag.serial)
                    .map(|other| format!("{:.0}", other.mean))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
    }
}

/// The survey with one anchor displaced: each anchor's residual, verdict
/// and suggested position.
fn print_survey(survey: &Value) -> Result<()> {
    println!("survey, 01:04:0003 displaced {ANCHOR_DISPLACED_MM:.0} mm east:");
    for anchor in survey["anchors"].as_array().context("survey anchors")? {
        let serial = anchor["serial_number"].as_str().unwrap_or("?");
        let suggested = &anchor["suggested"];
        let off = match (suggested["x"].as_f64(), suggested["y"].as_f64()) {
            (Some(x), Some(y)) => {
                let truth = ANCHORS
                    .iter()
                    .find(|(s, ..)| *s == serial)
                    .map_or([0.0; 2], |(_, _, x, y, _)| [*x + ANCHOR_DISPLACED_MM, *y]);
                format!(
                    ", suggested {:.0} mm from the truth",
                    (x - truth[0]).hypot(y - truth[1])
                )
            }
            _ => String::new(),
        };
        println!(
            "  {serial}: residual {} mm, {}{off}",
            anchor["residual_mm"],
            anchor["verdict"].as_str().unwrap_or("?")
        );
    }
    Ok(())
}

/// The Cramér–Rao bound of TDoA, written here apart from the server's, so
/// the two check each other: the unknowns x, y, the emission time, and z
/// unless the anchors measure it more than 4 times worse than x and y at
/// their centre (the server's documented rule: it then holds z at 1 m).
mod crb {
    /// The unknowns' Fisher matrix at `at` for noise `sigma` (mm).
    fn fisher(anchors: &[[f64; 3]], at: [f64; 3], sigma: f64, solve_z: bool) -> Vec<Vec<f64>> {
        let size = if solve_z { 4 } else { 3 };
        let mut fisher = vec![vec![0.0f64; size]; size];
        for anchor in anchors {
            let d = [at[0] - anchor[0], at[1] - anchor[1], at[2] - anchor[2]];
            let length = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
            if length < 1.0 {
                continue;
            }
            let row: Vec<f64> = if solve_z {
                vec![d[0] / length, d[1] / length, d[2] / length, 1.0]
            } else {
                vec![d[0] / length, d[1] / length, 1.0]
            };
            for i in 0..size {
                for j in 0..size {
                    fisher[i][j] += row[i] * row[j] / (sigma * sigma);
                }
            }
        }
        fisher
    }

    /// Whether the server solves z for these anchors (its rule, above).
    pub(super) fn solves_height(anchors: &[[f64; 3]]) -> bool {
        let count = anchors.len() as f64;
        let centre = [
            anchors.iter().map(|a| a[0]).sum::<f64>() / count,
            anchors.iter().map(|a| a[1]).sum::<f64>() / count,
            1_000.0,
        ];
        invert(fisher(anchors, centre, 1.0, true))
            .is_some_and(|c| c[2][2].sqrt() <= 4.0 * ((c[0][0] + c[1][1]) / 2.0).sqrt())
    }

    /// The horizontal block of the bound's covariance (mm²) at `at` for
    /// timing noise `sigma` (mm), from every anchor.
    pub(super) fn horizontal(
        anchors: &[[f64; 3]],
        at: [f64; 3],
        sigma: f64,
    ) -> Option<[[f64; 2]; 2]> {
        let inverse = invert(fisher(anchors, at, sigma, solves_height(anchors)))?;
        Some([
            [inverse[0][0], inverse[0][1]],
            [inverse[1][0], inverse[1][1]],
        ])
    }

    /// Gauss–Jordan with partial pivoting.
    fn invert(mut a: Vec<Vec<f64>>) -> Option<Vec<Vec<f64>>> {
        let size = a.len();
        let mut inverse: Vec<Vec<f64>> = (0..size)
            .map(|i| (0..size).map(|j| if i == j { 1.0 } else { 0.0 }).collect())
            .collect();
        let scale = a.iter().flatten().fold(0.0f64, |m, v| m.max(v.abs()));
        for column in 0..size {
            let pivot = (column..size)
                .max_by(|p, q| a[*p][column].abs().total_cmp(&a[*q][column].abs()))?;
            if a[pivot][column].abs() < 1e-9 * scale {
                return None;
            }
            a.swap(column, pivot);
            inverse.swap(column, pivot);
            let divisor = a[column][column];
            for j in 0..size {
                a[column][j] /= divisor;
                inverse[column][j] /= divisor;
            }
            for row in 0..size {
                if row != column {
                    let factor = a[row][column];
                    for j in 0..size {
                        a[row][j] -= factor * a[column][j];
                        inverse[row][j] -= factor * inverse[column][j];
                    }
                }
            }
        }
        Some(inverse)
    }

    /// The radius holding 95% of a 2-D Gaussian with covariance `c`, by
    /// bisection on its probability integrated over the angle.
    pub(super) fn r95(c: [[f64; 2]; 2]) -> f64 {
        let trace = c[0][0] + c[1][1];
        let root = ((c[0][0] - c[1][1]).powi(2) / 4.0 + c[0][1] * c[0][1]).sqrt();
        let large = trace / 2.0 + root;
        // A flat ellipse, bounded so the quadrature below resolves it.
        let small = (trace / 2.0 - root).max(1e-4 * large);
        // P(|X| ≤ r) = 1/(2π) ∫ (1 − exp(−r² q(θ)/2)) / (q(θ) √(λ1 λ2)) dθ,
        // q(θ) = cos²θ/λ1 + sin²θ/λ2.
        let inside = |r: f64| {
            let steps = 2_000;
            let mut sum = 0.0;
            for step in 0..steps {
                let theta = (f64::from(step) + 0.5) / f64::from(steps) * std::f64::consts::TAU;
                let q = theta.cos().powi(2) / large + theta.sin().powi(2) / small;
                sum += (1.0 - (-r * r * q / 2.0).exp()) / q;
            }
            sum / f64::from(steps) / (large * small).sqrt()
        };
        let (mut low, mut high) = (0.0, 10.0 * large.sqrt());
        for _ in 0..60 {
            let middle = (low + high) / 2.0;
            if inside(middle) < 0.95 {
                low = middle;
            } else {
                high = middle;
            }
        }
        (low + high) / 2.0
    }

    #[cfg(test)]
    mod tests {
        #[test]
        fn a_circular_gaussian_holds_95_percent_within_2_448_sigma() {
            let r = super::r95([[100.0, 0.0], [0.0, 100.0]]);
            assert!((r - 24.477).abs() < 0.05, "{r}");
            // A flat one: 1.96 σ of the long axis.
            let r = super::r95([[100.0, 0.0], [0.0, 1e-6]]);
            assert!((r - 19.6).abs() < 0.3, "{r}");
        }

        #[test]
        fn more_anchors_tighten_the_bound() {
            let square = [
                [0.0, 0.0, 300.0],
                [10_000.0, 0.0, 4_000.0],
                [10_000.0, 10_000.0, 300.0],
                [0.0, 10_000.0, 4_000.0],
            ];
            assert!(super::solves_height(&square));
            let at = [5_000.0, 5_000.0, 1_000.0];
            let four = super::horizontal(&square, at, 30.0).unwrap();
            let mut more = square.to_vec();
            more.push([5_000.0, 0.0, 2_000.0]);
            let five = super::horizontal(&more, at, 30.0).unwrap();
            assert!(five[0][0] + five[1][1] < four[0][0] + four[1][1]);
            // Two anchors cannot fix three unknowns.
            assert!(super::horizontal(&square[..2], at, 30.0).is_none());
            // On the ceiling only, z is held.
            assert!(!super::solves_height(
                &super::super::ANCHORS.map(|(_, _, x, y, z)| [x, y, z])
            ));
        }
    }
}
