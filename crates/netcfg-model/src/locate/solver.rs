//! The solver: one beacon's links to a fix, robust to non-line-of-sight
//! outliers, with an error estimate it can stand behind.

use super::height::HeightBelief;
use super::lsq::{HeightPrior, Model, Solution};
use super::noise::{NoisePool, consistent};
use super::r95::r95_horizontal;
use super::{DEFAULT_TAG_HEIGHT_MM, Fix, Geometry, Link, Point, Unsolved};

/// Links a solve uses at most; any beyond the first 32 are ignored.
const MAX_LINKS: usize = 32;
/// Outliers dropped from one beacon at most.
const MAX_REJECTIONS: u8 = 2;
/// A 3-D solution this far above the highest anchor (mm) may be the mirror
/// image of the tag through the anchors' near-horizontal plane: tags are
/// usually below the anchors, so the solver tries from below too.
const MIRROR_MARGIN_MM: f64 = 500.0;
/// Anchors whose horizontal spread across their line is below this share
/// of the spread along it are collinear: in 2-D they cannot tell a tag
/// from its mirror image through that line.
const COLLINEAR_VARIANCE_RATIO: f64 = 1e-6;

/// A configuration's solver: the geometry plus a pooled estimate of the
/// measurement noise, which each solve refines.
///
/// A solve allocates nothing: links are copied into a fixed array and the
/// algebra is on 4 × 4 matrices.
#[derive(Debug, Clone)]
pub struct Solver {
    geometry: Geometry,
    model: Model,
    noise: NoisePool,
}

impl Solver {
    /// A solver for this geometry, assuming 50 mm of noise until it has
    /// pooled 20 fixes.
    pub fn new(geometry: Geometry) -> Self {
        Self {
            model: Model::of(&geometry),
            geometry,
            noise: NoisePool::new(),
        }
    }

    /// The geometry it solves for.
    pub fn geometry(&self) -> &Geometry {
        &self.geometry
    }

    /// The current pooled σ̂ of one measurement, mm.
    pub fn noise_mm(&self) -> f64 {
        self.noise.sigma_mm()
    }

    /// Solves one beacon.
    ///
    /// `start` is the tag's previous position, if any (a good first guess);
    /// without it the solve starts at the centroid of the links' anchors, at
    /// [`DEFAULT_TAG_HEIGHT_MM`] (or the held height). Links with a
    /// non-finite value or anchor are ignored, and so are links beyond the
    /// first 32.
    ///
    /// Outliers: when the residuals do not fit the pooled noise (a
    /// studentised residual above 3.5 σ̂, or the RSS beyond χ²'s 99.9%
    /// quantile), the link whose removal leaves the smallest RSS is dropped,
    /// as long as the rest keep redundancy; at most twice. If the residuals
    /// still do not fit, the fix's own RSS/dof widens its error estimate.
    ///
    /// The fix's RSS refines the pooled noise estimate (see
    /// [`Solver::noise_mm`]).
    ///
    /// # Errors
    /// [`Unsolved::TooFewLinks`] below [`Geometry::links_needed`] usable
    /// links; [`Unsolved::Degenerate`] when the anchors' geometry cannot
    /// locate the beacon (in 2-D: anchors on one line);
    /// [`Unsolved::Diverged`] when Gauss–Newton does not converge.
    pub fn solve(&mut self, links: &[Link], start: Option<Point>) -> Result<Fix, Unsolved> {
        self.solve_with(links, start, None)
    }

    /// Solves one beacon of a tag whose height the solver has learned
    /// ([`HeightBelief`]): where the geometry holds z ([`Height::Held`]),
    /// z becomes an unknown drawn to the belief, so a tag carried higher
    /// or lower than the held height is not pulled sideways by the
    /// difference, and the fix's covariance includes what the height's
    /// uncertainty does to x and y. Where z is solved, the belief is not
    /// used. Otherwise as [`Solver::solve`].
    ///
    /// [`Height::Held`]: super::Height::Held
    ///
    /// # Errors
    /// As [`Solver::solve`].
    pub fn solve_near(
        &mut self,
        links: &[Link],
        start: Option<Point>,
        height: &HeightBelief,
        seconds: f64,
    ) -> Result<Fix, Unsolved> {
        let belief = (!self.model.solve_z).then(|| height.prior(seconds));
        self.solve_with(links, start, belief)
    }

