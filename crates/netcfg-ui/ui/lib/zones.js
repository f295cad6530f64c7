// Zones' logic (docs/api.md, "Zones"): the geometry of an outline (inside,
// area, where its label goes, a self-intersection hint), drawing one point
// by point, and who is inside each zone now, kept from the `zone` events
// and the `/occupancy` answers. Plain functions and one class with no DOM,
// so node's test runner loads this module as it is (tests/js/zones.test.mjs);
// lib/zone_layer.js draws with them and views/floor_zones.js keeps the book.

/** @typedef {import("./types.js").Zone} Zone */
/** @typedef {import("./types_events.js").ZoneEvent} ZoneEvent */
/** @typedef {import("./types.js").ZoneOccupant} ZoneOccupant */
/** @typedef {[number, number]} Point  x, y in mm */

/** The fewest points of an outline (the API's minimum). */
export const MIN_POINTS = 3;
/** The most points of an outline (the API's maximum). */
export const MAX_POINTS = 1000;
/** The most zone events the view lists. */
export const LATEST_EVENTS = 20;

/**
 * Whether (x, y) is inside the outline (even-odd rule, as the server
 * decides: an edge counts from its lower end inclusive to its upper end
 * exclusive, so a vertex level with the point is counted once).
 * @param {number} x @param {number} y @param {Point[]} polygon
 */
export function pointInPolygon(x, y, polygon) {
  let inside = false;
  for (let at = 0, before = polygon.length - 1; at < polygon.length; before = at, at += 1) {
    const [ax, ay] = polygon[before];
    const [bx, by] = polygon[at];
    if ((ay > y) !== (by > y) && x < ax + ((y - ay) * (bx - ax)) / (by - ay)) inside = !inside;
  }
  return inside;
}

/**
 * The area the outline encloses, mm² (positive whichever way it turns; a
 * crossing outline's parts may cancel).
 * @param {Point[]} polygon
 */
export function polygonArea(polygon) {
  let twice = 0;
  for (let at = 0, before = polygon.length - 1; at < polygon.length; before = at, at += 1) {
    twice += polygon[before][0] * polygon[at][1] - polygon[at][0] * polygon[before][1];
  }
  return Math.abs(twice) / 2;
}

/**
 * Where a zone's label goes: the outline's centroid when it lies inside,
 * else the middle of the widest run inside along the horizontal line
 * through it (a C or L shape has its centroid outside).
 * @param {Point[]} polygon
 * @returns {Point}
 */
export function labelPoint(polygon) {
  let twice = 0;
  let cx = 0;
  let cy = 0;
  const [ox, oy] = polygon[0]; // relative to the first point: no loss of precision far from the origin
  for (let at = 0, before = polygon.length - 1; at < polygon.length; before = at, at += 1) {
    const ax = polygon[before][0] - ox;
    const ay = polygon[before][1] - oy;
    const bx = polygon[at][0] - ox;
    const by = polygon[at][1] - oy;
    const cross = ax * by - bx * ay;
    twice += cross;
    cx += (ax + bx) * cross;
    cy += (ay + by) * cross;
  }
  if (twice === 0) return averagePoint(polygon);
  /** @type {Point} */
  const centroid = [ox + cx / (3 * twice), oy + cy / (3 * twice)];
  if (pointInPolygon(centroid[0], centroid[1], polygon)) return centroid;
  // The widest stretch inside along y = centroid's y.
  const y = centroid[1];
  const crossings = [];
  for (let at = 0, before = polygon.length - 1; at < polygon.length; before = at, at += 1) {
    const [ax, ay] = polygon[before];
    const [bx, by] = polygon[at];
    if ((ay > y) !== (by > y)) crossings.push(ax + ((y - ay) * (bx - ax)) / (by - ay));
  }
  crossings.sort((a, b) => a - b);
  let best = null;
  for (let at = 0; at + 1 < crossings.length; at += 2) {
    if (!best || crossings[at + 1] - crossings[at] > best[1] - best[0]) best = [crossings[at], crossings[at + 1]];
  }
  return best ? [(best[0] + best[1]) / 2, y] : averagePoint(polygon);
}

/**
 * The topmost stretch inside the outline along the vertical line at x:
 * `[bottom, top]` (mm), or null when the line misses the outline. A zone's
 * label goes at its top, so the tags in the middle stay in view.
 * @param {Point[]} polygon @param {number} x
 * @returns {[number, number] | null}
 */
export function topRun(polygon, x) {
  const crossings = [];
  for (let at = 0, before = polygon.length - 1; at < polygon.length; before = at, at += 1) {
    const [ax, ay] = polygon[before];
    const [bx, by] = polygon[at];
    if ((ax > x) !== (bx > x)) crossings.push(ay + ((x - ax) * (by - ay)) / (bx - ax));
  }
  if (crossings.length < 2) return null;
  crossings.sort((a, b) => b - a);
  return [crossings[1], crossings[0]];
}

