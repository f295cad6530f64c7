//! Coverage prediction (decisions.md §12, `GET /nets/{net_name}/coverage`):
//! the Cramér–Rao bound's 95% horizontal error over a grid.

use schemars::JsonSchema;
use serde::Serialize;

use super::{Geometry, Point, horizontal_bound, r95_horizontal};
use crate::validation::{Problems, Validate, join};

/// The most cells a coverage grid may have.
pub const MAX_CELLS: usize = 250_000;
/// How far (mm) the grid reaches beyond the anchors' bounding box, each side.
pub const COVERAGE_MARGIN_MM: f64 = 2_000.0;

/// What to predict coverage for: the query parameters of `GET /coverage`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CoverageRequest {
    /// The tags' height (mm), query parameter `z`; finite.
    pub z_mm: f64,
    /// The grid's spacing (mm), 50 to 10 000.
    pub resolution_mm: f64,
    /// σ of one measurement (mm), above 0 and up to 10 000.
    pub toa_noise_mm: f64,
    /// The anchors' hearing range (mm), above 0 and up to 1 000 000.
    pub range_mm: f64,
}

impl Default for CoverageRequest {
    /// The defaults of decisions.md §12: z 1 000, resolution 500, noise 30,
    /// range 40 000.
    fn default() -> Self {
        Self {
            z_mm: 1_000.0,
            resolution_mm: 500.0,
            toa_noise_mm: 30.0,
            range_mm: 40_000.0,
        }
    }
}

impl Validate for CoverageRequest {
    /// Every parameter out of range, each at its query parameter's name
    /// (`z`, `resolution_mm`, `toa_noise_mm`, `range_mm`).
    fn validate_at(&self, path: &str, problems: &mut Problems) {
        if !self.z_mm.is_finite() {
            problems.push(join(path, "z"), "must be a finite number of mm");
        }
        if !(50.0..=10_000.0).contains(&self.resolution_mm) {
            problems.push(join(path, "resolution_mm"), "must be from 50 to 10000 mm");
        }
        if !(self.toa_noise_mm > 0.0 && self.toa_noise_mm <= 10_000.0) {
            problems.push(
                join(path, "toa_noise_mm"),
                "must be above 0 and at most 10000 mm",
            );
        }
        if !(self.range_mm > 0.0 && self.range_mm <= 1_000_000.0) {
            problems.push(
                join(path, "range_mm"),
                "must be above 0 and at most 1000000 mm",
            );
        }
    }
}

/// The predicted 95% horizontal error over a grid: the `coverage` payload.
///
/// The grid covers the anchors' horizontal bounding box plus a margin of
/// 2 000 mm ([`COVERAGE_MARGIN_MM`]) each side. Cell (`row`, `col`) is
/// centred at (`x0 + col × resolution_mm`, `y0 + row × resolution_mm`) and
/// is element `row × columns + col` of both arrays. Without anchors the grid
/// is one cell at (0, 0).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Coverage {
    /// x of the first column's centres, mm.
    pub x0: f64,
    /// y of the first row's centres, mm.
    pub y0: f64,
    /// The spacing of the cells' centres, mm.
    pub resolution_mm: f64,
    /// Cells per row.
    pub columns: u32,
    /// Rows.
    pub rows: u32,
    /// Per cell, the 95% horizontal error radius of the Cramér–Rao bound
    /// there (mm, to 0.1 mm); null where fewer anchors are in range than the
    /// mode needs or their geometry cannot locate a tag.
    pub error_mm: Vec<Option<f64>>,
    /// Per cell, the anchors within range of its centre (at height `z`).
    pub anchors_in_range: Vec<u32>,
}

/// Why no coverage was predicted.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CoverageError {
    /// Parameters out of range, each at its query parameter's name.
    #[error("{0}")]
    Invalid(Problems),
    /// The grid would be too large at this resolution.
    #[error(
        "the grid would have {cells} cells at this resolution, more than the {max} allowed: choose a coarser resolution_mm"
    )]
    TooManyCells {
        /// The cells the request would need.
        cells: u64,
        /// [`MAX_CELLS`].
        max: u64,
    },
}

impl CoverageError {
    /// The error as problems with paths, for a 400 answer (`TooManyCells`
    /// is a problem of `resolution_mm`).
    pub fn problems(&self) -> Problems {
        match self {
            Self::Invalid(problems) => problems.clone(),
            Self::TooManyCells { .. } => {
                let mut problems = Problems::new();
                problems.push("resolution_mm", self.to_string());
                problems
            }
        }
    }
}

