//! The 95% horizontal error radius of a 2-D Gaussian, and CDP's quality.

use std::f64::consts::PI;
use std::sync::OnceLock;

/// Steps of the table of k(ρ) over ρ ∈ [0, 1].
const TABLE_STEPS: usize = 64;
/// Quadrature points over a quarter period (the integrand is symmetric).
const QUADRATURE_POINTS: usize = 128;
/// The probability the radius holds.
const PROBABILITY: f64 = 0.95;

/// The radius (mm) of the circle around the estimate that holds 95% of a
/// 2-D Gaussian with this covariance (mm²).
///
/// Exact, not a bound: with eigenvalues λ1 ≥ λ2 it is √λ1 · k(ρ), ρ = √(λ2/λ1),
/// from k(1) = √(−2 ln 0.05) ≈ 2.4477 (circular) down to k(0) ≈ 1.96 (all the
/// error along one axis). k comes from a table of 65 values of ρ, built once
/// by bisection on the probability, and is interpolated linearly.
///
/// A zero covariance gives 0; a non-finite one gives NaN.
pub fn r95_horizontal(covariance: [[f64; 2]; 2]) -> f64 {
    let [[xx, xy], [yx, yy]] = covariance;
    let xy = (xy + yx) / 2.0;
    if ![xx, xy, yy].iter().all(|value| value.is_finite()) {
        return f64::NAN;
    }
    let mean = (xx + yy) / 2.0;
    let spread = (((xx - yy) / 2.0).powi(2) + xy * xy).sqrt();
    let major = mean + spread;
    if major <= 0.0 {
        return 0.0;
    }
    let minor = (mean - spread).max(0.0);
    major.sqrt() * k_of_ratio((minor / major).sqrt())
}

/// k(ρ): the 95% radius in units of the major axis's σ.
fn k_of_ratio(ratio: f64) -> f64 {
    let table = K_TABLE.get_or_init(build_table);
    let position = ratio.clamp(0.0, 1.0) * TABLE_STEPS as f64;
    let below = (position.floor() as usize).min(TABLE_STEPS - 1);
    let fraction = position - below as f64;
    table[below] + fraction * (table[below + 1] - table[below])
}

static K_TABLE: OnceLock<[f64; TABLE_STEPS + 1]> = OnceLock::new();

fn build_table() -> [f64; TABLE_STEPS + 1] {
    std::array::from_fn(|step| {
        let ratio = step as f64 / TABLE_STEPS as f64;
        // P rises with k; k lies between the 1-D value (1.96) and the
        // circular one (2.45).
        let (mut low, mut high) = (1.5, 3.0);
        for _ in 0..60 {
            let middle = (low + high) / 2.0;
            if probability_within(middle, ratio) < PROBABILITY {
                low = middle;
            } else {
                high = middle;
            }
        }
        (low + high) / 2.0
    })
}

/// P(|X| ≤ k) for X with standard deviations 1 and ρ along its axes.
///
/// In polar form P = (1/2πσ1σ2) ∫₀^{2π} (1 − exp(−k² q(θ)/2)) / q(θ) dθ with
/// q(θ) = cos²θ/λ1 + sin²θ/λ2. Substituting tan θ = ρ tan φ turns dθ/q into
/// σ1σ2 dφ and q into 1/(λ1 (cos²φ + ρ² sin²φ)), so
/// P = 1 − (1/2π) ∫₀^{2π} exp(−k² / (2 (cos²φ + ρ² sin²φ))) dφ:
/// a smooth periodic integrand even as ρ → 0 (Craig's formula for the 1-D
/// case), which the midpoint rule integrates to machine precision.
fn probability_within(k: f64, ratio: f64) -> f64 {
    let step = (PI / 2.0) / QUADRATURE_POINTS as f64;
    let sum: f64 = (0..QUADRATURE_POINTS)
        .map(|index| {
            let angle = (index as f64 + 0.5) * step;
            let (sin, cos) = angle.sin_cos();
            let scale = cos * cos + ratio * ratio * sin * sin;
            (-k * k / (2.0 * scale)).exp()
        })
        .sum();
    1.0 - sum / QUADRATURE_POINTS as f64
}

