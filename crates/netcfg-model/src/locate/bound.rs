//! The Cramér–Rao bound: the best horizontal covariance any unbiased
//! estimate can reach at a point, from the anchors' geometry alone.

use super::lsq::{COINCIDENT_MM, Model, horizontal_block};
use super::{Geometry, Point};

/// The Cramér–Rao bound's horizontal covariance (mm²) at `at`, for
/// independent measurement noise of σ = `sigma_mm`, using the anchors within
/// `range_mm` of `at` (3-D distance).
///
/// The unknowns are the geometry's: z unknown when
/// [`Height::Solved`](super::Height::Solved), known when held; the emission
/// time unknown for [`Measure::ArrivalTimes`](super::Measure::ArrivalTimes).
/// The Fisher matrix is J = (1/σ²) Σ hᵢhᵢᵀ with hᵢ the unit vector from anchor
/// i to `at` (its solved coordinates), plus 1 for the emission time; the
/// bound is J⁻¹'s x, y block. Anchors within 1 mm of `at` are skipped (no
/// direction).
///
/// `None` when fewer anchors are in range than
/// [`Geometry::links_needed`], or J is singular or too ill-conditioned for
/// the solver to trust (it would answer
/// [`Unsolved::Degenerate`](super::Unsolved::Degenerate) there).
pub fn horizontal_bound(
    geometry: &Geometry,
    anchors: &[Point],
    at: Point,
    sigma_mm: f64,
    range_mm: f64,
) -> Option<[[f64; 2]; 2]> {
    let model = Model::of(geometry);
    let mut count = 0;
    let in_range = anchors.iter().copied().filter(|&anchor| {
        let distance = (0..3)
            .map(|i| (anchor[i] - at[i]).powi(2))
            .sum::<f64>()
            .sqrt();
        let usable = distance <= range_mm && distance >= COINCIDENT_MM;
        count += usize::from(usable);
        usable
    });
    let normal = model.normal_matrix(in_range, at);
    if count < geometry.links_needed() {
        return None;
    }
    let inverse = model.invert(normal)?;
    let variance = sigma_mm * sigma_mm;
    Some(horizontal_block(&inverse).map(|row| row.map(|value| value * variance)))
}

#[cfg(test)]
mod tests {
    use super::super::testkit::SITE;
    use super::super::{Height, Measure, r95_horizontal};
    use super::*;

    #[test]
    fn the_bound_scales_with_the_noise_and_needs_enough_anchors() {
        let geometry = Geometry::solved(Measure::ArrivalTimes);
        let at = [7_000.0, 6_000.0, 1_000.0];
        let bound = horizontal_bound(&geometry, &SITE, at, 30.0, 40_000.0).unwrap();
        let tenfold = horizontal_bound(&geometry, &SITE, at, 300.0, 40_000.0).unwrap();
        assert!((tenfold[0][0] / bound[0][0] - 100.0).abs() < 1e-9);
        assert!((bound[0][1] - bound[1][0]).abs() < 1e-9);
        // Inside the anchors the horizontal error is of the order of σ.
        let r95 = r95_horizontal(bound);
        assert!(r95 > 30.0 && r95 < 200.0, "{r95}");
        // Three anchors within 15 m of the room's corner: too few for 4
        // unknowns; five within 20 m.
        let corner = [1_000.0, 1_000.0, 1_000.0];
        assert!(horizontal_bound(&geometry, &SITE, corner, 30.0, 15_000.0).is_none());
        assert!(horizontal_bound(&geometry, &SITE, corner, 30.0, 20_000.0).is_some());
    }

    #[test]
    fn knowing_z_or_the_emission_time_only_helps() {
        let at = [12_000.0, 4_000.0, 1_000.0];
        let trace = |measure, height| {
            let geometry = Geometry { measure, height };
            let bound = horizontal_bound(&geometry, &SITE, at, 30.0, 40_000.0).unwrap();
            bound[0][0] + bound[1][1]
        };
        let tdoa_3d = trace(Measure::ArrivalTimes, Height::Solved);
        let tdoa_2d = trace(Measure::ArrivalTimes, Height::Held(1_000.0));
        let ranges_3d = trace(Measure::Ranges, Height::Solved);
        let ranges_2d = trace(Measure::Ranges, Height::Held(1_000.0));
        assert!(tdoa_3d >= tdoa_2d && tdoa_2d >= ranges_2d);
        assert!(tdoa_3d >= ranges_3d && ranges_3d >= ranges_2d);
    }

    #[test]
    fn an_anchor_at_the_point_is_skipped() {
        let geometry = Geometry::solved(Measure::Ranges);
        let at = SITE[0];
        let with = horizontal_bound(&geometry, &SITE, at, 30.0, 40_000.0).unwrap();
        let without = horizontal_bound(&geometry, &SITE[1..], at, 30.0, 40_000.0).unwrap();
        assert_eq!(with, without);
    }
}
