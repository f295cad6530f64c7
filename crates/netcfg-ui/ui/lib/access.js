// What the signed-in role may do (decisions §17), for the views: a control
// the role may not use is disabled, with the reason as its title, before
// anyone clicks it. The least role of each operation comes from the route
// tables themselves (access_table.js, generated); the server decides in
// any case (403 with the role needed).

import { LEAST_ROLES } from "./access_table.js";
import { session } from "./api.js";

const ORDER = ["viewer", "operator", "editor", "admin"];

/**
 * Whether the path template `pattern` (`/nets/{net_name}/start`) matches
 * `path` (`/nets/dock/start`): segment by segment, `{…}` any one.
 * @param {string} pattern
 * @param {string} path
 */
export function matches(pattern, path) {
  const want = pattern.split("/");
  const have = path.split("?")[0].split("/");
  if (want.length !== have.length) return false;
  return want.every((segment, at) => (segment.startsWith("{") ? have[at] !== "" : segment === have[at]));
}

/**
 * The least role of `method` on `path`: the table's row (a static segment
 * beats a parameter: rows are tried most specific first), else viewer.
 * @param {string} method
 * @param {string} path
 * @returns {import("./types.js").AccessRole}
 */
export function leastRole(method, path) {
  const upper = method.toUpperCase();
  let best = /** @type {[string, string, import("./types.js").AccessRole] | null} */ (null);
  for (const row of LEAST_ROLES) {
    if (row[0] !== upper || !matches(row[1], path)) continue;
    if (!best || specificity(row[1]) > specificity(best[1])) best = row;
  }
  return best ? best[2] : "viewer";
}

/** @param {string} pattern  how many of its segments are static */
function specificity(pattern) {
  return pattern.split("/").filter((segment) => !segment.startsWith("{")).length;
}

/**
 * The attributes that disable a control for `method` on `path` when the
 * signed-in role is less than it needs, with the reason; none when it may
 * (or when nobody is known: access control off, or the server decides).
 * Spread into the control: `<button ...${may("POST", path)}>`.
 * @param {string} method
 * @param {string} path
 * @param {import("./types.js").SessionInfo | null} [who]  default: the session
 * @returns {{disabled?: boolean, title?: string}}
 */
export function may(method, path, who = session()) {
  if (!who) return {};
  const needed = leastRole(method, path);
  if (ORDER.indexOf(who.role) >= ORDER.indexOf(needed)) return {};
  return { disabled: true, title: `Needs the role ${needed} or more; ${who.user} is ${who.role}` };
}
