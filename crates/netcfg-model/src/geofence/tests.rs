//! Examples of the state machine; `polygon` tests the outlines, `index`
//! the grid, and `reference` the tracker against a brute-force one.

use super::*;
use crate::{RoleId, SerialNumber};
use CrossingKind::{Enter, Exit};

mod index;
mod polygon;
mod reference;

fn polygon(points: &[[i32; 2]]) -> Polygon {
    Polygon::new(points.to_vec()).expect("a valid polygon")
}

fn square(x0: i32, y0: i32, side: i32) -> Polygon {
    polygon(&[
        [x0, y0],
        [x0 + side, y0],
        [x0 + side, y0 + side],
        [x0, y0 + side],
    ])
}

/// A fence with no hysteresis, dwell, height range or filter.
fn fence(id: FenceId, polygon: Polygon) -> Fence {
    Fence {
        id,
        polygon,
        z_min: None,
        z_max: None,
        hysteresis_mm: 0,
        dwell_ms: 0,
        tags: Vec::new(),
        roles: Vec::new(),
    }
}

/// The square 0..10 m with a hysteresis of 500 mm.
fn room(id: FenceId) -> Fence {
    Fence {
        hysteresis_mm: 500,
        ..fence(id, square(0, 0, 10_000))
    }
}

fn tag(n: u32) -> SerialNumber {
    SerialNumber::from_u32(0x0100_0000 + n)
}

fn crossing(
    fence: FenceId,
    n: u32,
    kind: CrossingKind,
    at_ms: u64,
    position: [i32; 3],
) -> Crossing {
    Crossing {
        fence,
        serial_number: tag(n),
        kind,
        at_ms,
        position,
    }
}

/// Feeds positions of tag 1 (no roles) along y = 5 m; returns the crossings
/// of each.
fn walk(geofence: &mut Geofence, steps: &[(u64, [i32; 3])]) -> Vec<Vec<Crossing>> {
    let steps = steps.iter().map(|&(now, position)| {
        let mut out = Vec::new();
        geofence.update(tag(1), &[], position, now, &mut out);
        out
    });
    steps.collect()
}

#[test]
fn a_tag_enters_when_inside_by_the_hysteresis_and_leaves_when_outside_by_it() {
    let mut geofence = Geofence::new(vec![room(1)]);
    let steps = [
        (0, [-1_000, 5_000, 0]), // far out
        (1, [-300, 5_000, 0]),   // in the band, outside
        (2, [300, 5_000, 0]),    // in the band, inside: not yet
        (3, [500, 5_000, 0]),    // inside by exactly the hysteresis
        (4, [-400, 5_000, 0]),   // back in the band: still in
        (5, [-500, 5_000, 0]),   // outside by exactly the hysteresis
        (6, [0, 5_000, 0]),      // on the edge
    ];
    let expected = vec![
        vec![],
        vec![],
        vec![],
        vec![crossing(1, 1, Enter, 3, [500, 5_000, 0])],
        vec![],
        vec![crossing(1, 1, Exit, 5, [-500, 5_000, 0])],
        vec![],
    ];
    assert_eq!(walk(&mut geofence, &steps), expected);
}

#[test]
fn a_tag_enters_only_after_the_dwell_and_starts_over_when_it_dips() {
    let mut geofence = Geofence::new(vec![Fence {
        dwell_ms: 1_000,
        ..room(1)
    }]);
    let deep = [5_000, 5_000, 0];
    let steps = [
        (0, deep),
        (600, [300, 5_000, 0]), // inside, but not by the hysteresis: the dwell restarts
        (1_000, deep),
        (1_999, deep),
        (2_000, deep),
        (2_500, deep),
    ];
    let expected = vec![
        vec![],
        vec![],
        vec![],
        vec![],
        vec![crossing(1, 1, Enter, 2_000, deep)],
        vec![],
    ];
    assert_eq!(walk(&mut geofence, &steps), expected);
    assert_eq!(
        geofence.occupants(1),
        vec![Occupant {
            serial_number: tag(1),
            since_ms: 2_000
        }]
    );
}