    /// The solve, with z drawn to `belief` (height mm, variance mm²) if given.
    fn solve_with(
        &mut self,
        links: &[Link],
        start: Option<Point>,
        belief: Option<(f64, f64)>,
    ) -> Result<Fix, Unsolved> {
        let mut set = Links::usable(links);
        let needs = self.geometry.links_needed();
        if set.len < needs {
            return Err(Unsolved::TooFewLinks {
                heard: set.len,
                needs,
            });
        }
        if !self.model.solve_z && collinear(set.as_slice()) {
            return Err(Unsolved::Degenerate);
        }
        let sigma = self.noise.sigma_mm();
        let model = Model {
            prior: belief.map(|(z_mm, variance)| HeightPrior {
                z_mm,
                weight: sigma * sigma / variance.max(1.0),
            }),
            ..self.model
        };
        let unknowns = model.unknowns();
        let start = start
            .filter(|point| point.iter().all(|value| value.is_finite()))
            .unwrap_or_else(|| {
                let [x, y, z] = centroid(set.as_slice());
                [x, y, belief.map_or(z, |(z_mm, _)| z_mm)]
            });

        let mut solution = self.fit(&model, set.as_slice(), start, sigma)?;
        let mut fits = self.fits_noise(&model, &solution, set.as_slice(), sigma);
        self.noise.pool(solution.rss, set.len - unknowns, fits);
        let mut rejected = 0;
        while !fits && rejected < MAX_REJECTIONS && set.len > unknowns + 1 {
            let Some((index, better)) = self.best_leaving_one_out(&model, &set, &solution, sigma)
            else {
                break;
            };
            set = set.without(index);
            solution = better;
            rejected += 1;
            fits = self.fits_noise(&model, &solution, set.as_slice(), sigma);
        }

        let dof = set.len - unknowns;
        let mut variance = sigma * sigma;
        if !fits && dof > 0 {
            variance = variance.max(solution.rss / dof as f64);
        }
        let unit = solution.horizontal();
        let horizontal_covariance = unit.map(|row| row.map(|value| value * variance));
        Ok(Fix {
            position: solution.position,
            horizontal_covariance,
            error_mm: r95_horizontal(horizontal_covariance),
            vertical_sd_mm: model
                .estimates_z()
                .then(|| solution.vertical_dilution() * variance.sqrt()),
            links_used: set.len as u8,
            rejected,
        })
    }

    /// Gauss–Newton from `start`, else (a previous position can be far
    /// off) from the centroid; in 3-D, a solution well above the anchors is
    /// tried again from its mirror image below them, and the lower-cost one
    /// (on a tie, the lower one) kept.
    fn fit(
        &self,
        model: &Model,
        links: &[Link],
        start: Point,
        noise_mm: f64,
    ) -> Result<Solution, Unsolved> {
        let centroid = centroid(links);
        let solution = match model.fit(links, start, noise_mm) {
            Err(_) if model.place(start) != model.place(centroid) => {
                model.fit(links, centroid, noise_mm)?
            }
            result => result?,
        };
        if !model.solve_z {
            return Ok(solution);
        }
        let heights = links.iter().map(|link| link.anchor[2]);
        let highest = heights.clone().fold(f64::NEG_INFINITY, f64::max);
        let [x, y, z] = solution.position;
        if z <= highest + MIRROR_MARGIN_MM {
            return Ok(solution);
        }
        let lowest = heights.clone().fold(f64::INFINITY, f64::min);
        let mean = heights.sum::<f64>() / links.len() as f64;
        let below = [x, y, (2.0 * mean - z).min(lowest)];
        match model.fit(links, below, noise_mm) {
            Ok(other) if other.rss <= solution.rss * (1.0 + 1e-9) + 1e-9 => Ok(other),
            _ => Ok(solution),
        }
    }

    fn fits_noise(&self, model: &Model, solution: &Solution, links: &[Link], sigma: f64) -> bool {
        let dof = links.len() - model.unknowns();
        let residuals = links.iter().map(|link| {
            (
                solution.residual(model, link),
                solution.leverage(model, link),
            )
        });
        consistent(sigma, solution.rss, dof, residuals)
    }

