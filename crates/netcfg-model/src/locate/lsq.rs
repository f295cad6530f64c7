//! The least-squares kernel that the solver, the bound and the survey share:
//! one Jacobian row per link, the normal matrix, Gauss–Newton.
//!
//! Every estimate lives in one 4-vector `[x, y, z, offset]`. An unknown the
//! model does not solve for gets a zero column and a 1 on the normal matrix's
//! diagonal, so it never moves and stays decoupled: the other entries of the
//! inverse are exactly those of the smaller problem. One fixed-size code path
//! then serves all four models, on the stack.

use nalgebra::{Matrix4, Vector4};

use super::{Geometry, Height, Link, Measure, Point, Unsolved};

/// Gauss–Newton steps before a solve gives up. A good start converges in 3
/// to 5; where noise meets a weakly determined height (TDoA at σ = 300 mm,
/// anchors 2 m apart in height), the way from the anchors' height band to
/// the minimum can take 15: at 10, 2% of those beacons went unsolved.
const MAX_ITERATIONS: usize = 20;
/// A step shorter than this (mm, over all unknowns) ends the iteration.
const CONVERGED_STEP_MM: f64 = 0.1;
/// So does a step this small against the estimate's own uncertainty
/// (Mahalanobis length, in units of σ): where the geometry leaves a
/// direction weak (z with anchors at much one height), Gauss–Newton crawls
/// along it in steps that are long in mm but say nothing statistically.
const CONVERGED_STEP_SIGMAS: f64 = 0.01;
/// Times a step is halved when it would raise the cost: far from the
/// solution a full Gauss–Newton step can overshoot.
const MAX_HALVINGS: usize = 5;
/// The largest condition number (estimated) of the normal matrix we trust:
/// beyond it, 1 mm of measurement error could move the estimate by 10 m.
const MAX_CONDITION: f64 = 1e8;
/// Closer than this (mm) to an anchor, the direction to it is undefined.
pub(super) const COINCIDENT_MM: f64 = 1.0;

const X: usize = 0;
const Y: usize = 1;
const Z: usize = 2;
const OFFSET: usize = 3;

/// Which unknowns an estimate solves for, besides x and y.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Model {
    /// Whether z is an unknown; if not, it stays at `held_z`.
    pub(super) solve_z: bool,
    /// The height z is held at when it is not solved.
    pub(super) held_z: f64,
    /// Whether the values share an unknown additive offset (TDoA's emission
    /// time).
    pub(super) offset: bool,
    /// Where z is not solved from the links alone: a belief about the tag's
    /// height that makes z an unknown again, drawn towards the belief.
    pub(super) prior: Option<HeightPrior>,
}

/// A soft hold of z: one more observation, "z is `z_mm`", weighed
/// `weight` times a link (the measurement variance over the belief's).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct HeightPrior {
    pub(super) z_mm: f64,
    pub(super) weight: f64,
}

impl Model {
    /// The model a configuration's geometry asks for.
    pub(super) fn of(geometry: &Geometry) -> Self {
        let (solve_z, held_z) = match geometry.height {
            Height::Solved => (true, 0.0),
            Height::Held(z) => (false, z),
        };
        Self {
            solve_z,
            held_z,
            offset: geometry.measure == Measure::ArrivalTimes,
            prior: None,
        }
    }

    /// How many unknowns the links alone must determine (a z drawn to a
    /// prior brings its own observation, so it does not count).
    pub(super) fn unknowns(&self) -> usize {
        2 + usize::from(self.solve_z) + usize::from(self.offset)
    }

    /// Whether z moves in the estimate: solved, or drawn to a prior.
    pub(super) fn estimates_z(&self) -> bool {
        self.solve_z || self.prior.is_some()
    }

    fn is_active(&self, index: usize) -> bool {
        match index {
            Z => self.estimates_z(),
            OFFSET => self.offset,
            _ => true,
        }
    }

    /// `position` with z held where the model holds it.
    pub(super) fn place(&self, mut position: Point) -> Point {
        if !self.estimates_z() {
            position[Z] = self.held_z;
        }
        position
    }

