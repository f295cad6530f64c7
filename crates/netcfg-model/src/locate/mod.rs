//! Locating tags from what the anchors measured (decisions.md §12), and
//! predicting how well a layout of anchors can do it.
//!
//! Pure: no I/O, no clocks, no randomness. Units are millimetres, positions
//! are [`Point`]s `[x east, y north, z height]`.
//!
//! - [`Solver`]: solves one beacon's [`Link`]s into a [`Fix`] (Gauss–Newton
//!   on the normal equations, robust to non-line-of-sight outliers), with its
//!   own 95% horizontal error estimate from a pooled estimate of the
//!   measurement noise. [`Geometry`] says what it solves for: TDoA
//!   ([`Measure::ArrivalTimes`]: x, y, z and the emission time) or
//!   multilateration ([`Measure::Ranges`]: x, y, z), in 3-D, or in 2-D at a
//!   held height when the anchors' heights cannot resolve z.
//! - [`r95_horizontal`]: the radius holding 95% of a 2-D Gaussian, and
//!   [`quality_from_error`]: CDP's `quality` from it.
//! - [`horizontal_bound`]: the Cramér–Rao bound at a point, and
//!   [`coverage`]: that bound over a grid (`GET /coverage`).
//! - [`judge_survey`]: which anchors' configured positions the ranges
//!   between anchors contradict (`POST /survey`).
//! - [`Tracker`]: follows one tag over its fixes (decisions §18): a tracked
//!   position and velocity at each beacon, improbable fixes refused.
//!
//! ```
//! use netcfg_model::NetworkMode;
//! use netcfg_model::locate::{Geometry, Link, Solver, quality_from_error};
//!
//! let anchors = [
//!     [0.0, 0.0, 2_000.0],
//!     [20_000.0, 0.0, 3_000.0],
//!     [20_000.0, 15_000.0, 4_000.0],
//!     [0.0, 15_000.0, 2_500.0],
//!     [10_000.0, 7_000.0, 3_500.0],
//! ];
//! let mut solver = Solver::new(Geometry::of_anchors(NetworkMode::MultiTime.into(), &anchors));
//! // A beacon from (6 m, 4 m, 1 m), emitted 12 345 mm of light-time late.
//! let tag = [6_000.0, 4_000.0, 1_000.0];
//! let links: Vec<Link> = anchors
//!     .iter()
//!     .map(|&anchor| {
//!         let distance = (0..3).map(|i| (tag[i] - anchor[i]).powi(2)).sum::<f64>().sqrt();
//!         Link { anchor, value_mm: distance + 12_345.0 }
//!     })
//!     .collect();
//! let fix = solver.solve(&links, None).unwrap();
//! assert!((fix.position[0] - 6_000.0).abs() < 1.0 && (fix.position[1] - 4_000.0).abs() < 1.0);
//! assert_eq!((fix.links_used, fix.rejected), (5, 0));
//! assert!(quality_from_error(fix.error_mm) > 0);
//! ```

mod bound;
mod coverage;
mod height;
mod lsq;
mod noise;
mod r95;
mod solver;
mod survey;
mod track;

#[cfg(test)]
mod simulation_tests;
#[cfg(test)]
mod testkit;
#[cfg(test)]
mod track_tests;

pub use bound::horizontal_bound;
pub use coverage::{
    COVERAGE_MARGIN_MM, Coverage, CoverageError, CoverageRequest, MAX_CELLS, coverage,
};
pub use height::{HEIGHT_DRIFT_MM2_PER_S, HEIGHT_PRIOR_SD_MM, HeightBelief};
pub use r95::{quality_from_error, r95_horizontal};
pub use solver::Solver;
pub use survey::{
    AnchorJudgement, BAD_ABOVE_MM, GOOD_BELOW_MM, SurveyRange, Verdict, judge_survey,
};
pub use track::{
    DEFAULT_MAX_SPEED_MM_S, MAX_MAX_SPEED_MM_S, MIN_MAX_SPEED_MM_S, RESTART_AFTER_REFUSALS,
    RESTART_AFTER_S, Track, TrackSettings, Tracker, Tracking,
};

use crate::NetworkMode;

/// A position in millimetres: x east, y north, z height.
pub type Point = [f64; 3];

/// Below this span of the anchors' heights (mm), their geometry cannot
/// resolve a tag's height: the solver holds z (see [`Height::Held`]).
pub const MIN_HEIGHT_SPAN_MM: f64 = 1_000.0;

