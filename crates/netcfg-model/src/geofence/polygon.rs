//! A zone's outline. Validation is exact (orientation tests in `i128`):
//! whether two edges touch is a yes or no that rounding must not decide.
//! Distances are `f64`: positions are estimates good to centimetres, and the
//! vertices are integers, so rounding there is far below anything measured.

use super::{MAX_POINTS, MIN_POINTS};

/// A simple polygon (no two edges cross or touch but neighbours at their
/// shared point), with an area, in mm.
#[derive(Debug, Clone, PartialEq)]
pub struct Polygon {
    points: Vec<[i32; 2]>,
    /// `[[min x, min y], [max x, max y]]`. Derived from the points, so
    /// equality stays that of the points, and with no floats here an
    /// equivalence (wrappers may be `Eq`).
    bounds: [[i32; 2]; 2],
}

/// Why a list of points is no zone polygon.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PolygonError {
    /// Fewer than [`MIN_POINTS`].
    #[error("a polygon needs at least {MIN_POINTS} points, not {count}")]
    TooFew {
        /// How many were given.
        count: usize,
    },
    /// More than [`MAX_POINTS`].
    #[error("a polygon has at most {MAX_POINTS} points, not {count}")]
    TooMany {
        /// How many were given.
        count: usize,
    },
    /// No area (every point on one line, or repeated points only).
    #[error("the polygon is degenerate: it has no area")]
    Degenerate,
    /// Two edges cross or touch.
    #[error(
        "the outline crosses itself: edges {} and {} meet (counted from 1: edge n runs from point n to the next, the last back to point 1)",
        first + 1,
        second + 1
    )]
    SelfIntersecting {
        /// The first edge (from point `first` to the next), counted from 0
        /// (the message counts from 1).
        first: usize,
        /// The second.
        second: usize,
    },
}

impl Polygon {
    /// The polygon through `points` (in order, closed back to the first).
    ///
    /// A repeated point is [`PolygonError::SelfIntersecting`] with the edges
    /// that start at its first two copies; points all on one line are
    /// [`PolygonError::Degenerate`] first. Of several meeting pairs of
    /// edges, the least `(first, second)` is reported.
    pub fn new(points: Vec<[i32; 2]>) -> Result<Self, PolygonError> {
        let count = points.len();
        if count < MIN_POINTS {
            return Err(PolygonError::TooFew { count });
        }
        if count > MAX_POINTS {
            return Err(PolygonError::TooMany { count });
        }
        if all_on_one_line(&points) {
            return Err(PolygonError::Degenerate);
        }
        if let Some((first, second)) =
            first_repeated_point(&points).or_else(|| first_meeting_edges(&points))
        {
            return Err(PolygonError::SelfIntersecting { first, second });
        }
        let bounds = points
            .iter()
            .fold([points[0], points[0]], |[low, high], p| {
                [
                    [low[0].min(p[0]), low[1].min(p[1])],
                    [high[0].max(p[0]), high[1].max(p[1])],
                ]
            });
        Ok(Self { points, bounds })
    }

    /// Its points.
    pub fn points(&self) -> &[[i32; 2]] {
        &self.points
    }

    /// The smallest upright box holding it: `[[min x, min y], [max x, max y]]`.
    pub fn bounds(&self) -> [[i32; 2]; 2] {
        self.bounds
    }

    /// True when (x, y) is inside.
    pub fn contains(&self, x: f64, y: f64) -> bool {
        let [[x0, y0], [x1, y1]] = self.bounds;
        if x < f64::from(x0) || x > f64::from(x1) || y < f64::from(y0) || y > f64::from(y1) {
            return false;
        }
        self.edges()
            .fold(false, |inside, (a, b)| inside ^ crosses_ray(a, b, x, y))
    }

    /// How far (x, y) is inside, mm: the distance to the boundary, positive
    /// inside, negative outside.
    pub fn depth(&self, x: f64, y: f64) -> f64 {
        let mut inside = false;
        let mut nearest_squared = f64::INFINITY;
        for (a, b) in self.edges() {
            inside ^= crosses_ray(a, b, x, y);
            nearest_squared = nearest_squared.min(distance_squared(a, b, x, y));
        }
        let distance = nearest_squared.sqrt();
        if inside { distance } else { -distance }
    }

    /// Its edges as (start, end) in `f64`.
    fn edges(&self) -> impl Iterator<Item = ([f64; 2], [f64; 2])> + '_ {
        let as_f64 = |p: &[i32; 2]| [f64::from(p[0]), f64::from(p[1])];
        let ends = self.points.iter().skip(1).chain(self.points.first());
        self.points.iter().map(as_f64).zip(ends.map(as_f64))
    }
}

/// Whether the edge a-b crosses the ray from (x, y) towards +x (even-odd
/// rule; an edge counts from its lower end inclusive to its upper end
/// exclusive, so a vertex on the ray is counted once).
fn crosses_ray(a: [f64; 2], b: [f64; 2], x: f64, y: f64) -> bool {
    (a[1] > y) != (b[1] > y) && x < a[0] + (y - a[1]) * (b[0] - a[0]) / (b[1] - a[1])
}