/** @param {Point[]} points @returns {Point} */
function averagePoint(points) {
  const sum = points.reduce((total, [x, y]) => [total[0] + x, total[1] + y], [0, 0]);
  return [sum[0] / points.length, sum[1] / points.length];
}

/**
 * The zone whose outline holds (x, y); of nested or overlapping ones the
 * smallest (the one a click inside it most likely means), else null.
 * @template {{polygon: Point[]}} T
 * @param {T[]} zones @param {number} x @param {number} y
 * @returns {T | null}
 */
export function zoneAt(zones, x, y) {
  let best = null;
  let bestArea = Infinity;
  for (const zone of zones) {
    if (!pointInPolygon(x, y, zone.polygon)) continue;
    const area = polygonArea(zone.polygon);
    if (area < bestArea) {
      best = zone;
      bestArea = area;
    }
  }
  return best;
}

/**
 * The index of the point nearest (x, y) within `radius`, else -1.
 * @param {Point[]} points @param {number} x @param {number} y @param {number} radius
 */
export function nearestPoint(points, x, y, radius) {
  let best = -1;
  let bestDistance = radius * radius;
  points.forEach(([px, py], index) => {
    const distance = (px - x) ** 2 + (py - y) ** 2;
    if (distance <= bestDistance) {
      best = index;
      bestDistance = distance;
    }
  });
  return best;
}

// ---- drawing an outline ---------------------------------------------------

/**
 * A click while drawing at (x, y), `radius` the click's reach in mm: on the
 * first point (with enough points) it closes the outline; on the last one
 * (the second click of a double-click) it does nothing; elsewhere it adds
 * the point, rounded to the millimetre (the API takes integers).
 * @param {Point[]} points @param {number} x @param {number} y @param {number} radius
 * @returns {{points: Point[], closed: boolean}}
 */
export function draftClick(points, x, y, radius) {
  if (points.length >= MIN_POINTS && nearestPoint([points[0]], x, y, radius) === 0) return { points, closed: true };
  const last = points[points.length - 1];
  if (last && nearestPoint([last], x, y, radius) === 0) return { points, closed: false };
  if (points.length >= MAX_POINTS) return { points, closed: false };
  return { points: [...points, [Math.round(x), Math.round(y)]], closed: false };
}

/**
 * The outline a draft closes to, or null when it has too few points: the
 * same point twice in a row (a double-click's) counts once, and a last
 * point back on the first is the closing itself.
 * @param {Point[]} points
 * @returns {Point[] | null}
 */
export function closeDraft(points) {
  /** @type {Point[]} */
  const kept = [];
  for (const point of points) {
    const last = kept[kept.length - 1];
    if (!last || last[0] !== point[0] || last[1] !== point[1]) kept.push([Math.round(point[0]), Math.round(point[1])]);
  }
  while (kept.length > 1 && kept[kept.length - 1][0] === kept[0][0] && kept[kept.length - 1][1] === kept[0][1]) kept.pop();
  return kept.length >= MIN_POINTS ? kept : null;
}

/**
 * Moves one point of an outline (a new outline; the old one is kept).
 * @param {Point[]} polygon @param {number} index @param {number} x @param {number} y
 * @returns {Point[]}
 */
export function movePoint(polygon, index, x, y) {
  return polygon.map((point, at) => (at === index ? [Math.round(x), Math.round(y)] : point));
}

// ---- editing an outline's points in a form ---------------------------------

/** A whole number of mm, as typed (a sign, digits, spaces around). */
const WHOLE_MM = /^\s*-?\d+\s*$/;

/**
 * The points as the form's texts: x and y of each, in mm.
 * @param {Point[]} points
 * @returns {[string, string][]}
 */
export function pointTexts(points) {
  return points.map(([x, y]) => [String(x), String(y)]);
}

/**
 * The outline the form's texts make, or null while one of them is not a
 * whole number of mm (the API takes integers).
 * @param {[string, string][]} texts
 * @returns {Point[] | null}
 */
export function pointsFromTexts(texts) {
  if (!texts.every(([x, y]) => WHOLE_MM.test(x) && WHOLE_MM.test(y))) return null;
  return texts.map(([x, y]) => [Number(x), Number(y)]);
}

/**
 * The outline with a point added at the end, half way along the edge that
 * closed it (from the last point back to point 1): the outline keeps its
 * shape, and the new point is where a person moves it from.
 * @param {Point[]} points
 * @returns {Point[]}
 */
