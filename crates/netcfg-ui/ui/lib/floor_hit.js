// Hit testing on the floor plan: what is under a screen point (the nearest
// anchor within reach, else the nearest tag, else the coverage cell), and
// whether what the pointer is over changed. Screen points are CSS pixels
// of the canvas.

import { cellAt } from "./coverage.js";
import { HIT_PX } from "./floor_style.js";

/** @typedef {import("./floorplan.js").FloorPlan} FloorPlan */
/** @typedef {import("./floorplan.js").Anchor} Anchor */
/** @typedef {import("./floorplan.js").Tag} Tag */

/**
 * What the pointer is over: its details show beside it.
 * @typedef {{kind: "anchor", anchor: Anchor} | {kind: "tag", tag: Tag} | {kind: "cell", cell: import("./coverage.js").Cell}} Hover
 */

/**
 * The anchor nearest screen point (sx, sy) within reach, or null.
 * @param {FloorPlan} plan @param {number} sx @param {number} sy
 */
export function anchorAt(plan, sx, sy) {
  let best = null;
  let bestDistance = HIT_PX * HIT_PX;
  for (const anchor of plan.anchors) {
    const [ax, ay] = plan.toScreen(anchor.x, anchor.y);
    const distance = (ax - sx) ** 2 + (ay - sy) ** 2;
    if (distance <= bestDistance) {
      best = anchor;
      bestDistance = distance;
    }
  }
  return best;
}

/**
 * The tag nearest screen point (sx, sy) within reach, or null (tags may be
 * thousands: the transform is inlined).
 * @param {FloorPlan} plan @param {number} sx @param {number} sy
 */
export function tagAt(plan, sx, sy) {
  let best = null;
  let bestDistance = HIT_PX * HIT_PX;
  for (const tag of plan.tags.values()) {
    const tx = plan.ox + tag.x * plan.scale;
    const ty = plan.oy - tag.y * plan.scale;
    const distance = (tx - sx) * (tx - sx) + (ty - sy) * (ty - sy);
    if (distance <= bestDistance) {
      best = tag;
      bestDistance = distance;
    }
  }
  return best;
}

/**
 * What is under screen point (sx, sy): an anchor first, then a tag, then
 * the coverage's cell; null for none.
 * @param {FloorPlan} plan @param {number} sx @param {number} sy
 * @param {Anchor | null} anchor  the anchor there (anchorAt), found already
 * @returns {Hover | null}
 */
export function hoverAt(plan, sx, sy, anchor) {
  if (anchor) return { kind: "anchor", anchor };
  const tag = tagAt(plan, sx, sy);
  if (tag) return { kind: "tag", tag };
  const cell = plan.coverage ? cellAt(plan.coverage, ...plan.toWorld(sx, sy)) : null;
  return cell ? { kind: "cell", cell } : null;
}

/**
 * Whether `next` is over something else than `previous`.
 * @param {Hover | null} next @param {Hover | null} previous
 */
export function hoverChanged(next, previous) {
  if (next?.kind !== previous?.kind) return true;
  if (!next || !previous) return false;
  const a = /** @type {any} */ (next);
  const b = /** @type {any} */ (previous);
  return a.anchor !== b.anchor || a.tag !== b.tag || a.cell?.index !== b.cell?.index;
}
