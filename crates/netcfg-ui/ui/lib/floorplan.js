// The floor plan: anchors, seeders, position limits and live tags on one
// <canvas>, with zoom, pan, hover and anchor dragging. `FloorPlan` holds the
// data itself (tags in a Map, updated in place), draws on
// requestAnimationFrame only when something changed, and never touches
// Preact: the view gives it data and gets callbacks.
//
// World coordinates are the API's: millimetres, x east, y north (so y grows
// upwards on screen). Screen coordinates are CSS pixels of the canvas.
//
// Beneath everything it can draw the predicted coverage (lib/coverage.js)
// and around the anchors the verdicts of the last survey. An overlay (the
// zones: lib/zone_layer.js) draws between the limits and the anchors, and
// gets the pointer and the keys first.
//
// This module is the plan's state, its data and its public methods; the
// work is done by:
// - lib/floor_view.js: fitting, centring, zooming and panning;
// - lib/floor_input.js: the canvas's events (lib/floor_hit.js what is under
//   the pointer, lib/floor_drag.js dragging anchors, the overlay, the view);
// - lib/floor_draw.js: a frame (lib/floor_draw_anchors.js,
//   lib/floor_draw_tags.js, lib/floor_tooltip.js, lib/floor_labels.js);
// - lib/floor_style.js its colours and sizes, lib/floor_format.js its texts.

import { LabelSpace } from "./floor_labels.js";
import { centreOn, bounds, fit, fitBox, zoomBy, panBy } from "./floor_view.js";
import { anchorAt, tagAt } from "./floor_hit.js";
import * as input from "./floor_input.js";
import { drawFrame } from "./floor_draw.js";

/** @typedef {import("./types.js").Coverage} Coverage */
/** @typedef {import("./types.js").SurveyReport} SurveyReport */
/** @typedef {import("./types.js").AnchorSurvey} AnchorSurvey */

/**
 * @typedef {object} Anchor
 * @property {string} key            `${serial_number}-${identifier}`
 * @property {string} serial_number
 * @property {string | null} name
 * @property {number} identifier
 * @property {number} role_id        2 anchor, 3 seeder
 * @property {number} x
 * @property {number} y
 * @property {number} z
 */

/**
 * @typedef {object} Tag
 * @property {string} serial_number
 * @property {number} x
 * @property {number} y
 * @property {number} z
 * @property {number} quality
 * @property {number | null} error_mm  the solver's 95% horizontal error estimate (none from an older server)
 * @property {number} network_time
 * @property {number | null} [vx]    mm/s east, when its role tracks it
 * @property {number | null} [vy]    mm/s north
 * @property {number} seenAt         performance.now() when it last came
 */

/**
 * @typedef {object} Limit
 * @property {number} id
 * @property {string} name
 * @property {number} min_x
 * @property {number} min_y
 * @property {number} max_x
 * @property {number} max_y
 */

/**
 * What another module draws on the plan, and the input it takes before the
 * plan's own (screen points are CSS pixels of the canvas).
 * @typedef {object} Overlay
 * @property {() => void} draw                        over the limits, under the anchors
 * @property {(add: (x: number, y: number) => void) => void} [extendBounds]  what there is to see of it
 * @property {(sx: number, sy: number) => boolean} [pointerDown]  true: it takes this press (then drag… gets it)
 * @property {(sx: number, sy: number) => void} [dragMove]
 * @property {(sx: number, sy: number, moved: boolean) => void} [dragEnd]
 * @property {() => void} [dragCancel]
 * @property {(sx: number, sy: number) => string | null} [hover]  the pointer moves, no button down: a cursor, or null for the plan's
 * @property {(sx: number, sy: number, onAnchor: boolean) => boolean} [click]  a click that did not drag: true when taken
 * @property {(sx: number, sy: number) => boolean} [doubleClick]
 * @property {(event: KeyboardEvent) => boolean} [key]  true when taken
 */

