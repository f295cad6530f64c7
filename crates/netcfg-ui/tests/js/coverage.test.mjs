// The coverage map's logic (ui/lib/coverage.js): the colour scale of the
// predicted error, the cell under a world point, the grid as pixels, and
// the resolution the view asks for.

import { test } from "node:test";
import assert from "node:assert/strict";
import {
  GOOD_MM, POOR_MM, NOT_COVERED, MAX_CELLS, scalePosition, errorColor, errorBand, cssColor, legendGradient,
  cellAt, coverageExtent, coveragePixels, coverageResolution, formatError, describeCell,
} from "../../ui/lib/coverage.js";

/** @typedef {import("../../ui/lib/types.js").Coverage} Coverage */

/**
 * A grid of 3 columns by 2 rows of 500 mm from (1000, 2000): row 0 is
 * 10, 20, null; row 1 is 300, 1000, 5000 (mm).
 * @returns {Coverage}
 */
function grid() {
  return {
    x0: 1000,
    y0: 2000,
    resolution_mm: 500,
    columns: 3,
    rows: 2,
    error_mm: [10, 20, null, 300, 1000, 5000],
    anchors_in_range: [6, 5, 2, 4, 3, 3],
  };
}

test("the scale runs on the error's logarithm, from good to poor, and holds beyond both ends", () => {
  assert.equal(scalePosition(0), 0);
  assert.equal(scalePosition(GOOD_MM), 0);
  assert.equal(scalePosition(POOR_MM), 1);
  assert.equal(scalePosition(50_000), 1);
  assert.ok(Math.abs(scalePosition(Math.sqrt(GOOD_MM * POOR_MM)) - 0.5) < 1e-12, "316 mm is the middle");
  assert.equal(scalePosition(Number.NaN), 0);
});

test("colours: green when good, red when poor, grey when not covered", () => {
  assert.deepEqual(errorColor(50), errorColor(GOOD_MM));
  assert.deepEqual(errorColor(GOOD_MM), [26, 152, 80]);
  assert.deepEqual(errorColor(POOR_MM), [215, 48, 39]);
  assert.deepEqual(errorColor(20_000), [215, 48, 39]);
  assert.deepEqual(errorColor(null), NOT_COVERED);
  assert.deepEqual(errorColor(undefined), NOT_COVERED);
  assert.deepEqual(errorColor(Number.POSITIVE_INFINITY), NOT_COVERED);
  // Worse errors are redder: the green falls and the red rises along the
  // scale (to its yellow middle, then the green keeps falling).
  const reds = [100, 150, 250, 316].map((mm) => errorColor(mm)[0]);
  assert.deepEqual([...reds].sort((a, b) => a - b), reds, `reds ${reds}`);
  const greens = [316, 500, 700, 1000].map((mm) => errorColor(mm)[1]);
  assert.deepEqual([...greens].sort((a, b) => b - a), greens, `greens ${greens}`);
  for (const mm of [120, 400, 999]) {
    for (const part of errorColor(mm)) assert.ok(Number.isInteger(part) && part >= 0 && part <= 255, `${mm}: ${part}`);
  }
  assert.equal(cssColor([1, 2, 3]), "rgb(1, 2, 3)");
});

test("bands: good to 100 mm, poor from 1 m, fair between", () => {
  assert.equal(errorBand(100), "good");
  assert.equal(errorBand(100.1), "fair");
  assert.equal(errorBand(999), "fair");
  assert.equal(errorBand(1000), "poor");
  assert.equal(errorBand(null), "not covered");
});

test("the legend's gradient starts green and ends red", () => {
  const gradient = legendGradient(5);
  assert.match(gradient, /^linear-gradient\(to right, rgb\(26, 152, 80\) 0%, .* rgb\(215, 48, 39\) 100%\)$/);
  assert.equal(gradient.split("rgb(").length - 1, 5);
});

