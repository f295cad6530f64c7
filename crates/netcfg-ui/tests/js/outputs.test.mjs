// Outputs' logic (ui/lib/outputs.js): the fields a URL's scheme takes, the
// POST body of a new output and the PATCH body of the changed fields (the
// write-only credentials sent only when typed, null when removed), the
// credentials and the status in words, and the status poller driven by a
// fake API and timers: a round every 2 s, never more than 4 questions at
// once, new outputs asked for at once, held ones not at all, nothing after
// stop.

import { test } from "node:test";
import assert from "node:assert/strict";
import {
  EVENT_KINDS, DEFAULT_EVENTS, DEFAULT_TOPIC_PREFIX, STATUS_PERIOD_MS, STATUS_AT_ONCE,
  schemeOf, kindOf, isTls, blankValues, valuesOf, sortedEvents, postBody, patchBody,
  credentialsText, credentialPlaceholder, describeStatus, countersText, createStatusPoller,
} from "../../ui/lib/outputs.js";
import { fakeTimers } from "./fake_timers.mjs";

/** @typedef {import("../../ui/lib/types.js").Output} Output */
/** @typedef {import("../../ui/lib/types.js").OutputStatus} OutputStatus */

/**
 * A stored MQTT output, as GET answers it.
 * @param {Partial<Output>} [changes]
 * @returns {Output}
 */
function broker(changes = {}) {
  return {
    name: "broker",
    url: "mqtt://127.0.0.1:1883",
    events: ["position", "zone", "state"],
    enabled: true,
    topic_prefix: DEFAULT_TOPIC_PREFIX,
    qos: 0,
    max_rate_hz: 0,
    batch_ms: 0,
    ca_file: null,
    username_set: true,
    password_set: true,
    secret_set: false,
    ...changes,
  };
}

/**
 * A stored webhook.
 * @param {Partial<Output>} [changes]
 * @returns {Output}
 */
function hook(changes = {}) {
  return broker({ name: "hook", url: "http://127.0.0.1:8080/hook", topic_prefix: null, qos: null, username_set: false, password_set: false, secret_set: true, ...changes });
}

/**
 * A status.
 * @param {Partial<OutputStatus>} [changes]
 * @returns {OutputStatus}
 */
function status(changes = {}) {
  return { running: true, connected: false, sent: 0, queued: 0, dropped: 0, dropped_events: 0, rejected: 0, last_error: null, ...changes };
}

test("the scheme decides the kind of output, whatever its case", () => {
  assert.equal(schemeOf("mqtt://h:1883"), "mqtt");
  assert.equal(schemeOf(" MQTTS://h"), "mqtts");
  assert.equal(schemeOf("Http://h/x"), "http");
  assert.equal(schemeOf("https://h/x"), "https");
  assert.equal(schemeOf("ftp://h"), null);
  assert.equal(schemeOf("mqtt:"), null);
  assert.equal(schemeOf(""), null);
  assert.equal(kindOf("mqtt://h"), "mqtt");
  assert.equal(kindOf("mqtts://h"), "mqtt");
  assert.equal(kindOf("http://h/"), "webhook");
  assert.equal(kindOf("HTTPS://h/"), "webhook");
  assert.equal(kindOf("tcp://h"), null);
  assert.equal(isTls("mqtts://h"), true);
  assert.equal(isTls("https://h"), true);
  assert.equal(isTls("mqtt://h"), false);
  assert.equal(isTls("http://h"), false);
});

test("events keep the form's order, each once", () => {
  assert.deepEqual(sortedEvents(["state", "position", "state", "zone"]), ["position", "zone", "state"]);
  assert.deepEqual(sortedEvents([...EVENT_KINDS].reverse()), [...EVENT_KINDS]);
  assert.deepEqual(sortedEvents(["zone", "weather"]), ["zone", "weather"], "an unknown one is sent for the server to name");
  assert.deepEqual(sortedEvents([]), []);
});

