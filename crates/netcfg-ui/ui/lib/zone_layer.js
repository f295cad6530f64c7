// The zones on the floor plan (lib/floorplan.js's overlay): each zone's
// outline, translucent, with its name and how many tags are inside (a zone
// with tags inside is filled warmer and edged thicker); the selected zone's
// points, which drag; and the outline being drawn, point by point, growing
// under the pointer. It holds no data of its own but what the view gives it
// and calls the view back; the geometry is lib/zones.js's. A closed
// outline that crosses itself has its crossing edges marked, with their
// numbers (counted from 1, as the form and the server count them).

import { COLORS } from "./floor_style.js";
import { crossingEdges, draftClick, labelPoint, movePoint, nearestPoint, selfIntersection, topRun, zoneAt, MIN_POINTS } from "./zones.js";

/** @typedef {import("./floorplan.js").FloorPlan} FloorPlan */
/** @typedef {import("./zones.js").Point} Point */
/** @typedef {import("./types.js").Zone} Zone */

/** How near (px) a click must be to a point to take it. */
const REACH_PX = 9;
/** The height of a zone's label (two lines), px. */
const LABEL_PX = 32;

export const ZONE_COLORS = {
  fill: "rgba(11, 92, 173, .10)",
  edge: "#0b5cad",
  occupiedFill: "rgba(207, 110, 0, .24)",
  occupiedEdge: "#b35c00",
  draft: "#6f42c1",
  crossing: "#cf222e",
};

/**
 * @typedef {object} ZoneCallbacks
 * @property {(zone: string) => number} count                   tags inside the zone now
 * @property {(zone: string | null) => void} onSelect          a click selected a zone (or none)
 * @property {(points: Point[]) => void} onDraftClosed          the outline drawn was closed
 * @property {() => void} onDraftCancel                         Escape while drawing
 * @property {(points: Point[]) => void} [onDraftChange]        a point was added or taken back
 * @property {(zone: string, polygon: Point[], from: Point[]) => void} onPolygonDrop  a point was dragged
 * @property {(zone: string) => boolean} [canEdit]  whether the zone's points may be dragged (the signed-in role); default yes
 */

export class ZoneLayer {
  /**
   * @param {FloorPlan} plan
   * @param {ZoneCallbacks} callbacks
   */
  constructor(plan, callbacks) {
    this.plan = plan;
    this.callbacks = callbacks;
    /** @type {Zone[]} */
    this.zones = [];
    /** @type {string | null} */
    this.selected = null;
    /** @type {Point[] | null} the outline being drawn; null when not drawing */
    this.draft = null;
    /** @type {Point[] | null} a closed outline waiting for its name, or a zone's points being edited */
    this.pending = null;
    /** @type {{points: Point[] | null, edges: number[]}} the crossing edges of the last pending outline drawn */
    this.crossings = { points: null, edges: [] };
    /** @type {Point | null} where the pointer is while drawing, mm */
    this.cursor = null;
    /** @type {{zone: string, index: number, from: Point[], polygon: Point[]} | null} */
    this.pointDrag = null;
    plan.setOverlay(this);
  }

  // ---- what the view gives ----------------------------------------------

  /** @param {Zone[]} zones */
  setZones(zones) {
    const drag = this.pointDrag;
    // The zone whose point is being dragged keeps following the pointer.
    this.zones = drag ? zones.map((zone) => (zone.name === drag.zone ? { ...zone, polygon: drag.polygon } : zone)) : zones;
    if (this.plan.autoFit) this.plan.fit();
    this.plan.requestDraw();
  }

  /** @param {string | null} name */
  select(name) {
    this.selected = name;
    this.plan.requestDraw();
  }

  /**
   * Shows a zone with this outline (after a refused save, the one it had).
   * @param {string} name @param {Point[]} polygon
   */
  moveZone(name, polygon) {
    this.zones = this.zones.map((zone) => (zone.name === name ? { ...zone, polygon } : zone));
    this.plan.requestDraw();
  }

  /** Starts drawing a new outline: clicks add points from now on. */
  startDrawing() {
    this.draft = [];
    this.pending = null;
    this.cursor = null;
    // The plan holds still while a person draws on it.
    this.plan.autoFit = false;
    this.plan.requestDraw();
  }

