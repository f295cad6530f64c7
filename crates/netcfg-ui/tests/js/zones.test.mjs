// Zones' logic (ui/lib/zones.js): inside or outside an outline, which zone a
// click selects, drawing an outline point by point and closing it, the
// self-intersection hint (named as the server names it), the API's outline
// problems, and who is inside each zone from the events and /occupancy.

import { test } from "node:test";
import assert from "node:assert/strict";
import {
  pointInPolygon, polygonArea, labelPoint, topRun, zoneAt, nearestPoint, draftClick, closeDraft, movePoint,
  selfIntersection, crossingEdges, segmentsMeet, outlineHint,
  pointTexts, pointsFromTexts, addPoint, removePoint, samePoints, outlineProblems, Occupancy, LATEST_EVENTS,
} from "../../ui/lib/zones.js";

/** @typedef {import("../../ui/lib/zones.js").Point} Point */
/** @typedef {import("../../ui/lib/types_events.js").ZoneEvent} ZoneEvent */

/** @type {Point[]} */
const SQUARE = [[0, 0], [4000, 0], [4000, 4000], [0, 4000]];
/** An L: the square's top-right quarter cut away. @type {Point[]} */
const ELL = [[0, 0], [4000, 0], [4000, 2000], [2000, 2000], [2000, 4000], [0, 4000]];

/**
 * A zone event.
 * @param {string} zone @param {string} serial @param {"enter" | "exit"} kind @param {number} [time]
 * @returns {ZoneEvent}
 */
function event(zone, serial, kind, time = 1000) {
  return { net: "site", zone, serial_number: serial, event: kind, x: 0, y: 0, z: 0, network_time: 0, time_ms: time };
}

test("a point is inside an outline by the even-odd rule", () => {
  assert.equal(pointInPolygon(2000, 2000, SQUARE), true);
  assert.equal(pointInPolygon(5000, 2000, SQUARE), false);
  assert.equal(pointInPolygon(-1, 2000, SQUARE), false);
  // the L's missing corner is outside, its arms inside
  assert.equal(pointInPolygon(3000, 3000, ELL), false);
  assert.equal(pointInPolygon(3000, 1000, ELL), true);
  assert.equal(pointInPolygon(1000, 3000, ELL), true);
  // either way round
  assert.equal(pointInPolygon(1000, 3000, [...ELL].reverse()), true);
});

test("area, and a label inside even when the centroid is not", () => {
  assert.equal(polygonArea(SQUARE), 16_000_000);
  assert.equal(polygonArea([...SQUARE].reverse()), 16_000_000);
  assert.equal(polygonArea(ELL), 12_000_000);
  assert.deepEqual(labelPoint(SQUARE), [2000, 2000]);
  // a C whose centroid falls in its mouth
  /** @type {Point[]} */
  const cee = [[0, 0], [6000, 0], [6000, 1000], [1000, 1000], [1000, 5000], [6000, 5000], [6000, 6000], [0, 6000]];
  const [x, y] = labelPoint(cee);
  assert.equal(pointInPolygon(x, y, cee), true, `${x}, ${y}`);
});

test("the topmost stretch inside along a vertical line", () => {
  assert.deepEqual(topRun(SQUARE, 1000), [0, 4000]);
  // through the L's missing corner only its lower arm is inside
  assert.deepEqual(topRun(ELL, 3000), [0, 2000]);
  /** @type {Point[]} a U: two arms up from a base */
  const you = [[0, 0], [3000, 0], [3000, 3000], [2000, 3000], [2000, 1000], [1000, 1000], [1000, 3000], [0, 3000]];
  assert.deepEqual(topRun(you, 500), [0, 3000]);
  assert.equal(topRun(SQUARE, 5000), null);
});

test("a click selects the smallest zone holding the point", () => {
  const zones = [
    { name: "hall", polygon: /** @type {Point[]} */ ([[0, 0], [10000, 0], [10000, 10000], [0, 10000]]) },
    { name: "desk", polygon: /** @type {Point[]} */ ([[1000, 1000], [3000, 1000], [3000, 3000], [1000, 3000]]) },
  ];
  assert.equal(zoneAt(zones, 2000, 2000)?.name, "desk");
  assert.equal(zoneAt(zones, 8000, 8000)?.name, "hall");
  assert.equal(zoneAt(zones, 20000, 0), null);
});

test("the nearest point within reach", () => {
  assert.equal(nearestPoint(SQUARE, 4100, 3900, 200), 2);
  assert.equal(nearestPoint(SQUARE, 2000, 2000, 200), -1);
});