/// The squared distance from (x, y) to the segment a-b (never of zero
/// length: validation refuses repeated points).
fn distance_squared(a: [f64; 2], b: [f64; 2], x: f64, y: f64) -> f64 {
    let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
    let along = (((x - a[0]) * dx + (y - a[1]) * dy) / (dx * dx + dy * dy)).clamp(0.0, 1.0);
    let (px, py) = (a[0] + along * dx, a[1] + along * dy);
    (x - px) * (x - px) + (y - py) * (y - py)
}

/// The difference b - a, widened so no coordinate overflows.
fn minus(b: [i32; 2], a: [i32; 2]) -> [i128; 2] {
    [
        i128::from(b[0]) - i128::from(a[0]),
        i128::from(b[1]) - i128::from(a[1]),
    ]
}

/// The sign of the turn a -> b -> c: 1 left, -1 right, 0 straight.
fn orientation(a: [i32; 2], b: [i32; 2], c: [i32; 2]) -> i8 {
    let (ab, ac) = (minus(b, a), minus(c, a));
    // Each difference is under 2^33 in size, so the products fit in i128.
    (ab[0] * ac[1] - ab[1] * ac[0]).signum() as i8
}

fn all_on_one_line(points: &[[i32; 2]]) -> bool {
    let first = points[0];
    match points.iter().find(|&&p| p != first) {
        None => true,
        Some(&second) => points.iter().all(|&p| orientation(first, second, p) == 0),
    }
}

/// The first two indices, by (first, second), of one point given twice.
fn first_repeated_point(points: &[[i32; 2]]) -> Option<(usize, usize)> {
    let mut order: Vec<usize> = (0..points.len()).collect();
    order.sort_unstable_by_key(|&i| (points[i], i));
    order
        .windows(2)
        .filter(|w| points[w[0]] == points[w[1]])
        .map(|w| (w[0], w[1]))
        .min()
}

/// The least (first, second) pair of edges that meet where they should not
/// (points are distinct here).
fn first_meeting_edges(points: &[[i32; 2]]) -> Option<(usize, usize)> {
    let n = points.len();
    let edge = |i: usize| (points[i], points[(i + 1) % n]);
    let ordered = |i: usize, j: usize| (i.min(j), i.max(j));
    let mut found: Option<(usize, usize)> = None;
    let mut note = |pair: (usize, usize)| found = Some(found.map_or(pair, |f| f.min(pair)));

    // Neighbours share a point; elsewhere they can only meet by folding
    // back along one line.
    for at in 0..n {
        let before = (at + n - 1) % n;
        let (a, b, c) = (points[before], points[at], points[(at + 1) % n]);
        let (back, on) = (minus(a, b), minus(c, b));
        if orientation(a, b, c) == 0 && back[0] * on[0] + back[1] * on[1] > 0 {
            note(ordered(before, at));
        }
    }

    // The others: sweep-and-prune along x, testing only pairs whose x
    // ranges overlap (a few per edge for a zone-like outline).
    let x_range = |i: usize| {
        let (a, b) = edge(i);
        (a[0].min(b[0]), a[0].max(b[0]))
    };
    let mut by_left: Vec<usize> = (0..n).collect();
    by_left.sort_unstable_by_key(|&i| x_range(i).0);
    for (rank, &i) in by_left.iter().enumerate() {
        let right = x_range(i).1;
        let (a, b) = edge(i);
        for &j in &by_left[rank + 1..] {
            if x_range(j).0 > right {
                break;
            }
            let neighbours = (i + 1) % n == j || (j + 1) % n == i;
            let (c, d) = edge(j);
            let y_apart = a[1].max(b[1]) < c[1].min(d[1]) || c[1].max(d[1]) < a[1].min(b[1]);
            if !neighbours && !y_apart && segments_meet(a, b, c, d) {
                note(ordered(i, j));
            }
        }
    }
    found
}

/// Whether the closed segments a-b and c-d share a point.
fn segments_meet(a: [i32; 2], b: [i32; 2], c: [i32; 2], d: [i32; 2]) -> bool {
    let (o1, o2) = (orientation(a, b, c), orientation(a, b, d));
    let (o3, o4) = (orientation(c, d, a), orientation(c, d, b));
    if o1 * o2 < 0 && o3 * o4 < 0 {
        return true;
    }
    (o1 == 0 && within_box(a, b, c))
        || (o2 == 0 && within_box(a, b, d))
        || (o3 == 0 && within_box(c, d, a))
        || (o4 == 0 && within_box(c, d, b))
}

/// For p on the line through a and b: whether it is on the segment.
fn within_box(a: [i32; 2], b: [i32; 2], p: [i32; 2]) -> bool {
    (a[0].min(b[0])..=a[0].max(b[0])).contains(&p[0])
        && (a[1].min(b[1])..=a[1].max(b[1])).contains(&p[1])
}
