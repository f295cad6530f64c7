// The coverage map's logic (GET /nets/{net}/coverage): the colour scale of
// the predicted error, the cell under a point, the grid as pixels. Plain
// functions with no DOM, so node's test runner loads this module as it is
// (tests/js/coverage.test.mjs); lib/floorplan.js draws with them.

/** @typedef {import("./types.js").Coverage} Coverage */

/** At or under this 95% error (mm) a cell is good: a tag there is placed well. */
export const GOOD_MM = 100;
/** At or over this 95% error (mm) a cell is poor. */
export const POOR_MM = 1000;

/**
 * The scale's colours, good to poor. Errors span orders of magnitude, so
 * the scale runs on their logarithm: 316 mm sits at its middle.
 * @type {[number, number, number][]}
 */
const STOPS = [
  [26, 152, 80], // green
  [145, 207, 96],
  [254, 224, 139], // yellow
  [252, 141, 89],
  [215, 48, 39], // red
];

/** Cells no tag can be located in: grey. */
export const NOT_COVERED = /** @type {[number, number, number]} */ ([139, 150, 161]);

/**
 * Where an error sits on the scale: 0 at GOOD_MM and under, 1 at POOR_MM and over.
 * @param {number} mm
 */
export function scalePosition(mm) {
  if (!(mm > GOOD_MM)) return 0; // NaN too
  if (mm >= POOR_MM) return 1;
  return Math.log(mm / GOOD_MM) / Math.log(POOR_MM / GOOD_MM);
}

/**
 * The colour of a cell's error; grey when it is not covered (null).
 * @param {number | null | undefined} mm
 * @returns {[number, number, number]}
 */
export function errorColor(mm) {
  if (mm == null || !Number.isFinite(mm)) return NOT_COVERED;
  const at = scalePosition(mm) * (STOPS.length - 1);
  const low = Math.min(Math.floor(at), STOPS.length - 2);
  const share = at - low;
  const [a, b] = [STOPS[low], STOPS[low + 1]];
  return /** @type {[number, number, number]} */ (a.map((value, index) => Math.round(value + (b[index] - value) * share)));
}

/**
 * A colour for CSS and the canvas.
 * @param {[number, number, number]} rgb
 */
export function cssColor([r, g, b]) {
  return `rgb(${r}, ${g}, ${b})`;
}

/**
 * The word for an error: good, fair, poor, or "not covered".
 * @param {number | null | undefined} mm
 * @returns {"good" | "fair" | "poor" | "not covered"}
 */
export function errorBand(mm) {
  if (mm == null || !Number.isFinite(mm)) return "not covered";
  if (mm <= GOOD_MM) return "good";
  if (mm >= POOR_MM) return "poor";
  return "fair";
}

/**
 * The legend's bar: a CSS gradient along the scale, good on the left.
 * @param {number} [steps]  colours sampled along it
 */
export function legendGradient(steps = 9) {
  const parts = [];
  for (let index = 0; index < steps; index += 1) {
    const share = index / (steps - 1);
    const mm = GOOD_MM * (POOR_MM / GOOD_MM) ** share;
    parts.push(`${cssColor(errorColor(mm))} ${Math.round(share * 100)}%`);
  }
  return `linear-gradient(to right, ${parts.join(", ")})`;
}

/**
 * @typedef {object} Cell
 * @property {number} index            row × columns + col
 * @property {number} col
 * @property {number} row
 * @property {number} x                its centre, mm
 * @property {number} y
 * @property {number | null} error_mm
 * @property {number} anchors_in_range
 */

/**
 * The cell whose square holds the world point (x, y), or null outside the grid.
 * @param {Coverage} coverage
 * @param {number} x  mm
 * @param {number} y  mm
 * @returns {Cell | null}
 */
