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
 * A schedule's next run: its time, or why there is none.
 * @param {{enabled: boolean, next_run_ms: number | null}} schedule
 * @returns {string}
 */
export function nextRunText(schedule) {
  if (!schedule.enabled) return "disabled";
  if (schedule.next_run_ms === null) return "never";
  return formatTime(schedule.next_run_ms);
}

/**
 * A schedule's last run: "never", or its outcome, time and what happened.
 * @param {ScheduleRun | null} run
 * @returns {string}
 */
export function lastRunText(run) {
  if (!run) return "never";
  if (run.outcome === "running") return `running since ${formatTime(run.due_ms)}`;
  const said = run.message ? `: ${run.message}` : "";
  return `${run.outcome} at ${formatTime(run.due_ms)}${said}`;
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