export function addPoint(points) {
  if (points.length === 0) return [[0, 0]];
  const [first, last] = [points[0], points[points.length - 1]];
  return [...points, [Math.round((first[0] + last[0]) / 2), Math.round((first[1] + last[1]) / 2)]];
}

/**
 * The outline without its point `index` (counted from 0).
 * @param {Point[]} points @param {number} index
 * @returns {Point[]}
 */
export function removePoint(points, index) {
  return points.filter((_, at) => at !== index);
}

/**
 * Whether two outlines are the same points in the same order.
 * @param {Point[]} a @param {Point[]} b
 */
export function samePoints(a, b) {
  return a.length === b.length && a.every((point, at) => point[0] === b[at][0] && point[1] === b[at][1]);
}

// ---- a self-intersection hint --------------------------------------------

/**
 * The sign of the turn a → b → c: 1 left, -1 right, 0 straight.
 * @param {Point} a @param {Point} b @param {Point} c
 */
function turn(a, b, c) {
  return Math.sign((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]));
}

/**
 * For p on the line through a and b: whether it is on the segment.
 * @param {Point} a @param {Point} b @param {Point} p
 */
function withinBox(a, b, p) {
  return Math.min(a[0], b[0]) <= p[0] && p[0] <= Math.max(a[0], b[0]) && Math.min(a[1], b[1]) <= p[1] && p[1] <= Math.max(a[1], b[1]);
}

/**
 * Whether the closed segments a-b and c-d share a point.
 * @param {Point} a @param {Point} b @param {Point} c @param {Point} d
 */
export function segmentsMeet(a, b, c, d) {
  const [o1, o2, o3, o4] = [turn(a, b, c), turn(a, b, d), turn(c, d, a), turn(c, d, b)];
  if (o1 * o2 < 0 && o3 * o4 < 0) return true;
  return (o1 === 0 && withinBox(a, b, c)) || (o2 === 0 && withinBox(a, b, d))
    || (o3 === 0 && withinBox(c, d, a)) || (o4 === 0 && withinBox(c, d, b));
}

/**
 * The pairs of edges that cross or touch where they should not, counted
 * from 0 (edge i runs from point i to the next, the last back to the
 * first): `repeated` those of a point given twice (the edges that start at
 * its copies), `other` the edges that fold back on their neighbour or meet
 * another one. Each pair once, the lower edge first.
 * @param {Point[]} points
 * @returns {{repeated: [number, number][], other: [number, number][]}}
 */
function meetings(points) {
  const count = points.length;
  /** @type {[number, number][]} */
  const repeated = [];
  /** @type {[number, number][]} */
  const other = [];
  if (count < MIN_POINTS) return { repeated, other };
  for (let i = 0; i < count; i += 1) {
    for (let j = i + 1; j < count; j += 1) {
      if (points[i][0] === points[j][0] && points[i][1] === points[j][1]) repeated.push([i, j]);
    }
  }
  // Neighbours fold back along one line.
  for (let at = 0; at < count; at += 1) {
    const before = (at + count - 1) % count;
    const [a, b, c] = [points[before], points[at], points[(at + 1) % count]];
    const dot = (a[0] - b[0]) * (c[0] - b[0]) + (a[1] - b[1]) * (c[1] - b[1]);
    if (turn(a, b, c) === 0 && dot > 0) other.push(before < at ? [before, at] : [at, before]);
  }
  // Any two others that meet.
  for (let i = 0; i < count; i += 1) {
    for (let j = i + 2; j < count; j += 1) {
      if (i === 0 && j === count - 1) continue; // neighbours through the closing edge
      if (segmentsMeet(points[i], points[(i + 1) % count], points[j], points[(j + 1) % count])) other.push([i, j]);
    }
  }
  return { repeated, other };
}

/**
 * The lowest pair, first by its first edge, then by its second.
 * @param {[number, number][]} pairs
 */
function lowest(pairs) {
  return pairs.reduce((best, pair) => (!best || pair[0] < best[0] || (pair[0] === best[0] && pair[1] < best[1]) ? pair : best),
    /** @type {[number, number] | null} */ (null));
}

/**
 * The pair of edges the server names for a self-crossing outline, counted
 * from 1 as it counts them (edge n runs from point n to point n + 1, the
 * last back to point 1), or null for a simple outline: of a point given
 * twice the edges at its first two copies, else the lowest pair that
 * meets. A hint only: the server judges (it also refuses an outline with
 * no area).
 * @param {Point[]} points
 * @returns {{first: number, second: number} | null}
 */
export function selfIntersection(points) {
  const { repeated, other } = meetings(points);
  const pair = lowest(repeated) || lowest(other);
  return pair ? { first: pair[0] + 1, second: pair[1] + 1 } : null;
}

