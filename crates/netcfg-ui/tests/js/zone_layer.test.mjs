// The zones on the floor plan (ui/lib/zone_layer.js, the plan's overlay):
// clicks through the plan's transform add points in mm, a click on the
// first point, a double-click or Enter closes the outline, Escape cancels;
// a click selects the zone under it; a selected zone's point drags and is
// handed back on release. The canvas, its context and the browser's frame
// and resize callbacks are fakes.

import { test, afterEach } from "node:test";
import assert from "node:assert/strict";
import { FloorPlan } from "../../ui/lib/floorplan.js";
import { ZoneLayer } from "../../ui/lib/zone_layer.js";

/** @typedef {import("../../ui/lib/zones.js").Point} Point */
/** @typedef {import("../../ui/lib/types.js").Zone} Zone */

const global = /** @type {any} */ (globalThis);
global.window = { devicePixelRatio: 1 };
global.requestAnimationFrame = () => 1;
global.cancelAnimationFrame = () => {};
global.ResizeObserver = class {
  observe() {}
  disconnect() {}
};

/** The texts drawn (fillText) with where, in order. */
/** @type {[string, number, number][]} */
let texts = [];

/** A 2D context that takes every call, measures every text 40 px wide and records fillText. */
const context = new Proxy({}, {
  get: (_target, name) => (name === "measureText" ? () => ({ width: 40 })
    : name === "fillText" ? (/** @type {string} */ text, /** @type {number} */ x, /** @type {number} */ y) => texts.push([text, x, y])
      : () => {}),
  set: () => true,
});

/** @type {FloorPlan[]} */
const made = [];
afterEach(() => {
  for (const floor of made.splice(0)) floor.destroy();
});

/**
 * A plan 800 × 600 px at 0.1 px per mm with world (0, 0) at screen (100, 500),
 * its zone layer, and what the layer called back.
 */
function setup() {
  const canvas = /** @type {HTMLCanvasElement} */ (/** @type {unknown} */ ({
    width: 0,
    height: 0,
    getContext: () => context,
    getBoundingClientRect: () => ({ left: 0, top: 0, width: 800, height: 600 }),
    addEventListener() {},
    removeEventListener() {},
    setPointerCapture() {},
    hasPointerCapture: () => false,
    releasePointerCapture() {},
    style: {},
  }));
  const floor = new FloorPlan(canvas, {});
  made.push(floor);
  floor.autoFit = false;
  floor.scale = 0.1;
  floor.ox = 100;
  floor.oy = 500;
  const calls = {
    /** @type {Point[][]} */ closed: [],
    cancelled: 0,
    /** @type {(string | null)[]} */ selected: [],
    /** @type {[string, Point[], Point[]][]} */ dropped: [],
  };
  const layer = new ZoneLayer(floor, {
    count: (zone) => (zone === "dock" ? 1 : 0),
    onSelect: (zone) => calls.selected.push(zone),
    onDraftClosed: (points) => calls.closed.push(points),
    onDraftCancel: () => (calls.cancelled += 1),
    onPolygonDrop: (zone, polygon, from) => calls.dropped.push([zone, polygon, from]),
  });
  return { floor, layer, calls };
}

/**
 * A pointer event at world point (x, y) of the plan.
 * @param {FloorPlan} floor @param {number} x @param {number} y
 */
function at(floor, x, y) {
  const [clientX, clientY] = floor.toScreen(x, y);
  return /** @type {PointerEvent} */ (/** @type {unknown} */ ({ clientX, clientY, button: 0, pointerId: 1, preventDefault() {} }));
}

/** A click (down and up, no move) at world point (x, y). @param {FloorPlan} floor @param {number} x @param {number} y */
function click(floor, x, y) {
  floor.onPointerDown(at(floor, x, y));
  floor.onPointerUp(at(floor, x, y));
}

/** @param {string} name @returns {KeyboardEvent} */
function key(name) {
  return /** @type {KeyboardEvent} */ (/** @type {unknown} */ ({ key: name, altKey: false, ctrlKey: false, metaKey: false, shiftKey: false, preventDefault() {} }));
}

/** @param {string} name @param {Point[]} polygon @returns {Zone} */
function zone(name, polygon) {
  return { name, zone_id: 1, polygon, z_min: null, z_max: null, hysteresis_mm: 150, dwell_ms: 0, tags: [], roles: [], on_enter: null, on_exit: null };
}

test("clicks add points in mm; a click on the first point closes the outline", () => {
  const { floor, layer, calls } = setup();
  layer.startDrawing();
  click(floor, 5000, 4000);
  click(floor, 9000, 4000);
  click(floor, 9000, 8000);
  assert.deepEqual(layer.draft, [[5000, 4000], [9000, 4000], [9000, 8000]]);
  // 30 mm off the first point is 3 px: within reach
  click(floor, 5030, 3970);
  assert.deepEqual(calls.closed, [[[5000, 4000], [9000, 4000], [9000, 8000]]]);
  assert.equal(layer.drawing, false);
  assert.deepEqual(layer.pending, [[5000, 4000], [9000, 4000], [9000, 8000]]);
});

