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
 * A network-time duration in words: 97,500 → "100 ms (10 Hz)".
 * @param {any} units
 */
export function describePeriod(units) {
  const value = Number(units);
  if (!Number.isFinite(value) || units === "" || units === null || units === undefined) return "";
  if (value === 0) return "off";
  const ms = value / 975;
  const hz = 1000 / ms;
  const msText = ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2);
  const hzText = hz >= 100 ? hz.toFixed(0) : hz >= 10 ? hz.toFixed(1) : hz.toFixed(2);
  /** @param {string} text */
  const trim = (text) => (text.includes(".") ? text.replace(/0+$/, "").replace(/\.$/, "") : text);
  return `${trim(msText)} ms (${trim(hzText)} Hz)`;
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
