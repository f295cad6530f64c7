// Live events (docs/api.md, "Live events"), shared by every view. Browsers'
// EventSource cannot send the Authorization header, so streams are read
// with fetch. A page holds at most:
// - one `GET /events` stream for every type but positions, asking only for
//   the types some view listens to; when that set changes it reconnects,
//   sending the last notification's id so none is lost;
// - one `GET /nets/{net}/events?types=position&positions=compact` stream per configuration
//   whose positions a view shows (a floor plan): positions are heavy, and
//   wanted per configuration, so other running configurations neither take
//   a share of the stream's rate nor cost this page their traffic.
// A hidden page (another tab in front, a minimised window, a page kept in
// the back-forward cache) lets go of its streams: over HTTP/1.1 a browser
// opens at most six connections to a host, and every open stream holds
// one, so tabs left open would starve the next ones. Shown again, it
// reconnects (notifications resume from the last id) and the views reload
// what they show.

import { baseHeaders } from "./api.js";
import { createEventHub } from "./event_hub.js";

/** @typedef {import("./event_hub.js").EventType} EventType */
/** @typedef {import("./event_hub.js").Handler} Handler */
/** @typedef {import("./event_hub.js").Connection} Connection */

const hub = createEventHub({
  fetch: (url, init) => fetch(url, init),
  headers: baseHeaders,
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (timer) => clearTimeout(/** @type {number | undefined} */ (timer)),
  hidden: () => document.visibilityState === "hidden",
  logError: (...details) => console.error(...details),
});

document.addEventListener("visibilitychange", () => (document.visibilityState === "hidden" ? hub.suspend() : hub.resume()));
window.addEventListener("pagehide", hub.suspend);
window.addEventListener("pageshow", hub.resume);

/**
 * Calls `handler(data, type)` for each event of `types`, of configuration
 * `net` only when given. A `resync` goes to every listener: reload what you
 * show. Returns the function that stops listening.
 */
export const listen = hub.listen;

/**
 * Calls `watcher` with the state of the page's streams now and at each
 * change: open when every stream is open, closed when there is none.
 */
export const watchConnection = hub.watchConnection;

/** Reconnects every stream with the current token (after a sign-in). */
export const reconnect = hub.reconnect;