/// Predicts coverage (decisions.md §12 `GET /coverage`): at each cell centre
/// at height `z`, [`r95_horizontal`] of [`horizontal_bound`] for the
/// geometry's unknowns, with `toa_noise_mm` as σ and the anchors within
/// `range_mm`. With fewer than 3 anchors every cell is null. Anchors with a
/// non-finite coordinate are ignored.
///
/// # Errors
/// [`CoverageError::Invalid`] with every parameter out of range;
/// [`CoverageError::TooManyCells`] when the grid would exceed
/// [`MAX_CELLS`].
pub fn coverage(
    geometry: &Geometry,
    anchors: &[Point],
    request: &CoverageRequest,
) -> Result<Coverage, CoverageError> {
    request.validate().map_err(CoverageError::Invalid)?;
    let anchors: Vec<Point> = anchors
        .iter()
        .copied()
        .filter(|anchor| anchor.iter().all(|value| value.is_finite()))
        .collect();
    let resolution = request.resolution_mm;
    let (x0, y0, columns, rows) = grid(&anchors, resolution);
    let cells = columns * rows;
    // NaN never gets here (validated inputs, finite anchors), but an
    // infinite extent might: compare so that it counts as too many.
    if cells.is_nan() || cells > MAX_CELLS as f64 {
        return Err(CoverageError::TooManyCells {
            cells: cells as u64,
            max: MAX_CELLS as u64,
        });
    }
    let (columns, rows) = (columns as u32, rows as u32);
    let mut error_mm = Vec::with_capacity(cells as usize);
    let mut anchors_in_range = Vec::with_capacity(cells as usize);
    for row in 0..rows {
        for column in 0..columns {
            let at = [
                x0 + f64::from(column) * resolution,
                y0 + f64::from(row) * resolution,
                request.z_mm,
            ];
            let in_range = anchors
                .iter()
                .filter(|&&anchor| distance(anchor, at) <= request.range_mm);
            anchors_in_range.push(in_range.count() as u32);
            let bound = (anchors.len() >= 3)
                .then(|| {
                    horizontal_bound(
                        geometry,
                        &anchors,
                        at,
                        request.toa_noise_mm,
                        request.range_mm,
                    )
                })
                .flatten();
            let error = bound
                .map(r95_horizontal)
                .filter(|error| error.is_finite())
                .map(|error| (error * 10.0).round() / 10.0);
            error_mm.push(error);
        }
    }
    Ok(Coverage {
        x0,
        y0,
        resolution_mm: resolution,
        columns,
        rows,
        error_mm,
        anchors_in_range,
    })
}

/// The grid's first centre and its columns and rows (as f64, so an absurd
/// request is caught before any cast).
fn grid(anchors: &[Point], resolution: f64) -> (f64, f64, f64, f64) {
    if anchors.is_empty() {
        return (0.0, 0.0, 1.0, 1.0);
    }
    let extent = |axis: usize| {
        let low = anchors
            .iter()
            .map(|anchor| anchor[axis])
            .fold(f64::INFINITY, f64::min);
        let high = anchors
            .iter()
            .map(|anchor| anchor[axis])
            .fold(f64::NEG_INFINITY, f64::max);
        let start = low - COVERAGE_MARGIN_MM;
        // Enough cells that the last centre reaches the far margin.
        let count = ((high + COVERAGE_MARGIN_MM - start) / resolution).ceil() + 1.0;
        (start, count)
    };
    let ((x0, columns), (y0, rows)) = (extent(0), extent(1));
    (x0, y0, columns, rows)
}

fn distance(a: Point, b: Point) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

#[cfg(test)]
mod tests {
    use super::super::testkit::SITE;
    use super::super::{Height, Measure};
    use super::*;

    fn tdoa() -> Geometry {
        Geometry::solved(Measure::ArrivalTimes)
    }

