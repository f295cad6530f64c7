// The floor plan's geometry (ui/lib/floorplan.js): world millimetres (y
// north, so up on screen) to canvas pixels and back, fitting what there is
// to see, zooming about a point, panning, hit tests. The canvas, its 2D
// context and the browser's frame and resize callbacks are fakes.

import { test, afterEach } from "node:test";
import assert from "node:assert/strict";
import { FloorPlan } from "../../ui/lib/floorplan.js";
import { LabelSpace } from "../../ui/lib/floor_labels.js";

/** @typedef {import("../../ui/lib/floorplan.js").Anchor} Anchor */

const global = /** @type {any} */ (globalThis);
/** @type {(() => void)[]} */
let frames = [];
global.window = { devicePixelRatio: 1 };
global.requestAnimationFrame = (/** @type {() => void} */ callback) => frames.push(callback);
global.cancelAnimationFrame = () => {};
global.Path2D = class {
  constructor() {
    return new Proxy(this, { get: () => () => {} });
  }
};
global.ResizeObserver = class {
  observe() {}
  disconnect() {}
};

/** The texts drawn (fillText), in order. */
/** @type {string[]} */
let texts = [];

/** A 2D context that takes every call, answers measureText (40 px) and records fillText. */
const context = new Proxy(
  {},
  {
    get: (_target, name) => (name === "measureText" ? () => ({ width: 40 })
      : name === "fillText" ? (/** @type {string} */ text) => texts.push(text) : () => {}),
    set: () => true,
  },
);

/** @type {FloorPlan[]} */
const made = [];
// Each plan runs a timer until destroyed, even when its test failed.
afterEach(() => {
  for (const floor of made.splice(0)) floor.destroy();
});

/**
 * A floor plan on a fake canvas of `width` by `height` CSS pixels.
 * @param {number} [width] @param {number} [height]
 * @param {ConstructorParameters<typeof FloorPlan>[1]} [callbacks]
 */
function plan(width = 800, height = 600, callbacks = {}) {
  const canvas = /** @type {HTMLCanvasElement} */ (
    /** @type {unknown} */ ({
      width: 0,
      height: 0,
      getContext: () => context,
      getBoundingClientRect: () => ({ left: 0, top: 0, width, height }),
      addEventListener() {},
      removeEventListener() {},
      setPointerCapture() {},
      style: {},
    })
  );
  frames = [];
  const floor = new FloorPlan(canvas, callbacks);
  made.push(floor);
  return floor;
}

/** @returns {Anchor} */
function anchor(/** @type {string} */ key, /** @type {number} */ x, /** @type {number} */ y) {
  return { key, serial_number: key, name: null, identifier: 0, role_id: 2, x, y, z: 0 };
}

/** @param {number} actual @param {number} expected */
function near(actual, expected, tolerance = 1e-6) {
  assert.ok(Math.abs(actual - expected) <= tolerance, `${actual} is not ${expected}`);
}

test("world and screen: y grows upwards, and toWorld undoes toScreen", () => {
  const floor = plan();
  floor.scale = 0.1;
  floor.ox = 100;
  floor.oy = 500;
  assert.deepEqual(floor.toScreen(1000, 2000), [200, 300]);
  const [x, y] = floor.toWorld(...floor.toScreen(1234, -5678));
  near(x, 1234);
  near(y, -5678);
});

test("fit shows every anchor and limit inside the margins, centred", () => {
  const floor = plan(800, 600);
  floor.setAnchors([anchor("a", 0, 0), anchor("b", 30_000, 10_000)]);
  floor.setLimits([{ id: 1, name: "hall", min_x: -5000, min_y: -2000, max_x: 10_000, max_y: 20_000 }]);
  for (const [x, y] of [[0, 0], [30_000, 10_000], [-5000, -2000], [10_000, 20_000]]) {
    const [sx, sy] = floor.toScreen(x, y);
    assert.ok(sx >= 40 - 1e-6 && sx <= 760 + 1e-6 && sy >= 40 - 1e-6 && sy <= 560 + 1e-6, `${x},${y} at ${sx},${sy}`);
  }
  const [cx, cy] = floor.toWorld(400, 300);
  near(cx, 12_500, 1e-3);
  near(cy, 9000, 1e-3);
});

test("with nothing to show, the view is 20 m by 15 m from the origin", () => {
  const floor = plan(800, 600);
  floor.fit();
  const [left, top] = floor.toWorld(40, 40);
  const [right, bottom] = floor.toWorld(760, 560);
  assert.ok(left <= -1000 + 1e-6 && right >= 20_000 - 1e-6, `${left}..${right}`);
  assert.ok(bottom <= -1000 + 1e-6 && top >= 15_000 - 1e-6, `${bottom}..${top}`);
});

