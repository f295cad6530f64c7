//! The polygon rules: validation by example and against a check of every
//! pair of edges, and the signed distance on a concave outline.

use proptest::prelude::*;

use super::polygon;
use crate::geofence::{Polygon, PolygonError};

/// Name | points as `x,y` | what `Polygon::new` says: `ok`, `degenerate`,
/// or `meet FIRST SECOND` (self-intersecting).
const VALIDATION: &str = "
    triangle                          | 0,0 10,0 0,10                         | ok
    square                            | 0,0 10,0 10,10 0,10                   | ok
    clockwise square                  | 0,0 0,10 10,10 10,0                   | ok
    a point on a straight edge        | 0,0 5,0 10,0 10,10 0,10               | ok
    concave L                         | 0,0 40,0 40,10 10,10 10,30 0,30       | ok
    bow-tie                           | 0,0 10,10 10,0 0,10                   | meet 0 2
    a vertex touching a far edge      | 0,0 20,0 20,20 12,20 10,0 8,20 0,20   | meet 0 3
    a far edge along another          | 0,0 10,0 10,5 7,5 7,0 3,0 3,-5 0,-5   | meet 0 3
    collinear                         | 0,0 5,5 10,10                         | degenerate
    one point thrice                  | 3,3 3,3 3,3                           | degenerate
    a line with a repeat              | 0,0 9,0 0,0 4,0                       | degenerate
    consecutive repeat                | 0,0 10,0 10,0 10,10                   | meet 1 2
    closed ring                       | 0,0 10,0 10,10 0,0                    | meet 0 3
    figure eight through one point    | 0,0 10,0 5,5 10,10 0,10 5,5           | meet 2 5
    folded-back spike                 | 0,0 10,0 10,10 10,5                   | meet 1 2
    a spike back over the first point | 0,0 10,0 10,10 0,10 0,-5              | meet 0 3
";

fn parse_points(text: &str) -> Vec<[i32; 2]> {
    let point = |p: &str| {
        let (x, y) = p.split_once(',').expect("x,y");
        [x.parse().expect("x"), y.parse().expect("y")]
    };
    text.split_whitespace().map(point).collect()
}

fn parse_verdict(text: &str) -> Result<(), PolygonError> {
    match text.split_whitespace().collect::<Vec<_>>()[..] {
        ["ok"] => Ok(()),
        ["degenerate"] => Err(PolygonError::Degenerate),
        ["meet", first, second] => Err(PolygonError::SelfIntersecting {
            first: first.parse().expect("an edge"),
            second: second.parse().expect("an edge"),
        }),
        _ => panic!("no verdict: {text}"),
    }
}

#[test]
fn polygons_are_validated() {
    for line in VALIDATION.lines().filter(|l| !l.trim().is_empty()) {
        let [name, points, verdict] = line.split('|').map(str::trim).collect::<Vec<_>>()[..] else {
            panic!("not a case: {line}");
        };
        let points = parse_points(points);
        let got = Polygon::new(points.clone());
        assert_eq!(got.clone().map(|_| ()), parse_verdict(verdict), "{name}");
        if let Ok(polygon) = got {
            assert_eq!(polygon.points(), points, "{name}");
        }
    }
}

#[test]
fn the_number_of_points_is_bounded() {
    let circle: Vec<[i32; 2]> = (0..1_000)
        .map(|i| {
            let angle = std::f64::consts::TAU * f64::from(i) / 1_000.0;
            [
                (1e6 * angle.cos()).round() as i32,
                (1e6 * angle.sin()).round() as i32,
            ]
        })
        .collect();
    assert!(Polygon::new(circle.clone()).is_ok(), "1,000 points");
    let too_many = [circle, vec![[0, 0]]].concat();
    let cases = [
        (too_many, PolygonError::TooMany { count: 1_001 }),
        (vec![[0, 0], [10, 10]], PolygonError::TooFew { count: 2 }),
        (vec![], PolygonError::TooFew { count: 0 }),
    ];
    for (points, error) in cases {
        assert_eq!(Polygon::new(points), Err(error));
    }
}

#[test]
fn coordinates_may_span_the_whole_range() {
    let (low, high) = (i32::MIN, i32::MAX);
    let huge = polygon(&[[low, low], [high, low], [0, high]]);
    assert_eq!(huge.bounds(), [[low, low], [high, high]]);
    let bow_tie = vec![[low, low], [high, high], [high, low], [low, high]];
    let crossing = PolygonError::SelfIntersecting {
        first: 0,
        second: 2,
    };
    assert_eq!(Polygon::new(bow_tie), Err(crossing));
}

#[test]
fn the_bounds_hold_every_point() {
    let triangle = polygon(&[[5, -3], [40, 7], [-2, 30]]);
    assert_eq!(triangle.bounds(), [[-2, -3], [40, 30]]);
}