/// How much worse than x and y the anchors may measure z for the solver to
/// estimate it (see [`Geometry::of_anchors`]).
pub const MAX_VERTICAL_RATIO: f64 = 4.0;

/// The height (mm) a tag is assumed to be at: where z is held, and where a
/// solve without a previous position starts.
pub const DEFAULT_TAG_HEIGHT_MM: f64 = 1_000.0;

/// Which measurements a beacon yields.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Measure {
    /// TDoA (`multitime`): each link's value is the beacon's arrival time at
    /// that anchor, as distance (time × speed of light, mm), with an unknown
    /// common offset (the emission time). Unknowns: x, y, z and the offset.
    ArrivalTimes,
    /// Multilateration (`multirange`): each link's value is the two-way range
    /// to that anchor (mm). Unknowns: x, y, z.
    Ranges,
}

impl From<NetworkMode> for Measure {
    fn from(mode: NetworkMode) -> Self {
        match mode {
            NetworkMode::MultiTime => Self::ArrivalTimes,
            NetworkMode::MultiRange => Self::Ranges,
        }
    }
}

/// Whether the solver estimates a tag's height.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Height {
    /// z is an unknown of the estimate.
    Solved,
    /// The anchors' heights cannot resolve z: the solver works in 2-D with z
    /// held at this height (mm).
    Held(f64),
}

/// How the solver treats the anchors' geometry, decided once per
/// configuration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Geometry {
    /// What a beacon's links measure.
    pub measure: Measure,
    /// Whether z is solved or held.
    pub height: Height,
}

impl Geometry {
    /// Decides from the configured anchors: when their heights span less than
    /// [`MIN_HEIGHT_SPAN_MM`] (or there are none), or the bound at their
    /// centre says they measure z more than [`MAX_VERTICAL_RATIO`] times
    /// worse than x and y, z is held at [`DEFAULT_TAG_HEIGHT_MM`]; otherwise
    /// it is solved. Anchors with a
    /// non-finite height are ignored.
    pub fn of_anchors(measure: Measure, anchors: &[Point]) -> Self {
        let heights = anchors
            .iter()
            .map(|anchor| anchor[2])
            .filter(|z| z.is_finite());
        let (low, high) = heights.fold((f64::INFINITY, f64::NEG_INFINITY), |(low, high), z| {
            (low.min(z), high.max(z))
        });
        let solved = Self {
            measure,
            height: Height::Solved,
        };
        if high - low >= MIN_HEIGHT_SPAN_MM && solved.resolves_height(anchors) {
            solved
        } else {
            Self {
                measure,
                height: Height::Held(DEFAULT_TAG_HEIGHT_MM),
            }
        }
    }

    /// Whether the anchors resolve a tag's height well enough to be worth
    /// solving: at their centre, at [`DEFAULT_TAG_HEIGHT_MM`], the bound's
    /// vertical σ is within [`MAX_VERTICAL_RATIO`] of the horizontal one.
    /// Anchors all on the ceiling (heights 2 to 4 m, tags at 1 m) measure z
    /// about ten times worse than x and y; solving it anyway lets a delayed
    /// (NLOS) measurement hide in z and pull x and y far off.
    fn resolves_height(&self, anchors: &[Point]) -> bool {
        let finite: Vec<Point> = anchors
            .iter()
            .copied()
            .filter(|anchor| anchor.iter().all(|value| value.is_finite()))
            .collect();
        if finite.is_empty() {
            return false;
        }
        let count = finite.len() as f64;
        let centre = [
            finite.iter().map(|anchor| anchor[0]).sum::<f64>() / count,
            finite.iter().map(|anchor| anchor[1]).sum::<f64>() / count,
            DEFAULT_TAG_HEIGHT_MM,
        ];
        let model = lsq::Model::of(self);
        let normal = model.normal_matrix(finite.iter().copied(), centre);
        let Some(inverse) = model.invert(normal) else {
            return false;
        };
        let vertical = inverse[(2, 2)];
        let horizontal = (inverse[(0, 0)] + inverse[(1, 1)]) / 2.0;
        vertical.sqrt() <= MAX_VERTICAL_RATIO * horizontal.sqrt()
    }

    /// x, y and z solved (whatever the anchors).
    pub fn solved(measure: Measure) -> Self {
        Self {
            measure,
            height: Height::Solved,
        }
    }

    /// How many unknowns the estimate has: 4 for TDoA in 3-D, 3 for TDoA in
    /// 2-D or ranges in 3-D, 2 for ranges in 2-D.
    pub fn unknowns(&self) -> usize {
        let height = usize::from(self.height == Height::Solved);
        let offset = usize::from(self.measure == Measure::ArrivalTimes);
        2 + height + offset
    }

