// The floor plan's trails (ui/views/floor_trail.js): each tag's last
// seconds of positions, points kept at least GAP_MS apart with the newest
// following the tag, bounded per tag, dropped once older than the trail's
// length, started again on a restart or a replay's seek; the speed from
// the velocity of a tracked tag's positions ("untracked" without one),
// from the compact rows of an older server and of a newer one alike; the
// polylines drawn; and the overlay that draws them under the zones.

import { test } from "node:test";
import assert from "node:assert/strict";
import { Trails, formatSpeed, drawTrails, withTrails, TRAIL_MS, GAP_MS, MAX_POINTS } from "../../ui/views/floor_trail.js";
import { expandPositions } from "../../ui/lib/event_hub.js";

/** 100 ms of network time (975 units a millisecond). */
const TICK = 97_500;

/**
 * One position of tag `serial` at (x, y), network time `ticks` × 100 ms.
 * @param {string} serial @param {number} x @param {number} y @param {number} ticks
 * @param {{vx?: number | null, vy?: number | null}} [velocity]
 */
function at(serial, x, y, ticks, velocity = {}) {
  return { serial_number: serial, x, y, z: 0, quality: 9000, error_mm: 100, network_time: ticks * TICK, ...velocity };
}

test("a tag reporting at 10 Hz keeps a point every GAP_MS, the newest where it is", () => {
  const trails = new Trails();
  for (let tick = 0; tick <= 10; tick += 1) trails.add([at("A", tick * 100, 0, tick)], tick * 100);
  const points = trails.points("A");
  // kept: 0, 200, 400, 600, 800 ms, and the newest (1000 ms)
  assert.deepEqual(points.map(([x]) => x), [0, 200, 400, 600, 800, 1000]);
  assert.equal(GAP_MS, 200);
});

test("a trail is bounded per tag and drops what is older than its length", () => {
  const trails = new Trails({ windowMs: 10_000, gapMs: 100, maxPoints: 20 });
  for (let tick = 0; tick < 50; tick += 1) trails.add([at("A", tick, 0, tick), at("B", 0, tick, tick)], tick * 100);
  assert.equal(trails.points("A").length, 20);
  assert.deepEqual(trails.points("A")[0], [30, 0], "the oldest dropped first");
  assert.deepEqual(trails.points("A").at(-1), [49, 0]);
  // 2.6 s later B has not come again, A has: the points older than 10 s go
  trails.add([at("A", 100, 0, 75)], 7_500);
  trails.prune(14_850);
  assert.deepEqual(trails.points("B").map(([, y]) => y), [49]);
  assert.deepEqual(trails.points("A"), [[49, 0], [100, 0]]);
  trails.prune(17_000);
  assert.deepEqual(trails.points("B"), []);
  assert.ok(!trails.trails.has("B"), "an empty trail is forgotten");
  assert.deepEqual(trails.points("A"), [[100, 0]]);
  assert.equal(TRAIL_MS, 10_000);
  assert.ok(MAX_POINTS >= TRAIL_MS / GAP_MS);
});

test("a restart or a replay's seek (network time back, or far ahead) starts the trail again", () => {
  const trails = new Trails();
  for (let tick = 0; tick < 10; tick += 1) trails.add([at("A", tick, 0, 1000 + tick)], tick * 300);
  assert.equal(trails.points("A").length, 10);
  trails.add([at("A", 500, 500, 20)], 3_000);
  assert.deepEqual(trails.points("A"), [[500, 500]], "back in time");
  trails.add([at("A", 501, 500, 21)], 3_300);
  trails.add([at("A", 900, 900, 21 + 101)], 3_600);
  assert.deepEqual(trails.points("A"), [[900, 900]], "more than a trail's length ahead");
});

test("the speed of a tracked tag, 'untracked' for one without a velocity", () => {
  const trails = new Trails();
  trails.add([at("A", 0, 0, 1, { vx: 1200, vy: -500 }), at("B", 0, 0, 1, { vx: null, vy: null }), at("C", 0, 0, 1)], 0);
  assert.equal(trails.speed("A"), 1300);
  assert.equal(trails.speedText("A"), "1.3 m/s");
  assert.equal(trails.speedText("B"), "untracked");
  assert.equal(trails.speedText("C"), "untracked");
  assert.equal(trails.speedText("never seen"), "untracked");
  // a tag whose role stops tracking it loses its speed
  trails.add([at("A", 0, 0, 2, { vx: null, vy: null })], 100);
  assert.equal(trails.speedText("A"), "untracked");
  assert.equal(formatSpeed(1449), "1.4 m/s");
  assert.equal(formatSpeed(0), "0.0 m/s");
  assert.equal(formatSpeed(null), "untracked");
  assert.equal(formatSpeed(undefined), "untracked");
});