test("a new MQTT output's body: the common fields, MQTT's, and the credentials typed", () => {
  const values = {
    ...blankValues(),
    name: " broker ",
    url: " mqtt://127.0.0.1:1883 ",
    topic_prefix: "site/a",
    qos: "1",
    username: "site",
    password: " hunter2 ",
    secret: "ignored: MQTT takes no secret",
    max_rate_hz: "2.5",
    batch_ms: "100",
    ca_file: "/etc/ca.pem",
  };
  assert.deepEqual(postBody(values), {
    name: "broker",
    url: "mqtt://127.0.0.1:1883",
    events: DEFAULT_EVENTS,
    enabled: true,
    topic_prefix: "site/a",
    qos: 1,
    username: "site",
    password: " hunter2 ",
    max_rate_hz: 2.5,
    batch_ms: 100,
  }, "a password is sent as typed; a CA file only for mqtts and https");
  assert.equal(postBody({ ...values, url: "mqtts://broker:8883" }).ca_file, "/etc/ca.pem");
});

test("a new output's empty optional fields are left out; no events are sent as none", () => {
  assert.deepEqual(postBody({ ...blankValues(), name: "b", url: "mqtt://h", events: [], enabled: false, qos: "" }), {
    name: "b", url: "mqtt://h", events: [], enabled: false,
  });
  // what is typed wrong is sent as typed, for the server to name
  assert.deepEqual(postBody({ ...blankValues(), name: "b", url: "mqtt://h", topic_prefix: "a/+/b", batch_ms: "soon" }), {
    name: "b", url: "mqtt://h", events: DEFAULT_EVENTS, enabled: true, topic_prefix: "a/+/b", qos: 0, batch_ms: "soon",
  });
});

test("a new webhook's body has its secret and none of MQTT's fields", () => {
  const values = { ...blankValues(), name: "hook", url: "https://example.test/hook", topic_prefix: "x", qos: "1", username: "u", password: "p", secret: "s3cret", ca_file: "/ca.pem" };
  assert.deepEqual(postBody(values), {
    name: "hook", url: "https://example.test/hook", events: DEFAULT_EVENTS, enabled: true, secret: "s3cret", ca_file: "/ca.pem",
  });
  // without its secret: the server names the problem on `secret`
  assert.equal("secret" in postBody({ ...values, secret: "" }), false);
  // an unknown scheme: neither kind's fields, the server names the URL
  assert.deepEqual(postBody({ ...values, url: "ftp://h" }), { name: "hook", url: "ftp://h", events: DEFAULT_EVENTS, enabled: true });
});

test("the edit form shows the stored values and leaves the credentials empty", () => {
  const values = valuesOf(broker({ events: ["state", "zone"], max_rate_hz: 5, batch_ms: 100, qos: 1 }));
  assert.deepEqual(values.events, ["zone", "state"]);
  assert.equal(values.topic_prefix, DEFAULT_TOPIC_PREFIX);
  assert.equal(values.qos, "1");
  assert.equal(values.max_rate_hz, "5");
  assert.equal(values.batch_ms, "100");
  assert.equal(values.ca_file, "");
  assert.equal(values.username, "");
  assert.equal(values.password, "");
  assert.equal(values.clear_password, false);
  const webhook = valuesOf(hook());
  assert.equal(webhook.topic_prefix, "");
  assert.equal(webhook.qos, "0");
  assert.equal(webhook.secret, "");
});

test("an edit unchanged sends nothing; an edit sends only the fields changed", () => {
  const stored = broker({ events: ["state", "position", "zone"] });
  assert.deepEqual(patchBody(stored, valuesOf(stored)), {});
  assert.deepEqual(patchBody(stored, { ...valuesOf(stored), name: "broker-a", batch_ms: "250", enabled: false }), {
    name: "broker-a", batch_ms: 250, enabled: false,
  });
  assert.deepEqual(patchBody(stored, { ...valuesOf(stored), events: ["zone"] }), { events: ["zone"] });
  assert.deepEqual(patchBody(stored, { ...valuesOf(stored), qos: "1", max_rate_hz: "10" }), { qos: 1, max_rate_hz: 10 });
  // an emptied number is no change (the API has no null for it)
  assert.deepEqual(patchBody(stored, { ...valuesOf(stored), batch_ms: "" }), {});
});

