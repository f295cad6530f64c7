// The floor plan's drawing: anchors, seeders, position limits and live tags
// on one <canvas>, with zoom, pan, hover and anchor dragging. It holds its
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

import { cellAt, coverageExtent, coveragePixels, describeCell, formatError } from "./coverage.js";

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

/** A tag without a position for this long is drawn as stale. */
export const STALE_MS = 5000;

export const COLORS = {
  anchor: "#0b5cad",
  seeder: "#8a2b9e",
  tag: "#1a7f37",
  stale: "#8b96a1",
  limit: "#b36b00",
  grid: "#e6eaee",
  ink: "#1b1f24",
  selected: "#ffbf47",
  error: "rgba(26, 127, 55, .3)",
};

/** The ring of an anchor by the last survey's verdict. */
export const VERDICT_COLORS = {
  good: "#1a7f37",
  check: "#bf8700",
  bad: "#cf222e",
};

const MIN_SCALE = 1e-4; // px per mm: 10 px for 100 m
const MAX_SCALE = 2; // 2 px per mm
const HIT_PX = 9;
/** A tag's error circle shows from this radius (px) up: smaller, it hides under the dot. */
const MIN_ERROR_PX = 4;
/** The most tag labels a frame draws: beyond, the plan is too crowded to read them anyway, and each costs a fillText. */
const MAX_TAG_LABELS = 200;
const LABEL_HEIGHT = 13;

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
    if (!force) {
      for (let bx = left; bx <= right; bx += 1) {
        for (let by = top; by <= bottom; by += 1) {
          const rects = this.buckets.get(bx * 100_003 + by);
          if (!rects) continue;
          for (let at = 0; at < rects.length; at += 4) {
            if (x < rects[at] + rects[at + 2] && rects[at] < x + width && y < rects[at + 1] + rects[at + 3] && rects[at + 1] < y + height) {
              return false;
            }
          }
        }
      }
    }
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
}

/**
 * A length of 1, 2 or 5 times a power of ten, near `target`.
 * @param {number} target
 */
export function niceLength(target) {
  const power = 10 ** Math.floor(Math.log10(target));
  const unit = target / power;
  return (unit < 1.5 ? 1 : unit < 3.5 ? 2 : unit < 7.5 ? 5 : 10) * power;
}

/**
 * A length in mm, for people: "500 mm", "2 m", "1.5 km".
 * @param {number} mm
 */
