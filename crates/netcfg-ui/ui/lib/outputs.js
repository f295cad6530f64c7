// Outputs' logic (docs/api.md, "Outputs"): which fields a URL's scheme
// takes, the body of a POST (add) or PATCH (the changed fields only) from
// the form's values, an output's credentials and status in words, and the
// poller that asks for each output's status every 2 s, a few at a time.
// Plain functions and no DOM (the poller is given its timers), so node's
// test runner loads this module as it is (tests/js/outputs.test.mjs);
// views/outputs.js shows them.

import { numberOrUndefined } from "./forms.js";

/** @typedef {import("./types.js").Output} Output */
/** @typedef {import("./types.js").OutputStatus} OutputStatus */
/** @typedef {import("./types.js").OutputEventKind} OutputEventKind */
/** @typedef {"mqtt" | "webhook"} OutputKind */

/** The events an output may carry, in the order the form lists them. */
export const EVENT_KINDS = /** @type {const} */ (["position", "zone", "notification", "device", "state"]);

/** The events a new output carries unless the user changes them. */
export const DEFAULT_EVENTS = /** @type {OutputEventKind[]} */ (["position", "zone", "state"]);

/** The topic prefix the server uses when none is given. */
export const DEFAULT_TOPIC_PREFIX = "netcfg/{net_name}";

/** How often each output's status is asked for, ms. */
export const STATUS_PERIOD_MS = 2000;

/** How many status questions are under way at once, at most. */
export const STATUS_AT_ONCE = 4;

/**
 * The scheme of a URL as typed: "mqtt", "mqtts", "http", "https", or null
 * for another (or none yet).
 * @param {string} url
 * @returns {"mqtt" | "mqtts" | "http" | "https" | null}
 */
export function schemeOf(url) {
  const found = /^\s*([a-z]+):\/\//i.exec(String(url ?? ""));
  const scheme = found ? found[1].toLowerCase() : "";
  return scheme === "mqtt" || scheme === "mqtts" || scheme === "http" || scheme === "https" ? scheme : null;
}

/**
 * What a URL's scheme makes of the output: an MQTT publisher, a webhook,
 * or null while the scheme is none of theirs.
 * @param {string} url
 * @returns {OutputKind | null}
 */
export function kindOf(url) {
  const scheme = schemeOf(url);
  if (scheme === "mqtt" || scheme === "mqtts") return "mqtt";
  if (scheme === "http" || scheme === "https") return "webhook";
  return null;
}

/**
 * Whether the URL's connection is encrypted (mqtts, https): only then does
 * a `ca_file` apply.
 * @param {string} url
 */
export function isTls(url) {
  const scheme = schemeOf(url);
  return scheme === "mqtts" || scheme === "https";
}

/**
 * The form's values of a new output.
 * @returns {Record<string, any>}
 */
export function blankValues() {
  return {
    name: "",
    url: "",
    events: [...DEFAULT_EVENTS],
    enabled: true,
    topic_prefix: "",
    qos: "0",
    max_rate_hz: "",
    batch_ms: "",
    ca_file: "",
    username: "",
    password: "",
    secret: "",
    clear_username: false,
    clear_password: false,
  };
}

/**
 * The form's values of a stored output. The credentials start empty: they
 * are never shown, and are sent only when typed.
 * @param {Output} output
 * @returns {Record<string, any>}
 */
export function valuesOf(output) {
  return {
    ...blankValues(),
    name: output.name,
    url: output.url,
    events: sortedEvents(output.events),
    enabled: output.enabled,
    topic_prefix: output.topic_prefix ?? "",
    qos: String(output.qos ?? 0),
    max_rate_hz: String(output.max_rate_hz ?? ""),
    batch_ms: String(output.batch_ms ?? ""),
    ca_file: output.ca_file ?? "",
  };
}

/**
 * Events in the form's order, each once (unknown names kept at the end, so
 * the server names them).
 * @param {string[]} events
 * @returns {any[]}
 */
export function sortedEvents(events) {
  const given = new Set(events);
  return [...EVENT_KINDS.filter((kind) => given.delete(kind)), ...given];
}

/**
 * A number field's text as the body takes it: a number, text that is not
 * one as typed (the server names the problem), undefined when empty.
 * @param {any} text
 */
function numberField(text) {
  return numberOrUndefined(typeof text === "string" ? text.trim() : text);
}

/**
 * The body that adds the output of the form's `values` (POST): the common
 * fields, then those of the URL's kind only (MQTT: topic_prefix, qos,
 * username, password; a webhook: secret), and ca_file for mqtts and https.
 * Empty optional fields are left out (the server's defaults apply); the
 * events are sent even when none is ticked, so the server names that
 * problem beside them.
 * @param {Record<string, any>} values
 * @returns {Record<string, any>}
 */
