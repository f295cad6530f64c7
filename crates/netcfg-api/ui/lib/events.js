// Live events (docs/api.md, "Live events"): one `GET /events` stream per
// page, shared by every view. Browsers' EventSource cannot send the
// Authorization header, so the stream is read with fetch. The stream asks
// only for the event types some view listens to; when that set changes it
// reconnects, sending the last notification's id so none is lost.

import { baseHeaders } from "./api.js";

/** @typedef {"notification"|"state"|"device"|"position"|"change"|"resync"} EventType */
/** @typedef {(data: any, type: EventType) => void} Handler */
/** @typedef {"connecting"|"open"|"closed"} Connection */

/** @type {Set<{types: Set<string>, net: string | null, handler: Handler}>} */
const listeners = new Set();
/** @type {Set<(state: Connection) => void>} */
const watchers = new Set();

/** @type {AbortController | null} */
let current = null;
let currentTypes = "";
let lastEventId = "";
let retryMs = 3000;
/** @type {Connection} */
let connection = "closed";
/** @type {number | undefined} */
let reconnectTimer;

/**
 * Calls `handler(data, type)` for each event of `types`, of configuration
 * `net` only when given. A `resync` goes to every listener: reload what you
 * show. Returns the function that stops listening.
 * @param {EventType[]} types
 * @param {Handler} handler
 * @param {{net?: string}} [options]
 */
export function listen(types, handler, options = {}) {
  const listener = { types: new Set(types), net: options.net ?? null, handler };
  listeners.add(listener);
  refresh();
  return () => {
    listeners.delete(listener);
    refresh();
  };
}

/**
 * Calls `watcher` with the stream's state now and at each change.
 * @param {(state: Connection) => void} watcher
 */
export function watchConnection(watcher) {
  watchers.add(watcher);
  watcher(connection);
  return () => watchers.delete(watcher);
}

/** Reconnects with the current token (after a sign-in). */
export function reconnect() {
  currentTypes = "";
  refresh();
}

/** @param {Connection} state */
function setConnection(state) {
  connection = state;
  for (const watcher of watchers) watcher(state);
}

function wantedTypes() {
  const types = new Set();
  for (const listener of listeners) for (const type of listener.types) if (type !== "resync") types.add(type);
  return [...types].sort().join(",");
}

// Debounced, so a view that swaps its listeners causes one reconnection.
let refreshQueued = false;
function refresh() {
  if (refreshQueued) return;
  refreshQueued = true;
  queueMicrotask(() => {
    refreshQueued = false;
    const types = wantedTypes();
    if (types === currentTypes && current) return;
    current?.abort();
    current = null;
    clearTimeout(reconnectTimer);
    currentTypes = types;
    if (types) connect(types);
    else setConnection("closed");
  });
}

/** @param {string} types */
async function connect(types) {
  const controller = new AbortController();
  current = controller;
  setConnection("connecting");
  /** @type {Record<string, string>} */
  const headers = { ...baseHeaders(), Accept: "text/event-stream" };
  if (lastEventId) headers["Last-Event-ID"] = lastEventId;
  try {
    const response = await fetch(`/events?types=${types}`, { headers, signal: controller.signal });
    if (!response.ok || !response.body) throw new Error(`events answered ${response.status}`);
    setConnection("open");
    await read(response.body, controller.signal);
  } catch (error) {
    if (controller.signal.aborted) return;
  }
  if (controller.signal.aborted || current !== controller) return;
  // The stream ended (the server stopped or restarted): come back later;
  // whatever happened meanwhile is reloaded by the views on `resync`.
  setConnection("connecting");
  reconnectTimer = setTimeout(() => {
    if (current !== controller) return;
    connect(types).then(() => deliver("resync", { reason: "reconnected" }));
  }, retryMs);
}

/**
 * Reads `event:`, `id:`, `data:` and `retry:` lines; a blank line ends an event.
 * @param {ReadableStream<Uint8Array>} body
 * @param {AbortSignal} signal
 */
async function read(body, signal) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let type = "message";
  let data = "";
  let id = "";
  while (!signal.aborted) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end;
    while ((end = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, end).replace(/\r$/, "");
      buffer = buffer.slice(end + 1);
      if (line === "") {
        if (data) {
          if (id) lastEventId = id;
          try {
            deliver(/** @type {EventType} */ (type), JSON.parse(data));
          } catch (error) {
            console.error("netcfg: an event could not be handled", type, error);
          }
        }
        type = "message";
        data = "";
        id = "";
      } else if (line.startsWith(":")) {
        continue;
      } else {
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        const text = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "event") type = text;
        else if (field === "data") data += data ? "\n" + text : text;
        else if (field === "id") id = text;
        else if (field === "retry" && /^\d+$/.test(text)) retryMs = Number(text);
      }
    }
  }
}

/**
 * @param {EventType} type
 * @param {any} data
 */
function deliver(type, data) {
  for (const listener of [...listeners]) {
    if (type !== "resync" && !listener.types.has(type)) continue;
    if (type !== "resync" && listener.net !== null && data.net !== listener.net) continue;
    listener.handler(data, type);
  }
}
