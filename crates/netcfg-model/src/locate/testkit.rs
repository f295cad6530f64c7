//! What the tests share: a seeded random source, the test site, and
//! measurements made from true positions.

use super::{Link, Measure, Point};

/// SplitMix64 with Box–Muller: deterministic, good enough for simulations.
#[derive(Debug, Clone)]
pub(super) struct Rng(u64);

impl Rng {
    pub(super) fn new(seed: u64) -> Self {
        Self(seed)
    }

    pub(super) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in (0, 1).
    pub(super) fn uniform(&mut self) -> f64 {
        ((self.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    /// Standard normal.
    pub(super) fn gaussian(&mut self) -> f64 {
        let (u, v) = (self.uniform(), self.uniform());
        (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
    }

    /// Exponential with this mean.
    pub(super) fn exponential(&mut self, mean: f64) -> f64 {
        -mean * self.uniform().ln()
    }
}

/// The test site: a 20 m × 15 m room, anchors at the corners and the middle
/// of the long walls, at heights from 2 to 4 m.
pub(super) const SITE: [Point; 6] = [
    [0.0, 0.0, 2_000.0],
    [10_000.0, 0.0, 3_600.0],
    [20_000.0, 0.0, 2_400.0],
    [20_000.0, 15_000.0, 4_000.0],
    [10_000.0, 15_000.0, 2_800.0],
    [0.0, 15_000.0, 3_200.0],
];

/// The benchmark's room (`netcfg-load bench --only accuracy` and
/// `tracking`): 20 m × 15 m, anchors at the corners and the middle of the
/// long walls at 2 to 4 m, where they measure z too poorly to solve it.
pub(super) const BENCH_ROOM: [Point; 6] = [
    [0.0, 0.0, 2_000.0],
    [20_000.0, 0.0, 3_000.0],
    [20_000.0, 15_000.0, 4_000.0],
    [0.0, 15_000.0, 2_500.0],
    [10_000.0, 0.0, 3_500.0],
    [10_000.0, 15_000.0, 2_000.0],
];

/// The tag the statistical tests locate.
pub(super) const TAG: Point = [7_000.0, 6_000.0, 1_000.0];

pub(super) fn distance(a: Point, b: Point) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

pub(super) fn horizontal_distance(a: Point, b: Point) -> f64 {
    (a[0] - b[0]).hypot(a[1] - b[1])
}

/// How measurements go wrong.
#[derive(Debug, Clone, Copy)]
pub(super) struct Errors {
    /// σ of the Gaussian noise, mm.
    pub(super) sigma_mm: f64,
    /// Probability that one link is non-line-of-sight.
    pub(super) nlos: f64,
    /// Mean of a non-line-of-sight link's extra delay, mm.
    pub(super) nlos_mean_mm: f64,
}

impl Errors {
    pub(super) fn gaussian(sigma_mm: f64) -> Self {
        Self {
            sigma_mm,
            nlos: 0.0,
            nlos_mean_mm: 0.0,
        }
    }
}

/// One beacon from `tag` as `anchors` measure it. Arrival times carry a
/// random emission time.
pub(super) fn measure(
    rng: &mut Rng,
    measure: Measure,
    anchors: &[Point],
    tag: Point,
    errors: Errors,
) -> Vec<Link> {
    let emission = match measure {
        Measure::ArrivalTimes => rng.uniform() * 1e7,
        Measure::Ranges => 0.0,
    };
    anchors
        .iter()
        .map(|&anchor| {
            let mut value = distance(anchor, tag) + emission + errors.sigma_mm * rng.gaussian();
            if rng.uniform() < errors.nlos {
                value += rng.exponential(errors.nlos_mean_mm);
            }
            Link {
                anchor,
                value_mm: value,
            }
        })
        .collect()
}

/// The value at fraction `share` of the sorted values.
pub(super) fn quantile(values: &[f64], share: f64) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[((sorted.len() as f64 * share) as usize).min(sorted.len() - 1)]
}

pub(super) fn rms(values: &[f64]) -> f64 {
    (values.iter().map(|v| v * v).sum::<f64>() / values.len() as f64).sqrt()
}
