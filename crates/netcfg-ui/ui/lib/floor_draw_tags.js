// The live tags on the floor plan, drawn for thousands a frame: each tag's
// dot (grey when stale) and its error circle once large enough to see, in
// a few paths rather than a path a tag; then their labels (a tag's name,
// else its serial number) where they can be read, and a ring around the
// highlighted tag.

import { COLORS, STALE_MS, MIN_ERROR_PX, MAX_TAG_LABELS } from "./floor_style.js";
import { drawLabel } from "./floor_labels.js";

/** @typedef {import("./floorplan.js").FloorPlan} FloorPlan */

/**
 * Draws the tags as of `now` (performance.now()).
 * @param {FloorPlan} plan @param {number} now
 */
export function drawTags(plan, now) {
  drawDots(plan, now);
  drawTagLabels(plan);
}

/**
 * The dots, fresh and stale, and the error circles, of the tags on screen.
 * @param {FloorPlan} plan @param {number} now
 */
function drawDots(plan, now) {
  const { ctx, width, height, ox, oy, scale } = plan;
  const fresh = new Path2D();
  const stale = new Path2D();
  const errors = new Path2D();
  let anyError = false;
  const radius = 4;
  for (const tag of plan.tags.values()) {
    const sx = ox + tag.x * scale;
    const sy = oy - tag.y * scale;
    // Its error circle, once large enough to see beside the dot.
    const errorPx = tag.error_mm ? tag.error_mm * scale : 0;
    if (errorPx >= MIN_ERROR_PX && sx > -errorPx && sy > -errorPx && sx < width + errorPx && sy < height + errorPx) {
      errors.moveTo(sx + errorPx, sy);
      errors.arc(sx, sy, errorPx, 0, 2 * Math.PI);
      anyError = true;
    }
    if (sx < -radius || sy < -radius || sx > width + radius || sy > height + radius) continue;
    const path = now - tag.seenAt > STALE_MS ? stale : fresh;
    path.moveTo(sx + radius, sy);
    path.arc(sx, sy, radius, 0, 2 * Math.PI);
  }
  if (anyError) {
    ctx.fillStyle = "rgba(26, 127, 55, .04)";
    ctx.fill(errors);
    ctx.lineWidth = 1;
    ctx.strokeStyle = COLORS.error;
    ctx.stroke(errors);
  }
  ctx.fillStyle = COLORS.stale;
  ctx.fill(stale);
  ctx.fillStyle = COLORS.tag;
  ctx.fill(fresh);
}

/**
 * Labels where they can be read: the hovered and the highlighted tag's
 * always, then each other one unless it would overlap a label drawn before
 * it (the order of the Map is stable, so the same tags keep their labels
 * from frame to frame). The hover details show the rest. Then the ring
 * around the highlighted tag.
 * @param {FloorPlan} plan
 */
function drawTagLabels(plan) {
  const { ctx, width, height, ox, oy, scale } = plan;
  ctx.font = "11px system-ui, sans-serif";
  ctx.textBaseline = "middle";
  ctx.fillStyle = COLORS.ink;
  const hovered = plan.hover?.kind === "tag" ? plan.hover.tag : undefined;
  const highlighted = plan.highlightedTag ? plan.tags.get(plan.highlightedTag) : undefined;
  for (const tag of [hovered, highlighted]) {
    if (tag) drawLabel(plan, tagLabel(plan, tag), ox + tag.x * scale + 7, oy - tag.y * scale, true);
  }
  let drawn = 0;
  for (const tag of plan.tags.values()) {
    if (drawn >= MAX_TAG_LABELS) break;
    if (tag === hovered || tag === highlighted) continue;
    const sx = ox + tag.x * scale;
    const sy = oy - tag.y * scale;
    if (sx < 0 || sy < 0 || sx > width || sy > height) continue;
    if (drawLabel(plan, tagLabel(plan, tag), sx + 7, sy)) drawn += 1;
  }
  if (highlighted) {
    const [sx, sy] = plan.toScreen(highlighted.x, highlighted.y);
    ctx.beginPath();
    ctx.arc(sx, sy, 9, 0, 2 * Math.PI);
    ctx.lineWidth = 3;
    ctx.strokeStyle = COLORS.selected;
    ctx.stroke();
  }
}

/**
 * A tag's label: its name when it has one (what people on site call it),
 * else its serial number.
 * @param {FloorPlan} plan @param {import("./floorplan.js").Tag} tag
 */
function tagLabel(plan, tag) {
  return plan.callbacks.tagName?.(tag.serial_number) || tag.serial_number;
}
