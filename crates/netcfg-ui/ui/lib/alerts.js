// The words of alert rules (decisions §16) for the Alert rules view: plain
// functions with no DOM and no Preact, so node's test runner loads this
// module as it is (tests/js/alerts.test.mjs).

import { formatTime } from "./format.js";

/**
 * What the threshold field asks for `condition`.
 * @param {string} condition
 * @returns {string}
 */
export function thresholdHint(condition) {
  if (condition === "battery_below" || condition === "packet_loss_above") return "Required: a percentage, 0 to 100";
  if (condition === "positions_below") return "Required: positions a second of the whole configuration";
  return "Leave empty: this condition takes no threshold";
}

/**
 * The words of a rule's state from the rules that fire now: "ok", or
 * "firing since <the earliest time> (<the devices>)".
 * @param {string} rule
 * @param {{rule: string, serial_number: string | null, since_ms: number}[]} firing
 * @returns {string}
 */
export function ruleState(rule, firing) {
  const mine = firing.filter((alert) => alert.rule === rule);
  if (mine.length === 0) return "ok";
  const since = Math.min(...mine.map((alert) => alert.since_ms));
  const devices = mine.map((alert) => alert.serial_number).filter(Boolean);
  const which = devices.length > 0 ? ` (${devices.join(", ")})` : "";
  return `firing since ${formatTime(since)}${which}`;
}
