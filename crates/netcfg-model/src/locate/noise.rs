//! The pooled estimate of one measurement's noise, and the test that says a
//! fix's residuals are too large for it.
//!
//! The engine never knows the true σ. A single fix has few degrees of
//! freedom (6 links, 4 unknowns: 2), so its own RSS says little; pooled over
//! hundreds of fixes it is precise, and a fix's error estimate from it is
//! calibrated.

/// σ (mm) assumed until [`WARMUP_FIXES`] fixes have been pooled.
const INITIAL_SIGMA_MM: f64 = 50.0;
/// Fixes pooled before the estimate is used.
const WARMUP_FIXES: usize = 20;
/// The pool's memory: each fix weighs 1/500 once that many are pooled (a
/// plain mean before).
const MEMORY_FIXES: f64 = 500.0;
/// The pooled σ stays within these bounds (mm).
const SIGMA_BOUNDS_MM: (f64, f64) = (1.0, 10_000.0);
/// A residual larger than this many σ̂ (studentised) marks an outlier.
const MAX_NORMALISED_RESIDUAL: f64 = 3.5;

/// The 99.9% quantiles of χ² with 1 to 30 degrees of freedom.
const CHI_SQUARE_999: [f64; 30] = [
    10.828, 13.816, 16.266, 18.467, 20.515, 22.458, 24.322, 26.124, 27.877, 29.588, 31.264, 32.909,
    34.528, 36.123, 37.697, 39.252, 40.790, 42.312, 43.820, 45.315, 46.797, 48.268, 49.728, 51.179,
    52.620, 54.052, 55.476, 56.892, 58.301, 59.703,
];

/// The medians of χ² with 1 to 4 degrees of freedom; beyond, the
/// Wilson–Hilferty approximation is within 0.1%.
const CHI_SQUARE_MEDIAN: [f64; 4] = [0.454_936, 1.386_294, 2.365_974, 3.356_694];

/// The 99.9% quantile of χ² with `dof` degrees of freedom (≥ 1).
pub(super) fn chi_square_999(dof: usize) -> f64 {
    match CHI_SQUARE_999.get(dof.max(1) - 1) {
        Some(&quantile) => quantile,
        // Wilson–Hilferty with z(0.999) = 3.0902.
        None => wilson_hilferty(dof as f64, 3.090_232),
    }
}

fn chi_square_median(dof: usize) -> f64 {
    match CHI_SQUARE_MEDIAN.get(dof.max(1) - 1) {
        Some(&median) => median,
        None => wilson_hilferty(dof as f64, 0.0),
    }
}

fn wilson_hilferty(dof: f64, z: f64) -> f64 {
    let spread = 2.0 / (9.0 * dof);
    dof * (1.0 - spread + z * spread.sqrt()).powi(3)
}

/// Whether a fix's residuals fit the noise σ̂: its RSS within χ²'s 99.9%
/// quantile, and no studentised residual `|r| / (σ̂ √(1 − leverage))` above
/// 3.5. `residuals` yields (residual, leverage) per link.
pub(super) fn consistent(
    sigma: f64,
    rss: f64,
    dof: usize,
    residuals: impl Iterator<Item = (f64, f64)>,
) -> bool {
    if dof == 0 {
        return true;
    }
    let variance = sigma * sigma;
    if rss > chi_square_999(dof) * variance {
        return false;
    }
    let limit = MAX_NORMALISED_RESIDUAL * MAX_NORMALISED_RESIDUAL * variance;
    residuals.into_iter().all(|(residual, leverage)| {
        // A link the fit follows entirely has no residual to judge.
        let free = (1.0 - leverage).max(1e-6);
        residual * residual <= limit * free
    })
}

/// A pooled estimate of σ², from the RSS of fixes with redundancy.
///
/// The first [`WARMUP_FIXES`] fixes are pooled whatever their residuals, as a
/// median (each RSS over the median of χ² with its dof): the outlier test
/// needs σ̂, so it cannot screen them, and a median shrugs off the outliers
/// among them. After that, only fixes that pass the outlier test are pooled
/// (an exponentially weighted mean of RSS/dof, weight 1/500): a fix with an
/// outlier would inflate it, and one after rejection, picked for its small
/// RSS, would deflate it.
#[derive(Debug, Clone)]
pub(super) struct NoisePool {
    warmup: [f64; WARMUP_FIXES],
    pooled: usize,
    variance: f64,
}

impl NoisePool {
    pub(super) fn new() -> Self {
        Self {
            warmup: [0.0; WARMUP_FIXES],
            pooled: 0,
            variance: INITIAL_SIGMA_MM * INITIAL_SIGMA_MM,
        }
    }

