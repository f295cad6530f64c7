// The live events' streams (see events.js, which makes the page's one hub
// with the browser's fetch, timers and visibility): which streams the
// listeners need, reading each with fetch, reconnecting after the server
// ends it (after the `retry:` the server sent, 3 s until it says), resuming
// the notifications with Last-Event-ID, and telling every listener to
// `resync` after a gap. No DOM at import time and nothing global: the
// environment is passed in, so node's test runner drives it with a fake
// fetch and fake timers (tests/js/events.test.mjs).

/** @typedef {"notification"|"state"|"device"|"position"|"change"|"resync"|"zone"} EventType */
/** @typedef {(data: any, type: EventType) => void} Handler */
/** @typedef {"connecting"|"open"|"closed"} Connection */

/**
 * What a hub needs from its page.
 * @typedef {object} Environment
 * @property {(url: string, init: {headers: Record<string, string>, signal: AbortSignal}) => Promise<Response>} fetch
 * @property {() => Record<string, string>} headers  what every request carries (version, token)
 * @property {(callback: () => void, ms: number) => unknown} setTimeout
 * @property {(timer: unknown) => void} clearTimeout
 * @property {() => boolean} hidden  whether the page is hidden now
 * @property {(...details: unknown[]) => void} logError
 */

/** @typedef {{types: Set<string>, net: string | null, handler: Handler}} Listener */

/**
 * What a hub's streams share: the global stream's last notification id,
 * kept across its reconnections, and the reconnection delay the server
 * last sent.
 * @typedef {{lastEventId: string, retryMs: number}} Shared
 */

/**
 * What a stream needs of its hub.
 * @typedef {{environment: Environment, shared: Shared, announce: () => void, deliver: (type: EventType, data: any) => void}} StreamOwner
 */

/**
 * The page's streams and listeners.
 * @param {Environment} environment
 */
export function createEventHub(environment) {
  /** @type {Set<Listener>} */
  const listeners = new Set();
  /** @type {Set<(state: Connection) => void>} */
  const watchers = new Set();
  /** @type {Map<string, Stream>} streams by key: "global", or "position:<net>" */
  const streams = new Map();
  /** @type {Shared} */
  const shared = { lastEventId: "", retryMs: 3000 };
  /** True while the page is hidden: no stream is open. */
  let suspended = environment.hidden();
  const owner = { environment, shared, announce, deliver };

  function suspend() {
    if (suspended) return;
    suspended = true;
    for (const stream of streams.values()) stream.stop();
    streams.clear();
    announce();
  }

  function resume() {
    if (!suspended || environment.hidden()) return;
    suspended = false;
    refresh();
    deliver("resync", { reason: "shown again" });
  }

  /**
   * Calls `handler(data, type)` for each event of `types`, of configuration
   * `net` only when given. A `resync` goes to every listener: reload what you
   * show. Returns the function that stops listening.
   * @param {EventType[]} types
   * @param {Handler} handler
   * @param {{net?: string}} [options]
   */
  function listen(types, handler, options = {}) {
    const listener = { types: new Set(types), net: options.net ?? null, handler };
    listeners.add(listener);
    refresh();
    return () => {
      listeners.delete(listener);
      refresh();
    };
  }

  /**
   * Calls `watcher` with the state of the page's streams now and at each
   * change: open when every stream is open, closed when there is none.
   * @param {(state: Connection) => void} watcher
   */
  function watchConnection(watcher) {
    watchers.add(watcher);
    watcher(overall(streams));
    return () => watchers.delete(watcher);
  }

  /** Reconnects every stream with the current token (after a sign-in). */
  function reconnect() {
    for (const stream of streams.values()) stream.stop();
    streams.clear();
    refresh();
  }

  function announce() {
    const state = overall(streams);
    for (const watcher of watchers) watcher(state);
  }

  // Debounced, so a view that swaps its listeners causes one reconnection.
  let refreshQueued = false;
  function refresh() {
    if (refreshQueued) return;
    refreshQueued = true;
    queueMicrotask(() => {
      refreshQueued = false;
      if (suspended) return;
      syncStreams(streams, wanted(listeners), owner);
      announce();
    });
  }

  /**
   * Hands an event to each listener of it (`deliverTo`).
   * @param {EventType} type
   * @param {any} data
   */
  function deliver(type, data) {
    deliverTo(listeners, type, data, environment.logError);
  }

  return { listen, watchConnection, reconnect, suspend, resume };
}

/**
 * The state of a hub's streams together: closed when there is none, open
 * when every one is open.
 * @param {Map<string, Stream>} streams
 * @returns {Connection}
 */
function overall(streams) {
  const states = [...streams.values()].map((stream) => stream.state);
  if (states.length === 0) return "closed";
  return states.every((state) => state === "open") ? "open" : "connecting";
}

/**
 * The streams the listeners need: key → URL.
 * @param {Set<Listener>} listeners
 */
function wanted(listeners) {
  /** @type {Set<string>} */
  const globalTypes = new Set();
  /** @type {Map<string, string>} */
  const urls = new Map();
  for (const listener of listeners) {
    for (const type of listener.types) {
      if (type === "resync") continue;
      if (type === "position" && listener.net !== null) {
        urls.set(`position:${listener.net}`, `/nets/${encodeURIComponent(listener.net)}/events?types=position&positions=compact`);
      } else {
        globalTypes.add(type);
      }
    }
  }
  if (globalTypes.size > 0) urls.set("global", `/events?types=${[...globalTypes].sort().join(",")}`);
  return urls;
}