export function postBody(values) {
  const url = String(values.url ?? "").trim();
  const kind = kindOf(url);
  /** @type {Record<string, any>} */
  const body = {
    name: String(values.name ?? "").trim(),
    url,
    events: sortedEvents(values.events || []),
    enabled: Boolean(values.enabled),
  };
  if (kind === "mqtt") {
    const prefix = String(values.topic_prefix ?? "").trim();
    if (prefix) body.topic_prefix = prefix;
    const qos = numberField(values.qos);
    if (qos !== undefined) body.qos = qos;
    if (values.username) body.username = values.username;
    if (values.password) body.password = values.password;
  } else if (kind === "webhook") {
    if (values.secret) body.secret = values.secret;
  }
  const rate = numberField(values.max_rate_hz);
  if (rate !== undefined) body.max_rate_hz = rate;
  const batch = numberField(values.batch_ms);
  if (batch !== undefined) body.batch_ms = batch;
  const caFile = String(values.ca_file ?? "").trim();
  if (caFile && isTls(url)) body.ca_file = caFile;
  return body;
}

/**
 * The body that changes `output` to the form's `values` (PATCH): only the
 * fields that differ. A credential goes only when typed, or as null when
 * its "remove" box is ticked; an emptied topic prefix is null (back to the
 * default), an emptied CA file null (the system's roots), and so is the
 * CA file of a URL that is no longer mqtts or https. The fields of the
 * other kind are never sent (the server drops them when the URL changes
 * kind). An empty body means nothing changed.
 * @param {Output} output
 * @param {Record<string, any>} values
 * @returns {Record<string, any>}
 */
export function patchBody(output, values) {
  const url = String(values.url ?? "").trim();
  const kind = kindOf(url);
  /** @type {Record<string, any>} */
  const body = {};
  const name = String(values.name ?? "").trim();
  if (name !== output.name) body.name = name;
  if (url !== output.url) body.url = url;
  const events = sortedEvents(values.events || []);
  if (events.join(",") !== sortedEvents(output.events).join(",")) body.events = events;
  if (Boolean(values.enabled) !== output.enabled) body.enabled = Boolean(values.enabled);
  const wasMqtt = kindOf(output.url) === "mqtt";
  if (kind === "mqtt") {
    const prefix = String(values.topic_prefix ?? "").trim();
    if (prefix && prefix !== output.topic_prefix) body.topic_prefix = prefix;
    else if (!prefix && wasMqtt && output.topic_prefix !== null && output.topic_prefix !== DEFAULT_TOPIC_PREFIX) body.topic_prefix = null;
    const qos = numberField(values.qos);
    if (qos !== undefined && qos !== output.qos) body.qos = qos;
    for (const field of /** @type {const} */ (["username", "password"])) {
      const isSet = wasMqtt && output[`${field}_set`];
      if (values[`clear_${field}`] && isSet) body[field] = null;
      else if (values[field] && !values[`clear_${field}`]) body[field] = values[field];
    }
  } else if (kind === "webhook") {
    if (values.secret) body.secret = values.secret;
  }
  const rate = numberField(values.max_rate_hz);
  if (rate !== undefined && rate !== output.max_rate_hz) body.max_rate_hz = rate;
  const batch = numberField(values.batch_ms);
  if (batch !== undefined && batch !== output.batch_ms) body.batch_ms = batch;
  const caFile = isTls(url) ? String(values.ca_file ?? "").trim() : "";
  if (caFile && caFile !== output.ca_file) body.ca_file = caFile;
  else if (!caFile && output.ca_file) body.ca_file = null;
  return body;
}

/**
 * Which credentials an output keeps, in words; never their values.
 * @param {Output} output
 * @returns {string}
 */
export function credentialsText(output) {
  const kind = kindOf(output.url);
  if (kind === "webhook") return output.secret_set ? "secret set" : "no secret";
  const set = [];
  if (output.username_set) set.push("username set");
  if (output.password_set) set.push("password set");
  return set.length > 0 ? set.join(", ") : "no credentials";
}

/**
 * What the placeholder of a credential's field says: that one is kept
 * (and stays unless typed over), or that none is.
 * @param {boolean} isSet
 * @param {string} noun  "password"...
 */
export function credentialPlaceholder(isSet, noun) {
  return isSet ? `${noun} set: type to replace it` : `no ${noun} set`;
}

/**
 * An output's status in words, and its tone (a badge's class): "ok" when
 * connected, "error" when not connected after an error, "stopped" when it
 * does not run, "" while it connects (or, for a webhook, has not yet
 * delivered). `status` undefined: not asked yet.
 * @param {Output} output
 * @param {OutputStatus | undefined} status
 * @param {boolean} netRunning  whether its configuration runs
 * @returns {{text: string, tone: "ok" | "error" | "stopped" | ""}}
 */
export function describeStatus(output, status, netRunning) {
  if (!output.enabled) return { text: "disabled", tone: "stopped" };
  if (!status) return { text: "asking…", tone: "" };
  if (!status.running) {
    if (!netRunning) return { text: "stopped", tone: "stopped" };
    return status.last_error ? { text: "not running", tone: "error" } : { text: "starting…", tone: "" };
  }
  if (status.connected) return { text: "connected", tone: "ok" };
  if (status.last_error) return { text: "not connected", tone: "error" };
  return kindOf(output.url) === "webhook" ? { text: "nothing delivered yet", tone: "" } : { text: "connecting…", tone: "" };
}