    /// The link whose removal leaves the smallest RSS, and the solution
    /// without it (each started from the current one).
    fn best_leaving_one_out(
        &self,
        model: &Model,
        set: &Links,
        current: &Solution,
        noise_mm: f64,
    ) -> Option<(usize, Solution)> {
        let mut best: Option<(usize, Solution)> = None;
        for index in 0..set.len {
            let subset = set.without(index);
            let Ok(solution) = self.fit(model, subset.as_slice(), current.position, noise_mm)
            else {
                continue;
            };
            if best
                .as_ref()
                .is_none_or(|(_, kept)| solution.rss < kept.rss)
            {
                best = Some((index, solution));
            }
        }
        best
    }
}

/// Up to [`MAX_LINKS`] links, on the stack.
#[derive(Debug, Clone, Copy)]
struct Links {
    items: [Link; MAX_LINKS],
    len: usize,
}

impl Links {
    /// The first 32 links with a finite value and anchor.
    fn usable(links: &[Link]) -> Self {
        let mut set = Self {
            items: [Link {
                anchor: [0.0; 3],
                value_mm: 0.0,
            }; MAX_LINKS],
            len: 0,
        };
        let finite =
            |link: &&Link| link.value_mm.is_finite() && link.anchor.iter().all(|v| v.is_finite());
        for link in links.iter().filter(finite).take(MAX_LINKS) {
            set.items[set.len] = *link;
            set.len += 1;
        }
        set
    }

    fn as_slice(&self) -> &[Link] {
        &self.items[..self.len]
    }

    fn without(&self, index: usize) -> Self {
        let mut set = *self;
        set.items.copy_within(index + 1..self.len, index);
        set.len -= 1;
        set
    }
}

/// The centroid of the links' anchors, at the default tag height.
fn centroid(links: &[Link]) -> Point {
    let count = links.len() as f64;
    let x = links.iter().map(|link| link.anchor[0]).sum::<f64>() / count;
    let y = links.iter().map(|link| link.anchor[1]).sum::<f64>() / count;
    [x, y, DEFAULT_TAG_HEIGHT_MM]
}

/// Whether the links' anchors lie on one line (or one point), seen from
/// above: the smaller eigenvalue of their horizontal scatter is negligible.
fn collinear(links: &[Link]) -> bool {
    let [x, y, _] = centroid(links);
    let (mut xx, mut yy, mut xy) = (0.0, 0.0, 0.0);
    for link in links {
        let (dx, dy) = (link.anchor[0] - x, link.anchor[1] - y);
        (xx, yy, xy) = (xx + dx * dx, yy + dy * dy, xy + dx * dy);
    }
    let mean = (xx + yy) / 2.0;
    let spread = (((xx - yy) / 2.0).powi(2) + xy * xy).sqrt();
    mean - spread <= COLLINEAR_VARIANCE_RATIO * (mean + spread)
}

#[cfg(test)]
mod tests {
    use super::super::testkit::{Errors, Rng, SITE, distance, measure};
    use super::super::{Height, Measure};
    use super::*;

    fn exact(measure_kind: Measure, anchors: &[Point], tag: Point) -> Vec<Link> {
        measure(
            &mut Rng::new(1),
            measure_kind,
            anchors,
            tag,
            Errors::gaussian(0.0),
        )
    }

    #[test]
    fn noise_free_measurements_give_the_truth() {
        let flat: Vec<Point> = SITE.iter().map(|a| [a[0], a[1], 3_000.0]).collect();
        for measure_kind in [Measure::ArrivalTimes, Measure::Ranges] {
            for (anchors, tag) in [
                (SITE.to_vec(), [7_000.0, 6_000.0, 1_000.0]),
                (SITE.to_vec(), [18_000.0, 2_000.0, 1_500.0]),
                (flat.clone(), [7_000.0, 6_000.0, 1_000.0]),
                (flat.clone(), [3_000.0, 13_000.0, 1_000.0]),
            ] {
                // SITE's z is solved here though it measures it poorly.
                let geometry = if anchors == flat {
                    Geometry::of_anchors(measure_kind, &anchors)
                } else {
                    Geometry::solved(measure_kind)
                };
                let mut solver = Solver::new(geometry);
                let fix = solver
                    .solve(&exact(measure_kind, &anchors, tag), None)
                    .unwrap();
                assert!(
                    distance(fix.position, tag) < 1.0,
                    "{measure_kind:?} {geometry:?} {fix:?}"
                );
                assert_eq!((fix.links_used, fix.rejected), (6, 0));
                if let Height::Held(z) = geometry.height {
                    assert_eq!(fix.position[2], z);
                }
                // From a poor previous position too.
                let fix = solver.solve(
                    &exact(measure_kind, &anchors, tag),
                    Some([15_000.0, 1_000.0, 0.0]),
                );
                assert!(distance(fix.unwrap().position, tag) < 1.0);
            }
        }
    }