#[test]
fn the_height_range_has_the_hysteresis_too() {
    let mut geofence = Geofence::new(vec![Fence {
        z_min: Some(0),
        z_max: Some(2_000),
        hysteresis_mm: 100,
        ..room(1)
    }]);
    let at = |z| [5_000, 5_000, z];
    let steps = [
        (0, at(50)),
        (1, at(150)),
        (2, at(1_950)),
        (3, at(2_050)),
        (4, at(2_100)),
        (5, at(-150)),
    ];
    let expected = vec![
        vec![],
        vec![crossing(1, 1, Enter, 1, at(150))],
        vec![],
        vec![],
        vec![crossing(1, 1, Exit, 4, at(2_100))],
        vec![],
    ];
    assert_eq!(walk(&mut geofence, &steps), expected);
}

#[test]
fn with_no_hysteresis_the_boundary_counts_as_inside() {
    let mut geofence = Geofence::new(vec![fence(1, square(0, 0, 10_000))]);
    let edge = [0, 5_000, 0];
    let steps = [(0, edge), (1, edge), (2, [-1, 5_000, 0])];
    let expected = vec![
        vec![crossing(1, 1, Enter, 0, edge)],
        vec![],
        vec![crossing(1, 1, Exit, 2, [-1, 5_000, 0])],
    ];
    assert_eq!(walk(&mut geofence, &steps), expected);
}

#[test]
fn tag_and_role_filters_choose_whom_a_zone_applies_to() {
    let (a, b) = (RoleId(7), RoleId(8));
    let fences = vec![
        Fence {
            tags: vec![tag(2)],
            ..room(1)
        },
        Fence {
            roles: vec![a],
            ..room(2)
        },
    ];
    let mut geofence = Geofence::new(fences);
    let deep = [5_000, 5_000, 0];
    let mut out = Vec::new();
    geofence.update(tag(1), &[b], deep, 0, &mut out);
    geofence.update(tag(2), &[b], deep, 1, &mut out);
    geofence.update(tag(3), &[b, a], deep, 2, &mut out);
    // A tag whose roles change stops matching, wherever it is.
    geofence.update(tag(3), &[b], deep, 3, &mut out);
    let expected = vec![
        crossing(1, 2, Enter, 1, deep),
        crossing(2, 3, Enter, 2, deep),
        crossing(2, 3, Exit, 3, deep),
    ];
    assert_eq!(out, expected);
}

#[test]
fn the_crossings_of_one_position_come_by_fence_id() {
    let far = [50_000, 5_000, 0];
    let mut geofence = Geofence::new(vec![room(9), room(3), fence(5, square(-5_000, 0, 10_000))]);
    let steps = [(0, [2_000, 5_000, 0]), (1, far)];
    let expected = vec![
        vec![
            crossing(3, 1, Enter, 0, [2_000, 5_000, 0]),
            crossing(5, 1, Enter, 0, [2_000, 5_000, 0]),
            crossing(9, 1, Enter, 0, [2_000, 5_000, 0]),
        ],
        vec![
            crossing(3, 1, Exit, 1, far),
            crossing(5, 1, Exit, 1, far),
            crossing(9, 1, Exit, 1, far),
        ],
    ];
    assert_eq!(walk(&mut geofence, &steps), expected);
}

#[test]
fn advance_enters_tags_whose_dwell_ran_out() {
    let mut geofence = Geofence::new(vec![
        Fence {
            dwell_ms: 1_000,
            ..room(1)
        },
        Fence {
            dwell_ms: 400,
            ..room(2)
        },
    ]);
    let mut out = Vec::new();
    geofence.advance(5, &mut out);
    for (n, x) in [(2, 3_000), (1, 2_000)] {
        geofence.update(tag(n), &[], [x, 5_000, 0], 0, &mut out);
    }
    geofence.advance(399, &mut out);
    assert_eq!(out, vec![]);
    geofence.advance(1_200, &mut out);
    let expected = vec![
        crossing(1, 1, Enter, 1_200, [2_000, 5_000, 0]),
        crossing(1, 2, Enter, 1_200, [3_000, 5_000, 0]),
        crossing(2, 1, Enter, 1_200, [2_000, 5_000, 0]),
        crossing(2, 2, Enter, 1_200, [3_000, 5_000, 0]),
    ];
    assert_eq!(out, expected);
    out.clear();
    geofence.advance(5_000, &mut out);
    assert_eq!(out, vec![]);
    assert_eq!(geofence.fences_of(tag(1)), vec![1, 2]);
}

