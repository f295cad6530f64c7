// The words of schedules (decisions §16) for the Schedules view: plain
// functions with no DOM and no Preact, so node's test runner loads this
// module as it is (tests/js/schedules.test.mjs).

import { formatTime } from "./format.js";

/**
 * @typedef {object} ScheduleRun
 * @property {number} due_ms
 * @property {number} at_ms
 * @property {"running" | "ok" | "skipped" | "failed" | "missed"} outcome
 * @property {string} message
 */

/**
 * A schedule's time zone as its table names it: its IANA name, or UTC
 * (the server's default) when it has none.
 * @param {string | null | undefined} timezone
 * @returns {string}
 */
export function zoneName(timezone) {
  return timezone || "UTC";
}

/**
 * A time as the schedule's clock reads it: "2026-11-29 06:00" (seconds
 * only when not zero, as a cron with seconds has them). The cron is read
 * in that zone, so a time in the browser's zone would not match the cron
 * a person wrote; the table names the zone once, in its own column, not
 * after every time. A zone this browser does not know: the browser's
 * local time, said so.
 * @param {number} ms @param {string | null | undefined} timezone  IANA name; none is UTC (the server's default)
 * @returns {string}
 */
export function zonedTime(ms, timezone) {
  const zone = zoneName(timezone);
  let parts;
  try {
    parts = new Intl.DateTimeFormat("en-GB", {
      timeZone: zone, year: "numeric", month: "2-digit", day: "2-digit",
      hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23",
    }).formatToParts(new Date(ms));
  } catch {
    return `${formatTime(ms)} (this browser's time)`;
  }
  /** @param {string} type */
  const part = (type) => parts.find((item) => item.type === type)?.value ?? "";
  const seconds = part("second") === "00" ? "" : `:${part("second")}`;
  return `${part("year")}-${part("month")}-${part("day")} ${part("hour")}:${part("minute")}${seconds}`;
}

/**
 * A schedule's next run: its time in the schedule's zone, or why there is none.
 * @param {{enabled: boolean, next_run_ms: number | null, timezone?: string | null}} schedule
 * @returns {string}
 */
export function nextRunText(schedule) {
  if (!schedule.enabled) return "disabled";
  if (schedule.next_run_ms === null) return "never";
  return zonedTime(schedule.next_run_ms, schedule.timezone);
}

/**
 * A schedule's last run: "never", or its outcome, time (in the schedule's
 * zone, as the next run) and what happened.
 * @param {ScheduleRun | null} run
 * @param {string | null} [timezone]
 * @returns {string}
 */
export function lastRunText(run, timezone) {
  if (!run) return "never";
  if (run.outcome === "running") return `running since ${zonedTime(run.due_ms, timezone)}`;
  const said = run.message ? `: ${run.message}` : "";
  return `${run.outcome} at ${zonedTime(run.due_ms, timezone)}${said}`;
}

/**
 * The time zone this browser is in, the form's default (the server reads
 * UTC when none is given).
 * @returns {string}
 */
export function browserTimeZone() {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  } catch {
    return "UTC";
  }
}
