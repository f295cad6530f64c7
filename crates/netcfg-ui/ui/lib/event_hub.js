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

/**
 * The page's streams and listeners.
 * @param {Environment} environment
 */
export function createEventHub(environment) {
  /** @type {Set<{types: Set<string>, net: string | null, handler: Handler}>} */
  const listeners = new Set();
  /** @type {Set<(state: Connection) => void>} */
  const watchers = new Set();
  /** @type {Map<string, Stream>} streams by key: "global", or "position:<net>" */
  const streams = new Map();
  /** The global stream's last notification id, kept across its reconnections. */
  let lastEventId = "";
  let retryMs = 3000;
  /** True while the page is hidden: no stream is open. */
  let suspended = environment.hidden();

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
    watcher(overall());
    return () => watchers.delete(watcher);
  }

  /** Reconnects every stream with the current token (after a sign-in). */
  function reconnect() {
    for (const stream of streams.values()) stream.stop();
    streams.clear();
    refresh();
  }

  /** @returns {Connection} */
  function overall() {
    const states = [...streams.values()].map((stream) => stream.state);
    if (states.length === 0) return "closed";
    return states.every((state) => state === "open") ? "open" : "connecting";
  }

  function announce() {
    const state = overall();
    for (const watcher of watchers) watcher(state);
  }

  /** The streams the listeners need: key → URL. */
  function wanted() {
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

  // Debounced, so a view that swaps its listeners causes one reconnection.
  let refreshQueued = false;
  function refresh() {
    if (refreshQueued) return;
    refreshQueued = true;
    queueMicrotask(() => {
      refreshQueued = false;
      if (suspended) return;
      const urls = wanted();
      for (const [key, stream] of streams) {
        if (urls.get(key) !== stream.url) {
          stream.stop();
          streams.delete(key);
        }
      }
      for (const [key, url] of urls) {
        if (!streams.has(key)) {
          const stream = new Stream(url, key === "global");
          streams.set(key, stream);
          stream.start();
        }
      }
      announce();
    });
  }

  /** One stream, reconnecting after the server ends it. */
  class Stream {
    /**
     * @param {string} url
     * @param {boolean} resumes  sends Last-Event-ID (the global stream's notifications)
     */
    constructor(url, resumes) {
      this.url = url;
      this.resumes = resumes;
      /** @type {Connection} */
      this.state = "connecting";
      this.controller = new AbortController();
      /** @type {unknown} */
      this.timer = undefined;
    }

    stop() {
      this.controller.abort();
      environment.clearTimeout(this.timer);
    }

    /** @param {Connection} state */
    set(state) {
      this.state = state;
      announce();
    }

    async start() {
      const signal = this.controller.signal;
      /** @type {Record<string, string>} */
      const headers = { ...environment.headers(), Accept: "text/event-stream" };
      if (this.resumes && lastEventId) headers["Last-Event-ID"] = lastEventId;
      this.set("connecting");
      try {
        const response = await environment.fetch(this.url, { headers, signal });
        if (!response.ok || !response.body) throw new Error(`events answered ${response.status}`);
        this.set("open");
        await read(response.body, signal, this.resumes);
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
      }, retryMs);
    }
  }

  /**
   * Reads `event:`, `id:`, `data:` and `retry:` lines; a blank line ends an event.
   * @param {ReadableStream<Uint8Array>} body
   * @param {AbortSignal} signal
   * @param {boolean} keepsIds
   */
  async function read(body, signal, keepsIds) {
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
          if (data) {
            if (id && keepsIds) lastEventId = id;
            try {
              deliver(/** @type {EventType} */ (type), expandPositions(JSON.parse(data)));
            } catch (error) {
              environment.logError("netcfg: an event could not be handled", type, error);
            }
          }
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
          else if (field === "retry" && /^\d+$/.test(text)) retryMs = Number(text);
        }
      }
    }
  }

  /**
   * Hands an event to each listener of it. A handler that throws is logged
   * and the others still get the event (a failing view must neither
   * starve the others nor stop a stream's reconnection, which delivers
   * `resync` first).
   * @param {EventType} type
   * @param {any} data
   */
  function deliver(type, data) {
    for (const listener of [...listeners]) {
      if (type !== "resync" && !listener.types.has(type)) continue;
      if (type !== "resync" && listener.net !== null && data.net !== listener.net) continue;
      try {
        listener.handler(data, type);
      } catch (error) {
        environment.logError("netcfg: an event could not be handled", type, error);
      }
    }
  }

  return { listen, watchConnection, reconnect, suspend, resume };
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