    /// σ̂ (mm): 50 until the warm-up is complete, then the pooled value,
    /// within [1, 10 000].
    pub(super) fn sigma_mm(&self) -> f64 {
        self.variance
            .sqrt()
            .clamp(SIGMA_BOUNDS_MM.0, SIGMA_BOUNDS_MM.1)
    }

    /// Pools one fix's RSS (mm²) with `dof` degrees of freedom, before any
    /// outlier rejection; `consistent` is the outlier test's verdict on it.
    pub(super) fn pool(&mut self, rss: f64, dof: usize, consistent: bool) {
        if dof == 0 || !rss.is_finite() {
            return;
        }
        if self.pooled < WARMUP_FIXES {
            self.warmup[self.pooled] = rss / chi_square_median(dof);
            self.pooled += 1;
            if self.pooled == WARMUP_FIXES {
                let mut sorted = self.warmup;
                sorted.sort_by(f64::total_cmp);
                self.variance = (sorted[WARMUP_FIXES / 2 - 1] + sorted[WARMUP_FIXES / 2]) / 2.0;
            }
        } else if consistent {
            self.pooled += 1;
            let weight = (1.0 / self.pooled as f64).max(1.0 / MEMORY_FIXES);
            self.variance += weight * (rss / dof as f64 - self.variance);
        }
        let (low, high) = SIGMA_BOUNDS_MM;
        self.variance = self.variance.clamp(low * low, high * high);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// P(χ² > x) for an even number of degrees of freedom, in closed form.
    fn even_chi_square_tail(dof: usize, x: f64) -> f64 {
        let half = x / 2.0;
        let mut term = 1.0;
        let mut sum = 1.0;
        for k in 1..dof / 2 {
            term *= half / k as f64;
            sum += term;
        }
        (-half).exp() * sum
    }

    #[test]
    fn the_quantile_table_is_right() {
        for dof in (2..=30).step_by(2) {
            let tail = even_chi_square_tail(dof, chi_square_999(dof));
            assert!((tail - 0.001).abs() < 2e-6, "dof {dof}: {tail}");
        }
        assert!((even_chi_square_tail(2, chi_square_median(2)) - 0.5).abs() < 1e-6);
        assert!((even_chi_square_tail(4, chi_square_median(4)) - 0.5).abs() < 1e-6);
        // The approximation beyond the table joins it smoothly.
        assert!((wilson_hilferty(30.0, 3.090_232) / chi_square_999(30) - 1.0).abs() < 0.005);
        assert!(chi_square_999(31) > chi_square_999(30));
    }

    #[test]
    fn the_pool_starts_at_50_mm_and_learns_from_a_median() {
        let mut pool = NoisePool::new();
        for _ in 0..WARMUP_FIXES - 1 {
            pool.pool(2.0 * 1.386_294 * 900.0, 2, false);
        }
        assert_eq!(pool.sigma_mm(), INITIAL_SIGMA_MM);
        pool.pool(1e12, 2, false);
        assert!((pool.sigma_mm() - (2.0 * 900.0f64).sqrt()).abs() < 1e-9);
        // After the warm-up an inconsistent fix is not pooled.
        pool.pool(1e12, 2, false);
        assert!((pool.sigma_mm() - (2.0 * 900.0f64).sqrt()).abs() < 1e-9);
        pool.pool(0.0, 0, true);
        assert!((pool.sigma_mm() - (2.0 * 900.0f64).sqrt()).abs() < 1e-9);
        for _ in 0..10_000 {
            pool.pool(2.0 * 400.0, 2, true);
        }
        assert!((pool.sigma_mm() - 20.0).abs() < 1e-6);
        for _ in 0..10_000 {
            pool.pool(0.0, 2, true);
        }
        assert_eq!(pool.sigma_mm(), 1.0);
    }

    #[test]
    fn the_outlier_test_studentises_residuals() {
        let sigma = 10.0;
        assert!(consistent(sigma, 100.0, 2, [(34.0, 0.0)].into_iter()));
        assert!(!consistent(sigma, 100.0, 2, [(36.0, 0.0)].into_iter()));
        // Half the link's noise absorbed by the fit: its limit is 3.5σ√0.5.
        assert!(!consistent(sigma, 100.0, 2, [(25.0, 0.5)].into_iter()));
        assert!(!consistent(sigma, 1_400.0, 2, std::iter::empty()));
        assert!(consistent(sigma, 1e9, 0, [(1e6, 0.0)].into_iter()));
    }
}
