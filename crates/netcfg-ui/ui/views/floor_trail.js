// The floor plan's trails (views/floor.js): each tag's recent positions
// from the live stream, drawn as a faint polyline behind it, and each
// tag's last velocity (the `vx`, `vy` a tracked tag's positions carry,
// decisions §18), written as its speed. `Trails` keeps, per tag, the last
// TRAIL_MS of positions at most GAP_MS apart in time (the newest point
// always where the tag is now) and at most MAX_POINTS of them, in a ring.
// `withTrails` draws them on the plan under the zones' layer, anchors and
// tags, through the plan's one overlay. No Preact and no DOM here, so
// node's test runner loads it (tests/js/floor_trail.test.mjs).

/** @typedef {import("../lib/floorplan.js").FloorPlan} FloorPlan */
/** @typedef {import("../lib/floorplan.js").Overlay} Overlay */

/** How long a trail is: positions older than this are dropped, ms. */
export const TRAIL_MS = 10_000;
/** The least time between two points kept of a trail, ms (a tag reports up to 100 times a second). */
export const GAP_MS = 200;
/** The most points a trail keeps (TRAIL_MS / GAP_MS, and a few more). */
export const MAX_POINTS = 60;
/** Network time units a millisecond (1/975,000 s). */
const UNITS_PER_MS = 975;
/** A point this near (px) the last one drawn is skipped: a zoomed-out plan of many tags draws less. */
const MIN_STEP_PX = 1;
/** The trails' colour (the tags', faint). */
export const TRAIL_COLOR = "rgba(26, 127, 55, .35)";

/**
 * One position of the stream, as lib/event_hub.js expands it (the objects
 * form and the compact rows both give these names; `vx`, `vy` come from a
 * newer server only, null or absent when the tag is not tracked).
 * @typedef {{serial_number: string, x: number, y: number, network_time?: number, vx?: number | null, vy?: number | null}} TrailPosition
 */

/** One tag's trail: a ring of points (x, y in mm, t in ms of performance.now()). */
class Trail {
  /** @param {number} capacity */
  constructor(capacity) {
    this.x = new Float64Array(capacity);
    this.y = new Float64Array(capacity);
    this.t = new Float64Array(capacity);
    /** index of the oldest point */
    this.head = 0;
    this.count = 0;
    /** the network time of the newest position, to see a restart or a replay's seek */
    this.networkTime = NaN;
    /** vertices of its polyline in the last frame that drew the trails */
    this.drawn = 0;
    this.drawnFrame = -1;
  }

  /** @param {number} index  0 the oldest point */
  slot(index) {
    return (this.head + index) % this.x.length;
  }

  /** @param {number} slot @param {number} x @param {number} y @param {number} t */
  put(slot, x, y, t) {
    this.x[slot] = x;
    this.y[slot] = y;
    this.t[slot] = t;
  }
}

export class Trails {
  /** @param {{windowMs?: number, gapMs?: number, maxPoints?: number}} [options] */
  constructor({ windowMs = TRAIL_MS, gapMs = GAP_MS, maxPoints = MAX_POINTS } = {}) {
    this.windowMs = windowMs;
    this.gapMs = gapMs;
    this.maxPoints = Math.max(2, maxPoints);
    /** @type {Map<string, Trail>} */
    this.trails = new Map();
    /** @type {Map<string, {vx: number | null, vy: number | null}>} each tag's last velocity (null: untracked) */
    this.velocities = new Map();
    /** frames that drew the trails */
    this.frame = 0;
  }

  /**
   * A batch of positions, received at `now` (performance.now()).
   * @param {TrailPosition[]} positions @param {number} now
   */
  add(positions, now) {
    for (let index = 0; index < positions.length; index += 1) {
      const position = positions[index];
      const serial = position.serial_number;
      const vx = typeof position.vx === "number" ? position.vx : null;
      const vy = typeof position.vy === "number" ? position.vy : null;
      const velocity = this.velocities.get(serial);
      if (velocity) {
        velocity.vx = vx;
        velocity.vy = vy;
      } else {
        this.velocities.set(serial, { vx, vy });
      }
      let trail = this.trails.get(serial);
      if (!trail) {
        trail = new Trail(this.maxPoints);
        this.trails.set(serial, trail);
      }
      this.addPoint(trail, position, now);
    }
  }

  /**
   * Appends a point, or moves the newest one (which follows the tag) while
   * it is less than `gapMs` after the point before it: the points kept are
   * `gapMs` or more apart. A position from before the last one, or
   * from longer after it than a trail lasts (a restart, a replay's seek),
   * starts the trail again.
   * @param {Trail} trail @param {TrailPosition} position @param {number} now
   */
  addPoint(trail, position, now) {
    const time = Number(position.network_time);
    if (Number.isFinite(time) && Number.isFinite(trail.networkTime)
      && (time < trail.networkTime || time - trail.networkTime > this.windowMs * UNITS_PER_MS)) {
      trail.head = 0;
      trail.count = 0;
    }
    trail.networkTime = Number.isFinite(time) ? time : trail.networkTime;
    const count = trail.count;
    if (count >= 2 && trail.t[trail.slot(count - 1)] - trail.t[trail.slot(count - 2)] < this.gapMs) {
      trail.put(trail.slot(count - 1), position.x, position.y, now);
      return;
    }
    if (count === this.maxPoints) {
      trail.head = (trail.head + 1) % this.maxPoints;
      trail.count -= 1;
    }
    trail.put(trail.slot(trail.count), position.x, position.y, now);
    trail.count += 1;
  }