/** The counters a benchmark can read (window.netcfgFloorStats while the view is shown). */
export function newStats() {
  return {
    /** frames drawn */
    frames: 0,
    /** duration of the last draw, ms */
    lastFrameMs: 0,
    /** longest draw, ms */
    maxFrameMs: 0,
    /** the last 512 draw durations, ms (a ring: `recent[frames % 512]`) */
    recent: /** @type {number[]} */ ([]),
    /** position batches received */
    batches: 0,
    /** positions received */
    positions: 0,
    /** tags known */
    tags: 0,
  };
}

export class FloorPlan {
  /**
   * @param {HTMLCanvasElement} canvas
   * @param {{
   *   onAnchorDrop?: (anchor: Anchor, x: number, y: number, from: {x: number, y: number}) => void,
   *   onSelectAnchor?: (key: string | null) => void,
   *   canDrag?: () => boolean,
   *   tagName?: (serial: string) => string | null | undefined,
   * }} callbacks
   * @param {ReturnType<typeof newStats>} [stats]
   */
  constructor(canvas, callbacks, stats = newStats()) {
    this.canvas = canvas;
    this.ctx = /** @type {CanvasRenderingContext2D} */ (canvas.getContext("2d"));
    this.callbacks = callbacks;
    this.stats = stats;
    /** @type {Anchor[]} */
    this.anchors = [];
    /** @type {Limit[]} */
    this.limits = [];
    /** @type {Map<string, Tag>} */
    this.tags = new Map();
    /** @type {Coverage | null} */
    this.coverage = null;
    /** @type {HTMLCanvasElement | null} the coverage, one pixel per cell (made when first drawn) */
    this.coverageImage = null;
    /** @type {Map<string, AnchorSurvey>} the last survey's verdicts, by serial number */
    this.survey = new Map();
    this.labels = new LabelSpace();
    /** @type {Map<string, number>} label text → width, px (measureText is slow, and serial numbers repeat every frame) */
    this.labelWidths = new Map();
    this.scale = 0.03; // px per mm
    this.ox = 40; // screen x of world x = 0
    this.oy = 400; // screen y of world y = 0
    this.width = 0;
    this.height = 0;
    this.dpr = 1;
    this.fitted = false;
    /** Fits again as data comes, until the user zooms, pans or drags. */
    this.autoFit = true;
    /** @type {string | null} */
    this.selectedAnchor = null;
    /** @type {string | null} */
    this.highlightedTag = null;
    /** @type {import("./floor_hit.js").Hover | null} what the pointer is over */
    this.hover = null;
    this.hoverX = 0;
    this.hoverY = 0;
    /** @type {import("./floor_drag.js").Drag | null} */
    this.drag = null;
    /** @type {Overlay | null} */
    this.overlay = null;
    this.frame = 0;
    this.destroyed = false;

    this.draw = this.draw.bind(this);
    /** @type {[string, any, any?][]} */
    this.bindings = [
      ["pointerdown", this.onPointerDown.bind(this)],
      ["pointermove", this.onPointerMove.bind(this)],
      ["pointerup", this.onPointerUp.bind(this)],
      ["pointercancel", this.onPointerCancel.bind(this)],
      ["pointerleave", this.onPointerLeave.bind(this)],
      ["wheel", this.onWheel.bind(this), { passive: false }],
      ["dblclick", this.onDoubleClick.bind(this)],
      ["keydown", this.onKey.bind(this)],
    ];
    for (const [type, handler, options] of this.bindings) canvas.addEventListener(type, handler, options);
    this.resizer = new ResizeObserver(() => this.resize());
    this.resizer.observe(canvas);
    // Ages change with time: a slow tick redraws so stale tags turn grey.
    this.ageTimer = setInterval(() => this.tags.size && this.requestDraw(), 1000);
    this.resize();
  }

  destroy() {
    this.destroyed = true;
    cancelAnimationFrame(this.frame);
    clearInterval(this.ageTimer);
    this.resizer.disconnect();
    for (const [type, handler, options] of this.bindings) this.canvas.removeEventListener(type, handler, options);
  }