test("drawing: clicks add points, the first point closes, a double-click's second click adds nothing", () => {
  /** @type {Point[]} */
  let points = [];
  for (const [x, y] of /** @type {Point[]} */ ([[0.4, 0.6], [4000, 0], [4000, 4000]])) {
    const next = draftClick(points, x, y, 100);
    assert.equal(next.closed, false);
    points = next.points;
  }
  assert.deepEqual(points, [[0, 1], [4000, 0], [4000, 4000]], "rounded to the millimetre");
  // the second click of a double-click, on the last point
  const again = draftClick(points, 4020, 3990, 100);
  assert.equal(again.closed, false);
  assert.equal(again.points, points);
  // on the first point with enough points: closed, nothing added
  const closing = draftClick(points, 30, -20, 100);
  assert.equal(closing.closed, true);
  assert.deepEqual(closing.points, points);
  // with too few points, a click on the first one is no closing
  assert.equal(draftClick([[0, 0], [4000, 0]], 10, 10, 100).closed, false);
});

test("closing a draft drops repeated and closing points, and needs three", () => {
  assert.deepEqual(closeDraft([[0, 0], [4000, 0], [4000, 0], [4000, 4000], [0, 0]]), [[0, 0], [4000, 0], [4000, 4000]]);
  assert.equal(closeDraft([[0, 0], [4000, 0], [4000, 0]]), null);
  assert.deepEqual(movePoint(SQUARE, 1, 5000.4, -2.6), [[0, 0], [5000, -3], [4000, 4000], [0, 4000]]);
  assert.deepEqual(SQUARE[1], [4000, 0], "the old outline is kept");
});

test("the self-intersection hint names the edges counted from 1, as the server does", () => {
  assert.equal(selfIntersection(SQUARE), null);
  assert.equal(selfIntersection(ELL), null);
  // a bow tie: edges 1 (point 1 → 2) and 3 (point 3 → 4) cross
  assert.deepEqual(selfIntersection([[0, 0], [4000, 4000], [4000, 0], [0, 4000]]), { first: 1, second: 3 });
  // a point touching another edge
  assert.deepEqual(selfIntersection([[0, 0], [4000, 0], [4000, 4000], [2000, 0], [0, 4000]]), { first: 1, second: 3 });
  // a repeated point: the edges starting at its first two copies
  assert.deepEqual(selfIntersection([[0, 0], [4000, 0], [2000, 2000], [4000, 4000], [0, 4000], [2000, 2000]]), { first: 3, second: 6 });
  // an edge folding back along its neighbour
  assert.deepEqual(selfIntersection([[0, 0], [4000, 0], [2000, 0], [2000, 3000]]), { first: 1, second: 2 });
  // the closing edge (the last point back to point 1) counts as the last
  assert.deepEqual(selfIntersection([[0, 0], [4000, 0], [4000, 4000], [0, 4000], [6000, 2000]]), { first: 2, second: 4 });
  assert.equal(segmentsMeet([0, 0], [10, 0], [5, 0], [5, 5]), true);
  assert.equal(segmentsMeet([0, 0], [10, 0], [5, 1], [5, 5]), false);
});

test("the edges the plan marks: every one that crosses another, counted from 1", () => {
  assert.deepEqual(crossingEdges(SQUARE), []);
  assert.deepEqual(crossingEdges(ELL), []);
  assert.deepEqual(crossingEdges([[0, 0], [4000, 4000], [4000, 0], [0, 4000]]), [1, 3]);
  // three edges crossing each other: 3 and 5 cross edge 1 and each other
  assert.deepEqual(crossingEdges([[0, 0], [6000, 0], [6000, 4000], [2000, -2000], [4000, -2000], [0, 4000]]), [1, 3, 5]);
  // edge 2 folds back along edge 1, and edge 3 starts on edge 1
  assert.deepEqual(crossingEdges([[0, 0], [4000, 0], [2000, 0], [2000, 3000]]), [1, 2, 3]);
});

