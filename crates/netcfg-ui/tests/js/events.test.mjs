// The live events' streams (ui/lib/event_hub.js) driven by a fake
// transport: the hub reads each stream with fetch (a browser's EventSource
// cannot send the token), so the fake is a fetch whose response body the
// test writes to and ends, and timers the test runs by hand.

import { test } from "node:test";
import assert from "node:assert/strict";
import { createEventHub, expandPositions } from "../../ui/lib/event_hub.js";
import { fakeTimers } from "./fake_timers.mjs";

const encoder = new TextEncoder();

/**
 * One request the hub made: its URL and headers, and its stream's body.
 * @typedef {object} FakeStream
 * @property {string} url
 * @property {Record<string, string>} headers
 * @property {AbortSignal} signal
 * @property {(text: string) => void} send
 * @property {() => void} end
 */

/**
 * A hub on fake fetch and timers. `status` is what each stream answers.
 * @param {{hidden?: boolean, status?: number}} [options]
 */
function harness(options = {}) {
  /** @type {FakeStream[]} */
  const streams = [];
  const clock = fakeTimers();
  const timers = clock.timers;
  /** @type {unknown[][]} */
  const errors = [];
  /** @type {string[]} */
  const states = [];
  const page = { hidden: options.hidden ?? false };
  const hub = createEventHub({
    fetch: async (url, init) => {
      /** @type {ReadableStreamDefaultController<Uint8Array>} */
      let controller = /** @type {any} */ (undefined);
      const body = new ReadableStream({
        start(given) {
          controller = given;
        },
      });
      init.signal.addEventListener("abort", () => {
        try {
          controller.error(new DOMException("aborted", "AbortError"));
        } catch {
          // already ended
        }
      });
      streams.push({
        url,
        headers: init.headers,
        signal: init.signal,
        send: (text) => controller.enqueue(encoder.encode(text)),
        end: () => controller.close(),
      });
      return new Response(body, { status: options.status ?? 200 });
    },
    headers: () => ({ "Api-Version": "5.1", Authorization: "Bearer token-of-the-test" }),
    setTimeout: clock.setTimeout,
    clearTimeout: clock.clearTimeout,
    hidden: () => page.hidden,
    logError: (...details) => errors.push(details),
  });
  hub.watchConnection((state) => states.push(state));
  return { hub, streams, timers, errors, states, page };
}

/** Lets the hub's promises, microtasks and stream reads run. */
async function settle() {
  for (let round = 0; round < 10; round += 1) await new Promise((done) => setImmediate(() => done(undefined)));
}

/** @typedef {{type: string, data: any}} Seen */

/** A handler that records what it gets. */
function recorder() {
  /** @type {Seen[]} */
  const seen = [];
  const handler = (/** @type {any} */ data, /** @type {string} */ type) => seen.push({ type, data });
  return { seen, handler };
}

test("one stream for every type but positions, and one per configuration for positions", async () => {
  const { hub, streams } = harness();
  hub.listen(["state", "notification", "resync"], () => {});
  hub.listen(["device"], () => {}, { net: "site" });
  hub.listen(["position"], () => {}, { net: "site a" });
  await settle();
  assert.deepEqual(streams.map((stream) => stream.url).sort(), [
    "/events?types=device,notification,state",
    "/nets/site%20a/events?types=position&positions=compact",
  ]);
  for (const stream of streams) {
    assert.equal(stream.headers.Accept, "text/event-stream");
    assert.equal(stream.headers.Authorization, "Bearer token-of-the-test");
    assert.equal(stream.headers["Last-Event-ID"], undefined);
  }
});

test("events reach the listeners of their type and configuration; comments and other types do not", async () => {
  const { hub, streams } = harness();
  const all = recorder();
  const site = recorder();
  hub.listen(["state"], all.handler);
  hub.listen(["state", "device"], site.handler, { net: "site" });
  await settle();
  const [stream] = streams;
  stream.send(": keep-alive\n\nevent: state\ndata: {\"net\":\"site\",\"state\":\"started\"}\n\n");
  stream.send("event: state\r\ndata: {\"net\":\"other\",\r\ndata: \"state\":\"stopped\"}\r\n\r\n");
  stream.send("event: change\ndata: {\"net\":\"site\"}\n\n");
  await settle();
  assert.deepEqual(all.seen, [
    { type: "state", data: { net: "site", state: "started" } },
    { type: "state", data: { net: "other", state: "stopped" } },
  ]);
  assert.deepEqual(site.seen, [{ type: "state", data: { net: "site", state: "started" } }]);
});

test("an event cut across chunks is read whole", async () => {
  const { hub, streams } = harness();
  const { seen, handler } = recorder();
  hub.listen(["notification"], handler);
  await settle();
  for (const piece of ["event: notif", "ication\nid: site:1\nda", "ta: {\"net\":\"site\",\"identifier\":1}\n", "\n"]) {
    streams[0].send(piece);
    await settle();
  }
  assert.deepEqual(seen, [{ type: "notification", data: { net: "site", identifier: 1 } }]);
});

test("when the server ends the stream it comes back after `retry`, resumes with Last-Event-ID and asks for a resync", async () => {
  const { hub, streams, timers, states } = harness();
  const { seen, handler } = recorder();
  hub.listen(["notification"], handler);
  await settle();
  assert.equal(states.at(-1), "open");
  streams[0].send("retry: 5000\n\n");
  streams[0].send("event: notification\nid: site:7\ndata: {\"net\":\"site\",\"identifier\":7}\n\n");
  streams[0].end();
  await settle();
  assert.equal(states.at(-1), "connecting");
  assert.equal(timers.length, 1);
  assert.equal(timers[0].ms, 5000, "the server's retry");
  assert.equal(streams.length, 1, "nothing before the delay");
  timers[0].callback();
  await settle();
  assert.equal(streams.length, 2);
  assert.equal(streams[1].headers["Last-Event-ID"], "site:7");
  assert.deepEqual(seen.map((event) => event.type), ["notification", "resync"]);
  assert.deepEqual(seen[1].data, { reason: "reconnected" });
  assert.equal(states.at(-1), "open");
});

