// The anchors and seeders on the floor plan, and what the last survey says
// of them: the dashed way from a bad anchor to where the ranges put it, a
// crossed circle there, a ring in the verdict's colour; then the markers
// (squares, seeders diamonds, the selected one outlined) and their names,
// which always show and on the side away from a survey's suggestion.

import { COLORS, VERDICT_COLORS } from "./floor_style.js";
import { drawLabel, labelWidth } from "./floor_labels.js";

/** @typedef {import("./floorplan.js").FloorPlan} FloorPlan */

/**
 * Draws the survey's marks (if any), the anchors and their names.
 * @param {FloorPlan} plan
 */
export function drawAnchors(plan) {
  if (plan.survey.size) drawSurvey(plan);
  drawMarkers(plan);
  drawNames(plan);
}

/**
 * What the last survey says: first the way to where a bad anchor belongs
 * (under the anchors), then the rings.
 * @param {FloorPlan} plan
 */
function drawSurvey(plan) {
  const { ctx } = plan;
  /** @type {[number, number, number, number][]} each bad anchor's screen point, and where the ranges put it */
  const moves = [];
  for (const anchor of plan.anchors) {
    const suggested = plan.survey.get(anchor.serial_number)?.suggested;
    if (suggested) moves.push([...plan.toScreen(anchor.x, anchor.y), ...plan.toScreen(suggested.x, suggested.y)]);
  }
  ctx.save();
  ctx.setLineDash([5, 4]);
  ctx.lineWidth = 1.5;
  ctx.strokeStyle = VERDICT_COLORS.bad;
  for (const [sx, sy, tx, ty] of moves) {
    ctx.beginPath();
    ctx.moveTo(sx, sy);
    ctx.lineTo(tx, ty);
    ctx.stroke();
  }
  ctx.setLineDash([]);
  ctx.lineWidth = 2;
  for (const [, , tx, ty] of moves) {
    // A cross in a circle: where the ranges put it.
    ctx.beginPath();
    ctx.arc(tx, ty, 6, 0, 2 * Math.PI);
    ctx.moveTo(tx - 4, ty - 4);
    ctx.lineTo(tx + 4, ty + 4);
    ctx.moveTo(tx + 4, ty - 4);
    ctx.lineTo(tx - 4, ty + 4);
    ctx.stroke();
  }
  ctx.lineWidth = 2.5;
  for (const anchor of plan.anchors) {
    const verdict = plan.survey.get(anchor.serial_number)?.verdict;
    if (!verdict) continue;
    const [sx, sy] = plan.toScreen(anchor.x, anchor.y);
    ctx.beginPath();
    ctx.arc(sx, sy, 12, 0, 2 * Math.PI);
    ctx.strokeStyle = VERDICT_COLORS[verdict] || COLORS.ink;
    ctx.stroke();
  }
  ctx.restore();
}

/**
 * Each anchor's marker: a square, a diamond for a seeder; the selected one
 * outlined.
 * @param {FloorPlan} plan
 */
function drawMarkers(plan) {
  const { ctx } = plan;
  ctx.font = "12px system-ui, sans-serif";
  ctx.textBaseline = "middle";
  for (const anchor of plan.anchors) {
    const [sx, sy] = plan.toScreen(anchor.x, anchor.y);
    const seeder = anchor.role_id === 3;
    ctx.beginPath();
    if (seeder) {
      ctx.moveTo(sx, sy - 8);
      ctx.lineTo(sx + 8, sy);
      ctx.lineTo(sx, sy + 8);
      ctx.lineTo(sx - 8, sy);
      ctx.closePath();
    } else {
      ctx.rect(sx - 6, sy - 6, 12, 12);
    }
    ctx.fillStyle = seeder ? COLORS.seeder : COLORS.anchor;
    ctx.fill();
    if (anchor.key === plan.selectedAnchor) {
      ctx.lineWidth = 3;
      ctx.strokeStyle = COLORS.selected;
      ctx.stroke();
    }
  }
}

/**
 * Anchors are few and fixed: their names always show (beyond a survey's
 * ring), and tags' labels give way to them.
 * @param {FloorPlan} plan
 */
function drawNames(plan) {
  plan.ctx.fillStyle = COLORS.ink;
  const offset = plan.survey.size ? 16 : 11;
  for (const anchor of plan.anchors) {
    const [sx, sy] = plan.toScreen(anchor.x, anchor.y);
    const text = anchor.name || anchor.serial_number;
    const suggested = plan.survey.get(anchor.serial_number)?.suggested;
    // The name goes on the side away from where a survey would move it,
    // so that it does not hide the way there; the marker keeps its place.
    const [tx, ty] = suggested ? plan.toScreen(suggested.x, suggested.y) : [sx, sy];
    if (suggested) plan.labels.take(tx - 7, ty - 7, 14, 14, true);
    drawLabel(plan, text, tx > sx ? sx - offset - labelWidth(plan, text) : sx + offset, sy, true);
  }
}
