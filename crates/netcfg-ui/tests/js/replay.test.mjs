// The replay timeline's logic (ui/lib/replay.js): which instances replay
// and what they name, the speeds offered, the position as a clock, the
// play button, and the poller driven by a fake API and timers: one
// question at a time every 500 ms, none while the page is hidden or after
// stop, and no answer older than the user's last change shown after it.

import { test } from "node:test";
import assert from "node:assert/strict";
import {
  SPEEDS, POLL_MS, isReplayInstance, parseReplayInstance, speedLabel, speedOptions, positionText, playButton, createReplayPoller,
} from "../../ui/lib/replay.js";
import { fakeTimers } from "./fake_timers.mjs";

/** @typedef {import("../../ui/lib/types.js").ReplayState} ReplayState */

/**
 * A replay's state, as the API answers it.
 * @param {Partial<ReplayState>} [changes]
 * @returns {ReplayState}
 */
function replay(changes = {}) {
  return { net: "site", recording: "night", speed: 1, paused: false, loop: false, position_ms: 0, duration_ms: 60_000,
    finished: false, datagrams: 0, loops: 0, ...changes };
}

test("the speeds offered, and a replay's own among them when it is none of them", () => {
  assert.deepEqual(SPEEDS, [0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 50]);
  assert.equal(POLL_MS, 500);
  assert.deepEqual(speedOptions(2), SPEEDS);
  assert.deepEqual(speedOptions(undefined), SPEEDS);
  assert.deepEqual(speedOptions(3), [0.1, 0.25, 0.5, 1, 2, 3, 5, 10, 20, 50]);
  assert.equal(speedLabel(0.25), "0.25×");
  assert.equal(speedLabel(1), "1×");
  assert.equal(speedLabel(0.1 + 0.2), "0.3×", "no float noise");
});

test("a replay instance and what it names", () => {
  assert.equal(isReplayInstance("replay:site/night"), true);
  assert.equal(isReplayInstance("sim"), false);
  assert.equal(isReplayInstance(""), false);
  assert.equal(isReplayInstance(null), false);
  assert.deepEqual(parseReplayInstance("replay:site/night"), { net: "site", recording: "night", speed: 1, loop: false });
  assert.deepEqual(parseReplayInstance("replay:site/night.2?speed=10&loop=1"), { net: "site", recording: "night.2", speed: 10, loop: true });
  assert.deepEqual(parseReplayInstance("replay:a/b?speed=x"), { net: "a", recording: "b", speed: 1, loop: false });
  assert.equal(parseReplayInstance("replay:site"), null);
  assert.equal(parseReplayInstance("replay:/night"), null);
  assert.equal(parseReplayInstance("replay:site/"), null);
  assert.equal(parseReplayInstance("/dev/ttyUSB0"), null);
});

test("the position against the length, as clocks", () => {
  assert.equal(positionText(65_000, 200_000), "1:05 / 3:20");
  assert.equal(positionText(0, 0), "0:00 / 0:00");
  assert.equal(positionText(3_600_000, 7_200_000), "1:00:00 / 2:00:00");
});

test("the play button pauses a playing replay, resumes a paused one, starts a finished one again", () => {
  assert.deepEqual(playButton(replay()), { label: "Pause", change: { paused: true } });
  assert.deepEqual(playButton(replay({ paused: true })), { label: "Play", change: { paused: false } });
  assert.deepEqual(playButton(replay({ finished: true, position_ms: 60_000 })), { label: "Play again", change: { position_ms: 0, paused: false } });
  assert.equal(playButton(replay({ finished: true, paused: true })).label, "Play again");
});