export function cellAt(coverage, x, y) {
  const { x0, y0, resolution_mm: size, columns, rows } = coverage;
  if (!(size > 0)) return null;
  // floor(… + ½), not Math.round: that gives -0 just left of the first centre.
  const col = Math.floor((x - x0) / size + 0.5);
  const row = Math.floor((y - y0) / size + 0.5);
  if (!(col >= 0 && col < columns && row >= 0 && row < rows)) return null;
  const index = row * columns + col;
  return {
    index,
    col,
    row,
    x: x0 + col * size,
    y: y0 + row * size,
    error_mm: coverage.error_mm[index] ?? null,
    anchors_in_range: coverage.anchors_in_range[index] ?? 0,
  };
}

/**
 * The world box the cells' squares cover (each cell reaches half a
 * resolution beyond its centre).
 * @param {Coverage} coverage
 */
export function coverageExtent(coverage) {
  const half = coverage.resolution_mm / 2;
  return {
    minX: coverage.x0 - half,
    minY: coverage.y0 - half,
    maxX: coverage.x0 + (coverage.columns - 1) * coverage.resolution_mm + half,
    maxY: coverage.y0 + (coverage.rows - 1) * coverage.resolution_mm + half,
  };
}

/**
 * The grid as RGBA pixels, one per cell, `columns` wide: the top row is the
 * grid's last (north is up on screen), so the image is drawn once, stretched
 * over `coverageExtent`, instead of a rectangle per cell per frame.
 * @param {Coverage} coverage
 * @param {number} [alpha]        opacity of covered cells, 0 to 255
 * @param {number} [greyAlpha]    opacity of cells not covered
 */
export function coveragePixels(coverage, alpha = 120, greyAlpha = 70) {
  const { columns, rows } = coverage;
  const pixels = new Uint8ClampedArray(columns * rows * 4);
  for (let row = 0; row < rows; row += 1) {
    const top = rows - 1 - row;
    for (let col = 0; col < columns; col += 1) {
      const mm = coverage.error_mm[row * columns + col];
      const [r, g, b] = errorColor(mm);
      const at = (top * columns + col) * 4;
      pixels[at] = r;
      pixels[at + 1] = g;
      pixels[at + 2] = b;
      pixels[at + 3] = mm == null ? greyAlpha : alpha;
    }
  }
  return pixels;
}

/** The most cells the view asks for: a coarser grid beyond (the server's limit is far higher, but each cell costs it a solve). */
export const MAX_CELLS = 40_000;

/**
 * The resolution to ask for (mm): 500 mm, the API's default, doubled until
 * the grid over the anchors (plus the server's 2 m margin) stays under
 * MAX_CELLS, so a large site still answers quickly.
 * @param {{x: number, y: number}[]} anchors
 */
export function coverageResolution(anchors) {
  let resolution = 500;
  if (anchors.length === 0) return resolution;
  const xs = anchors.map((anchor) => anchor.x);
  const ys = anchors.map((anchor) => anchor.y);
  const width = Math.max(...xs) - Math.min(...xs) + 4000;
  const height = Math.max(...ys) - Math.min(...ys) + 4000;
  while ((Math.ceil(width / resolution) + 1) * (Math.ceil(height / resolution) + 1) > MAX_CELLS) resolution *= 2;
  return resolution;
}

/**
 * An error in mm for people: "85 mm", "1.25 m", "1 m".
 * @param {number} mm
 */
export function formatError(mm) {
  return mm < 1000 ? `${Math.round(mm)} mm` : `${Number((mm / 1000).toFixed(2))} m`;
}

/**
 * The hover text of a cell.
 * @param {Cell} cell
 */
export function describeCell(cell) {
  const anchors = `${cell.anchors_in_range} anchor${cell.anchors_in_range === 1 ? "" : "s"} in range`;
  if (cell.error_mm == null) return `Not covered: ${anchors}`;
  return `95% error ${formatError(cell.error_mm)} (${errorBand(cell.error_mm)}), ${anchors}`;
}