  resize() {
    const rect = this.canvas.getBoundingClientRect();
    const dpr = window.devicePixelRatio || 1;
    const width = Math.max(1, Math.round(rect.width));
    const height = Math.max(1, Math.round(rect.height));
    if (width === this.width && height === this.height && dpr === this.dpr) return;
    // Keeps the world point at the centre where it was.
    const [cx, cy] = this.width ? this.toWorld(this.width / 2, this.height / 2) : [0, 0];
    this.width = width;
    this.height = height;
    this.dpr = dpr;
    this.canvas.width = Math.round(width * dpr);
    this.canvas.height = Math.round(height * dpr);
    if (this.autoFit || !this.fitted) this.fit();
    else this.centreOn(cx, cy);
    this.requestDraw();
  }

  // ---- data -------------------------------------------------------------

  /** @param {Anchor[]} anchors */
  setAnchors(anchors) {
    const drag = this.drag?.kind === "anchor" ? this.drag : null;
    const dragged = drag ? drag.anchor.key : null;
    this.anchors = anchors.map((anchor) => {
      if (drag && anchor.key === dragged) {
        // The one being dragged keeps following the pointer.
        drag.anchor = { ...anchor, x: drag.anchor.x, y: drag.anchor.y };
        return drag.anchor;
      }
      return anchor;
    });
    if (this.autoFit) this.fit();
    this.requestDraw();
  }

  /** @param {Limit[]} limits */
  setLimits(limits) {
    this.limits = limits;
    if (this.autoFit) this.fit();
    this.requestDraw();
  }

  /**
   * The predicted coverage drawn beneath everything, or none. It does not
   * change what fits: its margin would shrink the site.
   * @param {Coverage | null} coverage
   */
  setCoverage(coverage) {
    this.coverage = coverage && coverage.columns > 0 && coverage.rows > 0 ? coverage : null;
    this.coverageImage = null;
    if (this.hover?.kind === "cell") this.hover = null;
    this.requestDraw();
  }

  /**
   * The last survey's verdicts, rung around the anchors, or none.
   * @param {SurveyReport | null} report
   */
  setSurvey(report) {
    this.survey = new Map((report?.anchors || []).map((anchor) => [anchor.serial_number, anchor]));
    if (this.autoFit) this.fit();
    this.requestDraw();
  }

  /**
   * What draws over the limits and takes input first (the zones), or none.
   * @param {Overlay | null} overlay
   */
  setOverlay(overlay) {
    this.overlay = overlay;
    if (this.autoFit) this.fit();
    this.requestDraw();
  }

  /**
   * Puts an anchor at x, y (after a refused save, back where it was).
   * @param {string} key @param {number} x @param {number} y
   */
  moveAnchor(key, x, y) {
    const anchor = this.anchors.find((item) => item.key === key);
    if (anchor) {
      anchor.x = x;
      anchor.y = y;
      this.requestDraw();
    }
  }

  /**
   * A batch of the `position` event, taken in place: one object per tag,
   * reused for each new position.
   * @param {{serial_number: string, x: number, y: number, z: number, quality: number, error_mm?: number | null, network_time: number, vx?: number | null, vy?: number | null}[]} positions
   */
  updatePositions(positions) {
    const now = performance.now();
    const tags = this.tags;
    for (let index = 0; index < positions.length; index += 1) {
      const position = positions[index];
      const tag = tags.get(position.serial_number);
      if (tag) {
        tag.x = position.x;
        tag.y = position.y;
        tag.z = position.z;
        tag.quality = position.quality;
        tag.error_mm = position.error_mm ?? null;
        tag.network_time = position.network_time;
        tag.vx = position.vx ?? null;
        tag.vy = position.vy ?? null;
        tag.seenAt = now;
      } else {
        tags.set(position.serial_number, {
          serial_number: position.serial_number,
          x: position.x,
          y: position.y,
          z: position.z,
          quality: position.quality,
          error_mm: position.error_mm ?? null,
          network_time: position.network_time,
          vx: position.vx ?? null,
          vy: position.vy ?? null,
          seenAt: now,
        });
      }
    }
    this.stats.batches += 1;
    this.stats.positions += positions.length;
    this.stats.tags = tags.size;
    if (!this.fitted && this.autoFit) this.fit();
    this.requestDraw();
  }