  /** Stops drawing, keeping nothing. */
  stopDrawing() {
    this.draft = null;
    this.cursor = null;
    this.plan.requestDraw();
  }

  get drawing() {
    return this.draft !== null;
  }

  /** Closes the outline drawn (when it has enough points): the view asks for its name. */
  finishDrawing() {
    const points = this.draft;
    if (!points || points.length < MIN_POINTS) return false;
    this.draft = null;
    this.cursor = null;
    this.pending = points;
    this.plan.requestDraw();
    this.callbacks.onDraftClosed(points);
    return true;
  }

  /**
   * The closed outline drawn while its form is open, or none.
   * @param {Point[] | null} points
   */
  setPending(points) {
    this.pending = points;
    this.plan.requestDraw();
  }

  /** Takes back the last point drawn. */
  undoPoint() {
    if (!this.draft?.length) return;
    this.draft = this.draft.slice(0, -1);
    this.callbacks.onDraftChange?.(this.draft);
    this.plan.requestDraw();
  }

  // ---- input (the plan's overlay) ----------------------------------------

  /** A click's reach, mm. */
  reach() {
    return REACH_PX / this.plan.scale;
  }

  /** @param {number} sx @param {number} sy */
  pointerDown(sx, sy) {
    if (this.drawing) return false;
    const zone = this.zones.find((item) => item.name === this.selected);
    if (!zone || !this.editable(zone.name)) return false;
    const [x, y] = this.plan.toWorld(sx, sy);
    const index = nearestPoint(zone.polygon, x, y, this.reach());
    if (index < 0) return false;
    this.pointDrag = { zone: zone.name, index, from: zone.polygon, polygon: zone.polygon };
    return true;
  }

  /** @param {number} sx @param {number} sy */
  dragMove(sx, sy) {
    const drag = this.pointDrag;
    if (!drag) return;
    const [x, y] = this.plan.toWorld(sx, sy);
    drag.polygon = movePoint(drag.from, drag.index, x, y);
    this.moveZone(drag.zone, drag.polygon);
  }

  /** @param {number} sx @param {number} sy @param {boolean} moved */
  dragEnd(sx, sy, moved) {
    const drag = this.pointDrag;
    if (!drag) return;
    if (moved) this.dragMove(sx, sy);
    this.pointDrag = null;
    const [x, y] = drag.polygon[drag.index];
    const [fromX, fromY] = drag.from[drag.index];
    if (moved && (x !== fromX || y !== fromY)) this.callbacks.onPolygonDrop(drag.zone, drag.polygon, drag.from);
  }

  dragCancel() {
    const drag = this.pointDrag;
    this.pointDrag = null;
    if (drag) this.moveZone(drag.zone, drag.from);
  }

  /** @param {number} sx @param {number} sy */
  hover(sx, sy) {
    if (this.drawing) {
      this.cursor = this.plan.toWorld(sx, sy);
      this.plan.requestDraw();
      return "crosshair";
    }
    const zone = this.zones.find((item) => item.name === this.selected);
    if (zone && this.editable(zone.name) && nearestPoint(zone.polygon, ...this.plan.toWorld(sx, sy), this.reach()) >= 0) return "move";
    return null;
  }

  /** @param {string} zone  whether its points may be dragged */
  editable(zone) {
    return this.callbacks.canEdit?.(zone) ?? true;
  }

  /** @param {number} sx @param {number} sy @param {boolean} onAnchor */
  click(sx, sy, onAnchor) {
    const [x, y] = this.plan.toWorld(sx, sy);
    if (this.draft) {
      const next = draftClick(this.draft, x, y, this.reach());
      if (next.closed) {
        this.finishDrawing();
      } else if (next.points !== this.draft) {
        this.draft = next.points;
        this.callbacks.onDraftChange?.(this.draft);
        this.plan.requestDraw();
      }
      return true;
    }
    if (onAnchor) return false;
    const zone = zoneAt(this.zones, x, y);
    this.select(zone ? zone.name : null);
    this.callbacks.onSelect(zone ? zone.name : null);
    return false;
  }

  doubleClick() {
    return this.drawing ? this.finishDrawing() || true : false;
  }