/** A poller over a fake API and timers. */
function harness() {
  /** @type {{signal: AbortSignal, answer: (state: ReplayState) => void, fail: (error: unknown) => void}[]} */
  const questions = [];
  /** @type {({state: ReplayState} | {error: unknown})[]} */
  const reports = [];
  const clock = fakeTimers();
  const timers = clock.timers;
  const page = { hidden: false };
  const poller = createReplayPoller({
    ask: (signal) => new Promise((resolve, reject) => {
      questions.push({ signal, answer: resolve, fail: reject });
    }),
    report: (outcome) => reports.push(outcome),
    setTimeout: clock.setTimeout,
    clearTimeout: clock.clearTimeout,
    hidden: () => page.hidden,
  });
  /** The timers waiting. */
  const pending = clock.pending;
  /** Fires the timers waiting now. */
  function tick() {
    for (const timer of pending()) clock.fire(timer);
  }
  return { questions, reports, timers, page, poller, pending, tick };
}

/** Lets the promise jobs queued now run. */
const settle = () => new Promise((resolve) => setImmediate(() => resolve(undefined)));

test("the poller asks at once, then every 500 ms after each answer, one question at a time", async () => {
  const { questions, reports, poller, pending, tick } = harness();
  poller.pollNow();
  assert.equal(questions.length, 1);
  assert.equal(pending().length, 0, "the next is timed from the answer");
  poller.pollNow();
  assert.equal(questions.length, 1, "never two under way");
  questions[0].answer(replay({ position_ms: 1000 }));
  await settle();
  assert.deepEqual(reports, [{ state: replay({ position_ms: 1000 }) }]);
  assert.equal(pending().length, 1);
  assert.equal(pending()[0].ms, POLL_MS);
  tick();
  assert.equal(questions.length, 2);
  questions[1].fail(new Error("409"));
  await settle();
  assert.equal(reports.length, 2);
  assert.ok("error" in reports[1], "a failure is reported");
  assert.equal(pending().length, 1, "and it keeps asking");
  poller.stop();
});

test("nothing is asked while the page is hidden; it asks again once shown", async () => {
  const { questions, page, poller, pending, tick } = harness();
  page.hidden = true;
  poller.pollNow();
  assert.equal(questions.length, 0);
  assert.equal(pending().length, 1, "it looks again later");
  tick();
  assert.equal(questions.length, 0);
  page.hidden = false;
  tick();
  assert.equal(questions.length, 1);
  poller.stop();
});

test("an answer older than a change is not shown after the change's answer", async () => {
  const { questions, reports, poller } = harness();
  poller.pollNow();
  // the user pauses while a question is under way
  const paused = replay({ paused: true, position_ms: 5000 });
  const change = poller.change(async () => paused);
  // the old question is answered after the change was sent: stale
  questions[0].answer(replay({ position_ms: 5100 }));
  assert.deepEqual(await change, paused);
  await settle();
  assert.deepEqual(reports, [{ state: paused }], "the change's answer only");
  poller.stop();
});

test("a question asked while a change is under way is dropped too; later ones are shown", async () => {
  const { questions, reports, poller, tick } = harness();
  /** @type {(state: ReplayState) => void} */
  let finish = () => {};
  const change = poller.change(() => new Promise((resolve) => {
    finish = resolve;
  }));
  poller.pollNow();
  questions[0].answer(replay({ position_ms: 1 }));
  await settle();
  assert.deepEqual(reports, [], "it may predate the change");
  finish(replay({ position_ms: 30_000 }));
  await change;
  assert.deepEqual(reports, [{ state: replay({ position_ms: 30_000 }) }]);
  tick();
  questions[1].answer(replay({ position_ms: 30_500 }));
  await settle();
  assert.deepEqual(reports.at(-1), { state: replay({ position_ms: 30_500 }) });
  poller.stop();
});

test("a refused change rejects and reports nothing", async () => {
  const { reports, poller } = harness();
  await assert.rejects(poller.change(async () => {
    throw new Error("speed out of range");
  }), /speed out of range/);
  assert.deepEqual(reports, []);
  poller.stop();
});

test("stop aborts the question under way and asks no more", async () => {
  const { questions, reports, poller, pending, tick } = harness();
  poller.pollNow();
  poller.stop();
  assert.equal(questions[0].signal.aborted, true);
  questions[0].answer(replay());
  await settle();
  assert.deepEqual(reports, []);
  assert.equal(pending().length, 0);
  tick();
  poller.pollNow();
  assert.equal(questions.length, 1);
});
