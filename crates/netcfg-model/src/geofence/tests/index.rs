//! The grid lists, in every cell, each fence whose reach (its box grown by
//! its hysteresis) overlaps the cell.

use proptest::prelude::*;

use super::{fence, polygon, square};
use crate::geofence::Fence;
use crate::geofence::index::{Grid, reach, within};

/// An upright rectangle (the grid sees only a fence's box) with a
/// hysteresis.
fn rectangle([x, y, width, height]: [i32; 4], hysteresis_mm: u32) -> Fence {
    let corners = [
        [x, y],
        [x + width, y],
        [x + width, y + height],
        [x, y + height],
    ];
    Fence {
        hysteresis_mm,
        ..fence(0, polygon(&corners))
    }
}

/// Which of `fences` the grid lists at (x, y) but whose reach does not
/// hold it, and which it misses.
fn listed_by_reach(fences: &[Fence], grid: &Grid, x: i32, y: i32) -> Vec<usize> {
    let listed = grid.candidates(x, y);
    assert!(
        listed.windows(2).all(|w| w[0] < w[1]),
        "ascending: {listed:?}"
    );
    let holding = (0..fences.len()).filter(|&i| within(reach(&fences[i]), x, y));
    holding
        .filter(|&i| !listed.contains(&u32::try_from(i).expect("few")))
        .collect()
}

#[test]
fn a_reach_ending_on_a_cell_edge_is_listed_in_both_cells() {
    // Cells of 1 m from the origin: the middle square's reach ends at
    // x = 1,000, the first millimetre of the second cell.
    let fences = vec![
        fence(1, square(0, 0, 999)),
        fence(2, square(1_000, 0, 999)),
        Fence {
            hysteresis_mm: 100,
            ..fence(3, square(600, 100, 300))
        },
    ];
    let grid = Grid::new(&fences);
    for (x, y) in [(1_000, 250), (999, 250), (500, 0), (1_999, 999), (0, 0)] {
        assert_eq!(
            listed_by_reach(&fences, &grid, x, y),
            Vec::<usize>::new(),
            "at {x} {y}"
        );
    }
    assert_eq!(
        grid.candidates(2_000, 0),
        &[] as &[u32],
        "beyond every reach"
    );
    assert_eq!(grid.candidates(-1, 0), &[] as &[u32], "before it");
}

#[test]
fn no_fences_no_candidates() {
    assert!(Grid::new(&[]).candidates(0, 0).is_empty());
}

proptest! {
    #[test]
    fn a_cell_lists_every_fence_whose_reach_holds_its_points(
        // Many small zones over a 200 m site and a few large ones, so the
        // grid has many cells and sometimes grows them to fit its budget.
        small in prop::collection::vec(
            ([0..200_000_i32, 0..200_000, 1..3_000, 1..3_000], 0..2_000_u32), 1..60),
        large in prop::collection::vec(
            ([0..200_000_i32, 0..200_000, 10_000..150_000, 10_000..150_000], 0..2_000_u32), 0..4),
        probes in prop::collection::vec(
            (any::<prop::sample::Index>(), 0..4_u8, -2..=2_i64, -2..=2_i64), 1..60),
    ) {
        let fences: Vec<Fence> = small.into_iter().chain(large).map(|(r, h)| rectangle(r, h)).collect();
        let grid = Grid::new(&fences);
        // Points at and around the corners of the reaches, where an
        // off-by-one in the cells would show.
        for (fence, corner, dx, dy) in probes {
            let r = reach(&fences[fence.index(fences.len())]);
            let x = if corner & 1 == 0 { r[0] } else { r[2] } + dx;
            let y = if corner & 2 == 0 { r[1] } else { r[3] } + dy;
            let (x, y) = (i32::try_from(x).expect("small"), i32::try_from(y).expect("small"));
            prop_assert_eq!(listed_by_reach(&fences, &grid, x, y), Vec::<usize>::new(), "at {} {}", x, y);
        }
    }
}