    /// The distance from `anchor` to `position` and the Jacobian row of a
    /// link's predicted value (distance + offset) there. Coincident points
    /// have no direction: their row keeps only the offset.
    fn row(&self, anchor: Point, position: Point) -> (f64, Vector4<f64>) {
        let delta = [
            position[X] - anchor[X],
            position[Y] - anchor[Y],
            position[Z] - anchor[Z],
        ];
        let distance = delta.iter().map(|d| d * d).sum::<f64>().sqrt();
        let scale = if distance > 1e-9 { 1.0 / distance } else { 0.0 };
        let z = if self.estimates_z() {
            delta[Z] * scale
        } else {
            0.0
        };
        let offset = if self.offset { 1.0 } else { 0.0 };
        (
            distance,
            Vector4::new(delta[X] * scale, delta[Y] * scale, z, offset),
        )
    }

    /// Puts 1 on the diagonal of every unknown not solved, so the padded
    /// matrix is invertible exactly when the solved block is.
    fn pad(&self, mut normal: Matrix4<f64>) -> Matrix4<f64> {
        for index in [Z, OFFSET] {
            if !self.is_active(index) {
                normal[(index, index)] = 1.0;
            }
        }
        normal
    }

    /// The padded inverse of a normal matrix, or `None` when it is singular
    /// or too ill-conditioned to trust. The condition number is estimated as
    /// max diag(N) × max diag(N⁻¹) over the solved unknowns (within a factor
    /// of 4 of the true one).
    pub(super) fn invert(&self, normal: Matrix4<f64>) -> Option<Matrix4<f64>> {
        let inverse = self.pad(normal).cholesky()?.inverse();
        let largest = |matrix: &Matrix4<f64>| {
            (0..4)
                .filter(|&index| self.is_active(index))
                .map(|index| matrix[(index, index)])
                .fold(0.0, f64::max)
        };
        let condition = largest(&normal) * largest(&inverse);
        (condition.is_finite() && condition <= MAX_CONDITION).then_some(inverse)
    }

    /// HᵀH at `at` for links from `anchors` (unpadded).
    pub(super) fn normal_matrix(
        &self,
        anchors: impl Iterator<Item = Point>,
        at: Point,
    ) -> Matrix4<f64> {
        anchors.fold(Matrix4::zeros(), |normal, anchor| {
            let (_, row) = self.row(anchor, at);
            normal + row * row.transpose()
        })
    }

    /// Gauss–Newton from `start` (z held if the model holds it; the offset
    /// starts at the mean of value − distance). Converged when a step is
    /// shorter than 0.1 mm or than 1% of its own standard deviation for
    /// measurement noise `noise_mm` (√(ΔᵀHᵀHΔ) < 0.01 σ), within 20 steps;
    /// a step that would raise the cost is halved first.
    pub(super) fn fit(
        &self,
        links: &[Link],
        start: Point,
        noise_mm: f64,
    ) -> Result<Solution, Unsolved> {
        let converged_squared = (CONVERGED_STEP_SIGMAS * noise_mm).powi(2);
        let mut position = self.place(start);
        let mut offset = 0.0;
        if self.offset && !links.is_empty() {
            let sum: f64 = links
                .iter()
                .map(|link| link.value_mm - self.row(link.anchor, position).0)
                .sum();
            offset = sum / links.len() as f64;
        }
        let mut current = self.evaluate(links, position, offset);
        for _ in 0..MAX_ITERATIONS {
            let step = self
                .pad(current.normal)
                .cholesky()
                .ok_or(Unsolved::Degenerate)?
                .solve(&current.gradient);
            if !step.iter().all(|value| value.is_finite()) {
                return Err(Unsolved::Diverged);
            }
            let decrease = (step.transpose() * current.normal * step)[(0, 0)];
            if step.norm() < CONVERGED_STEP_MM || decrease < converged_squared {
                let solution = Solution {
                    position: moved(position, &step, 1.0),
                    offset: offset + step[OFFSET],
                    rss: 0.0,
                    inverse: self.invert(current.normal).ok_or(Unsolved::Degenerate)?,
                };
                let rss = links
                    .iter()
                    .map(|link| solution.residual(self, link).powi(2))
                    .sum();
                return Ok(Solution { rss, ..solution });
            }
            (position, offset, current) = self.line_search(links, position, offset, current, &step);
        }
        Err(Unsolved::Diverged)
    }