  /** @param {KeyboardEvent} event */
  key(event) {
    if (this.drawing) {
      if (event.key === "Enter") this.finishDrawing();
      else if (event.key === "Escape") this.callbacks.onDraftCancel();
      else if (event.key === "Backspace") this.undoPoint();
      else return false;
      return true;
    }
    if (event.key === "Escape" && this.selected !== null) {
      this.select(null);
      this.callbacks.onSelect(null);
      return true;
    }
    return false;
  }

  /** @param {(x: number, y: number) => void} add */
  extendBounds(add) {
    for (const zone of this.zones) for (const [x, y] of zone.polygon) add(x, y);
  }

  // ---- drawing ------------------------------------------------------------

  draw() {
    const { ctx } = this.plan;
    ctx.save();
    for (const zone of this.zones) this.drawZone(zone);
    if (this.pending) this.drawOutline(this.pending, true);
    if (this.draft) this.drawOutline(this.cursor ? [...this.draft, this.cursor] : this.draft, false);
    // Names over every outline.
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    for (const zone of this.zones) this.drawLabel(zone);
    ctx.restore();
  }

  /** @param {Point[]} polygon */
  trace(polygon) {
    const { ctx } = this.plan;
    ctx.beginPath();
    polygon.forEach(([x, y], index) => {
      const [sx, sy] = this.plan.toScreen(x, y);
      if (index === 0) ctx.moveTo(sx, sy);
      else ctx.lineTo(sx, sy);
    });
  }

  /** @param {Zone} zone */
  drawZone(zone) {
    const { ctx } = this.plan;
    const occupied = this.callbacks.count(zone.name) > 0;
    const selected = zone.name === this.selected;
    this.trace(zone.polygon);
    ctx.closePath();
    ctx.fillStyle = occupied ? ZONE_COLORS.occupiedFill : ZONE_COLORS.fill;
    ctx.fill();
    ctx.setLineDash([]);
    ctx.lineWidth = selected ? 3 : occupied ? 2.5 : 1.5;
    ctx.strokeStyle = selected ? COLORS.selected : occupied ? ZONE_COLORS.occupiedEdge : ZONE_COLORS.edge;
    ctx.stroke();
    if (selected) this.drawHandles(zone.polygon, ZONE_COLORS.edge);
  }

  /** @param {Zone} zone */
  drawLabel(zone) {
    const { ctx } = this.plan;
    const count = this.callbacks.count(zone.name);
    const [x, y] = labelPoint(zone.polygon);
    // At the top of the zone, inside when it is tall enough on screen, else
    // just above it: the tags inside stay in view.
    const run = topRun(zone.polygon, x);
    const [sx, centre] = this.plan.toScreen(x, y);
    const [top, bottom] = run ? [this.plan.toScreen(x, run[1])[1], this.plan.toScreen(x, run[0])[1]] : [centre, centre];
    const sy = !run ? centre : bottom - top >= 3 * LABEL_PX ? top + LABEL_PX / 2 + 4 : top - LABEL_PX / 2 - 4;
    if (sx < -100 || sy < -40 || sx > this.plan.width + 100 || sy > this.plan.height + 40) return;
    const lines = [zone.name, `${count} inside`];
    ctx.font = "600 12px system-ui, sans-serif";
    const width = Math.max(...lines.map((line) => ctx.measureText(line).width)) + 10;
    // Tags' labels give way to it.
    this.plan.labels.take(sx - width / 2, sy - LABEL_PX / 2, width, LABEL_PX, true);
    ctx.fillStyle = "rgba(255, 255, 255, .82)";
    ctx.fillRect(sx - width / 2, sy - LABEL_PX / 2, width, LABEL_PX);
    ctx.fillStyle = COLORS.ink;
    ctx.fillText(lines[0], sx, sy - 7);
    ctx.font = "12px system-ui, sans-serif";
    ctx.fillStyle = count > 0 ? ZONE_COLORS.occupiedEdge : COLORS.ink;
    ctx.fillText(lines[1], sx, sy + 8);
  }

