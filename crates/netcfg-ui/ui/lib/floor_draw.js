// One frame of the floor plan, from the bottom up: the predicted coverage,
// the grid and the axes, the position limits, the overlay (the zones), the
// anchors (lib/floor_draw_anchors.js), the tags (lib/floor_draw_tags.js),
// the scale bar, and the details of what the pointer is over
// (lib/floor_tooltip.js). Also counts each frame's duration in the plan's
// stats.

import { coverageExtent, coveragePixels } from "./coverage.js";
import { COLORS } from "./floor_style.js";
import { niceLength, formatLength } from "./floor_format.js";
import { drawAnchors } from "./floor_draw_anchors.js";
import { drawTags } from "./floor_draw_tags.js";
import { drawHover } from "./floor_tooltip.js";

/** @typedef {import("./floorplan.js").FloorPlan} FloorPlan */

/**
 * Draws the whole plan.
 * @param {FloorPlan} plan
 */
export function drawFrame(plan) {
  const started = performance.now();
  const { ctx, width, height } = plan;
  ctx.setTransform(plan.dpr, 0, 0, plan.dpr, 0, 0);
  ctx.clearRect(0, 0, width, height);
  const step = niceLength(100 / plan.scale); // about 100 px
  plan.labels.clear();
  drawCoverage(plan);
  drawGrid(plan, step);
  drawLimits(plan);
  plan.overlay?.draw();
  drawAnchors(plan);
  drawTags(plan, started);
  drawScale(plan, step);
  drawHover(plan, started);
  const spent = performance.now() - started;
  const stats = plan.stats;
  stats.recent[stats.frames % 512] = spent;
  stats.frames += 1;
  stats.lastFrameMs = spent;
  if (spent > stats.maxFrameMs) stats.maxFrameMs = spent;
}

/**
 * The grid, a line every `step` mm, and the axes through the origin.
 * @param {FloorPlan} plan @param {number} step
 */
function drawGrid(plan, step) {
  const { ctx, width, height } = plan;
  const [left, top] = plan.toWorld(0, 0);
  const [right, bottom] = plan.toWorld(width, height);
  ctx.beginPath();
  for (let x = Math.ceil(left / step) * step; x <= right; x += step) {
    const sx = Math.round(plan.ox + x * plan.scale) + 0.5;
    ctx.moveTo(sx, 0);
    ctx.lineTo(sx, height);
  }
  for (let y = Math.ceil(bottom / step) * step; y <= top; y += step) {
    const sy = Math.round(plan.oy - y * plan.scale) + 0.5;
    ctx.moveTo(0, sy);
    ctx.lineTo(width, sy);
  }
  ctx.strokeStyle = COLORS.grid;
  ctx.lineWidth = 1;
  ctx.stroke();
  // The axes through the origin.
  ctx.beginPath();
  const [zx, zy] = plan.toScreen(0, 0);
  ctx.moveTo(Math.round(zx) + 0.5, 0);
  ctx.lineTo(Math.round(zx) + 0.5, height);
  ctx.moveTo(0, Math.round(zy) + 0.5);
  ctx.lineTo(width, Math.round(zy) + 0.5);
  ctx.strokeStyle = "#c9d1d9";
  ctx.stroke();
}

/**
 * The position limits: dashed rectangles with their names.
 * @param {FloorPlan} plan
 */
function drawLimits(plan) {
  const { ctx } = plan;
  ctx.save();
  ctx.setLineDash([6, 4]);
  ctx.lineWidth = 1.5;
  ctx.strokeStyle = COLORS.limit;
  ctx.fillStyle = COLORS.limit;
  ctx.font = "12px system-ui, sans-serif";
  ctx.textBaseline = "bottom";
  for (const limit of plan.limits) {
    const [x0, y0] = plan.toScreen(limit.min_x, limit.max_y);
    const [x1, y1] = plan.toScreen(limit.max_x, limit.min_y);
    ctx.strokeRect(x0, y0, x1 - x0, y1 - y0);
    ctx.fillText(limit.name, x0 + 2, y0 - 2);
  }
  ctx.restore();
}

/**
 * The coverage beneath everything: one image, one pixel per cell, stretched
 * over the grid (made on the first frame that shows it).
 * @param {FloorPlan} plan
 */
function drawCoverage(plan) {
  const coverage = plan.coverage;
  if (!coverage) return;
  if (!plan.coverageImage) {
    if (typeof document === "undefined") return; // under node's tests
    const image = document.createElement("canvas");
    image.width = coverage.columns;
    image.height = coverage.rows;
    const pixels = coveragePixels(coverage);
    /** @type {CanvasRenderingContext2D} */ (image.getContext("2d")).putImageData(new ImageData(pixels, coverage.columns, coverage.rows), 0, 0);
    plan.coverageImage = image;
  }
  const box = coverageExtent(coverage);
  const [left, top] = plan.toScreen(box.minX, box.maxY);
  const [right, bottom] = plan.toScreen(box.maxX, box.minY);
  const { ctx } = plan;
  ctx.save();
  // Cells stay squares: a smoothed image would blur good into poor.
  ctx.imageSmoothingEnabled = false;
  ctx.drawImage(plan.coverageImage, left, top, right - left, bottom - top);
  ctx.restore();
}

/**
 * The scale bar at the bottom left: `step` mm, with its length written.
 * @param {FloorPlan} plan @param {number} step
 */
function drawScale(plan, step) {
  const { ctx, height } = plan;
  const length = step * plan.scale;
  const x = 16;
  const y = height - 18;
  ctx.fillStyle = "rgba(255,255,255,.85)";
  ctx.fillRect(x - 6, y - 20, length + 12, 30);
  ctx.beginPath();
  ctx.moveTo(x, y - 5);
  ctx.lineTo(x, y);
  ctx.lineTo(x + length, y);
  ctx.lineTo(x + length, y - 5);
  ctx.lineWidth = 2;
  ctx.strokeStyle = COLORS.ink;
  ctx.stroke();
  ctx.fillStyle = COLORS.ink;
  ctx.font = "12px system-ui, sans-serif";
  ctx.textBaseline = "bottom";
  ctx.fillText(formatLength(step), x + 2, y - 6);
}