test("the cell under a point: its square reaches half a resolution around its centre", () => {
  const coverage = grid();
  assert.deepEqual(cellAt(coverage, 1000, 2000), { index: 0, col: 0, row: 0, x: 1000, y: 2000, error_mm: 10, anchors_in_range: 6 });
  // index row × columns + col
  const cell = cellAt(coverage, 1510, 2260);
  assert.deepEqual(cell && [cell.index, cell.col, cell.row, cell.x, cell.y, cell.error_mm, cell.anchors_in_range],
    [4, 1, 1, 1500, 2500, 1000, 3]);
  assert.equal(cellAt(coverage, 2000, 2000)?.error_mm, null, "null where not covered");
  assert.equal(cellAt(coverage, 2000, 2000)?.anchors_in_range, 2);
  // the grid's edges
  assert.equal(cellAt(coverage, 751, 1751)?.index, 0);
  assert.equal(cellAt(coverage, 749, 2000), null);
  assert.equal(cellAt(coverage, 1000, 1749), null);
  assert.equal(cellAt(coverage, 2249, 2749)?.index, 5);
  assert.equal(cellAt(coverage, 2251, 2500), null);
  assert.equal(cellAt(coverage, 1000, 2751), null);
  assert.equal(cellAt({ ...coverage, resolution_mm: 0 }, 1000, 2000), null);
});

test("the extent is the cells' squares, centres plus half a resolution", () => {
  assert.deepEqual(coverageExtent(grid()), { minX: 750, minY: 1750, maxX: 2250, maxY: 2750 });
});

test("the pixels: one per cell, north row on top, not covered grey and fainter", () => {
  const pixels = coveragePixels(grid(), 200, 50);
  assert.equal(pixels.length, 3 * 2 * 4);
  /** @param {number} x @param {number} y  pixel column and row */
  const pixel = (x, y) => [...pixels.slice((y * 3 + x) * 4, (y * 3 + x) * 4 + 4)];
  // the image's top row is the grid's row 1 (300, 1000, 5000 mm)
  assert.deepEqual(pixel(0, 0), [...errorColor(300), 200]);
  assert.deepEqual(pixel(2, 0), [...errorColor(5000), 200]);
  assert.deepEqual(pixel(0, 1), [...errorColor(10), 200]);
  assert.deepEqual(pixel(2, 1), [...NOT_COVERED, 50]);
});

test("the resolution asked for: 500 mm, coarser only when the grid would be too large", () => {
  assert.equal(coverageResolution([]), 500);
  const room = [{ x: 0, y: 0 }, { x: 20_000, y: 15_000 }];
  assert.equal(coverageResolution(room), 500);
  const hall = [{ x: -100_000, y: 0 }, { x: 100_000, y: 150_000 }];
  const resolution = coverageResolution(hall);
  assert.ok(resolution > 500, `${resolution}`);
  const cells = (Math.ceil(204_000 / resolution) + 1) * (Math.ceil(154_000 / resolution) + 1);
  assert.ok(cells <= MAX_CELLS, `${cells} cells at ${resolution} mm`);
  const finer = resolution / 2;
  assert.ok((Math.ceil(204_000 / finer) + 1) * (Math.ceil(154_000 / finer) + 1) > MAX_CELLS, "no coarser than needed");
});

test("a cell's hover text names its error and the anchors in range", () => {
  assert.equal(formatError(84.6), "85 mm");
  assert.equal(formatError(1250), "1.25 m");
  assert.equal(formatError(1000), "1 m");
  assert.equal(formatError(1504), "1.5 m");
  const coverage = grid();
  assert.equal(describeCell(/** @type {any} */ (cellAt(coverage, 1000, 2000))), "95% error 10 mm (good), 6 anchors in range");
  assert.equal(describeCell(/** @type {any} */ (cellAt(coverage, 1500, 2500))), "95% error 1 m (poor), 3 anchors in range");
  assert.equal(describeCell({ ...(/** @type {any} */ (cellAt(coverage, 2000, 2000))), anchors_in_range: 1 }), "Not covered: 1 anchor in range");
});