#[test]
fn replacing_the_zones_emits_what_follows_from_the_change() {
    let at_8 = [8_000, 5_000, 0];
    let at_20 = [20_000, 5_000, 0];
    let fences = vec![
        room(1),
        Fence {
            dwell_ms: 60_000,
            ..room(2)
        },
        room(3),
        room(4),
    ];
    let mut geofence = Geofence::new(fences);
    let mut out = Vec::new();
    geofence.update(tag(1), &[], at_8, 0, &mut out);
    geofence.update(tag(2), &[], at_20, 0, &mut out);
    assert_eq!(out.len(), 3, "tag 1 in zones 1, 3 and 4, pending for 2");
    out.clear();
    let fences = vec![
        // 1 deleted; 2 (where tag 1 is pending) shrunk away from it.
        Fence {
            polygon: square(0, 0, 5_000),
            ..room(2)
        },
        // 3 moved onto tag 2, away from tag 1.
        Fence {
            polygon: square(15_000, 0, 10_000),
            ..room(3)
        },
        // 4 restricted to tag 2.
        Fence {
            tags: vec![tag(2)],
            ..room(4)
        },
        // 5 new, over both.
        fence(5, square(0, 0, 30_000)),
    ];
    geofence.replace(fences, 100, &mut out);
    let expected = vec![
        crossing(1, 1, Exit, 100, at_8),
        crossing(3, 1, Exit, 100, at_8),
        crossing(3, 2, Enter, 100, at_20),
        crossing(4, 1, Exit, 100, at_8),
        crossing(5, 1, Enter, 100, at_8),
        crossing(5, 2, Enter, 100, at_20),
    ];
    assert_eq!(out, expected);
    out.clear();
    geofence.advance(100_000, &mut out);
    assert_eq!(out, vec![], "the dropped pending never enters");
    assert_eq!(geofence.len(), 4);
}

#[test]
fn a_shorter_dwell_in_a_replacement_applies_to_pending_tags() {
    let mut geofence = Geofence::new(vec![Fence {
        dwell_ms: 10_000,
        ..room(1)
    }]);
    let mut out = Vec::new();
    geofence.update(tag(1), &[], [5_000, 5_000, 0], 0, &mut out);
    geofence.replace(
        vec![Fence {
            dwell_ms: 2_000,
            ..room(1)
        }],
        1_000,
        &mut out,
    );
    assert_eq!(out, vec![]);
    geofence.advance(2_000, &mut out);
    assert_eq!(out, vec![crossing(1, 1, Enter, 2_000, [5_000, 5_000, 0])]);
}

#[test]
fn a_forgotten_tag_leaves_every_zone() {
    let mut geofence = Geofence::new(vec![
        room(4),
        room(2),
        Fence {
            dwell_ms: 1_000,
            ..room(3)
        },
    ]);
    let mut out = Vec::new();
    let at = [5_000, 5_000, 0];
    geofence.update(tag(1), &[], at, 0, &mut out);
    out.clear();
    geofence.forget(tag(1), 10, &mut out);
    assert_eq!(
        out,
        vec![crossing(2, 1, Exit, 10, at), crossing(4, 1, Exit, 10, at)]
    );
    out.clear();
    geofence.advance(5_000, &mut out);
    geofence.forget(tag(1), 20, &mut out);
    assert_eq!(out, vec![]);
    assert_eq!(
        (geofence.occupants(2), geofence.fences_of(tag(1))),
        (vec![], vec![])
    );
}

#[test]
fn occupants_and_zones_come_sorted() {
    let mut geofence = Geofence::new(vec![room(8), room(1), room(5), room(5)]);
    assert_eq!(geofence.len(), 3, "the second zone 5 is dropped");
    let mut out = Vec::new();
    for (now, n) in [(10, 30), (20, 10), (30, 20)] {
        geofence.update(tag(n), &[], [5_000, 5_000, 0], now, &mut out);
    }
    let occupant = |n, since_ms| Occupant {
        serial_number: tag(n),
        since_ms,
    };
    assert_eq!(
        geofence.occupants(5),
        vec![occupant(10, 20), occupant(20, 30), occupant(30, 10)]
    );
    assert_eq!(geofence.fences_of(tag(20)), vec![1, 5, 8]);
    assert_eq!(
        (geofence.occupants(6), geofence.fences_of(tag(99))),
        (vec![], vec![])
    );
    assert!(Geofence::default().is_empty());
}