    /// How far along the Gauss–Newton step to go. The full step is tried
    /// first. Where the model bends within a step (a weakly determined
    /// height, near the anchors' heights), full steps overshoot back and
    /// forth; the minimum of the parabola through the cost at 0 (value and
    /// slope) and at the full step catches that, at the price of one more
    /// evaluation only then. A step that still raises the cost is halved.
    fn line_search(
        &self,
        links: &[Link],
        position: Point,
        offset: f64,
        current: Evaluation,
        step: &Vector4<f64>,
    ) -> (Point, f64, Evaluation) {
        let at = |scale: f64| {
            let point = moved(position, step, scale);
            let point_offset = offset + scale * step[OFFSET];
            (
                point,
                point_offset,
                self.evaluate(links, point, point_offset),
            )
        };
        let mut best = at(1.0);
        // d(RSS)/d(scale) at 0 is −2 gᵀΔ; the parabola's curvature follows.
        let slope = -2.0 * current.gradient.dot(step);
        let curvature = best.2.rss - current.rss - slope;
        if curvature > 0.0 {
            let scale = (-slope / (2.0 * curvature)).clamp(0.05, 1.0);
            if (scale - 1.0).abs() > 0.2 {
                let candidate = at(scale);
                if candidate.2.rss < best.2.rss {
                    best = candidate;
                }
            }
        }
        let mut scale = 1.0;
        for _ in 0..MAX_HALVINGS {
            // Accept a step that does not raise the cost (allowing for
            // rounding); else the shortest one tried.
            if best.2.rss <= current.rss * (1.0 + 1e-9) + 1e-9 {
                break;
            }
            scale *= 0.5;
            best = at(scale);
        }
        best
    }

    /// The cost, normal matrix and gradient Hᵀr at one point (with the
    /// prior's observation of z, if any).
    fn evaluate(&self, links: &[Link], position: Point, offset: f64) -> Evaluation {
        let mut evaluation = Evaluation {
            rss: 0.0,
            normal: Matrix4::zeros(),
            gradient: Vector4::zeros(),
        };
        if let Some(prior) = self.prior {
            let residual = prior.z_mm - position[Z];
            evaluation.rss += prior.weight * residual * residual;
            evaluation.normal[(Z, Z)] += prior.weight;
            evaluation.gradient[Z] += prior.weight * residual;
        }
        for link in links {
            let (distance, row) = self.row(link.anchor, position);
            let residual = link.value_mm - distance - offset;
            evaluation.rss += residual * residual;
            evaluation.normal += row * row.transpose();
            evaluation.gradient += row * residual;
        }
        evaluation
    }
}

fn moved(position: Point, step: &Vector4<f64>, scale: f64) -> Point {
    [
        position[X] + scale * step[X],
        position[Y] + scale * step[Y],
        position[Z] + scale * step[Z],
    ]
}

/// What Gauss–Newton needs at one point.
#[derive(Debug)]
struct Evaluation {
    rss: f64,
    normal: Matrix4<f64>,
    gradient: Vector4<f64>,
}

/// A converged least-squares estimate.
#[derive(Debug, Clone, Copy)]
pub(super) struct Solution {
    /// The estimated position (z held where the model holds it).
    pub(super) position: Point,
    /// The estimated common offset (0 without one).
    pub(super) offset: f64,
    /// The residual sum of squares at the solution, mm².
    pub(super) rss: f64,
    /// (HᵀH)⁻¹ at the solution, padded (see the module's doc).
    pub(super) inverse: Matrix4<f64>,
}