test("credentials are sent when typed, null when removed, never otherwise", () => {
  const stored = broker();
  assert.deepEqual(patchBody(stored, { ...valuesOf(stored), password: "new" }), { password: "new" });
  assert.deepEqual(patchBody(stored, { ...valuesOf(stored), clear_password: true, password: "ignored" }), { password: null });
  assert.deepEqual(patchBody(stored, { ...valuesOf(stored), clear_username: true }), { username: null });
  // nothing to remove: nothing sent
  assert.deepEqual(patchBody(broker({ username_set: false }), { ...valuesOf(stored), clear_username: true }), {});
  assert.deepEqual(patchBody(hook(), { ...valuesOf(hook()), secret: "rotated" }), { secret: "rotated" });
  assert.deepEqual(patchBody(hook(), { ...valuesOf(hook()), password: "p", username: "u" }), {}, "a webhook takes no username or password");
});

test("an emptied topic prefix goes back to the default; a CA file is cleared with null", () => {
  const custom = broker({ topic_prefix: "site/a" });
  assert.deepEqual(patchBody(custom, { ...valuesOf(custom), topic_prefix: "" }), { topic_prefix: null });
  assert.deepEqual(patchBody(custom, { ...valuesOf(custom), topic_prefix: "site/b" }), { topic_prefix: "site/b" });
  assert.deepEqual(patchBody(broker(), { ...valuesOf(broker()), topic_prefix: "" }), {}, "already the default");
  const tls = broker({ url: "mqtts://b:8883", ca_file: "/ca.pem" });
  assert.deepEqual(patchBody(tls, { ...valuesOf(tls), ca_file: "" }), { ca_file: null });
  assert.deepEqual(patchBody(tls, { ...valuesOf(tls), ca_file: "/other.pem" }), { ca_file: "/other.pem" });
  // no longer TLS: the CA file goes with it, else the server refuses it
  assert.deepEqual(patchBody(tls, { ...valuesOf(tls), url: "mqtt://b:1883" }), { url: "mqtt://b:1883", ca_file: null });
});

test("a URL of the other kind sends the new kind's fields only", () => {
  // MQTT to webhook: its secret, never MQTT's fields (the server drops them)
  const stored = broker({ topic_prefix: "site/a", qos: 1 });
  assert.deepEqual(patchBody(stored, { ...valuesOf(stored), url: "http://h/hook", secret: "s" }), { url: "http://h/hook", secret: "s" });
  assert.deepEqual(patchBody(stored, { ...valuesOf(stored), url: "http://h/hook" }), { url: "http://h/hook" }, "the server names the missing secret");
  // webhook to MQTT: the QoS and prefix chosen, the credentials typed
  const webhook = hook();
  assert.deepEqual(patchBody(webhook, { ...valuesOf(webhook), url: "mqtt://b", topic_prefix: "t", username: "u" }), {
    url: "mqtt://b", topic_prefix: "t", qos: 0, username: "u",
  });
  assert.deepEqual(patchBody(webhook, { ...valuesOf(webhook), url: "mqtt://b" }), { url: "mqtt://b", qos: 0 });
});

test("credentials in words: which are set, never their values", () => {
  assert.equal(credentialsText(broker()), "username set, password set");
  assert.equal(credentialsText(broker({ username_set: false })), "password set");
  assert.equal(credentialsText(broker({ username_set: false, password_set: false })), "no credentials");
  assert.equal(credentialsText(hook()), "secret set");
  assert.equal(credentialsText(hook({ secret_set: false })), "no secret");
  assert.equal(credentialPlaceholder(true, "password"), "password set: type to replace it");
  assert.equal(credentialPlaceholder(false, "username"), "no username set");
});

