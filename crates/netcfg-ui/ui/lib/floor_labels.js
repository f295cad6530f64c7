// The floor plan's labels: text beside anchors and tags that never
// overlaps another label drawn in the same frame. `LabelSpace` keeps the
// rectangles taken this frame; `drawLabel` draws a text where it fits (or
// where it must), with the widths of texts measured once.

import { LABEL_HEIGHT } from "./floor_style.js";

/** @typedef {import("./floorplan.js").FloorPlan} FloorPlan */

/**
 * The screen rectangles labels took this frame, so that a label which would
 * overlap one already drawn is skipped. Rectangles are filed in square
 * buckets of `bucket` px: a test looks at the few buckets a rectangle
 * touches, not at every label.
 */
export class LabelSpace {
  /** @param {number} [bucket] px */
  constructor(bucket = 48) {
    this.bucket = bucket;
    /** @type {Map<number, number[]>} bucket key → x, y, width, height of each rectangle in it */
    this.buckets = new Map();
  }

  /** Empties it (each frame). */
  clear() {
    this.buckets.clear();
  }

  /**
   * Takes the rectangle when it overlaps none taken (or `force`): true when taken.
   * @param {number} x @param {number} y @param {number} width @param {number} height
   * @param {boolean} [force]  take it even over others (the hovered tag's label)
   */
  take(x, y, width, height, force = false) {
    const size = this.bucket;
    const left = Math.floor(x / size);
    const right = Math.floor((x + width) / size);
    const top = Math.floor(y / size);
    const bottom = Math.floor((y + height) / size);
    if (!force && this.overlaps(x, y, width, height, left, right, top, bottom)) return false;
    for (let bx = left; bx <= right; bx += 1) {
      for (let by = top; by <= bottom; by += 1) {
        const key = bx * 100_003 + by;
        const rects = this.buckets.get(key);
        if (rects) rects.push(x, y, width, height);
        else this.buckets.set(key, [x, y, width, height]);
      }
    }
    return true;
  }

  /**
   * Whether the rectangle overlaps one taken, in the buckets from `left` to
   * `right` and `top` to `bottom`.
   * @param {number} x @param {number} y @param {number} width @param {number} height
   * @param {number} left @param {number} right @param {number} top @param {number} bottom
   */
  overlaps(x, y, width, height, left, right, top, bottom) {
    for (let bx = left; bx <= right; bx += 1) {
      for (let by = top; by <= bottom; by += 1) {
        const rects = this.buckets.get(bx * 100_003 + by);
        if (!rects) continue;
        for (let at = 0; at < rects.length; at += 4) {
          if (x < rects[at] + rects[at + 2] && rects[at] < x + width && y < rects[at + 1] + rects[at + 3] && rects[at + 1] < y + height) {
            return true;
          }
        }
      }
    }
    return false;
  }
}

/**
 * Draws a label at (x, y) (its left, vertically centred) unless it would
 * overlap one drawn this frame; true when drawn.
 * @param {FloorPlan} plan
 * @param {string} text @param {number} x @param {number} y @param {boolean} [force]
 */
export function drawLabel(plan, text, x, y, force = false) {
  const width = labelWidth(plan, text);
  if (!plan.labels.take(x - 1, y - LABEL_HEIGHT / 2, width + 2, LABEL_HEIGHT, force)) return false;
  plan.ctx.fillText(text, x, y);
  return true;
}

/**
 * A text's width, px, in the current font (measureText is slow, and serial
 * numbers repeat every frame: each text is measured once).
 * @param {FloorPlan} plan @param {string} text
 */
export function labelWidth(plan, text) {
  let width = plan.labelWidths.get(text);
  if (width === undefined) {
    width = plan.ctx.measureText(text).width;
    plan.labelWidths.set(text, width);
  }
  return width;
}