/**
 * A status's counters in words, for a screen reader's or a title's
 * summary: "12 sent, 0 queued, 0 positions and 0 other events dropped".
 * @param {OutputStatus} status
 */
export function countersText(status) {
  const text = `${status.sent.toLocaleString()} sent, ${status.queued.toLocaleString()} queued, ` +
    `${status.dropped.toLocaleString()} positions and ${status.dropped_events.toLocaleString()} other events dropped`;
  return status.rejected ? `${text}, ${status.rejected.toLocaleString()} refused by the web service` : text;
}

/**
 * Runs `work` on each item of `queue`, taken in order from it, with at most
 * `atOnce` of them under way at a time; resolves when all are done.
 * @template T
 * @param {T[]} queue  emptied
 * @param {number} atOnce
 * @param {(item: T) => Promise<void>} work
 */
async function drain(queue, atOnce, work) {
  const worker = async () => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item);
  };
  await Promise.all(Array.from({ length: Math.min(atOnce, queue.length) }, worker));
}

/**
 * What a poller needs from its page.
 * @typedef {object} PollerEnvironment
 * @property {(name: string, signal: AbortSignal) => Promise<OutputStatus>} ask  one output's status
 * @property {(name: string, outcome: {status: OutputStatus} | {error: unknown}) => void} report
 * @property {(callback: () => void, ms: number) => unknown} setTimeout
 * @property {(timer: unknown) => void} clearTimeout
 * @property {() => boolean} [hidden]  whether the page is hidden now (then it asks nothing)
 * @property {number} [periodMs]  default STATUS_PERIOD_MS
 * @property {number} [atOnce]    default STATUS_AT_ONCE
 */

/**
 * Asks for the status of each named output in rounds: a round every
 * `periodMs` (the next waits for a slow one to end: rounds never overlap),
 * at most `atOnce` questions under way at once. Names that appear are
 * asked for at once (an output just added shows its status without
 * waiting); a held name is not asked for (an output being deleted or
 * renamed: its status would be a 404). `stop()` aborts the questions under
 * way and asks no more.
 * @param {PollerEnvironment} environment
 */
export function createStatusPoller(environment) {
  const periodMs = environment.periodMs ?? STATUS_PERIOD_MS;
  const atOnce = environment.atOnce ?? STATUS_AT_ONCE;
  const hidden = environment.hidden ?? (() => false);
  const controller = new AbortController();
  /** @type {string[]} */
  let names = [];
  /** Names not to ask for now. */
  const held = new Set();
  /** @type {Map<string, Promise<unknown>>} the questions under way */
  const asking = new Map();
  /** @type {unknown} */
  let timer = null;
  let inRound = false;
  /** Another round is wanted as soon as this one ends. */
  let due = false;
  let stopped = false;

  /** @param {string} name */
  const wanted = (name) => !stopped && !held.has(name) && names.includes(name);

  async function round() {
    if (timer !== null) environment.clearTimeout(timer);
    timer = environment.setTimeout(tick, periodMs);
    inRound = true;
    due = false;
    if (!hidden()) await drain(names.filter(wanted), atOnce, askOne);
    inRound = false;
    if (due && !stopped) round();
  }

  /** @param {string} name */
  async function askOne(name) {
    if (!wanted(name)) return;
    const question = environment.ask(name, controller.signal).then(
      (status) => ({ status }),
      (error) => ({ error }),
    );
    asking.set(name, question);
    const outcome = await question;
    asking.delete(name);
    if (!stopped && names.includes(name)) environment.report(name, outcome);
  }

  function tick() {
    timer = null;
    pollNow();
  }

  /** Asks for every status now (after a change), or right after the round under way. */
  function pollNow() {
    if (stopped) return;
    if (inRound) due = true;
    else round();
  }

  return {
    /**
     * The outputs to ask for; new names are asked for at once. Holds on
     * names that are gone are dropped.
     * @param {string[]} next
     */
    setNames(next) {
      const added = next.some((name) => !names.includes(name));
      names = [...next];
      for (const name of [...held]) if (!names.includes(name)) held.delete(name);
      if (added) pollNow();
    },
    pollNow,
    /**
     * Stops asking for `name` and resolves, once its question under way (if
     * any) has been answered, with the function that lets it be asked for
     * again. A name that then disappears (deleted, renamed) needs none.
     * @param {string} name
     * @returns {Promise<() => void>}
     */
    async hold(name) {
      held.add(name);
      await asking.get(name);
      return () => {
        held.delete(name);
      };
    },
    /** Asks no more; aborts the questions under way. */
    stop() {
      stopped = true;
      controller.abort();
      if (timer !== null) environment.clearTimeout(timer);
      timer = null;
    },
    /** How many questions are under way now. */
    get asking() {
      return asking.size;
    },
  };
}