test("zooming keeps the world point under the pointer, within the scale's limits, and stops fitting", () => {
  const floor = plan();
  floor.setAnchors([anchor("a", 0, 0), anchor("b", 10_000, 10_000)]);
  const before = floor.toWorld(123, 456);
  floor.zoomBy(2, 123, 456);
  const after = floor.toWorld(123, 456);
  near(after[0], before[0], 1e-6);
  near(after[1], before[1], 1e-6);
  floor.zoomBy(1e9);
  assert.equal(floor.scale, 2, "at most 2 px per mm");
  floor.zoomBy(1e-12);
  assert.equal(floor.scale, 1e-4, "at least 10 px for 100 m");
  const scale = floor.scale;
  floor.setAnchors([anchor("a", 0, 0), anchor("c", 90_000, 0)]);
  assert.equal(floor.scale, scale, "no fit after the user zoomed");
});

test("panning by pixels and by keys moves the view, not the world", () => {
  const floor = plan();
  const [x, y] = floor.toWorld(400, 300);
  floor.panBy(10, -20);
  const [sx, sy] = floor.toScreen(x, y);
  near(sx, 410);
  near(sy, 280);
  let prevented = false;
  const key = (/** @type {string} */ name) =>
    /** @type {KeyboardEvent} */ (/** @type {unknown} */ ({ key: name, shiftKey: false, preventDefault: () => (prevented = true) }));
  floor.onKey(key("ArrowLeft"));
  near(floor.toScreen(x, y)[0], 460);
  assert.ok(prevented);
  const scale = floor.scale;
  floor.onKey(key("+"));
  near(floor.scale, scale * 1.25);
});

test("positions update one object per tag, and hit tests find what is under the pointer", () => {
  const floor = plan();
  floor.setAnchors([anchor("a", 0, 0), anchor("b", 10_000, 10_000)]);
  const position = { serial_number: "T1", x: 5000, y: 5000, z: 0, quality: 100, network_time: 1 };
  floor.updatePositions([position]);
  const tag = floor.tags.get("T1");
  floor.updatePositions([{ ...position, x: 6000 }]);
  assert.equal(floor.tags.get("T1"), tag, "the same object, moved");
  assert.equal(tag?.x, 6000);
  assert.equal(floor.stats.positions, 2);
  const [tx, ty] = floor.toScreen(6000, 5000);
  assert.equal(floor.tagAt(tx + 3, ty - 3), tag);
  assert.equal(floor.tagAt(tx + 30, ty), null);
  const [ax, ay] = floor.toScreen(10_000, 10_000);
  assert.equal(floor.anchorAt(ax, ay)?.key, "b");
});

test("a change asks for one frame, and drawing it counts it", () => {
  const floor = plan();
  for (const frame of frames.splice(0)) frame();
  floor.setAnchors([anchor("a", 0, 0)]);
  floor.moveAnchor("a", 100, 100);
  assert.equal(frames.length, 1, "changes before the frame share it");
  const drawn = floor.stats.frames;
  for (const frame of frames.splice(0)) frame();
  assert.equal(floor.stats.frames, drawn + 1);
});

/** Draws the frames asked for, and gives the texts they drew. */
function drawn() {
  texts = [];
  for (const frame of frames.splice(0)) frame();
  return texts;
}

test("label space: a rectangle overlapping one taken is refused, one beside it taken, a forced one always", () => {
  const space = new LabelSpace(48);
  assert.ok(space.take(10, 10, 40, 13));
  assert.ok(!space.take(45, 20, 40, 13), "overlaps the first");
  assert.ok(space.take(51, 10, 40, 13), "beside it, across a bucket's edge");
  assert.ok(space.take(10, 24, 40, 13), "under it");
  assert.ok(!space.take(-20, 0, 200, 100), "a large one over all of them");
  assert.ok(space.take(45, 20, 40, 13, true), "forced");
  space.clear();
  assert.ok(space.take(45, 20, 40, 13), "after clear, free again");
});

test("crowded tags: a label that would overlap one drawn is skipped; the highlighted tag's always shows", () => {
  const floor = plan();
  floor.setAnchors([anchor("A1", 0, 0), anchor("A2", 20_000, 15_000)]);
  const at = (/** @type {string} */ serial, /** @type {number} */ x, /** @type {number} */ y) =>
    ({ serial_number: serial, x, y, z: 0, quality: 100, network_time: 1 });
  // T1 to T3 on one spot, T4 far from them
  floor.updatePositions([at("T1", 5000, 5000), at("T2", 5000, 5010), at("T3", 5010, 5000), at("T4", 15_000, 10_000)]);
  let labels = drawn().filter((text) => text.startsWith("T"));
  assert.deepEqual(labels, ["T1", "T4"]);
  floor.highlightTag("T3");
  labels = drawn().filter((text) => text.startsWith("T"));
  assert.deepEqual(labels, ["T3", "T4"], "the highlighted tag first, the others around it give way");
  // the anchors are labelled too, each frame
  assert.ok(texts.includes("A1") && texts.includes("A2"), texts.join(","));
});