export function formatLength(mm) {
  if (Math.abs(mm) >= 1_000_000) return `${mm / 1_000_000} km`;
  if (Math.abs(mm) >= 1000) return `${mm / 1000} m`;
  return `${mm} mm`;
}

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
    /** @type {{kind: "anchor", anchor: Anchor} | {kind: "tag", tag: Tag} | {kind: "cell", cell: import("./coverage.js").Cell} | null} */
    this.hover = null;
    this.hoverX = 0;
    this.hoverY = 0;
    /** @type {any} */
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
    const dragged = this.drag?.kind === "anchor" ? this.drag.anchor.key : null;
    this.anchors = anchors.map((anchor) => {
      if (anchor.key === dragged) {
        // The one being dragged keeps following the pointer.
        this.drag.anchor = { ...anchor, x: this.drag.anchor.x, y: this.drag.anchor.y };
        return this.drag.anchor;
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
   * @param {{serial_number: string, x: number, y: number, z: number, quality: number, error_mm?: number | null, network_time: number}[]} positions
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

  // ---- view -------------------------------------------------------------

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
    this.ox = this.width / 2 - x * this.scale;
    this.oy = this.height / 2 + y * this.scale;
    this.requestDraw();
  }

  /** The bounds of what there is to see: anchors, limits, then tags. */
  bounds() {
    let minX = Infinity;
    let minY = Infinity;
    let maxX = -Infinity;
    let maxY = -Infinity;
    /** @param {number} x @param {number} y */
    const add = (x, y) => {
      if (x < minX) minX = x;
      if (x > maxX) maxX = x;
      if (y < minY) minY = y;
      if (y > maxY) maxY = y;
    };
    for (const anchor of this.anchors) add(anchor.x, anchor.y);
    // Where a survey would move an anchor to shows too.
    for (const verdict of this.survey.values()) if (verdict.suggested) add(verdict.suggested.x, verdict.suggested.y);
    for (const limit of this.limits) {
      add(limit.min_x, limit.min_y);
      add(limit.max_x, limit.max_y);
    }
    for (const tag of this.tags.values()) add(tag.x, tag.y);
    this.overlay?.extendBounds?.(add);
    if (minX === Infinity) return null;
    return { minX, minY, maxX, maxY };
  }

  /** Zooms and pans so that everything shows. */
  fit() {
    if (this.width < 2 || this.height < 2) return;
    const box = this.bounds();
    if (!box) {
      // Nothing yet: 20 m by 15 m from the origin.
      this.fitBox({ minX: -1000, minY: -1000, maxX: 20000, maxY: 15000 });
      return;
    }
    this.fitted = true;
    this.fitBox(box);
  }

  /** @param {{minX: number, minY: number, maxX: number, maxY: number}} box */
  fitBox(box) {
    const margin = 40;
    const spanX = Math.max(box.maxX - box.minX, 2000);
    const spanY = Math.max(box.maxY - box.minY, 2000);
    const scale = Math.min((this.width - 2 * margin) / spanX, (this.height - 2 * margin) / spanY);
    this.scale = Math.min(MAX_SCALE, Math.max(MIN_SCALE, scale));
    this.centreOn((box.minX + box.maxX) / 2, (box.minY + box.maxY) / 2);
  }

  /**
   * @param {number} factor
   * @param {number} [sx] the screen point that stays put (default: the centre)
   * @param {number} [sy]
   */
  zoomBy(factor, sx = this.width / 2, sy = this.height / 2) {
    const [wx, wy] = this.toWorld(sx, sy);
    this.scale = Math.min(MAX_SCALE, Math.max(MIN_SCALE, this.scale * factor));
    this.ox = sx - wx * this.scale;
    this.oy = sy + wy * this.scale;
    this.fitted = true;
    this.autoFit = false;
    this.requestDraw();
  }

  /** @param {number} dx @param {number} dy  screen pixels */
  panBy(dx, dy) {
    this.ox += dx;
    this.oy += dy;
    this.fitted = true;
    this.autoFit = false;
    this.requestDraw();
  }

  // ---- input ------------------------------------------------------------

  /** @param {MouseEvent} event */
  point(event) {
    const rect = this.canvas.getBoundingClientRect();
    return [event.clientX - rect.left, event.clientY - rect.top];
  }

  /** @param {number} sx @param {number} sy */
  anchorAt(sx, sy) {
    let best = null;
    let bestDistance = HIT_PX * HIT_PX;
    for (const anchor of this.anchors) {
      const [ax, ay] = this.toScreen(anchor.x, anchor.y);
      const distance = (ax - sx) ** 2 + (ay - sy) ** 2;
      if (distance <= bestDistance) {
        best = anchor;
        bestDistance = distance;
      }
    }
    return best;
  }

  /** @param {number} sx @param {number} sy */
  tagAt(sx, sy) {
    let best = null;
    let bestDistance = HIT_PX * HIT_PX;
    for (const tag of this.tags.values()) {
      const tx = this.ox + tag.x * this.scale;
      const ty = this.oy - tag.y * this.scale;
      const distance = (tx - sx) * (tx - sx) + (ty - sy) * (ty - sy);
      if (distance <= bestDistance) {
        best = tag;
        bestDistance = distance;
      }
    }
    return best;
  }

  /** @param {PointerEvent} event */
  onPointerDown(event) {
    if (event.button !== 0) return;
    const [sx, sy] = this.point(event);
    const anchor = this.anchorAt(sx, sy);
    this.canvas.setPointerCapture(event.pointerId);
    if (this.overlay?.pointerDown?.(sx, sy)) {
      this.autoFit = false;
      this.drag = { kind: "overlay", sx, sy, moved: false };
      return;
    }
    if (anchor && (this.callbacks.canDrag?.() ?? true)) {
      this.autoFit = false;
      this.drag = { kind: "anchor", anchor, sx, sy, from: { x: anchor.x, y: anchor.y }, moved: false };
    } else {
      this.drag = { kind: "pan", sx, sy, lastX: sx, lastY: sy, moved: false, anchor };
    }
    this.canvas.style.cursor = "grabbing";
  }

  /** @param {PointerEvent} event */
  onPointerMove(event) {
    const [sx, sy] = this.point(event);
    const drag = this.drag;
    if (drag) {
      if (!drag.moved && (sx - drag.sx) ** 2 + (sy - drag.sy) ** 2 > 9) drag.moved = true;
      if (drag.kind === "overlay") {
        if (drag.moved) this.overlay?.dragMove?.(sx, sy);
      } else if (drag.kind === "anchor") {
        if (drag.moved) {
          const [wx, wy] = this.toWorld(sx, sy);
          drag.anchor.x = Math.round(wx);
          drag.anchor.y = Math.round(wy);
          this.hover = { kind: "anchor", anchor: drag.anchor };
          this.hoverX = sx;
          this.hoverY = sy;
          this.requestDraw();
        }
      } else {
        this.panBy(sx - drag.lastX, sy - drag.lastY);
        drag.lastX = sx;
        drag.lastY = sy;
      }
      return;
    }
    const anchor = this.anchorAt(sx, sy);
    const tag = anchor ? null : this.tagAt(sx, sy);
    const cell = anchor || tag || !this.coverage ? null : cellAt(this.coverage, ...this.toWorld(sx, sy));
    const hover = anchor ? { kind: "anchor", anchor } : tag ? { kind: "tag", tag } : cell ? { kind: "cell", cell } : null;
    const changed = (hover?.kind !== this.hover?.kind)
      || (hover && this.hover && (/** @type {any} */ (hover).anchor !== /** @type {any} */ (this.hover).anchor || /** @type {any} */ (hover).tag !== /** @type {any} */ (this.hover).tag
        || /** @type {any} */ (hover).cell?.index !== /** @type {any} */ (this.hover).cell?.index));
    this.canvas.style.cursor = this.overlay?.hover?.(sx, sy) ?? (anchor && (this.callbacks.canDrag?.() ?? true) ? "move" : "grab");
    if (changed || hover) {
      this.hover = /** @type {any} */ (hover);
      this.hoverX = sx;
      this.hoverY = sy;
      this.requestDraw();
    }
  }

  /** @param {PointerEvent} event */
  onPointerUp(event) {
    const drag = this.drag;
    this.drag = null;
    this.canvas.style.cursor = "grab";
    if (!drag) return;
    if (this.canvas.hasPointerCapture(event.pointerId)) this.canvas.releasePointerCapture(event.pointerId);
    if (drag.kind === "overlay") {
      const [sx, sy] = this.point(event);
      this.overlay?.dragEnd?.(sx, sy, drag.moved);
    } else if (drag.kind === "anchor") {
      if (drag.moved && (drag.anchor.x !== drag.from.x || drag.anchor.y !== drag.from.y)) {
        this.selectAnchor(drag.anchor.key);
        this.callbacks.onSelectAnchor?.(drag.anchor.key);
        this.callbacks.onAnchorDrop?.(drag.anchor, drag.anchor.x, drag.anchor.y, drag.from);
      } else {
        this.selectAnchor(drag.anchor.key);
        this.callbacks.onSelectAnchor?.(drag.anchor.key);
      }
    } else if (!drag.moved) {
      // A click: the overlay's if it takes it (a point of a zone being
      // drawn); else on an anchor (dragging off) selects it, elsewhere clears.
      const [sx, sy] = this.point(event);
      if (this.overlay?.click?.(sx, sy, Boolean(drag.anchor))) return;
      const key = drag.anchor ? drag.anchor.key : null;
      this.selectAnchor(key);
      this.callbacks.onSelectAnchor?.(key);
    }
  }

  /** @param {PointerEvent} event */
  onPointerCancel(event) {
    const drag = this.drag;
    this.drag = null;
    if (drag?.kind === "anchor") this.moveAnchor(drag.anchor.key, drag.from.x, drag.from.y);
    if (drag?.kind === "overlay") this.overlay?.dragCancel?.();
    this.onPointerLeave();
    void event;
  }

  onPointerLeave() {
    if (this.hover && !this.drag) {
      this.hover = null;
      this.requestDraw();
    }
  }

  /** @param {MouseEvent} event */
  onDoubleClick(event) {
    const [sx, sy] = this.point(event);
    if (this.overlay?.doubleClick?.(sx, sy)) event.preventDefault();
  }

  /** @param {WheelEvent} event */
  onWheel(event) {
    event.preventDefault();
    const [sx, sy] = this.point(event);
    const delta = event.deltaMode === 1 ? event.deltaY * 16 : event.deltaY;
    this.zoomBy(Math.exp(-delta * 0.0015), sx, sy);
  }

  /** @param {KeyboardEvent} event */
  onKey(event) {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    if (this.overlay?.key?.(event)) {
      event.preventDefault();
      return;
    }
    const step = event.shiftKey ? 200 : 50;
    switch (event.key) {
      case "ArrowLeft": this.panBy(step, 0); break;
      case "ArrowRight": this.panBy(-step, 0); break;
      case "ArrowUp": this.panBy(0, step); break;
      case "ArrowDown": this.panBy(0, -step); break;
      case "+": case "=": this.zoomBy(1.25); break;
      case "-": case "_": this.zoomBy(0.8); break;
      case "0": this.fit(); break;
      default: return;
    }
    event.preventDefault();
  }

  // ---- drawing ----------------------------------------------------------

  requestDraw() {
    if (!this.frame && !this.destroyed) this.frame = requestAnimationFrame(this.draw);
  }

  draw() {
    this.frame = 0;
    const started = performance.now();
    const { ctx, width, height } = this;
    ctx.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    ctx.clearRect(0, 0, width, height);
    const step = niceLength(100 / this.scale); // about 100 px
    this.labels.clear();
    this.drawCoverage();
    this.drawGrid(step);
    this.drawLimits();
    this.overlay?.draw();
    this.drawAnchors();
    this.drawTags(started);
    this.drawScale(step);
    this.drawHover(started);
    const spent = performance.now() - started;
    const stats = this.stats;
    stats.recent[stats.frames % 512] = spent;
    stats.frames += 1;
    stats.lastFrameMs = spent;
    if (spent > stats.maxFrameMs) stats.maxFrameMs = spent;
  }

  /** @param {number} step mm between lines */
  drawGrid(step) {
    const { ctx, width, height } = this;
    const [left, top] = this.toWorld(0, 0);
    const [right, bottom] = this.toWorld(width, height);
    ctx.beginPath();
    for (let x = Math.ceil(left / step) * step; x <= right; x += step) {
      const sx = Math.round(this.ox + x * this.scale) + 0.5;
      ctx.moveTo(sx, 0);
      ctx.lineTo(sx, height);
    }
    for (let y = Math.ceil(bottom / step) * step; y <= top; y += step) {
      const sy = Math.round(this.oy - y * this.scale) + 0.5;
      ctx.moveTo(0, sy);
      ctx.lineTo(width, sy);
    }
    ctx.strokeStyle = COLORS.grid;
    ctx.lineWidth = 1;
    ctx.stroke();
    // The axes through the origin.
    ctx.beginPath();
    const [zx, zy] = this.toScreen(0, 0);
    ctx.moveTo(Math.round(zx) + 0.5, 0);
    ctx.lineTo(Math.round(zx) + 0.5, height);
    ctx.moveTo(0, Math.round(zy) + 0.5);
    ctx.lineTo(width, Math.round(zy) + 0.5);
    ctx.strokeStyle = "#c9d1d9";
    ctx.stroke();
  }

  drawLimits() {
    const { ctx } = this;
    ctx.save();
    ctx.setLineDash([6, 4]);
    ctx.lineWidth = 1.5;
    ctx.strokeStyle = COLORS.limit;
    ctx.fillStyle = COLORS.limit;
    ctx.font = "12px system-ui, sans-serif";
    ctx.textBaseline = "bottom";
    for (const limit of this.limits) {
      const [x0, y0] = this.toScreen(limit.min_x, limit.max_y);
      const [x1, y1] = this.toScreen(limit.max_x, limit.min_y);
      ctx.strokeRect(x0, y0, x1 - x0, y1 - y0);
      ctx.fillText(limit.name, x0 + 2, y0 - 2);
    }
    ctx.restore();
  }

  /** The coverage beneath everything: one image, one pixel per cell, stretched over the grid. */
  drawCoverage() {
    const coverage = this.coverage;
    if (!coverage) return;
    if (!this.coverageImage) {
      if (typeof document === "undefined") return; // under node's tests
      const image = document.createElement("canvas");
      image.width = coverage.columns;
      image.height = coverage.rows;
      const pixels = coveragePixels(coverage);
      /** @type {CanvasRenderingContext2D} */ (image.getContext("2d")).putImageData(new ImageData(pixels, coverage.columns, coverage.rows), 0, 0);
      this.coverageImage = image;
    }
    const box = coverageExtent(coverage);
    const [left, top] = this.toScreen(box.minX, box.maxY);
    const [right, bottom] = this.toScreen(box.maxX, box.minY);
    const { ctx } = this;
    ctx.save();
    // Cells stay squares: a smoothed image would blur good into poor.
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(this.coverageImage, left, top, right - left, bottom - top);
    ctx.restore();
  }

  /**
   * Draws a label at (x, y) (its left, vertically centred) unless it would
   * overlap one drawn this frame; true when drawn.
   * @param {string} text @param {number} x @param {number} y @param {boolean} [force]
   */
  label(text, x, y, force = false) {
    const width = this.labelWidth(text);
    if (!this.labels.take(x - 1, y - LABEL_HEIGHT / 2, width + 2, LABEL_HEIGHT, force)) return false;
    this.ctx.fillText(text, x, y);
    return true;
  }

  /** @param {string} text  in the current font */
  labelWidth(text) {
    let width = this.labelWidths.get(text);
    if (width === undefined) {
      width = this.ctx.measureText(text).width;
      this.labelWidths.set(text, width);
    }
    return width;
  }

  drawAnchors() {
    const { ctx } = this;
    // What the last survey says: first the way to where a bad anchor
    // belongs (under the anchors), then the rings.
    if (this.survey.size) {
      ctx.save();
      ctx.setLineDash([5, 4]);
      ctx.lineWidth = 1.5;
      ctx.strokeStyle = VERDICT_COLORS.bad;
      for (const anchor of this.anchors) {
        const suggested = this.survey.get(anchor.serial_number)?.suggested;
        if (!suggested) continue;
        const [sx, sy] = this.toScreen(anchor.x, anchor.y);
        const [tx, ty] = this.toScreen(suggested.x, suggested.y);
        ctx.beginPath();
        ctx.moveTo(sx, sy);
        ctx.lineTo(tx, ty);
        ctx.stroke();
      }
      ctx.setLineDash([]);
      ctx.lineWidth = 2;
      for (const anchor of this.anchors) {
        const suggested = this.survey.get(anchor.serial_number)?.suggested;
        if (!suggested) continue;
        // A cross in a circle: where the ranges put it.
        const [tx, ty] = this.toScreen(suggested.x, suggested.y);
        ctx.beginPath();
        ctx.arc(tx, ty, 6, 0, 2 * Math.PI);
        ctx.moveTo(tx - 4, ty - 4);
        ctx.lineTo(tx + 4, ty + 4);
        ctx.moveTo(tx + 4, ty - 4);
        ctx.lineTo(tx - 4, ty + 4);
        ctx.stroke();
      }
      ctx.lineWidth = 2.5;
      for (const anchor of this.anchors) {
        const verdict = this.survey.get(anchor.serial_number)?.verdict;
        if (!verdict) continue;
        const [sx, sy] = this.toScreen(anchor.x, anchor.y);
        ctx.beginPath();
        ctx.arc(sx, sy, 12, 0, 2 * Math.PI);
        ctx.strokeStyle = VERDICT_COLORS[verdict] || COLORS.ink;
        ctx.stroke();
      }
      ctx.restore();
    }
    ctx.font = "12px system-ui, sans-serif";
    ctx.textBaseline = "middle";
    for (const anchor of this.anchors) {
      const [sx, sy] = this.toScreen(anchor.x, anchor.y);
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
      if (anchor.key === this.selectedAnchor) {
        ctx.lineWidth = 3;
        ctx.strokeStyle = COLORS.selected;
        ctx.stroke();
      }
    }
    // Anchors are few and fixed: their names always show (beyond a
    // survey's ring), and tags' labels give way to them.
    ctx.fillStyle = COLORS.ink;
    const offset = this.survey.size ? 16 : 11;
    for (const anchor of this.anchors) {
      const [sx, sy] = this.toScreen(anchor.x, anchor.y);
      const text = anchor.name || anchor.serial_number;
      const suggested = this.survey.get(anchor.serial_number)?.suggested;
      // The name goes on the side away from where a survey would move it,
      // so that it does not hide the way there; the marker keeps its place.
      const [tx, ty] = suggested ? this.toScreen(suggested.x, suggested.y) : [sx, sy];
      if (suggested) this.labels.take(tx - 7, ty - 7, 14, 14, true);
      this.label(text, tx > sx ? sx - offset - this.labelWidth(text) : sx + offset, sy, true);
    }
  }

  /** @param {number} now */
  drawTags(now) {
    const { ctx, width, height, ox, oy, scale } = this;
    const fresh = new Path2D();
    const stale = new Path2D();
    const errors = new Path2D();
    let anyError = false;
    const radius = 4;
    for (const tag of this.tags.values()) {
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
    // Labels where they can be read: the hovered and the highlighted tag's
    // always, then each other one unless it would overlap a label drawn
    // before it (the order of the Map is stable, so the same tags keep
    // their labels from frame to frame). The hover details show the rest.
    ctx.font = "11px system-ui, sans-serif";
    ctx.textBaseline = "middle";
    ctx.fillStyle = COLORS.ink;
    const hovered = this.hover?.kind === "tag" ? this.hover.tag : undefined;
    const highlighted = this.highlightedTag ? this.tags.get(this.highlightedTag) : undefined;
    for (const tag of [hovered, highlighted]) {
      if (tag) this.label(tag.serial_number, ox + tag.x * scale + 7, oy - tag.y * scale, true);
    }
    let drawn = 0;
    for (const tag of this.tags.values()) {
      if (drawn >= MAX_TAG_LABELS) break;
      if (tag === hovered || tag === highlighted) continue;
      const sx = ox + tag.x * scale;
      const sy = oy - tag.y * scale;
      if (sx < 0 || sy < 0 || sx > width || sy > height) continue;
      if (this.label(tag.serial_number, sx + 7, sy)) drawn += 1;
    }
    if (highlighted) {
      const [sx, sy] = this.toScreen(highlighted.x, highlighted.y);
      ctx.beginPath();
      ctx.arc(sx, sy, 9, 0, 2 * Math.PI);
      ctx.lineWidth = 3;
      ctx.strokeStyle = COLORS.selected;
      ctx.stroke();
    }
  }

  /** @param {number} step mm */
  drawScale(step) {
    const { ctx, height } = this;
    const length = step * this.scale;
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

  /** @param {number} now */
  drawHover(now) {
    const hover = this.hover;
    if (!hover) return;
    /** @type {string[]} */
    let lines;
    if (hover.kind === "anchor") {
      const anchor = hover.anchor;
      lines = [
        `${anchor.role_id === 3 ? "Seeder" : "Anchor"} ${anchor.serial_number}${anchor.name ? ` (${anchor.name})` : ""}`,
        `x ${metres(anchor.x)}, y ${metres(anchor.y)}, z ${metres(anchor.z)}`,
      ];
      const verdict = this.survey.get(anchor.serial_number);
      if (verdict) {
        lines.push(`survey: ${verdict.verdict}, ${formatError(verdict.residual_mm)} from where the ranges put it`);
        const to = verdict.suggested;
        if (to) lines.push(`suggested x ${metres(to.x)}, y ${metres(to.y)}, z ${metres(to.z)}`);
      }
      if (this.drag?.kind === "anchor") lines.push("release to save");
      else if (this.callbacks.canDrag?.() ?? true) lines.push("drag to move");
    } else if (hover.kind === "tag") {
      const tag = hover.tag;
      const name = this.callbacks.tagName?.(tag.serial_number);
      lines = [
        `Tag ${tag.serial_number}${name ? ` (${name})` : ""}`,
        `x ${metres(tag.x)}, y ${metres(tag.y)}, z ${metres(tag.z)}`,
        `quality ${tag.quality}${tag.error_mm != null ? `, 95% error ${formatError(tag.error_mm)}` : ""}, ${formatAge(now - tag.seenAt)} ago`,
      ];
    } else {
      const cell = hover.cell;
      lines = [`Coverage at x ${metres(cell.x)}, y ${metres(cell.y)}`, describeCell(cell)];
    }
    const { ctx } = this;
    ctx.font = "12px system-ui, sans-serif";
    ctx.textBaseline = "top";
    const lineHeight = 16;
    const boxWidth = Math.max(...lines.map((line) => ctx.measureText(line).width)) + 12;
    const boxHeight = lines.length * lineHeight + 8;
    let x = this.hoverX + 14;
    let y = this.hoverY + 14;
    if (x + boxWidth > this.width) x = this.hoverX - boxWidth - 10;
    if (y + boxHeight > this.height) y = this.hoverY - boxHeight - 10;
    ctx.fillStyle = "rgba(15,39,64,.92)";
    ctx.fillRect(x, y, boxWidth, boxHeight);
    ctx.fillStyle = "#ffffff";
    lines.forEach((line, index) => ctx.fillText(line, x + 6, y + 4 + index * lineHeight));
  }
}

/** @param {number} mm */
export function metres(mm) {
  return `${(mm / 1000).toFixed(2)} m`;
}

/** @param {number} ms */
export function formatAge(ms) {
  if (ms < 1000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 60_000) return `${Math.round(ms / 1000)} s`;
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min`;
  return `${Math.round(ms / 3_600_000)} h`;
}
