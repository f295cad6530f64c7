// Recordings' logic (decisions §15; `/nets/{net}/recordings`): sizes and
// durations for people, why a recording ended in words, the body that
// starts one, the name an uploaded file gets from its own, and the name
// and instance of the configuration that replays one. Plain functions and
// no DOM, so node's test runner loads this module as it is
// (tests/js/recordings.test.mjs); views/recordings.js shows them.

import { formatClock } from "./format.js";

/** @typedef {import("./types.js").Recording} Recording */
/** @typedef {import("./types.js").RecordingEnd} RecordingEnd */
/** @typedef {import("./types.js").FieldProblem} FieldProblem */

/** How often the list is asked for again while a recording records, ms. */
export const REFRESH_MS = 2000;

/** The longest `duration_s` the API takes: a week. */
export const MAX_DURATION_S = 7 * 24 * 3600;

/** A recording's (and a configuration's) name: 1 to 64 of A-Z a-z 0-9 . _ -, not starting with a dot. */
const NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,63}$/;

/** What an upload is called when its file's name leaves nothing usable. */
export const UPLOAD_FALLBACK = "upload";

/**
 * Whether `text` is a name the API takes for a recording.
 * @param {string} text
 */
export function isRecordingName(text) {
  return NAME.test(text);
}

/**
 * Bytes in decimal units with three significant figures at most:
 * 512 → "512 B", 1,536 → "1.54 kB", 12,345,678 → "12.3 MB".
 * @param {number} bytes
 */
export function formatSize(bytes) {
  const value = Number.isFinite(bytes) && bytes > 0 ? bytes : 0;
  if (value < 1000) return `${value} B`;
  const units = ["kB", "MB", "GB", "TB"];
  let scaled = value;
  let unit = -1;
  // 999,999 B is "1 MB", not "1000 kB": the rounded figure decides the unit.
  while (unit < units.length - 1 && Number(scaled.toPrecision(3)) >= 1000) {
    scaled /= 1000;
    unit += 1;
  }
  return `${Number(scaled.toPrecision(3))} ${units[Math.max(unit, 0)]}`;
}

/**
 * A recording's length: under a minute in seconds with a tenth ("2.5 s",
 * which a clock would show as 0:02), from a minute on as a clock ("1:05",
 * "1:01:05").
 * @param {number} ms
 */
export function formatDuration(ms) {
  const value = Number.isFinite(ms) && ms > 0 ? ms : 0;
  if (value < 60_000) return `${(Math.floor(value / 100) / 10).toFixed(1)} s`;
  return formatClock(value);
}

/** Why a recording ended, in words. @type {Record<RecordingEnd, string>} */
export const ENDED = {
  duration: "its duration passed",
  stopped: "stopped",
  network_stopped: "the configuration stopped",
  recording_limit: "it reached the size limit of one recording",
  total_limit: "all recordings together reached their size limit",
  disk: "the disk was full, or a write failed",
  interrupted: "the server stopped while it recorded",
  uploaded: "uploaded",
};

/**
 * A recording's state in words and its badge's tone: "recording…" while
 * it records; else why it ended, "warning" when a limit or a failure (not
 * the user) ended it.
 * @param {Recording} recording
 * @returns {{text: string, tone: "running" | "stopped" | "warning"}}
 */
export function describeState(recording) {
  if (recording.active) return { text: "recording…", tone: "running" };
  const ended = recording.ended;
  if (!ended) return { text: "ended", tone: "stopped" };
  const text = ENDED[ended] ?? `ended (${ended})`;
  const chosen = ended === "duration" || ended === "stopped" || ended === "network_stopped" || ended === "uploaded";
  return { text, tone: chosen ? "stopped" : "warning" };
}

/**
 * Whether any recording still records (then the list is asked for again
 * every REFRESH_MS).
 * @param {Recording[]} recordings
 */
export function anyActive(recordings) {
  return recordings.some((recording) => recording.active);
}

/**
 * The recordings, the newest first (then by name).
 * @param {Recording[]} recordings
 */