  clearTags() {
    this.tags.clear();
    this.stats.tags = 0;
    this.requestDraw();
  }

  /** @param {string | null} key */
  selectAnchor(key) {
    this.selectedAnchor = key;
    this.requestDraw();
  }

  /** @param {string | null} serial */
  highlightTag(serial) {
    this.highlightedTag = serial;
    const tag = serial ? this.tags.get(serial) : undefined;
    if (tag) {
      const [sx, sy] = this.toScreen(tag.x, tag.y);
      if (sx < 0 || sy < 0 || sx > this.width || sy > this.height) this.centreOn(tag.x, tag.y);
    }
    this.requestDraw();
  }

  // ---- view (lib/floor_view.js) ---------------------------------------

  /**
   * A world point's screen point.
   * @param {number} x @param {number} y
   * @returns {[number, number]}
   */
  toScreen(x, y) {
    return [this.ox + x * this.scale, this.oy - y * this.scale];
  }

  /**
   * A screen point's world point.
   * @param {number} sx @param {number} sy
   * @returns {[number, number]}
   */
  toWorld(sx, sy) {
    return [(sx - this.ox) / this.scale, (this.oy - sy) / this.scale];
  }

  /** @param {number} x @param {number} y */
  centreOn(x, y) {
    centreOn(this, x, y);
  }

  /** The bounds of what there is to see: anchors, limits, then tags. */
  bounds() {
    return bounds(this);
  }

  /** Zooms and pans so that everything shows. */
  fit() {
    fit(this);
  }

  /** @param {{minX: number, minY: number, maxX: number, maxY: number}} box */
  fitBox(box) {
    fitBox(this, box);
  }

  /**
   * @param {number} factor
   * @param {number} [sx] the screen point that stays put (default: the centre)
   * @param {number} [sy]
   */
  zoomBy(factor, sx = this.width / 2, sy = this.height / 2) {
    zoomBy(this, factor, sx, sy);
  }

  /** @param {number} dx @param {number} dy  screen pixels */
  panBy(dx, dy) {
    panBy(this, dx, dy);
  }

  // ---- input (lib/floor_input.js) --------------------------------------

  /** @param {number} sx @param {number} sy */
  anchorAt(sx, sy) {
    return anchorAt(this, sx, sy);
  }

  /** @param {number} sx @param {number} sy */
  tagAt(sx, sy) {
    return tagAt(this, sx, sy);
  }

  /** @param {PointerEvent} event */
  onPointerDown(event) {
    input.pointerDown(this, event);
  }

  /** @param {PointerEvent} event */
  onPointerMove(event) {
    input.pointerMove(this, event);
  }

  /** @param {PointerEvent} event */
  onPointerUp(event) {
    input.pointerUp(this, event);
  }

  onPointerCancel() {
    input.pointerCancel(this);
  }

  onPointerLeave() {
    input.pointerLeave(this);
  }

  /** @param {MouseEvent} event */
  onDoubleClick(event) {
    input.doubleClick(this, event);
  }

  /** @param {WheelEvent} event */
  onWheel(event) {
    input.wheel(this, event);
  }

  /** @param {KeyboardEvent} event */
  onKey(event) {
    input.key(this, event);
  }

  // ---- drawing (lib/floor_draw.js) -------------------------------------

  requestDraw() {
    if (!this.frame && !this.destroyed) this.frame = requestAnimationFrame(this.draw);
  }

  draw() {
    this.frame = 0;
    drawFrame(this);
  }
}
