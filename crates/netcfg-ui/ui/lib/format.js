// How the front end writes values for people: levels, times, network-time
// periods. Plain functions with no DOM and no Preact, so node's test runner
// loads this module as it is (tests/js/format.test.mjs).

/** The names of the classification levels. */
export const LEVELS = { 1: "error", 2: "warning", 3: "information", 4: "debug" };

/**
 * A level's name with a capital, for a badge: 1 → "Error"; an unknown
 * level → "Level 7".
 * @param {number} level
 */
export function levelName(level) {
  const name = /** @type {Record<number, string>} */ (LEVELS)[level] || `level ${level}`;
  return name[0].toUpperCase() + name.slice(1);
}

/**
 * A time in the browser's locale.
 * @param {number} milliseconds
 */
export function formatTime(milliseconds) {
  return new Date(milliseconds).toLocaleString();
}

/**
 * A time of today as the time only, else date and time.
 * @param {number} ms
 * @param {number} [now]  what "today" is taken from (default: now)
 */
export function shortTime(ms, now = Date.now()) {
  const when = new Date(ms);
  return when.toDateString() === new Date(now).toDateString() ? when.toLocaleTimeString() : when.toLocaleString();
}

/**
 * A figure for people: three significant digits below 100, whole above,
 * without trailing zeros (1.5, 10, 667).
 * @param {number} value
 */
function figure(value) {
  const text = value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2);
  return text.includes(".") ? text.replace(/0+$/, "").replace(/\.$/, "") : text;
}

/**
 * A network-time period in words: 97,500 → "100 ms (10 Hz)".
 * @param {any} units
 */
export function describePeriod(units) {
  const value = Number(units);
  if (!Number.isFinite(value) || units === "" || units === null || units === undefined) return "";
  if (value === 0) return "off";
  const ms = value / 975;
  return `${figure(ms)} ms (${figure(1000 / ms)} Hz)`;
}

/**
 * A network-time duration that does not repeat (a role's downlink
 * window) in milliseconds: 4,875 → "5 ms"; 0 → "none". A frequency would
 * mean nothing there.
 * @param {any} units
 */
export function describeDuration(units) {
  const value = Number(units);
  if (!Number.isFinite(value) || units === "" || units === null || units === undefined) return "";
  return value === 0 ? "none" : `${figure(value / 975)} ms`;
}

/**
 * A length of time as a clock: 65,000 → "1:05"; from an hour on
 * "1:01:05". Whole seconds, rounded down (a replay's position shows the
 * second it is in); a negative or missing value is "0:00".
 * @param {number} ms
 */
export function formatClock(ms) {
  const total = Number.isFinite(ms) && ms > 0 ? Math.floor(ms / 1000) : 0;
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = String(total % 60).padStart(2, "0");
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, "0")}:${seconds}` : `${minutes}:${seconds}`;
}

/**
 * A URL or file path cut after each of its separators (`/`, `?`, `&`, `.`,
 * `=`, `:`, `#`; a run of them, such as `//`, stays whole), so that a
 * long one wraps there rather than overflowing its cell or breaking in
 * the middle of a word: "a.b/c" → ["a.", "b/", "c"]. Joined, the pieces
 * are the text again.
 * @param {string} text
 * @returns {string[]}
 */
export function wrapPoints(text) {
  return String(text ?? "").match(/[^/?&.=:#]*[/?&.=:#]*/g)?.filter(Boolean) ?? [];
}