    #[test]
    fn a_start_mirrored_above_the_anchors_comes_back_down() {
        let geometry = Geometry::solved(Measure::ArrivalTimes);
        let mut solver = Solver::new(geometry);
        let tag = [12_000.0, 9_000.0, 500.0];
        let links = exact(Measure::ArrivalTimes, &SITE, tag);
        let fix = solver
            .solve(&links, Some([12_000.0, 9_000.0, 6_500.0]))
            .unwrap();
        assert!(distance(fix.position, tag) < 1.0, "{fix:?}");
    }

    #[test]
    fn two_links_are_too_few() {
        let geometry = Geometry::solved(Measure::Ranges);
        let mut solver = Solver::new(geometry);
        let links = exact(Measure::Ranges, &SITE[..2], [5_000.0, 5_000.0, 1_000.0]);
        assert_eq!(
            solver.solve(&links, None),
            Err(Unsolved::TooFewLinks { heard: 2, needs: 3 })
        );
        let mut nan = exact(Measure::Ranges, &SITE[..3], [5_000.0, 5_000.0, 1_000.0]);
        nan[0].value_mm = f64::NAN;
        assert_eq!(
            solver.solve(&nan, None),
            Err(Unsolved::TooFewLinks { heard: 2, needs: 3 })
        );
        let tdoa = Solver::new(Geometry::solved(Measure::ArrivalTimes)).solve(&links, None);
        assert_eq!(tdoa, Err(Unsolved::TooFewLinks { heard: 2, needs: 4 }));
    }

    #[test]
    fn anchors_on_one_line_are_degenerate_in_2d() {
        let line: Vec<Point> = (0..5)
            .map(|i| [i as f64 * 4_000.0, 2.0 * i as f64 * 4_000.0, 3_000.0])
            .collect();
        for measure_kind in [Measure::ArrivalTimes, Measure::Ranges] {
            let geometry = Geometry::of_anchors(measure_kind, &line);
            assert!(matches!(geometry.height, Height::Held(_)));
            let links = exact(measure_kind, &line, [9_000.0, 2_000.0, 1_000.0]);
            let mut solver = Solver::new(geometry);
            assert_eq!(solver.solve(&links, None), Err(Unsolved::Degenerate));
            assert_eq!(
                solver.solve(&links, Some([9_000.0, 2_000.0, 1_000.0])),
                Err(Unsolved::Degenerate)
            );
        }
    }

    #[test]
    fn anchors_in_a_vertical_plane_are_degenerate_in_3d() {
        // All on the wall y = 0, at three heights: z and y trade off at a
        // point in that plane.
        let wall: Vec<Point> = (0..6)
            .map(|i| [i as f64 * 3_000.0, 0.0, 2_000.0 + (i % 3) as f64 * 1_000.0])
            .collect();
        let geometry = Geometry::of_anchors(Measure::Ranges, &wall);
        let links = exact(Measure::Ranges, &wall, [7_000.0, 0.0, 1_000.0]);
        assert_eq!(
            Solver::new(geometry).solve(&links, Some([7_000.0, 0.0, 1_000.0])),
            Err(Unsolved::Degenerate)
        );
    }

    #[test]
    fn more_than_32_links_use_the_first_32() {
        let anchors: Vec<Point> = (0..40)
            .map(|i| {
                [
                    (i % 8) as f64 * 2_500.0,
                    (i / 8) as f64 * 3_000.0,
                    2_000.0 + (i % 3) as f64 * 1_000.0,
                ]
            })
            .collect();
        let geometry = Geometry::of_anchors(Measure::ArrivalTimes, &anchors);
        let tag = [9_000.0, 7_000.0, 1_000.0];
        let fix = Solver::new(geometry)
            .solve(&exact(Measure::ArrivalTimes, &anchors, tag), None)
            .unwrap();
        assert_eq!(fix.links_used, 32);
        assert!(distance(fix.position, tag) < 1.0);
    }
}