export function newestFirst(recordings) {
  return [...recordings].sort((a, b) => b.started_ms - a.started_ms || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * A duration as typed: seconds ("90"), or with units ("90s", "10m", "2h",
 * "1h 30m", "1d"). Undefined when empty; `problem` when unreadable. The
 * range (1 s to a week) is the server's to check: it names the problem
 * beside the field.
 * @param {any} text
 * @returns {{seconds?: number, problem?: string}}
 */
export function parseDuration(text) {
  const typed = String(text ?? "").trim().toLowerCase();
  if (typed === "") return {};
  if (/^\d+(\.\d+)?$/.test(typed)) return { seconds: Number(typed) };
  const part = /(\d+(?:\.\d+)?)\s*(d|h|m|s)\s*/y;
  const scale = { d: 86400, h: 3600, m: 60, s: 1 };
  let seconds = 0;
  let at = 0;
  while (at < typed.length) {
    part.lastIndex = at;
    const found = part.exec(typed);
    if (!found) return { problem: "a duration such as 90 (seconds), 10m, 2h or 1h 30m" };
    seconds += Number(found[1]) * scale[/** @type {"d"|"h"|"m"|"s"} */ (found[2])];
    at = part.lastIndex;
  }
  return { seconds };
}

/**
 * The body of `POST .../recordings` from the start form's values (name and
 * duration both optional), or the problems of the fields it cannot read.
 * @param {{name?: any, duration_s?: any}} values
 * @returns {{body: {name?: string, duration_s?: number}, problems: FieldProblem[]}}
 */
export function startBody(values) {
  /** @type {{name?: string, duration_s?: number}} */
  const body = {};
  /** @type {FieldProblem[]} */
  const problems = [];
  const name = String(values.name ?? "").trim();
  if (name) body.name = name;
  const duration = parseDuration(values.duration_s);
  if (duration.problem) problems.push({ field: "duration_s", problem: duration.problem });
  else if (duration.seconds !== undefined) body.duration_s = duration.seconds;
  return { body, problems };
}

/**
 * The recording name an uploaded file gets unless the user types one: its
 * name without folder and extension, each run of other characters turned
 * into "-", no dot or dash in front, at most 64 characters;
 * "upload" when nothing is left.
 * "Night shift (2).pcap" → "Night-shift-2".
 * @param {string} fileName
 */
export function sanitiseStem(fileName) {
  const base = String(fileName ?? "").split(/[\\/]/).pop() || "";
  const dot = base.lastIndexOf(".");
  const stem = dot > 0 ? base.slice(0, dot) : base;
  const cleaned = stem
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .replace(/^[.-]+/, "")
    .slice(0, 64)
    .replace(/-+$/, "");
  return cleaned || UPLOAD_FALLBACK;
}

/**
 * The suggested name of a configuration that replays `recording` of
 * `net`: "<net>-replay-<recording>", cut to the 64 characters a name may
 * have.
 * @param {string} net
 * @param {string} recording
 */
export function replayName(net, recording) {
  return `${net}-replay-${recording}`.slice(0, 64);
}

/**
 * The instance of a configuration that replays `recording` of `net`:
 * "replay:<net>/<recording>", with its speed when not 1 and `loop=1` when
 * it loops.
 * @param {string} net
 * @param {string} recording
 * @param {{speed?: number, loop?: boolean}} [options]
 */
export function replayInstance(net, recording, options = {}) {
  const query = [];
  if (options.speed !== undefined && options.speed !== 1) query.push(`speed=${options.speed}`);
  if (options.loop) query.push("loop=1");
  return `replay:${net}/${recording}${query.length ? `?${query.join("&")}` : ""}`;
}

/**
 * The API's problems of an upload placed on the upload form's fields: the
 * recording's name (a path parameter; a name taken, a 409 naming no
 * field) beside Name, and what is wrong with the file (the request's own
 * problem, field "") beside the file.
 * @param {{problems: FieldProblem[], code: string, message: string}} failure  an ApiError
 * @returns {FieldProblem[]}
 */
export function placeUploadProblems({ problems, code, message }) {
  if (problems.length === 0) return code === "name_taken" ? [{ field: "name", problem: message }] : [];
  return problems.map(({ field, problem }) => {
    if (field === "recording_name") return { field: "name", problem };
    if (field === "") return { field: "file", problem };
    return { field, problem };
  });
}

/**
 * A name taken (409 `name_taken`, which names no field) as a problem of
 * the form's `field`, so it shows beside it; other failures as they are.
 * @param {{problems: FieldProblem[], code: string, message: string}} failure  an ApiError
 * @param {string} field
 * @returns {FieldProblem[]}
 */
export function placeNameTaken({ problems, code, message }, field) {
  return problems.length === 0 && code === "name_taken" ? [{ field, problem: message }] : problems;
}