/// Name | x, y | depth (0: on the boundary, where `contains` may say
/// either).
const DEPTHS: &str = "
    in the corner                | 500 500     | 500
    in the long arm              | 2500 500    | 500
    in the short arm             | 500 2500    | 500
    in the notch                 | 3000 2000   | -1000
    off the left                 | -200 500    | -200
    beyond a corner              | 4300 -400   | -500
    just inside an edge          | 2000 999    | 1
    just outside it              | 2000 1001   | -1
    inside by the reflex vertex  | 900 900     | 141.4213562373095
    outside by the reflex vertex | 1100 1100   | -100
    at the reflex vertex         | 1000 1000   | 0
    on an edge                   | 4000 500    | 0
    on a vertex                  | 0 3000      | 0
";

#[test]
fn contains_and_depth_on_a_concave_polygon() {
    // An L: 4 m along x, 3 m along y, 1 m thick; its reflex vertex at (1 m, 1 m).
    let l = polygon(&[
        [0, 0],
        [4_000, 0],
        [4_000, 1_000],
        [1_000, 1_000],
        [1_000, 3_000],
        [0, 3_000],
    ]);
    for line in DEPTHS.lines().filter(|l| !l.trim().is_empty()) {
        let fields: Vec<&str> = line.split('|').map(str::trim).collect();
        let numbers: Vec<f64> = fields[1..]
            .join(" ")
            .split_whitespace()
            .map(|n| n.parse().expect("a number"))
            .collect();
        let name = fields[0];
        let [x, y, depth] = numbers[..] else {
            panic!("not a case: {line}")
        };
        assert!(
            (l.depth(x, y) - depth).abs() < 1e-9,
            "{name}: {} != {depth}",
            l.depth(x, y)
        );
        if depth != 0.0 {
            assert_eq!(l.contains(x, y), depth > 0.0, "{name}");
        }
    }
}

/// `Polygon::new` as the rules read: every pair of edges, no pruning.
fn every_pair(points: &[[i32; 2]]) -> Result<(), PolygonError> {
    let n = points.len();
    let minus = |b: [i32; 2], a: [i32; 2]| {
        [
            i128::from(b[0]) - i128::from(a[0]),
            i128::from(b[1]) - i128::from(a[1]),
        ]
    };
    let cross = |a, b, c| {
        let (u, v) = (minus(b, a), minus(c, a));
        u[0] * v[1] - u[1] * v[0]
    };
    let dot = |u: [i128; 2], v: [i128; 2]| u[0] * v[0] + u[1] * v[1];
    // p on segment a-b: on its line, and a and b on either side of it.
    let on = |p, a, b| cross(a, b, p) == 0 && dot(minus(a, p), minus(b, p)) <= 0;
    let crossing = |a, b, c, d| {
        let sides = |a, b, c, d| cross(a, b, c).signum() * cross(a, b, d).signum() < 0;
        sides(a, b, c, d) && sides(c, d, a, b)
    };
    if (0..n).all(|i| (0..n).all(|j| cross(points[0], points[i], points[j]) == 0)) {
        return Err(PolygonError::Degenerate);
    }
    let pairs = (0..n).flat_map(|i| (i + 1..n).map(move |j| (i, j)));
    let repeat = pairs.clone().find(|&(i, j)| points[i] == points[j]);
    let meeting = pairs.filter(|&(i, j)| {
        let (a, b, c, d) = (
            points[i],
            points[(i + 1) % n],
            points[j],
            points[(j + 1) % n],
        );
        match (j == i + 1, i == 0 && j == n - 1) {
            // Neighbours meet elsewhere than their shared point only by
            // folding back along one line.
            (true, _) => cross(a, b, d) == 0 && dot(minus(a, b), minus(d, b)) > 0,
            (_, true) => cross(c, d, b) == 0 && dot(minus(c, d), minus(b, d)) > 0,
            _ => crossing(a, b, c, d) || on(a, c, d) || on(b, c, d) || on(c, a, b) || on(d, a, b),
        }
    });
    match repeat.or_else(|| meeting.min()) {
        Some((first, second)) => Err(PolygonError::SelfIntersecting { first, second }),
        None => Ok(()),
    }
}

proptest! {
    #[test]
    fn validation_agrees_with_testing_every_pair_of_edges(
        points in prop::collection::vec((0..7_i32, 0..7_i32), 3..10),
        scale in prop::sample::select(vec![1, 1_000, 300_000_000]),
    ) {
        // Small grids make collinear and touching edges common; scaling
        // keeps the geometry and tests the arithmetic near i32's limits.
        let points: Vec<[i32; 2]> = points.into_iter().map(|(x, y)| [x * scale, y * scale]).collect();
        prop_assert_eq!(Polygon::new(points.clone()).map(|_| ()), every_pair(&points));
    }
}
