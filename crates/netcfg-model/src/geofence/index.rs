//! Which fences can matter at a point: a uniform grid over the fences'
//! reach (their box grown by their hysteresis). A point outside a fence's
//! reach is outside it by more than the hysteresis, so only the fences
//! listed in the point's cell need a look.

use super::Fence;

/// A fence's box grown by its hysteresis, `[min x, min y, max x, max y]`.
pub(super) fn reach(fence: &Fence) -> [i64; 4] {
    let [[x0, y0], [x1, y1]] = fence.polygon.bounds();
    let grow = i64::from(fence.hysteresis_mm);
    [
        i64::from(x0) - grow,
        i64::from(y0) - grow,
        i64::from(x1) + grow,
        i64::from(y1) + grow,
    ]
}

/// Whether (x, y) is within a reach.
pub(super) fn within(reach: [i64; 4], x: i32, y: i32) -> bool {
    let (x, y) = (i64::from(x), i64::from(y));
    reach[0] <= x && x <= reach[2] && reach[1] <= y && y <= reach[3]
}

/// The grid. Cell `row * columns + column` covers
/// `[origin + column * cell_mm, origin + (column + 1) * cell_mm)` in x (and
/// likewise in y); its fences are `entries[starts[c]..starts[c + 1]]`, by
/// index into the fence list, ascending.
#[derive(Debug, Default)]
pub(super) struct Grid {
    origin: [i64; 2],
    cell_mm: i64,
    columns: i64,
    rows: i64,
    starts: Vec<u32>,
    entries: Vec<u32>,
}

impl Grid {
    /// The grid over `fences`.
    pub(super) fn new(fences: &[Fence]) -> Self {
        let reaches: Vec<[i64; 4]> = fences.iter().map(reach).collect();
        let Some(first) = reaches.first() else {
            return Self::default();
        };
        let outer = reaches.iter().fold(*first, |o, r| {
            [
                o[0].min(r[0]),
                o[1].min(r[1]),
                o[2].max(r[2]),
                o[3].max(r[3]),
            ]
        });
        let mut grid = Self {
            origin: [outer[0], outer[1]],
            cell_mm: median_side(&reaches),
            columns: 0,
            rows: 0,
            starts: Vec::new(),
            entries: Vec::new(),
        };
        // A small multiple of the fence count bounds both the cells and the
        // listings; a 1 x 1 grid (every fence in one cell) always fits.
        let budget = 16 * reaches.len() as i64 + 256;
        loop {
            grid.columns = (outer[2] - outer[0]) / grid.cell_mm + 1;
            grid.rows = (outer[3] - outer[1]) / grid.cell_mm + 1;
            let fits = grid.columns.saturating_mul(grid.rows) <= budget
                && reaches
                    .iter()
                    .try_fold(0_i64, |listed, &r| {
                        Some(listed.saturating_add(grid.cells_of(r).len())).filter(|&l| l <= budget)
                    })
                    .is_some();
            if fits {
                break;
            }
            grid.cell_mm *= 2;
        }
        grid.fill(&reaches);
        grid
    }

    /// The fences whose reach may hold (x, y), by index, ascending.
    pub(super) fn candidates(&self, x: i32, y: i32) -> &[u32] {
        match self.cell_at(i64::from(x), i64::from(y)) {
            Some(cell) => &self.entries[self.starts[cell] as usize..self.starts[cell + 1] as usize],
            None => &[],
        }
    }

    fn cell_at(&self, x: i64, y: i64) -> Option<usize> {
        if self.cell_mm == 0 || x < self.origin[0] || y < self.origin[1] {
            return None;
        }
        let column = (x - self.origin[0]) / self.cell_mm;
        let row = (y - self.origin[1]) / self.cell_mm;
        (column < self.columns && row < self.rows).then(|| (row * self.columns + column) as usize)
    }

    /// The cells a reach overlaps (reaches lie within the grid).
    fn cells_of(&self, reach: [i64; 4]) -> Cells {
        let cell = |v: i64, origin: i64| (v - origin) / self.cell_mm;
        Cells {
            columns: cell(reach[0], self.origin[0])..=cell(reach[2], self.origin[0]),
            rows: cell(reach[1], self.origin[1])..=cell(reach[3], self.origin[1]),
        }
    }

    /// Lists each fence in the cells it overlaps: count, then place.
    fn fill(&mut self, reaches: &[[i64; 4]]) {
        let cell_count = (self.columns * self.rows) as usize;
        let mut counts = vec![0_u32; cell_count + 1];
        for &r in reaches {
            self.cells_of(r)
                .for_each(self.columns, |c| counts[c + 1] += 1);
        }
        for c in 0..cell_count {
            counts[c + 1] += counts[c];
        }
        let mut next = counts.clone();
        self.entries = vec![0; counts[cell_count] as usize];
        for (fence, &r) in reaches.iter().enumerate() {
            self.cells_of(r).for_each(self.columns, |c| {
                // Fence ids are distinct u16s, so an index fits in u32.
                self.entries[next[c] as usize] = fence as u32;
                next[c] += 1;
            });
        }
        self.starts = counts;
    }
}

/// The side of the median reach (its longer side), at least 1 mm: the
/// starting cell size, so a typical fence spans a few cells.
fn median_side(reaches: &[[i64; 4]]) -> i64 {
    let mut sides: Vec<i64> = reaches
        .iter()
        .map(|r| (r[2] - r[0]).max(r[3] - r[1]) + 1)
        .collect();
    let middle = sides.len() / 2;
    *sides.select_nth_unstable(middle).1
}

/// A block of cells.
struct Cells {
    columns: std::ops::RangeInclusive<i64>,
    rows: std::ops::RangeInclusive<i64>,
}

impl Cells {
    fn len(&self) -> i64 {
        // Saturating: while the cell is still small, a wide reach over a
        // wide site can span more cells than an i64 counts.
        (self.columns.end() - self.columns.start() + 1)
            .saturating_mul(self.rows.end() - self.rows.start() + 1)
    }

    fn for_each(&self, grid_columns: i64, mut visit: impl FnMut(usize)) {
        for row in self.rows.clone() {
            for column in self.columns.clone() {
                visit((row * grid_columns + column) as usize);
            }
        }
    }
}