  /**
   * Drops the points older than the trails' length as of `now`, and the
   * trails left empty.
   * @param {number} now
   */
  prune(now) {
    const oldest = now - this.windowMs;
    for (const [serial, trail] of this.trails) {
      while (trail.count > 0 && trail.t[trail.head] < oldest) {
        trail.head = (trail.head + 1) % this.maxPoints;
        trail.count -= 1;
      }
      if (trail.count === 0) this.trails.delete(serial);
    }
  }

  /**
   * A tag's trail, oldest point first: [x, y] in mm.
   * @param {string} serial
   * @returns {[number, number][]}
   */
  points(serial) {
    const trail = this.trails.get(serial);
    if (!trail) return [];
    /** @type {[number, number][]} */
    const points = [];
    for (let index = 0; index < trail.count; index += 1) {
      const slot = trail.slot(index);
      points.push([trail.x[slot], trail.y[slot]]);
    }
    return points;
  }

  /**
   * How many vertices a tag's polyline had in the last frame that drew the
   * trails (0: none drawn).
   * @param {string} serial
   */
  drawn(serial) {
    const trail = this.trails.get(serial);
    return trail && trail.drawnFrame === this.frame ? trail.drawn : 0;
  }

  /**
   * A tag's speed, mm/s: null when it is not tracked (or not seen).
   * @param {string} serial
   */
  speed(serial) {
    const velocity = this.velocities.get(serial);
    return velocity && velocity.vx !== null && velocity.vy !== null ? Math.hypot(velocity.vx, velocity.vy) : null;
  }

  /**
   * A tag's speed for people: "1.4 m/s", or "untracked".
   * @param {string} serial
   */
  speedText(serial) {
    return formatSpeed(this.speed(serial));
  }

  clear() {
    this.trails.clear();
    this.velocities.clear();
  }
}

/**
 * A speed in mm/s for people, in m/s with one decimal; "untracked" for none.
 * @param {number | null | undefined} mmPerSecond
 */
export function formatSpeed(mmPerSecond) {
  return typeof mmPerSecond === "number" && Number.isFinite(mmPerSecond) ? `${(mmPerSecond / 1000).toFixed(1)} m/s` : "untracked";
}

/**
 * Draws every trail as of `now` (performance.now()) in one faint path:
 * one polyline a tag, from its oldest point to where it is.
 * @param {FloorPlan} plan @param {Trails} trails @param {number} now
 */
export function drawTrails(plan, trails, now) {
  trails.prune(now);
  trails.frame += 1;
  const frame = trails.frame;
  const { ctx, ox, oy, scale } = plan;
  const path = new Path2D();
  let any = false;
  for (const trail of trails.trails.values()) {
    trail.drawnFrame = frame;
    trail.drawn = 0;
    const count = trail.count;
    if (count < 2) continue;
    let slot = trail.head;
    let lastX = ox + trail.x[slot] * scale;
    let lastY = oy - trail.y[slot] * scale;
    path.moveTo(lastX, lastY);
    let vertices = 1;
    const capacity = trail.x.length;
    for (let index = 1; index < count; index += 1) {
      slot = slot + 1 === capacity ? 0 : slot + 1;
      const sx = ox + trail.x[slot] * scale;
      const sy = oy - trail.y[slot] * scale;
      // The newest point is always drawn: the trail ends at the tag.
      if (index < count - 1 && Math.abs(sx - lastX) + Math.abs(sy - lastY) < MIN_STEP_PX) continue;
      path.lineTo(sx, sy);
      lastX = sx;
      lastY = sy;
      vertices += 1;
    }
    trail.drawn = vertices;
    any = true;
  }
  if (!any) return;
  ctx.save();
  ctx.lineWidth = 1.5;
  ctx.lineJoin = "round";
  ctx.lineCap = "round";
  ctx.strokeStyle = TRAIL_COLOR;
  ctx.stroke(path);
  ctx.restore();
}

/** The overlay's methods besides `draw`, passed on as they are. */
const PASSED_ON = /** @type {const} */ (["extendBounds", "pointerDown", "dragMove", "dragEnd", "dragCancel", "hover", "click", "doubleClick", "key"]);

/**
 * The plan's overlay (the zones' layer) with something drawn under it
 * first (the trails); its input and bounds are the overlay's.
 * @param {Overlay} overlay @param {() => void} drawFirst
 * @returns {Overlay}
 */
export function withTrails(overlay, drawFirst) {
  /** @type {Record<string, any>} */
  const combined = {
    draw: () => {
      drawFirst();
      overlay.draw();
    },
  };
  const methods = /** @type {Record<string, any>} */ (overlay);
  for (const name of PASSED_ON) {
    if (typeof methods[name] === "function") combined[name] = methods[name].bind(overlay);
  }
  return /** @type {Overlay} */ (/** @type {unknown} */ (combined));
}