/**
 * Every edge that crosses or touches another where it should not, counted
 * from 1 and in order: the edges the floor plan marks.
 * @param {Point[]} points
 * @returns {number[]}
 */
export function crossingEdges(points) {
  const { repeated, other } = meetings(points);
  const edges = new Set([...repeated, ...other].flat());
  return [...edges].sort((a, b) => a - b).map((edge) => edge + 1);
}

/**
 * What is wrong with an outline as the server would see it, in words, or
 * "" when nothing is (a hint shown before saving; the server judges).
 * @param {Point[]} points
 */
export function outlineHint(points) {
  if (points.length < MIN_POINTS) return `an outline needs at least ${MIN_POINTS} points`;
  if (points.length > MAX_POINTS) return `an outline has at most ${MAX_POINTS} points`;
  if (polygonArea(points) === 0 && points.every((point) => turn(points[0], points[1], point) === 0)) return "the outline has no area";
  const meeting = selfIntersection(points);
  return meeting ? `the outline crosses itself: edges ${meeting.first} and ${meeting.second} meet` : "";
}

// ---- the API's problems ---------------------------------------------------

/**
 * The API's problems of a zone's body with the outline's (`polygon`,
 * `polygon[3]`, `polygon[3][0]`) on `polygon`, the one field the form
 * shows for it.
 * @param {import("./types.js").FieldProblem[]} problems
 */
export function outlineProblems(problems) {
  return problems.map((item) => (/^polygon\b/.test(item.field) ? { field: "polygon", problem: item.problem } : item));
}

// ---- who is inside --------------------------------------------------------

/**
 * Who is inside each zone now, and the latest enters and exits. The
 * `zone` events keep it; an `/occupancy` answer replaces a zone's tags,
 * and the events that came while it was asked for are applied again on
 * top, so an answer overtaken by an event does not undo it.
 */
export class Occupancy {
  /** @param {number} [latest] how many events `latest` keeps */
  constructor(latest = LATEST_EVENTS) {
    /** @type {Map<string, Map<string, number>>} zone name → serial number → since (ms) */
    this.inside = new Map();
    /** @type {ZoneEvent[]} newest first */
    this.latest = [];
    this.keep = latest;
    this.sequence = 0;
    /** @type {{sequence: number, event: ZoneEvent}[]} events since the oldest question under way */
    this.log = [];
    /** @type {Set<number>} the sequence numbers at which questions under way were asked */
    this.asking = new Set();
  }

  /**
   * A `zone` event: the tag enters or leaves the zone.
   * @param {ZoneEvent} event
   */
  apply(event) {
    this.sequence += 1;
    if (this.asking.size) this.log.push({ sequence: this.sequence, event });
    this.take(event);
    this.latest = [event, ...this.latest].slice(0, this.keep);
  }

  /** @param {ZoneEvent} event */
  take(event) {
    let tags = this.inside.get(event.zone);
    if (event.event === "enter") {
      if (!tags) this.inside.set(event.zone, (tags = new Map()));
      tags.set(event.serial_number, event.time_ms);
    } else {
      tags?.delete(event.serial_number);
    }
  }

  /**
   * Before asking for a zone's occupancy: the token its answer is settled with.
   * @returns {number}
   */
  ask() {
    this.asking.add(this.sequence);
    return this.sequence;
  }

  /**
   * The answer to `ask()`'s question: the zone's tags are these, plus the
   * events of that zone that came since.
   * @param {string} zone @param {ZoneOccupant[]} occupants @param {number} token
   */
  settle(zone, occupants, token) {
    this.inside.set(zone, new Map(occupants.map((occupant) => [occupant.serial_number, occupant.since_ms])));
    for (const entry of this.log) if (entry.sequence > token && entry.event.zone === zone) this.take(entry.event);
    this.forget(token);
  }

  /**
   * A question that got no answer.
   * @param {number} token
   */
  forget(token) {
    this.asking.delete(token);
    const oldest = Math.min(...this.asking);
    this.log = this.asking.size ? this.log.filter((entry) => entry.sequence > oldest) : [];
  }

  /**
   * How many tags are inside the zone.
   * @param {string} zone
   */
  count(zone) {
    return this.inside.get(zone)?.size ?? 0;
  }

  /**
   * The tags inside the zone, by serial number.
   * @param {string} zone
   */
  tags(zone) {
    return [...(this.inside.get(zone)?.keys() ?? [])].sort();
  }

  /**
   * Keeps only the zones named (the others were deleted or renamed).
   * @param {Iterable<string>} names
   */
  retain(names) {
    const kept = new Set(names);
    for (const zone of [...this.inside.keys()]) if (!kept.has(zone)) this.inside.delete(zone);
  }

  /** Nobody is inside (the network stopped). */
  empty() {
    this.inside.clear();
  }
}
