// The floor plan's view of the world: which part of it shows, at what
// scale. Fitting everything there is to see (anchors, survey suggestions,
// limits, tags, the overlay's shapes), centring on a point, zooming about a
// point and panning. The plan's `scale`, `ox` and `oy` map world
// millimetres to screen pixels (FloorPlan.toScreen and toWorld); once the
// user zooms or pans, the plan stops fitting itself as data comes.

import { MIN_SCALE, MAX_SCALE } from "./floor_style.js";

/** @typedef {import("./floorplan.js").FloorPlan} FloorPlan */
/** @typedef {{minX: number, minY: number, maxX: number, maxY: number}} Box */

/**
 * Puts world point (x, y) at the centre of the canvas.
 * @param {FloorPlan} plan @param {number} x @param {number} y
 */
export function centreOn(plan, x, y) {
  plan.ox = plan.width / 2 - x * plan.scale;
  plan.oy = plan.height / 2 + y * plan.scale;
  plan.requestDraw();
}

/**
 * The bounds of what there is to see: anchors, limits, then tags; null
 * when there is nothing.
 * @param {FloorPlan} plan
 * @returns {Box | null}
 */
export function bounds(plan) {
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  /** @param {number} x @param {number} y */
  const add = (x, y) => {
    if (x < minX) minX = x;
    if (x > maxX) maxX = x;
    if (y < minY) minY = y;
    if (y > maxY) maxY = y;
  };
  for (const anchor of plan.anchors) add(anchor.x, anchor.y);
  // Where a survey would move an anchor to shows too.
  for (const verdict of plan.survey.values()) if (verdict.suggested) add(verdict.suggested.x, verdict.suggested.y);
  for (const limit of plan.limits) {
    add(limit.min_x, limit.min_y);
    add(limit.max_x, limit.max_y);
  }
  for (const tag of plan.tags.values()) add(tag.x, tag.y);
  plan.overlay?.extendBounds?.(add);
  if (minX === Infinity) return null;
  return { minX, minY, maxX, maxY };
}

/**
 * Zooms and pans so that everything shows.
 * @param {FloorPlan} plan
 */
export function fit(plan) {
  if (plan.width < 2 || plan.height < 2) return;
  const box = bounds(plan);
  if (!box) {
    // Nothing yet: 20 m by 15 m from the origin.
    fitBox(plan, { minX: -1000, minY: -1000, maxX: 20000, maxY: 15000 });
    return;
  }
  plan.fitted = true;
  fitBox(plan, box);
}

/**
 * Shows `box` whole, centred, inside a margin.
 * @param {FloorPlan} plan @param {Box} box
 */
export function fitBox(plan, box) {
  const margin = 40;
  const spanX = Math.max(box.maxX - box.minX, 2000);
  const spanY = Math.max(box.maxY - box.minY, 2000);
  const scale = Math.min((plan.width - 2 * margin) / spanX, (plan.height - 2 * margin) / spanY);
  plan.scale = Math.min(MAX_SCALE, Math.max(MIN_SCALE, scale));
  centreOn(plan, (box.minX + box.maxX) / 2, (box.minY + box.maxY) / 2);
}

/**
 * Zooms by `factor` about screen point (sx, sy), within the scale's limits.
 * @param {FloorPlan} plan @param {number} factor @param {number} sx @param {number} sy
 */
export function zoomBy(plan, factor, sx, sy) {
  const [wx, wy] = plan.toWorld(sx, sy);
  plan.scale = Math.min(MAX_SCALE, Math.max(MIN_SCALE, plan.scale * factor));
  plan.ox = sx - wx * plan.scale;
  plan.oy = sy + wy * plan.scale;
  plan.fitted = true;
  plan.autoFit = false;
  plan.requestDraw();
}

/**
 * Moves the view by (dx, dy) screen pixels.
 * @param {FloorPlan} plan @param {number} dx @param {number} dy
 */
export function panBy(plan, dx, dy) {
  plan.ox += dx;
  plan.oy += dy;
  plan.fitted = true;
  plan.autoFit = false;
  plan.requestDraw();
}