  /**
   * An outline being drawn (open, the last point following the pointer:
   * all red while it would cross itself closed) or waiting for its name or
   * edited in a form (closed: its crossing edges red and numbered).
   * @param {Point[]} points @param {boolean} closed
   */
  drawOutline(points, closed) {
    const { ctx } = this.plan;
    if (points.length === 0) return;
    const edges = closed ? this.crossingsOf(points) : [];
    const crossing = closed ? edges.length > 0 : points.length >= MIN_POINTS && selfIntersection(points) !== null;
    const color = crossing && !closed ? ZONE_COLORS.crossing : ZONE_COLORS.draft;
    this.trace(points);
    if (closed) {
      ctx.closePath();
      ctx.fillStyle = "rgba(111, 66, 193, .12)";
      ctx.fill();
    }
    ctx.setLineDash(closed ? [6, 4] : []);
    ctx.lineWidth = 2;
    ctx.strokeStyle = color;
    ctx.stroke();
    if (crossing && closed) this.markCrossings(points, edges);
    if (!closed && points.length >= 2) {
      // The way back to the first point, where a click closes it.
      const [fx, fy] = this.plan.toScreen(...points[0]);
      const [lx, ly] = this.plan.toScreen(...points[points.length - 1]);
      ctx.beginPath();
      ctx.moveTo(lx, ly);
      ctx.lineTo(fx, fy);
      ctx.setLineDash([4, 4]);
      ctx.lineWidth = 1;
      ctx.stroke();
      ctx.setLineDash([]);
    }
    this.drawHandles(closed || !this.cursor ? points : points.slice(0, -1), color);
    const draft = this.draft;
    if (!closed && draft && draft.length >= MIN_POINTS) {
      // The first point, ringed: a click there closes the outline.
      const [fx, fy] = this.plan.toScreen(...draft[0]);
      const near = this.cursor && nearestPoint([draft[0]], ...this.cursor, this.reach()) === 0;
      ctx.beginPath();
      ctx.arc(fx, fy, near ? REACH_PX + 2 : REACH_PX, 0, 2 * Math.PI);
      ctx.lineWidth = near ? 3 : 1.5;
      ctx.strokeStyle = color;
      ctx.stroke();
    }
  }

  /**
   * The edges of a closed outline that cross another, thick and red, each
   * with its number beside it, where no other number is.
   * @param {Point[]} points @param {number[]} edges  counted from 1
   */
  markCrossings(points, edges) {
    const { ctx } = this.plan;
    ctx.save();
    ctx.setLineDash([]);
    ctx.lineWidth = 4;
    ctx.strokeStyle = ZONE_COLORS.crossing;
    ctx.font = "600 12px system-ui, sans-serif";
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    for (const edge of edges) {
      const [ax, ay] = this.plan.toScreen(...points[edge - 1]);
      const [bx, by] = this.plan.toScreen(...points[edge % points.length]);
      ctx.beginPath();
      ctx.moveTo(ax, ay);
      ctx.lineTo(bx, by);
      ctx.stroke();
      const length = Math.hypot(bx - ax, by - ay) || 1;
      // Beside its middle, else a quarter from either end when another
      // number is there already (two edges crossing at their middles).
      const spots = [0.5, 0.25, 0.75].map((along) => [ax + (bx - ax) * along + ((ay - by) / length) * 12, ay + (by - ay) * along + ((bx - ax) / length) * 12]);
      const [tx, ty] = spots.find(([x, y]) => this.plan.labels.take(x - 12, y - 11, 24, 22)) || spots[0];
      ctx.fillStyle = "#ffffff";
      ctx.fillRect(tx - 9, ty - 8, 18, 16);
      ctx.fillStyle = ZONE_COLORS.crossing;
      ctx.fillText(String(edge), tx, ty);
    }
    ctx.restore();
  }

  /**
   * The crossing edges of a closed outline, worked out once per outline
   * rather than every frame (1,000 points are half a million pairs).
   * @param {Point[]} points
   */
  crossingsOf(points) {
    if (this.crossings.points !== points) this.crossings = { points, edges: crossingEdges(points) };
    return this.crossings.edges;
  }

  /** @param {Point[]} points @param {string} color */
  drawHandles(points, color) {
    const { ctx } = this.plan;
    ctx.setLineDash([]);
    ctx.lineWidth = 1.5;
    for (const [x, y] of points) {
      const [sx, sy] = this.plan.toScreen(x, y);
      ctx.beginPath();
      ctx.rect(sx - 4, sy - 4, 8, 8);
      ctx.fillStyle = "#ffffff";
      ctx.fill();
      ctx.strokeStyle = color;
      ctx.stroke();
    }
  }
}