/// The error (mm) at which quality is half its best.
const HALF_QUALITY_ERROR_MM: f64 = 200.0;

/// CDP's `quality` (0 to 10 000) from a fix's 95% error radius (mm):
/// 10 000 × 200 / (200 + error_mm), rounded. So 10 000 at 0 mm, 5 000 at
/// 200 mm, 1 000 at 1.8 m, falling steadily; a negative error counts as 0
/// and a non-finite one gives 0.
pub fn quality_from_error(error_mm: f64) -> u16 {
    if !error_mm.is_finite() {
        return 0;
    }
    let quality = 10_000.0 * HALF_QUALITY_ERROR_MM / (HALF_QUALITY_ERROR_MM + error_mm.max(0.0));
    quality.round() as u16
}

#[cfg(test)]
mod tests {
    use super::super::testkit::Rng;
    use super::*;

    #[test]
    fn the_circular_and_one_dimensional_limits_are_exact() {
        let circular = (-2.0 * 0.05f64.ln()).sqrt();
        assert!((r95_horizontal([[1.0, 0.0], [0.0, 1.0]]) - circular).abs() < 1e-6);
        assert!((circular - 2.447_747).abs() < 1e-6);
        assert!((r95_horizontal([[900.0, 0.0], [0.0, 900.0]]) - 30.0 * circular).abs() < 1e-4);
        // All the error along one axis: the 1-D 97.5% quantile.
        assert!((r95_horizontal([[0.0, 0.0], [0.0, 4.0]]) - 2.0 * 1.959_964).abs() < 1e-5);
        assert!((r95_horizontal([[4.0, 0.0], [0.0, 1e-12]]) - 2.0 * 1.959_964).abs() < 1e-4);
        assert_eq!(r95_horizontal([[0.0, 0.0], [0.0, 0.0]]), 0.0);
        assert!(r95_horizontal([[f64::NAN, 0.0], [0.0, 1.0]]).is_nan());
    }

    #[test]
    fn rotating_the_covariance_changes_nothing() {
        let (major, minor) = (400.0, 100.0);
        let axes = r95_horizontal([[major, 0.0], [0.0, minor]]);
        let (sin, cos) = 0.7f64.sin_cos();
        let xx = major * cos * cos + minor * sin * sin;
        let yy = major * sin * sin + minor * cos * cos;
        let xy = (major - minor) * sin * cos;
        assert!((r95_horizontal([[xx, xy], [xy, yy]]) - axes).abs() < 1e-9);
    }

    #[test]
    fn half_as_wide_matches_a_monte_carlo() {
        // ρ = 0.5: σ1 = 1, σ2 = 0.5.
        let radius = r95_horizontal([[1.0, 0.0], [0.0, 0.25]]);
        let mut rng = Rng::new(95);
        let samples = 200_000;
        let mut radii: Vec<f64> = (0..samples)
            .map(|_| rng.gaussian().hypot(0.5 * rng.gaussian()))
            .collect();
        radii.sort_by(f64::total_cmp);
        let empirical = radii[samples * 95 / 100];
        assert!(
            (empirical / radius - 1.0).abs() < 0.02,
            "{empirical} vs {radius}"
        );
        let within = radii.iter().filter(|&&r| r <= radius).count() as f64 / samples as f64;
        assert!((within - 0.95).abs() < 0.003, "{within}");
    }

    #[test]
    fn quality_falls_steadily_from_10000() {
        assert_eq!(quality_from_error(0.0), 10_000);
        assert_eq!(quality_from_error(-5.0), 10_000);
        assert_eq!(quality_from_error(200.0), 5_000);
        assert_eq!(quality_from_error(1_800.0), 1_000);
        assert_eq!(quality_from_error(f64::NAN), 0);
        assert_eq!(quality_from_error(f64::INFINITY), 0);
        assert_eq!(quality_from_error(1e300), 0);
        let mut previous = u16::MAX;
        for step in 0..10_000 {
            let quality = quality_from_error(step as f64 * 3.7);
            assert!(quality <= previous);
            previous = quality;
        }
    }
}
