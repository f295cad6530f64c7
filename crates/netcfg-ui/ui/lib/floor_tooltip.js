// The details of what the pointer is over on the floor plan, in a dark box
// beside it (kept inside the canvas): an anchor's serial number, name,
// position, survey verdict and whether it can be dragged; a tag's position,
// quality, error and age; a coverage cell's predicted error.

import { describeCell, formatError } from "./coverage.js";
import { metres, formatAge } from "./floor_format.js";
import { canDrag } from "./floor_drag.js";

/** @typedef {import("./floorplan.js").FloorPlan} FloorPlan */
/** @typedef {import("./floor_hit.js").Hover} Hover */

/**
 * The lines that describe `hover` as of `now` (performance.now()).
 * @param {FloorPlan} plan @param {Hover} hover @param {number} now
 * @returns {string[]}
 */
export function hoverLines(plan, hover, now) {
  if (hover.kind === "anchor") {
    const anchor = hover.anchor;
    const lines = [
      `${anchor.role_id === 3 ? "Seeder" : "Anchor"} ${anchor.serial_number}${anchor.name ? ` (${anchor.name})` : ""}`,
      `x ${metres(anchor.x)}, y ${metres(anchor.y)}, z ${metres(anchor.z)}`,
    ];
    const verdict = plan.survey.get(anchor.serial_number);
    if (verdict) {
      lines.push(`survey: ${verdict.verdict}, ${formatError(verdict.residual_mm)} from where the ranges put it`);
      const to = verdict.suggested;
      if (to) lines.push(`suggested x ${metres(to.x)}, y ${metres(to.y)}, z ${metres(to.z)}`);
    }
    if (plan.drag?.kind === "anchor") lines.push("release to save");
    else if (canDrag(plan)) lines.push("drag to move");
    return lines;
  }
  if (hover.kind === "tag") {
    const tag = hover.tag;
    const name = plan.callbacks.tagName?.(tag.serial_number);
    return [
      `Tag ${tag.serial_number}${name ? ` (${name})` : ""}`,
      `x ${metres(tag.x)}, y ${metres(tag.y)}, z ${metres(tag.z)}`,
      `quality ${tag.quality}${tag.error_mm != null ? `, 95% error ${formatError(tag.error_mm)}` : ""}, ${formatAge(now - tag.seenAt)} ago`,
      tag.vx != null && tag.vy != null ? `speed ${(Math.hypot(tag.vx, tag.vy) / 1000).toFixed(1)} m/s` : "untracked",
    ];
  }
  const cell = hover.cell;
  return [`Coverage at x ${metres(cell.x)}, y ${metres(cell.y)}`, describeCell(cell)];
}

/**
 * Draws the details of what the pointer is over, if anything.
 * @param {FloorPlan} plan @param {number} now
 */
export function drawHover(plan, now) {
  const hover = plan.hover;
  if (!hover) return;
  const lines = hoverLines(plan, hover, now);
  const { ctx } = plan;
  ctx.font = "12px system-ui, sans-serif";
  ctx.textBaseline = "top";
  const lineHeight = 16;
  const boxWidth = Math.max(...lines.map((line) => ctx.measureText(line).width)) + 12;
  const boxHeight = lines.length * lineHeight + 8;
  let x = plan.hoverX + 14;
  let y = plan.hoverY + 14;
  if (x + boxWidth > plan.width) x = plan.hoverX - boxWidth - 10;
  if (y + boxHeight > plan.height) y = plan.hoverY - boxHeight - 10;
  ctx.fillStyle = "rgba(15,39,64,.92)";
  ctx.fillRect(x, y, boxWidth, boxHeight);
  ctx.fillStyle = "#ffffff";
  lines.forEach((line, index) => ctx.fillText(line, x + 6, y + 4 + index * lineHeight));
}