test("a tag is labelled by its name when it has one, else by its serial number", () => {
  const names = new Map([["01:05:0001", "Forklift 3"]]);
  const floor = plan(800, 600, { tagName: (serial) => names.get(serial) });
  const at = (/** @type {string} */ serial, /** @type {number} */ x) => ({ serial_number: serial, x, y: 5000, z: 0, quality: 100, network_time: 1 });
  floor.updatePositions([at("01:05:0001", 2000), at("01:05:0002", 15_000)]);
  const labels = drawn();
  assert.ok(labels.includes("Forklift 3") && labels.includes("01:05:0002"), labels.join(","));
  assert.ok(!labels.includes("01:05:0001"), "a named tag's serial number is not its label");
  // highlighted, it keeps its name
  floor.highlightTag("01:05:0001");
  assert.ok(drawn().includes("Forklift 3"));
});

test("a tag keeps its error estimate, and the hover details show it", () => {
  const floor = plan();
  floor.updatePositions([{ serial_number: "T1", x: 5000, y: 5000, z: 0, quality: 100, error_mm: 240, network_time: 1 }]);
  const tag = floor.tags.get("T1");
  assert.equal(tag?.error_mm, 240);
  floor.updatePositions([{ serial_number: "T1", x: 5000, y: 5000, z: 0, quality: 100, network_time: 2 }]);
  assert.equal(tag?.error_mm, null, "none from an older server");
  floor.updatePositions([{ serial_number: "T1", x: 5000, y: 5000, z: 0, quality: 100, error_mm: 1500, network_time: 3 }]);
  floor.hover = { kind: "tag", tag: /** @type {any} */ (tag) };
  assert.ok(drawn().some((text) => text.includes("95% error 1.5 m")), texts.join(" | "));
});

/** A pointer event at canvas point (x, y). */
const pointer = (/** @type {number} */ x, /** @type {number} */ y) => /** @type {PointerEvent} */ (/** @type {unknown} */ ({ clientX: x, clientY: y }));

test("with coverage shown, the hover over the plan names the cell's error and anchors in range", () => {
  const floor = plan();
  floor.setAnchors([anchor("A1", 0, 0), anchor("A2", 20_000, 15_000)]);
  floor.setCoverage({ x0: 0, y0: 0, resolution_mm: 1000, columns: 3, rows: 2, error_mm: [50, null, 2000, 90, 90, 90], anchors_in_range: [5, 2, 3, 4, 4, 4] });
  floor.onPointerMove(pointer(...floor.toScreen(1100, 200)));
  assert.equal(floor.hover?.kind, "cell");
  assert.ok(drawn().includes("Not covered: 2 anchors in range"), texts.join(" | "));
  floor.onPointerMove(pointer(...floor.toScreen(1900, -300)));
  assert.ok(drawn().includes("95% error 2 m (poor), 3 anchors in range"), texts.join(" | "));
  // off the grid, and with coverage off: no cell
  floor.onPointerMove(pointer(...floor.toScreen(9000, 9000)));
  assert.equal(floor.hover, null);
  floor.onPointerMove(pointer(...floor.toScreen(1100, 200)));
  floor.setCoverage(null);
  assert.equal(floor.hover, null);
  floor.onPointerMove(pointer(...floor.toScreen(1100, 200)));
  assert.equal(floor.hover, null);
});

test("a survey's suggested position is fitted in view, and the anchor's hover tells its verdict", () => {
  const floor = plan(800, 600);
  floor.setAnchors([anchor("A1", 0, 0), anchor("A2", 10_000, 10_000)]);
  floor.setSurvey({
    time_ms: 0,
    pairs: [],
    anchors: [
      { serial_number: "A1", residual_mm: 40, verdict: "good", suggested: null },
      { serial_number: "A2", residual_mm: 5100, verdict: "bad", suggested: { x: 15_000, y: 10_000, z: 2000 } },
    ],
  });
  const [sx, sy] = floor.toScreen(15_000, 10_000);
  assert.ok(sx <= 760 + 1e-6 && sy >= 40 - 1e-6, `the suggested position at ${sx},${sy}`);
  floor.hover = { kind: "anchor", anchor: floor.anchors[1] };
  const lines = drawn();
  assert.ok(lines.some((text) => text.startsWith("survey: bad, 5.1 m")), lines.join(" | "));
  assert.ok(lines.includes("suggested x 15.00 m, y 10.00 m, z 2.00 m"), lines.join(" | "));
  floor.setSurvey(null);
  assert.equal(floor.survey.size, 0);
});