test("a status in words", () => {
  assert.deepEqual(describeStatus(broker({ enabled: false }), status(), true), { text: "disabled", tone: "stopped" });
  assert.deepEqual(describeStatus(broker(), undefined, true), { text: "asking…", tone: "" });
  assert.deepEqual(describeStatus(broker(), status({ running: false }), false), { text: "stopped", tone: "stopped" });
  assert.deepEqual(describeStatus(broker(), status({ running: false }), true), { text: "starting…", tone: "" });
  assert.deepEqual(describeStatus(broker(), status({ running: false, last_error: "lacks its password" }), true), { text: "not running", tone: "error" });
  assert.deepEqual(describeStatus(broker(), status({ connected: true }), true), { text: "connected", tone: "ok" });
  assert.deepEqual(describeStatus(broker(), status({ last_error: "connection refused" }), true), { text: "not connected", tone: "error" });
  assert.deepEqual(describeStatus(broker(), status(), true), { text: "connecting…", tone: "" });
  assert.deepEqual(describeStatus(hook(), status(), true), { text: "nothing delivered yet", tone: "" });
  assert.equal(countersText(status({ sent: 1200, queued: 3, dropped: 4, dropped_events: 0 })),
    `${(1200).toLocaleString()} sent, 3 queued, 4 positions and 0 other events dropped`);
});

// ---- the poller -------------------------------------------------------------

/** @typedef {{name: string, signal: AbortSignal, answer: (value: OutputStatus) => void, fail: (error: unknown) => void}} Question */

/**
 * A poller on a fake API (each question waits for the test to answer it)
 * and fake timers.
 * @param {{hidden?: boolean}} [options]
 */
function harness(options = {}) {
  /** @type {Question[]} */
  const questions = [];
  const clock = fakeTimers();
  const timers = clock.timers;
  /** @type {[string, any][]} */
  const reports = [];
  const page = { hidden: options.hidden ?? false, underWay: 0, most: 0 };
  const poller = createStatusPoller({
    ask: (name, signal) => new Promise((resolve, reject) => {
      page.underWay += 1;
      page.most = Math.max(page.most, page.underWay);
      /** @param {() => void} settle */
      const done = (settle) => {
        page.underWay -= 1;
        settle();
      };
      questions.push({ name, signal, answer: (value) => done(() => resolve(value)), fail: (error) => done(() => reject(error)) });
    }),
    report: (name, outcome) => reports.push([name, outcome]),
    setTimeout: clock.setTimeout,
    clearTimeout: clock.clearTimeout,
    hidden: () => page.hidden,
  });
  /** The questions not answered yet. */
  const open = () => questions.filter((question) => !(/** @type {any} */ (question).settled));
  /** Answers every open question (of `name` only when given). */
  async function answerAll(name = "") {
    for (const question of open()) {
      if (name && question.name !== name) continue;
      /** @type {any} */ (question).settled = true;
      question.answer(status({ sent: questions.indexOf(question) }));
    }
    await settle();
  }
  /** Runs the pending timer (there is at most one). */
  async function fire() {
    const pending = clock.pending();
    assert.equal(pending.length, 1, "one round timer pending");
    clock.fire(pending[0]);
    await settle();
  }
  return { poller, questions, timers, reports, page, open, answerAll, fire };
}

/** Lets the promise jobs queued now run. */
function settle() {
  return new Promise((resolve) => setImmediate(() => resolve(undefined)));
}

test("the poller asks for every output at once, then every 2 s, at most 4 at a time", async () => {
  const names = ["a", "b", "c", "d", "e", "f"];
  const { poller, questions, timers, reports, page, open, answerAll, fire } = harness();
  poller.setNames(names);
  await settle();
  assert.equal(STATUS_AT_ONCE, 4);
  assert.deepEqual(open().map((question) => question.name), ["a", "b", "c", "d"], "4 under way, 2 waiting");
  assert.equal(timers.length, 1);
  assert.equal(timers[0].ms, STATUS_PERIOD_MS);
  assert.equal(STATUS_PERIOD_MS, 2000);
  await answerAll("b");
  assert.deepEqual(open().map((question) => question.name), ["a", "c", "d", "e"], "the next one asked as one is answered");
  await answerAll();
  await answerAll();
  assert.equal(questions.length, 6);
  assert.equal(page.most, 4);
  assert.deepEqual(reports.map(([name]) => name).sort(), names);
  assert.deepEqual(reports.find(([name]) => name === "a")?.[1], { status: status({ sent: 0 }) });
  // the next round after 2 s
  await fire();
  assert.equal(open().length, 4);
  await answerAll();
  await answerAll();
  assert.equal(questions.length, 12);
  assert.equal(page.most, 4);
  poller.stop();
});