/**
 * Stops the streams no longer wanted (or wanted at another URL) and starts
 * the wanted ones missing.
 * @param {Map<string, Stream>} streams  by key, changed in place
 * @param {Map<string, string>} urls  the wanted streams: key → URL
 * @param {StreamOwner} owner  their hub
 */
function syncStreams(streams, urls, owner) {
  for (const [key, stream] of streams) {
    if (urls.get(key) !== stream.url) {
      stream.stop();
      streams.delete(key);
    }
  }
  for (const [key, url] of urls) {
    if (!streams.has(key)) {
      const stream = new Stream(url, key === "global", owner);
      streams.set(key, stream);
      stream.start();
    }
  }
}

/**
 * Hands an event to each listener of it. A handler that throws is logged
 * and the others still get the event (a failing view must neither starve
 * the others nor stop a stream's reconnection, which delivers `resync`
 * first).
 * @param {Set<Listener>} listeners
 * @param {EventType} type
 * @param {any} data
 * @param {(...details: unknown[]) => void} logError
 */
function deliverTo(listeners, type, data, logError) {
  for (const listener of [...listeners]) {
    if (type !== "resync" && !listener.types.has(type)) continue;
    if (type !== "resync" && listener.net !== null && data.net !== listener.net) continue;
    try {
      listener.handler(data, type);
    } catch (error) {
      logError("netcfg: an event could not be handled", type, error);
    }
  }
}

/** One stream of a hub, reconnecting after the server ends it. */
class Stream {
  /**
   * @param {string} url
   * @param {boolean} resumes  sends Last-Event-ID (the global stream's notifications)
   * @param {StreamOwner} owner  its hub
   */
  constructor(url, resumes, owner) {
    this.url = url;
    this.resumes = resumes;
    this.owner = owner;
    /** @type {Connection} */
    this.state = "connecting";
    this.controller = new AbortController();
    /** @type {unknown} */
    this.timer = undefined;
  }

  stop() {
    this.controller.abort();
    this.owner.environment.clearTimeout(this.timer);
  }

  /** @param {Connection} state */
  set(state) {
    this.state = state;
    this.owner.announce();
  }

  async start() {
    const { environment, shared, deliver } = this.owner;
    const signal = this.controller.signal;
    /** @type {Record<string, string>} */
    const headers = { ...environment.headers(), Accept: "text/event-stream" };
    if (this.resumes && shared.lastEventId) headers["Last-Event-ID"] = shared.lastEventId;
    this.set("connecting");
    try {
      const response = await environment.fetch(this.url, { headers, signal });
      if (!response.ok || !response.body) throw new Error(`events answered ${response.status}`);
      this.set("open");
      await readEvents(response.body, signal, {
        event: (type, data, id) => {
          if (id && this.resumes) shared.lastEventId = id;
          try {
            deliver(/** @type {EventType} */ (type), expandPositions(JSON.parse(data)));
          } catch (error) {
            environment.logError("netcfg: an event could not be handled", type, error);
          }
        },
        retry: (ms) => {
          shared.retryMs = ms;
        },
      });
    } catch {
      // Ended, refused or aborted: decided below.
    }
    if (signal.aborted) return;
    // The stream ended (the server stopped or restarted): come back later;
    // what happened meanwhile is reloaded by the views on `resync`.
    this.set("connecting");
    this.timer = environment.setTimeout(() => {
      if (signal.aborted) return;
      deliver("resync", { reason: "reconnected" });
      this.start();
    }, shared.retryMs);
  }
}

/**
 * Reads a stream of server-sent events until it ends or `signal` aborts:
 * `event:`, `id:`, `data:` and `retry:` lines; a blank line ends an event,
 * handed to `on.event` when it has data; a `retry:` of digits goes to
 * `on.retry` at once.
 * @param {ReadableStream<Uint8Array>} body
 * @param {AbortSignal} signal
 * @param {{event: (type: string, data: string, id: string) => void, retry: (ms: number) => void}} on
 */
async function readEvents(body, signal, on) {
  const reader = body.pipeThrough(/** @type {TransformStream<Uint8Array, string>} */ (new TextDecoderStream())).getReader();
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
        if (data) on.event(type, data, id);
        type = "message";
        data = "";
        id = "";
      } else if (!line.startsWith(":")) {
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        const text = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "event") type = text;
        else if (field === "data") data += data ? "\n" + text : text;
        else if (field === "id") id = text;
        else if (field === "retry" && /^\d+$/.test(text)) on.retry(Number(text));
      }
    }
  }
}

/**
 * A position batch as the views read it: `positions`, one object per tag.
 * The position streams ask for `positions=compact` (one array per tag, its
 * fields named once in `columns`: about half the bytes of a busy site);
 * other data passes as it is.
 * @param {any} data
 * @returns {any}
 */
export function expandPositions(data) {
  if (!data || !Array.isArray(data.rows) || !Array.isArray(data.columns)) return data;
  /** @type {string[]} */
  const columns = data.columns;
  const base = Number(data.network_time) || 0;
  const positions = data.rows.map((/** @type {unknown[]} */ row) => {
    /** @type {Record<string, unknown>} */
    const position = {};
    columns.forEach((column, index) => {
      if (column === "network_time_offset") position.network_time = base + Number(row[index]);
      else position[column] = row[index];
    });
    return position;
  });
  return { net: data.net, positions };
}