test("compact rows with and without the velocity columns, as the event hub expands them", () => {
  const old = expandPositions({
    net: "site", network_time: 1000,
    columns: ["serial_number", "x", "y", "z", "quality", "error_mm", "network_time_offset"],
    rows: [["01:05:0001", 100, 200, 1000, 9000, 80, 5]],
  });
  const newer = expandPositions({
    net: "site", network_time: 1000,
    columns: ["serial_number", "x", "y", "z", "quality", "error_mm", "network_time_offset", "vx", "vy"],
    rows: [["01:05:0001", 100, 200, 1000, 9000, 80, 5, 300, 400], ["01:05:0002", 5, 6, 1000, 9000, 80, 7, null, null]],
  });
  assert.deepEqual(newer.positions[0], { serial_number: "01:05:0001", x: 100, y: 200, z: 1000, quality: 9000, error_mm: 80,
    network_time: 1005, vx: 300, vy: 400 });
  const trails = new Trails();
  trails.add(old.positions, 0);
  assert.equal(trails.speedText("01:05:0001"), "untracked");
  assert.deepEqual(trails.points("01:05:0001"), [[100, 200]]);
  trails.add(newer.positions, 100);
  assert.equal(trails.speedText("01:05:0001"), "0.5 m/s");
  assert.equal(trails.speedText("01:05:0002"), "untracked");
});

/** A plan of scale 0.1 px/mm, origin at (10, 500), whose context records its strokes. */
function fakePlan() {
  /** @type {{lines: number[], strokes: number}} */
  const drawn = { lines: [], strokes: 0 };
  const global = /** @type {any} */ (globalThis);
  global.Path2D = class {
    constructor() {
      drawn.lines.push(0);
    }
    moveTo() {
      drawn.lines.push(1);
    }
    lineTo() {
      drawn.lines[drawn.lines.length - 1] += 1;
    }
  };
  const ctx = new Proxy({}, { get: (_target, name) => (name === "stroke" ? () => { drawn.strokes += 1; } : () => {}), set: () => true });
  const plan = /** @type {any} */ ({ ctx, ox: 10, oy: 500, scale: 0.1, width: 800, height: 600 });
  return { plan, drawn };
}

test("each trail is one polyline of one stroke; points under a pixel apart are skipped but the newest", () => {
  const { plan, drawn } = fakePlan();
  const trails = new Trails({ gapMs: 0 });
  // A: 6 points 1 m apart (100 px); B: 5 points 1 mm apart (0.1 px); C: one point
  for (let tick = 0; tick < 6; tick += 1) trails.add([at("A", tick * 1000, 0, tick)], tick * 100);
  for (let tick = 0; tick < 5; tick += 1) trails.add([at("B", 0, tick, tick)], tick * 100);
  trails.add([at("C", 0, 0, 1)], 0);
  drawTrails(plan, trails, 600);
  assert.equal(drawn.strokes, 1);
  assert.equal(trails.drawn("A"), 6);
  assert.equal(trails.drawn("B"), 2, "its first point and the newest");
  assert.equal(trails.drawn("C"), 0, "one point is no line");
  // all gone after the trail's length: nothing stroked
  drawTrails(plan, trails, 600 + TRAIL_MS);
  assert.equal(drawn.strokes, 1);
  assert.equal(trails.drawn("A"), 0);
});

test("the overlay draws the trails first, then passes the zones' layer its input as it is", () => {
  /** @type {string[]} */
  const calls = [];
  const layer = {
    name: "zones",
    draw() {
      calls.push(`draw ${this.name}`);
    },
    /** @param {number} sx @param {number} sy */
    hover(sx, sy) {
      calls.push(`hover ${this.name} ${sx} ${sy}`);
      return "crosshair";
    },
    /** @param {KeyboardEvent} _event */
    key(_event) {
      return true;
    },
  };
  const overlay = withTrails(layer, () => calls.push("trails"));
  overlay.draw();
  assert.equal(overlay.hover?.(3, 4), "crosshair");
  assert.equal(overlay.key?.(/** @type {KeyboardEvent} */ ({})), true);
  assert.equal(overlay.pointerDown, undefined, "what the layer lacks, the overlay lacks");
  assert.deepEqual(calls, ["trails", "draw zones", "hover zones 3 4"]);
});