    #[test]
    fn the_grid_covers_the_anchors_with_a_margin() {
        let coverage = coverage(&tdoa(), &SITE, &CoverageRequest::default()).unwrap();
        assert_eq!((coverage.x0, coverage.y0), (-2_000.0, -2_000.0));
        // 24 m by 19 m at 0.5 m: 49 by 39 centres, the last on the far edge.
        assert_eq!((coverage.columns, coverage.rows), (49, 39));
        assert_eq!(coverage.error_mm.len(), 49 * 39);
        assert_eq!(coverage.anchors_in_range.len(), 49 * 39);
        assert!(coverage.anchors_in_range.iter().all(|&count| count == 6));
        // The cell centred on the tag of the simulations: (7000, 6000).
        let (column, row) = (18, 16);
        let index = row * coverage.columns as usize + column;
        let at = [
            coverage.x0 + column as f64 * coverage.resolution_mm,
            coverage.y0 + row as f64 * coverage.resolution_mm,
            1_000.0,
        ];
        assert_eq!(at, [7_000.0, 6_000.0, 1_000.0]);
        let expected =
            r95_horizontal(horizontal_bound(&tdoa(), &SITE, at, 30.0, 40_000.0).unwrap());
        let error = coverage.error_mm[index].unwrap();
        assert!((error - expected).abs() <= 0.05, "{error} vs {expected}");
        assert_eq!(error, (error * 10.0).round() / 10.0);
    }

    #[test]
    fn cells_with_too_few_anchors_in_range_are_null() {
        let request = CoverageRequest {
            range_mm: 12_000.0,
            resolution_mm: 1_000.0,
            ..CoverageRequest::default()
        };
        let coverage = coverage(&tdoa(), &SITE, &request).unwrap();
        let mut nulls = 0;
        for (error, &count) in coverage.error_mm.iter().zip(&coverage.anchors_in_range) {
            if count < 4 {
                assert!(error.is_none());
                nulls += 1;
            }
        }
        assert!(nulls > 0);
        assert!(coverage.error_mm.iter().any(Option::is_some));
        // 2-D ranges need only 3 anchors: more cells have a figure.
        let ranges = Geometry {
            measure: Measure::Ranges,
            height: Height::Held(1_000.0),
        };
        let more = super::coverage(&ranges, &SITE, &request).unwrap();
        let figures = |c: &Coverage| c.error_mm.iter().filter(|e| e.is_some()).count();
        assert!(figures(&more) > figures(&coverage));
    }

    #[test]
    fn fewer_than_three_anchors_give_a_grid_of_nulls() {
        let two = &SITE[..2];
        let coverage = coverage(&tdoa(), two, &CoverageRequest::default()).unwrap();
        assert_eq!((coverage.x0, coverage.y0), (-2_000.0, -2_000.0));
        assert_eq!((coverage.columns, coverage.rows), (29, 9));
        assert!(coverage.error_mm.iter().all(Option::is_none));
        assert!(coverage.anchors_in_range.iter().all(|&count| count == 2));

        let none = super::coverage(&tdoa(), &[], &CoverageRequest::default()).unwrap();
        assert_eq!(
            (none.x0, none.y0, none.columns, none.rows),
            (0.0, 0.0, 1, 1)
        );
        assert_eq!(
            (none.error_mm, none.anchors_in_range),
            (vec![None], vec![0])
        );
    }

    #[test]
    fn a_grid_too_fine_is_refused() {
        let request = CoverageRequest {
            resolution_mm: 50.0,
            ..CoverageRequest::default()
        };
        // The site at 50 mm: 481 × 381 centres, within the limit.
        assert_eq!(
            coverage(&tdoa(), &SITE, &request).unwrap().error_mm.len(),
            481 * 381
        );
        // Twice as large: 881 × 681.
        let large = SITE.map(|[x, y, z]| [2.0 * x, 2.0 * y, z]);
        let error = coverage(&tdoa(), &large, &request).unwrap_err();
        assert_eq!(
            error,
            CoverageError::TooManyCells {
                cells: 881 * 681,
                max: 250_000
            }
        );
        assert!(error.to_string().contains("599961 cells"), "{error}");
        assert_eq!(error.problems().as_slice()[0].path, "resolution_mm");
    }

    #[test]
    fn every_parameter_out_of_range_is_reported() {
        let request = CoverageRequest {
            z_mm: f64::NAN,
            resolution_mm: 20_000.0,
            toa_noise_mm: 0.0,
            range_mm: f64::INFINITY,
        };
        let CoverageError::Invalid(problems) = coverage(&tdoa(), &SITE, &request).unwrap_err()
        else {
            panic!("expected invalid parameters");
        };
        assert_eq!(
            problems.paths(),
            ["z", "resolution_mm", "toa_noise_mm", "range_mm"]
        );
        let fine = CoverageRequest {
            resolution_mm: 49.9,
            ..CoverageRequest::default()
        };
        assert!(matches!(
            coverage(&tdoa(), &SITE, &fine),
            Err(CoverageError::Invalid(_))
        ));
    }
}