    /// The fewest links that give a fix: as many as there are unknowns (no
    /// redundancy needed), but at least 3 (two ranges in 2-D leave a mirror
    /// ambiguity).
    pub fn links_needed(&self) -> usize {
        self.unknowns().max(3)
    }
}

/// One anchor's measurement of one beacon.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Link {
    /// The anchor's configured position.
    pub anchor: Point,
    /// The arrival time as distance, or the range, in mm (see [`Measure`]).
    pub value_mm: f64,
}

/// A solved beacon.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fix {
    /// The estimated position; where [`Height::Held`], z is the held height
    /// ([`Solver::solve`]) or the tag's learned one ([`Solver::solve_near`]).
    pub position: Point,
    /// The estimate's x, y covariance (mm²): σ̂² (HᵀH)⁻¹ restricted to x, y,
    /// with σ̂ the solver's pooled noise estimate (or this fix's own, if
    /// larger, when its residuals stay inconsistent after outlier rejection).
    pub horizontal_covariance: [[f64; 2]; 2],
    /// The 95% horizontal error radius (mm) of that covariance
    /// ([`r95_horizontal`]).
    pub error_mm: f64,
    /// The standard deviation (mm) of z where the fix estimates it (solved,
    /// or drawn to a learned height by [`Solver::solve_near`]); `None`
    /// where z is held.
    pub vertical_sd_mm: Option<f64>,
    /// Links the fix uses, after outlier rejection.
    pub links_used: u8,
    /// Links dropped as outliers (non-line-of-sight), at most 2.
    pub rejected: u8,
}

/// Why a beacon has no fix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Unsolved {
    /// Too few anchors heard the beacon (links with a non-finite value or
    /// anchor do not count).
    #[error("heard by {heard} anchors, needs {needs}")]
    TooFewLinks {
        /// Usable links.
        heard: usize,
        /// [`Geometry::links_needed`].
        needs: usize,
    },
    /// The normal matrix is singular or too ill-conditioned to trust (for
    /// example anchors on one line in 2-D).
    #[error("the anchors' geometry cannot locate this beacon")]
    Degenerate,
    /// No convergence within the iteration limit.
    #[error("the solution did not converge")]
    Diverged,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geometry_holds_z_when_the_anchors_heights_are_flat() {
        let flat = [
            [0.0, 0.0, 2_500.0],
            [5_000.0, 0.0, 3_000.0],
            [0.0, 5_000.0, 3_400.0],
        ];
        let geometry = Geometry::of_anchors(Measure::ArrivalTimes, &flat);
        assert_eq!(geometry.height, Height::Held(DEFAULT_TAG_HEIGHT_MM));
        assert_eq!(geometry.unknowns(), 3);
        assert_eq!(geometry.links_needed(), 3);

        // On the ceiling only (2 to 4 m), z is ten times worse than x, y.
        let ceiling = Geometry::of_anchors(Measure::ArrivalTimes, &testkit::SITE);
        assert_eq!(ceiling.height, Height::Held(DEFAULT_TAG_HEIGHT_MM));
        // Half near the floor, half up high: z is measured.
        let tall = [
            [0.0, 0.0, 300.0],
            [10_000.0, 0.0, 4_000.0],
            [10_000.0, 10_000.0, 300.0],
            [0.0, 10_000.0, 4_000.0],
            [5_000.0, 0.0, 300.0],
            [5_000.0, 10_000.0, 4_000.0],
        ];
        let geometry = Geometry::of_anchors(Measure::ArrivalTimes, &tall);
        assert_eq!(geometry.height, Height::Solved);
        assert_eq!((geometry.unknowns(), geometry.links_needed()), (4, 4));

        let ranges = Geometry::of_anchors(Measure::Ranges, &flat);
        assert_eq!((ranges.unknowns(), ranges.links_needed()), (2, 3));
        let ranges = Geometry::of_anchors(Measure::Ranges, &tall);
        assert_eq!((ranges.unknowns(), ranges.links_needed()), (3, 3));

        let none = Geometry::of_anchors(Measure::Ranges, &[]);
        assert_eq!(none.height, Height::Held(DEFAULT_TAG_HEIGHT_MM));
    }

    #[test]
    fn network_modes_map_to_measures() {
        assert_eq!(Measure::from(NetworkMode::MultiTime), Measure::ArrivalTimes);
        assert_eq!(Measure::from(NetworkMode::MultiRange), Measure::Ranges);
    }
}