test("a refused stream is tried again every 3 s until the server says otherwise", async () => {
  const { hub, streams, timers, states } = harness({ status: 401 });
  hub.listen(["state"], () => {});
  await settle();
  assert.equal(timers.length, 1);
  assert.equal(timers[0].ms, 3000);
  assert.ok(!states.includes("open"));
  timers[0].callback();
  await settle();
  assert.equal(streams.length, 2);
  assert.equal(timers.length, 2);
});

test("compact position batches reach the views as objects, with their network times", async () => {
  const { hub, streams } = harness();
  const { seen, handler } = recorder();
  hub.listen(["position"], handler, { net: "site" });
  await settle();
  const compact = {
    net: "site",
    network_time: 975000,
    columns: ["serial_number", "x", "y", "z", "quality", "error_mm", "network_time_offset"],
    rows: [
      ["01:0D:0001", 1200, -300, 1000, 9500, 80, 0],
      ["01:0D:0002", 5, 6, 7, 8, 9, 97500],
    ],
  };
  streams[0].send(`event: position\ndata: ${JSON.stringify(compact)}\n\n`);
  await settle();
  assert.deepEqual(seen, [
    {
      type: "position",
      data: {
        net: "site",
        positions: [
          { serial_number: "01:0D:0001", x: 1200, y: -300, z: 1000, quality: 9500, error_mm: 80, network_time: 975000 },
          { serial_number: "01:0D:0002", x: 5, y: 6, z: 7, quality: 8, error_mm: 9, network_time: 1072500 },
        ],
      },
    },
  ]);
});

test("batches of objects and other events pass as they are", () => {
  const objects = { net: "site", positions: [{ serial_number: "01:0D:0001", x: 1 }] };
  assert.equal(expandPositions(objects), objects);
  const state = { net: "site", state: "started" };
  assert.equal(expandPositions(state), state);
  assert.equal(expandPositions(null), null);
});

test("position streams do not resume: their ids are not kept", async () => {
  const { hub, streams, timers } = harness();
  hub.listen(["position"], () => {}, { net: "site" });
  await settle();
  streams[0].send("event: position\nid: 12\ndata: {\"net\":\"site\",\"positions\":[]}\n\n");
  streams[0].end();
  await settle();
  timers[0].callback();
  await settle();
  assert.equal(streams[1].headers["Last-Event-ID"], undefined);
});

test("a hidden page lets go of its streams; shown again it reconnects and asks for a resync", async () => {
  const { hub, streams, states, page } = harness();
  const { seen, handler } = recorder();
  hub.listen(["state"], handler);
  await settle();
  page.hidden = true;
  hub.suspend();
  assert.ok(streams[0].signal.aborted);
  assert.equal(states.at(-1), "closed");
  hub.resume();
  assert.equal(streams.length, 1, "still hidden: nothing opens");
  page.hidden = false;
  hub.resume();
  await settle();
  assert.equal(streams.length, 2);
  assert.deepEqual(seen, [{ type: "resync", data: { reason: "shown again" } }]);
});

test("a page hidden from the start opens nothing until shown", async () => {
  const { hub, streams, page } = harness({ hidden: true });
  hub.listen(["state"], () => {});
  await settle();
  assert.equal(streams.length, 0);
  page.hidden = false;
  hub.resume();
  await settle();
  assert.equal(streams.length, 1);
});

test("listeners changed together reconnect once; the last one gone closes the stream", async () => {
  const { hub, streams, states } = harness();
  const stopState = hub.listen(["state"], () => {});
  await settle();
  const stopDevice = hub.listen(["device"], () => {});
  const stopChange = hub.listen(["change"], () => {});
  await settle();
  assert.equal(streams.length, 2, "one reconnection for both");
  assert.ok(streams[0].signal.aborted);
  assert.equal(streams[1].url, "/events?types=change,device,state");
  stopState();
  stopDevice();
  stopChange();
  await settle();
  assert.ok(streams[1].signal.aborted);
  assert.equal(states.at(-1), "closed");
});

test("a handler that throws is logged, the other listeners still get the event, and the stream goes on", async () => {
  const { hub, streams, errors } = harness();
  const { seen, handler } = recorder();
  hub.listen(["state"], () => {
    throw new Error("a broken view");
  });
  hub.listen(["state"], handler);
  await settle();
  streams[0].send("event: state\ndata: {\"net\":\"a\"}\n\nevent: state\ndata: not json\n\nevent: state\ndata: {\"net\":\"b\"}\n\n");
  await settle();
  assert.equal(errors.length, 3, "the throw twice, the bad JSON once");
  assert.deepEqual(seen.map((event) => event.data.net), ["a", "b"]);
});

test("a handler that throws on the resync does not stop the reconnection", async () => {
  const { hub, streams, timers, errors } = harness();
  hub.listen(["state"], (_data, type) => {
    if (type === "resync") throw new Error("a broken view");
  });
  await settle();
  streams[0].end();
  await settle();
  timers[0].callback();
  await settle();
  assert.equal(streams.length, 2, "reconnected");
  assert.equal(errors.length, 1);
});
