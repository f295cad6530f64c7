// Dragging on the floor plan, from the press to the release: a press the
// overlay takes (a zone's corner) is its drag; a press on an anchor, when
// anchors may move, drags the anchor (released elsewhere: the view is told
// to save it, `onAnchorDrop`); any other press pans the view. A press that
// does not move is a click: it selects the anchor under it, or clears the
// selection (unless the overlay takes the click).

/** @typedef {import("./floorplan.js").FloorPlan} FloorPlan */
/** @typedef {import("./floorplan.js").Anchor} Anchor */

/**
 * A drag under way: where it started (screen px), whether it moved beyond
 * a click's slack, and what it moves.
 * @typedef {{kind: "overlay", sx: number, sy: number, moved: boolean}
 *   | {kind: "anchor", anchor: Anchor, sx: number, sy: number, from: {x: number, y: number}, moved: boolean}
 *   | {kind: "pan", sx: number, sy: number, lastX: number, lastY: number, moved: boolean, anchor: Anchor | null}} Drag
 */

/**
 * Whether anchors may be dragged now (the view says; by default they may).
 * @param {FloorPlan} plan
 */
export function canDrag(plan) {
  return plan.callbacks.canDrag?.() ?? true;
}

/**
 * Starts the drag of a press at (sx, sy) over `anchor` (or none).
 * @param {FloorPlan} plan @param {number} sx @param {number} sy @param {Anchor | null} anchor
 */
export function startDrag(plan, sx, sy, anchor) {
  if (plan.overlay?.pointerDown?.(sx, sy)) {
    plan.autoFit = false;
    plan.drag = { kind: "overlay", sx, sy, moved: false };
    return;
  }
  if (anchor && canDrag(plan)) {
    plan.autoFit = false;
    plan.drag = { kind: "anchor", anchor, sx, sy, from: { x: anchor.x, y: anchor.y }, moved: false };
  } else {
    plan.drag = { kind: "pan", sx, sy, lastX: sx, lastY: sy, moved: false, anchor };
  }
  plan.canvas.style.cursor = "grabbing";
}

/**
 * The pointer moved to (sx, sy) during `drag`.
 * @param {FloorPlan} plan @param {Drag} drag @param {number} sx @param {number} sy
 */
export function dragTo(plan, drag, sx, sy) {
  if (!drag.moved && (sx - drag.sx) ** 2 + (sy - drag.sy) ** 2 > 9) drag.moved = true;
  if (drag.kind === "overlay") {
    if (drag.moved) plan.overlay?.dragMove?.(sx, sy);
  } else if (drag.kind === "anchor") {
    if (drag.moved) {
      const [wx, wy] = plan.toWorld(sx, sy);
      drag.anchor.x = Math.round(wx);
      drag.anchor.y = Math.round(wy);
      plan.hover = { kind: "anchor", anchor: drag.anchor };
      plan.hoverX = sx;
      plan.hoverY = sy;
      plan.requestDraw();
    }
  } else {
    plan.panBy(sx - drag.lastX, sy - drag.lastY);
    drag.lastX = sx;
    drag.lastY = sy;
  }
}

/**
 * `drag` ended with a release at (sx, sy).
 * @param {FloorPlan} plan @param {Drag} drag @param {number} sx @param {number} sy
 */
export function endDrag(plan, drag, sx, sy) {
  if (drag.kind === "overlay") {
    plan.overlay?.dragEnd?.(sx, sy, drag.moved);
  } else if (drag.kind === "anchor") {
    const anchor = drag.anchor;
    plan.selectAnchor(anchor.key);
    plan.callbacks.onSelectAnchor?.(anchor.key);
    if (drag.moved && (anchor.x !== drag.from.x || anchor.y !== drag.from.y)) {
      plan.callbacks.onAnchorDrop?.(anchor, anchor.x, anchor.y, drag.from);
    }
  } else if (!drag.moved) {
    // A click: the overlay's if it takes it (a point of a zone being
    // drawn); else on an anchor (dragging off) selects it, elsewhere clears.
    if (plan.overlay?.click?.(sx, sy, Boolean(drag.anchor))) return;
    const key = drag.anchor ? drag.anchor.key : null;
    plan.selectAnchor(key);
    plan.callbacks.onSelectAnchor?.(key);
  }
}

/**
 * `drag` was cancelled (the pointer was lost): a dragged anchor goes back.
 * @param {FloorPlan} plan @param {Drag | null} drag
 */
export function cancelDrag(plan, drag) {
  if (drag?.kind === "anchor") plan.moveAnchor(drag.anchor.key, drag.from.x, drag.from.y);
  if (drag?.kind === "overlay") plan.overlay?.dragCancel?.();
}