test("a slow round delays the next: rounds never overlap", async () => {
  const { poller, timers, open, answerAll, fire } = harness();
  poller.setNames(["a", "b"]);
  await settle();
  assert.equal(open().length, 2);
  await fire(); // 2 s went by; "a" and "b" are still unanswered
  assert.equal(open().length, 2, "no second question while the first is under way");
  assert.equal(timers.filter((timer) => !timer.cleared).length, 1);
  await answerAll();
  assert.equal(open().length, 2, "the late round starts as the slow one ends");
  poller.stop();
});

test("a new output is asked for at once; pollNow asks again now", async () => {
  const { poller, questions, answerAll } = harness();
  poller.setNames(["a"]);
  await settle();
  await answerAll();
  assert.equal(questions.length, 1);
  poller.setNames(["a", "b"]);
  await settle();
  assert.deepEqual(questions.slice(1).map((question) => question.name), ["a", "b"]);
  await answerAll();
  poller.setNames(["b"]); // one gone: nothing new to ask for now
  await settle();
  assert.equal(questions.length, 3);
  poller.pollNow();
  await settle();
  assert.deepEqual(questions.slice(3).map((question) => question.name), ["b"]);
  // pollNow during a round: one more round right after it
  poller.pollNow();
  await settle();
  assert.equal(questions.length, 4);
  await answerAll();
  assert.deepEqual(questions.slice(4).map((question) => question.name), ["b"]);
  poller.stop();
});

test("a held output is not asked for; the hold waits for its question under way", async () => {
  const { poller, questions, open, answerAll, fire } = harness();
  poller.setNames(["a", "b"]);
  await settle();
  let released = /** @type {(() => void) | null} */ (null);
  const holding = poller.hold("a").then((release) => {
    released = release;
  });
  await settle();
  assert.equal(released, null, "a's question is still under way");
  await answerAll("a");
  await holding;
  assert.ok(released);
  await answerAll();
  await fire();
  assert.deepEqual(open().map((question) => question.name), ["b"], "a is held");
  await answerAll();
  /** @type {() => void} */ (/** @type {unknown} */ (released))();
  await fire();
  assert.deepEqual(open().map((question) => question.name), ["a", "b"], "released, a is asked for again");
  await answerAll();
  // a hold on a name that then disappears is dropped with it
  await poller.hold("b");
  poller.setNames(["a"]);
  poller.setNames(["a", "b"]);
  await settle();
  assert.deepEqual(open().map((question) => question.name), ["a", "b"], "b came back as a new output");
  assert.ok(questions.length > 0);
  poller.stop();
});

test("the status of an output gone meanwhile is not reported; failures are", async () => {
  const { poller, questions, reports, answerAll } = harness();
  poller.setNames(["a", "b"]);
  await settle();
  poller.setNames(["b"]);
  await answerAll("a");
  assert.deepEqual(reports, []);
  const failure = new Error("the server cannot be reached");
  const question = questions[1];
  /** @type {any} */ (question).settled = true;
  question.fail(failure);
  await settle();
  assert.deepEqual(reports, [["b", { error: failure }]]);
  poller.stop();
});

test("a hidden page asks nothing, and stop aborts and asks no more", async () => {
  const { poller, questions, timers, reports, page, answerAll, fire } = harness({ hidden: true });
  poller.setNames(["a"]);
  await settle();
  assert.equal(questions.length, 0);
  await fire();
  assert.equal(questions.length, 0);
  page.hidden = false;
  await fire();
  assert.equal(questions.length, 1);
  poller.stop();
  assert.equal(questions[0].signal.aborted, true);
  assert.ok(timers.every((timer) => timer.cleared || timer.fired));
  await answerAll();
  assert.deepEqual(reports, [], "nothing reported after stop");
  poller.pollNow();
  poller.setNames(["a", "b"]);
  await settle();
  assert.equal(questions.length, 1);
  assert.equal(poller.asking, 0);
});