impl Solution {
    /// A link's measured value minus its predicted one.
    pub(super) fn residual(&self, model: &Model, link: &Link) -> f64 {
        link.value_mm - model.row(link.anchor, self.position).0 - self.offset
    }

    /// A link's leverage hᵢᵀ(HᵀH)⁻¹hᵢ: the share of its own noise the fit
    /// absorbs, so its residual's variance is σ²(1 − leverage).
    pub(super) fn leverage(&self, model: &Model, link: &Link) -> f64 {
        let (_, row) = model.row(link.anchor, self.position);
        (row.transpose() * self.inverse * row)[(0, 0)]
    }

    /// The x, y block of (HᵀH)⁻¹ (mm² per mm² of measurement variance).
    pub(super) fn horizontal(&self) -> [[f64; 2]; 2] {
        horizontal_block(&self.inverse)
    }

    /// The standard deviation of z per unit measurement noise.
    pub(super) fn vertical_dilution(&self) -> f64 {
        self.inverse[(Z, Z)].max(0.0).sqrt()
    }
}

/// The x, y block of a 4 × 4 covariance.
pub(super) fn horizontal_block(matrix: &Matrix4<f64>) -> [[f64; 2]; 2] {
    [
        [matrix[(X, X)], matrix[(X, Y)]],
        [matrix[(Y, X)], matrix[(Y, Y)]],
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    const ANCHORS: [Point; 4] = [
        [0.0, 0.0, 3_000.0],
        [10_000.0, 0.0, 2_000.0],
        [10_000.0, 8_000.0, 3_500.0],
        [0.0, 8_000.0, 2_500.0],
    ];

    fn ranges_to(point: Point, offset: f64) -> Vec<Link> {
        ANCHORS
            .iter()
            .map(|&anchor| Link {
                anchor,
                value_mm: (0..3)
                    .map(|i| (point[i] - anchor[i]).powi(2))
                    .sum::<f64>()
                    .sqrt()
                    + offset,
            })
            .collect()
    }

    #[test]
    fn an_unsolved_unknown_stays_put_and_decoupled() {
        let model = Model {
            solve_z: false,
            held_z: 1_200.0,
            offset: false,
            prior: None,
        };
        let truth = [3_000.0, 5_000.0, 1_200.0];
        let solution = model
            .fit(&ranges_to(truth, 0.0), [5_000.0, 4_000.0, 9_999.0], 0.0)
            .unwrap();
        assert_eq!(solution.position[2], 1_200.0);
        assert!((solution.position[0] - truth[0]).abs() < 1e-3);
        assert!((solution.position[1] - truth[1]).abs() < 1e-3);
        assert!(solution.rss < 1e-6);
        assert_eq!(solution.inverse[(2, 2)], 1.0);
        assert_eq!(solution.inverse[(0, 3)], 0.0);
    }

    #[test]
    fn the_offset_is_an_unknown_of_arrival_times() {
        let model = Model {
            solve_z: false,
            held_z: 1_000.0,
            offset: true,
            prior: None,
        };
        let truth = [6_000.0, 2_000.0, 1_000.0];
        let solution = model
            .fit(
                &ranges_to(truth, 123_456.0),
                [5_000.0, 4_000.0, 1_000.0],
                0.0,
            )
            .unwrap();
        assert!((solution.offset - 123_456.0).abs() < 1e-3);
        assert!((solution.position[0] - truth[0]).abs() < 1e-3);
    }

    #[test]
    fn a_singular_normal_matrix_is_degenerate() {
        let model = Model {
            solve_z: true,
            held_z: 0.0,
            offset: true,
            prior: None,
        };
        // Every anchor in one horizontal plane, the point in it too: z has no
        // information at all.
        let flat: Vec<Point> = ANCHORS.iter().map(|a| [a[0], a[1], 0.0]).collect();
        let normal = model.normal_matrix(flat.into_iter(), [4_000.0, 3_000.0, 0.0]);
        assert!(model.invert(normal).is_none());
    }
}
