// The floor plan's input: the canvas's pointer, wheel and key events. The
// overlay (the zones) sees each first; then a press starts a drag
// (lib/floor_drag.js), a move without a button shows what is under the
// pointer (lib/floor_hit.js) and sets the cursor, the wheel zooms about the
// pointer, arrows pan, + and - zoom, 0 fits.

import { anchorAt, hoverAt, hoverChanged } from "./floor_hit.js";
import { canDrag, startDrag, dragTo, endDrag, cancelDrag } from "./floor_drag.js";

/** @typedef {import("./floorplan.js").FloorPlan} FloorPlan */

/**
 * An event's screen point: CSS pixels from the canvas's top left corner.
 * @param {FloorPlan} plan @param {MouseEvent} event
 * @returns {[number, number]}
 */
export function point(plan, event) {
  const rect = plan.canvas.getBoundingClientRect();
  return [event.clientX - rect.left, event.clientY - rect.top];
}

/** @param {FloorPlan} plan @param {PointerEvent} event */
export function pointerDown(plan, event) {
  if (event.button !== 0) return;
  const [sx, sy] = point(plan, event);
  const anchor = anchorAt(plan, sx, sy);
  plan.canvas.setPointerCapture(event.pointerId);
  startDrag(plan, sx, sy, anchor);
}

/** @param {FloorPlan} plan @param {PointerEvent} event */
export function pointerMove(plan, event) {
  const [sx, sy] = point(plan, event);
  if (plan.drag) {
    dragTo(plan, plan.drag, sx, sy);
    return;
  }
  const anchor = anchorAt(plan, sx, sy);
  const hover = hoverAt(plan, sx, sy, anchor);
  const changed = hoverChanged(hover, plan.hover);
  plan.canvas.style.cursor = plan.overlay?.hover?.(sx, sy) ?? (anchor && canDrag(plan) ? "move" : "grab");
  if (changed || hover) {
    plan.hover = hover;
    plan.hoverX = sx;
    plan.hoverY = sy;
    plan.requestDraw();
  }
}

/** @param {FloorPlan} plan @param {PointerEvent} event */
export function pointerUp(plan, event) {
  const drag = plan.drag;
  plan.drag = null;
  plan.canvas.style.cursor = "grab";
  if (!drag) return;
  if (plan.canvas.hasPointerCapture(event.pointerId)) plan.canvas.releasePointerCapture(event.pointerId);
  const [sx, sy] = point(plan, event);
  endDrag(plan, drag, sx, sy);
}

/** @param {FloorPlan} plan */
export function pointerCancel(plan) {
  const drag = plan.drag;
  plan.drag = null;
  cancelDrag(plan, drag);
  pointerLeave(plan);
}

/** @param {FloorPlan} plan */
export function pointerLeave(plan) {
  if (plan.hover && !plan.drag) {
    plan.hover = null;
    plan.requestDraw();
  }
}

/** @param {FloorPlan} plan @param {MouseEvent} event */
export function doubleClick(plan, event) {
  const [sx, sy] = point(plan, event);
  if (plan.overlay?.doubleClick?.(sx, sy)) event.preventDefault();
}

/** @param {FloorPlan} plan @param {WheelEvent} event */
export function wheel(plan, event) {
  event.preventDefault();
  const [sx, sy] = point(plan, event);
  const delta = event.deltaMode === 1 ? event.deltaY * 16 : event.deltaY;
  plan.zoomBy(Math.exp(-delta * 0.0015), sx, sy);
}

/** @param {FloorPlan} plan @param {KeyboardEvent} event */
export function key(plan, event) {
  if (event.altKey || event.ctrlKey || event.metaKey) return;
  if (plan.overlay?.key?.(event)) {
    event.preventDefault();
    return;
  }
  const step = event.shiftKey ? 200 : 50;
  switch (event.key) {
    case "ArrowLeft": plan.panBy(step, 0); break;
    case "ArrowRight": plan.panBy(-step, 0); break;
    case "ArrowUp": plan.panBy(0, step); break;
    case "ArrowDown": plan.panBy(0, -step); break;
    case "+": case "=": plan.zoomBy(1.25); break;
    case "-": case "_": plan.zoomBy(0.8); break;
    case "0": plan.fit(); break;
    default: return;
  }
  event.preventDefault();
}