test("a double-click closes at its point; Enter closes; Escape cancels; Backspace takes a point back", () => {
  const { floor, layer, calls } = setup();
  layer.startDrawing();
  click(floor, 0, 0);
  click(floor, 4000, 0);
  click(floor, 4000, 4000);
  click(floor, 4000, 4000); // the double-click's second click
  floor.onDoubleClick(at(floor, 4000, 4000));
  assert.deepEqual(calls.closed, [[[0, 0], [4000, 0], [4000, 4000]]]);

  layer.startDrawing();
  click(floor, 0, 0);
  click(floor, 4000, 0);
  floor.onKey(key("Enter"));
  assert.equal(calls.closed.length, 1, "two points do not close");
  click(floor, 0, 4000);
  floor.onKey(key("Backspace"));
  assert.deepEqual(layer.draft, [[0, 0], [4000, 0]]);
  click(floor, 2000, 3000);
  floor.onKey(key("Enter"));
  assert.deepEqual(calls.closed[1], [[0, 0], [4000, 0], [2000, 3000]]);

  layer.startDrawing();
  click(floor, 0, 0);
  floor.onKey(key("Escape"));
  assert.equal(calls.cancelled, 1);
});

test("a drag while drawing pans the plan and adds no point", () => {
  const { floor, layer } = setup();
  layer.startDrawing();
  floor.onPointerDown(at(floor, 1000, 1000));
  floor.onPointerMove(/** @type {PointerEvent} */ (/** @type {unknown} */ ({ clientX: 300, clientY: 300 })));
  floor.onPointerUp(/** @type {PointerEvent} */ (/** @type {unknown} */ ({ clientX: 300, clientY: 300, pointerId: 1 })));
  assert.deepEqual(layer.draft, []);
  assert.notEqual(floor.ox, 100);
});

test("a click selects the zone under it; a selected zone's point drags and is handed back on release", () => {
  const { floor, layer, calls } = setup();
  layer.setZones([zone("dock", [[5000, 4000], [9000, 4000], [9000, 8000], [5000, 8000]])]);
  click(floor, 7000, 6000);
  assert.deepEqual(calls.selected, ["dock"]);
  assert.equal(layer.selected, "dock");
  // drag the point at (5000, 4000) to (11000, 4000)
  floor.onPointerDown(at(floor, 5000, 4000));
  floor.onPointerMove(at(floor, 8000, 4000));
  floor.onPointerMove(at(floor, 11000, 4000));
  floor.onPointerUp(at(floor, 11000, 4000));
  assert.equal(calls.dropped.length, 1);
  const [name, polygon, from] = calls.dropped[0];
  assert.equal(name, "dock");
  assert.deepEqual(polygon, [[11000, 4000], [9000, 4000], [9000, 8000], [5000, 8000]]);
  assert.deepEqual(from[0], [5000, 4000]);
  assert.deepEqual(layer.zones[0].polygon, polygon, "drawn where it was dropped until the save answers");
  // a refused save puts it back
  layer.moveZone("dock", from);
  assert.deepEqual(layer.zones[0].polygon[0], [5000, 4000]);
  // a click outside every zone unselects
  click(floor, 20000, 20000);
  assert.deepEqual(calls.selected, ["dock", null]);
});

test("the zones count in what the plan fits", () => {
  const { floor, layer } = setup();
  layer.setZones([zone("far", [[50_000, 50_000], [60_000, 50_000], [60_000, 60_000]])]);
  assert.deepEqual(floor.bounds(), { minX: 50_000, minY: 50_000, maxX: 60_000, maxY: 60_000 });
  // drawing them takes the fake context without failing
  layer.select("far");
  layer.draw();
});

test("a closed outline that crosses itself has its crossing edges numbered from 1, apart from each other", () => {
  const { layer } = setup();
  // a bow tie: edges 1 (point 1 → 2) and 3 (point 3 → 4) cross at their middles
  layer.setPending([[0, 0], [4000, 4000], [4000, 0], [0, 4000]]);
  texts = [];
  layer.draw();
  const numbers = texts.filter(([text]) => /^\d+$/.test(text));
  assert.deepEqual(numbers.map(([text]) => text), ["1", "3"]);
  // each beside its own edge (on screen edge 1 runs from (100, 500) to
  // (500, 100), edge 3 from (500, 500) to (100, 100)), not on top of the other
  const [[, x1, y1], [, x3, y3]] = numbers;
  assert.ok(Math.hypot(x1 - x3, y1 - y3) > 20, `${x1},${y1} and ${x3},${y3}`);
  assert.ok(Math.abs(x1 + y1 - 600) / Math.SQRT2 < 20 && x1 > 100 && x1 < 500, `edge 1's at ${x1},${y1}`);
  assert.ok(Math.abs(x3 - y3) / Math.SQRT2 < 20 && x3 > 100 && x3 < 500, `edge 3's at ${x3},${y3}`);
  // fixed (point 2 and 3 swapped): nothing is marked
  layer.setPending([[0, 0], [4000, 0], [4000, 4000], [0, 4000]]);
  texts = [];
  layer.draw();
  assert.deepEqual(texts.filter(([text]) => /^\d+$/.test(text)), []);
});