test("the form's points: texts of whole mm make an outline; a point is added on the closing edge, or removed", () => {
  assert.deepEqual(pointTexts(SQUARE), [["0", "0"], ["4000", "0"], ["4000", "4000"], ["0", "4000"]]);
  assert.deepEqual(pointsFromTexts([["0", "0"], [" 4000 ", "-20"], ["4000", "4000"]]), [[0, 0], [4000, -20], [4000, 4000]]);
  for (const bad of ["", "4000.5", "4 m", "-"]) assert.equal(pointsFromTexts([["0", "0"], [bad, "0"], ["1", "1"]]), null, bad);
  assert.deepEqual(addPoint(SQUARE), [...SQUARE, [0, 2000]], "half way from the last point back to point 1");
  assert.deepEqual(addPoint([]), [[0, 0]]);
  assert.deepEqual(removePoint(SQUARE, 1), [[0, 0], [4000, 4000], [0, 4000]]);
  assert.equal(samePoints(SQUARE, pointsFromTexts(pointTexts(SQUARE)) || []), true);
  assert.equal(samePoints(SQUARE, removePoint(SQUARE, 3)), false);
  // a bow tie fixed by swapping two points' numbers
  const bow = /** @type {Point[]} */ ([[0, 0], [4000, 4000], [4000, 0], [0, 4000]]);
  assert.deepEqual(crossingEdges(bow), [1, 3]);
  assert.deepEqual(crossingEdges(pointsFromTexts([["0", "0"], ["4000", "0"], ["4000", "4000"], ["0", "4000"]]) || []), []);
});

test("the outline hint in words", () => {
  assert.equal(outlineHint(SQUARE), "");
  assert.match(outlineHint([[0, 0], [4000, 4000], [4000, 0], [0, 4000]]), /edges 1 and 3 meet/);
  assert.match(outlineHint([[0, 0], [1000, 0], [2000, 0]]), /no area/);
  assert.match(outlineHint([[0, 0], [1000, 0]]), /at least 3 points/);
});

test("the API's outline problems go on the outline's field", () => {
  assert.deepEqual(outlineProblems([
    { field: "polygon", problem: "the polygon intersects itself: edges 0 and 2 meet" },
    { field: "polygon[3][0]", problem: "not an integer" },
    { field: "polygons", problem: "unknown field" },
    { field: "name", problem: "taken" },
  ]), [
    { field: "polygon", problem: "the polygon intersects itself: edges 0 and 2 meet" },
    { field: "polygon", problem: "not an integer" },
    { field: "polygons", problem: "unknown field" },
    { field: "name", problem: "taken" },
  ]);
});

test("occupancy counts follow the enters and exits", () => {
  const book = new Occupancy();
  book.apply(event("dock", "01:05:0001", "enter", 1));
  book.apply(event("dock", "01:05:0002", "enter", 2));
  book.apply(event("gate", "01:05:0001", "enter", 3));
  assert.equal(book.count("dock"), 2);
  assert.equal(book.count("gate"), 1);
  assert.equal(book.count("nowhere"), 0);
  book.apply(event("dock", "01:05:0001", "exit", 4));
  book.apply(event("dock", "01:05:0001", "exit", 5)); // twice: no harm
  assert.equal(book.count("dock"), 1);
  assert.deepEqual(book.tags("dock"), ["01:05:0002"]);
  assert.deepEqual(book.latest.map((item) => item.time_ms), [5, 4, 3, 2, 1], "newest first");
  book.retain(["gate"]);
  assert.equal(book.count("dock"), 0);
  assert.equal(book.count("gate"), 1);
  book.empty();
  assert.equal(book.count("gate"), 0);
});

test("the latest events are at most the last twenty", () => {
  const book = new Occupancy();
  for (let at = 0; at < 30; at += 1) book.apply(event("dock", "01:05:0001", at % 2 ? "exit" : "enter", at));
  assert.equal(book.latest.length, LATEST_EVENTS);
  assert.equal(book.latest[0].time_ms, 29);
  assert.equal(book.count("dock"), 0);
});

test("an occupancy answer replaces a zone's tags, and events that came meanwhile are kept", () => {
  const book = new Occupancy();
  book.apply(event("dock", "01:05:0009", "enter"));
  const token = book.ask();
  // while the question is under way, 01:05:0001 leaves and 01:05:0003 enters
  book.apply(event("dock", "01:05:0001", "exit"));
  book.apply(event("dock", "01:05:0003", "enter"));
  book.apply(event("gate", "01:05:0001", "enter"));
  // the answer was made before those events
  book.settle("dock", [{ serial_number: "01:05:0001", since_ms: 1 }, { serial_number: "01:05:0002", since_ms: 2 }], token);
  assert.deepEqual(book.tags("dock"), ["01:05:0002", "01:05:0003"]);
  assert.equal(book.count("gate"), 1);
  assert.equal(book.log.length, 0, "no question under way: no events kept for one");
  // a question that failed is forgotten
  const lost = book.ask();
  book.apply(event("dock", "01:05:0002", "exit"));
  assert.equal(book.log.length, 1);
  book.forget(lost);
  assert.equal(book.log.length, 0);
  assert.deepEqual(book.tags("dock"), ["01:05:0003"]);
});
