// The replay timeline's logic (decisions §15; `GET` and `PATCH
// /nets/{net}/replay`): which configurations replay, the speeds offered,
// the position as a clock, what the play button does, and the poller that
// asks where the replay stands every 500 ms without letting an answer older
// than the user's last change undo it. Plain functions and no DOM (the
// poller is given its timers), so node's test runner loads this module as
// it is (tests/js/replay.test.mjs); views/floor_replay.js shows them.

import { formatClock } from "./format.js";

/** @typedef {import("./types.js").ReplayState} ReplayState */

/** The speeds offered, times the recording's own pace (the API takes 0.1 to 50). */
export const SPEEDS = [0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 50];

/** How often the replay's state is asked for, ms. */
export const POLL_MS = 500;

/**
 * Whether a configuration's instance replays a recording.
 * @param {string | null | undefined} instance
 */
export function isReplayInstance(instance) {
  return typeof instance === "string" && instance.startsWith("replay:");
}

/**
 * What a replay instance names: "replay:site/night?speed=10&loop=1" →
 * {net: "site", recording: "night", speed: 10, loop: true}; null for
 * another instance.
 * @param {string | null | undefined} instance
 * @returns {{net: string, recording: string, speed: number, loop: boolean} | null}
 */
export function parseReplayInstance(instance) {
  if (!isReplayInstance(instance)) return null;
  const [source, search = ""] = String(instance).slice("replay:".length).split("?");
  const slash = source.indexOf("/");
  if (slash <= 0 || slash === source.length - 1) return null;
  const query = new URLSearchParams(search);
  const speed = Number(query.get("speed") ?? "1");
  return {
    net: source.slice(0, slash),
    recording: source.slice(slash + 1),
    speed: Number.isFinite(speed) && speed > 0 ? speed : 1,
    loop: query.get("loop") === "1" || query.get("loop") === "true",
  };
}

/**
 * A speed for people: 0.25 → "0.25×".
 * @param {number} speed
 */
export function speedLabel(speed) {
  return `${Number(speed.toFixed(3))}×`;
}

/**
 * The speeds the selector lists: SPEEDS, and the replay's own when it is
 * none of them (an instance may ask for 3×), in order.
 * @param {number | undefined} current
 */
export function speedOptions(current) {
  if (current === undefined || SPEEDS.some((speed) => Math.abs(speed - current) < 1e-9)) return [...SPEEDS];
  return [...SPEEDS, current].sort((a, b) => a - b);
}

/**
 * The position against the length: "1:05 / 3:20".
 * @param {number} positionMs
 * @param {number} durationMs
 */
export function positionText(positionMs, durationMs) {
  return `${formatClock(positionMs)} / ${formatClock(durationMs)}`;
}

/**
 * What the play button says and asks for: Pause while it plays; Play
 * while paused; Play again once it played to its end (from the start).
 * @param {ReplayState} state
 * @returns {{label: "Pause" | "Play" | "Play again", change: {paused: boolean, position_ms?: number}}}
 */
export function playButton(state) {
  if (state.finished) return { label: "Play again", change: { position_ms: 0, paused: false } };
  if (state.paused) return { label: "Play", change: { paused: false } };
  return { label: "Pause", change: { paused: true } };
}

/**
 * What a poller needs from its page.
 * @typedef {object} ReplayPollerEnvironment
 * @property {(signal: AbortSignal) => Promise<ReplayState>} ask  `GET .../replay`
 * @property {(outcome: {state: ReplayState} | {error: unknown}) => void} report
 * @property {(callback: () => void, ms: number) => unknown} setTimeout
 * @property {(timer: unknown) => void} clearTimeout
 * @property {() => boolean} [hidden]  whether the page is hidden now (then it asks nothing)
 * @property {number} [periodMs]  default POLL_MS
 */

/**
 * Asks where the replay stands every `periodMs`, one question at a time
 * (the next is asked `periodMs` after the last was answered). A change the
 * user makes goes through `change(send)`: its answer is reported, and so
 * that the timeline does not jump back, an answer to a question asked
 * before the change's answer came is dropped. `stop()` aborts the question
 * under way and asks no more.
 * @param {ReplayPollerEnvironment} environment
 */
export function createReplayPoller(environment) {
  const periodMs = environment.periodMs ?? POLL_MS;
  const hidden = environment.hidden ?? (() => false);
  const controller = new AbortController();
  /** @type {unknown} */
  let timer = null;
  let asking = false;
  let stopped = false;
  /** Counts the changes sent and answered: a question asked at another count is stale. */
  let changes = 0;
  /** Changes under way: what is asked meanwhile may predate them. */
  let sending = 0;

  function schedule() {
    if (stopped) return;
    if (timer !== null) environment.clearTimeout(timer);
    timer = environment.setTimeout(() => {
      timer = null;
      poll();
    }, periodMs);
  }

  async function poll() {
    if (stopped || asking) return;
    if (hidden()) {
      schedule();
      return;
    }
    asking = true;
    const askedAt = changes;
    /** @type {{state: ReplayState} | {error: unknown}} */
    const outcome = await environment.ask(controller.signal).then((state) => ({ state }), (error) => ({ error }));
    asking = false;
    if (stopped) return;
    if (sending === 0 && askedAt === changes) environment.report(outcome);
    schedule();
  }

  return {
    /** Asks now (the first time, or after the page is shown again). */
    pollNow() {
      if (timer !== null) environment.clearTimeout(timer);
      timer = null;
      poll();
    },
    /**
     * Sends a change (`send` resolves with the replay's state after it) and
     * reports its answer; rejects as `send` does, reporting nothing.
     * @param {() => Promise<ReplayState>} send
     * @returns {Promise<ReplayState>}
     */
    async change(send) {
      sending += 1;
      changes += 1;
      try {
        const state = await send();
        if (!stopped) environment.report({ state });
        return state;
      } finally {
        sending -= 1;
        changes += 1;
      }
    },
    /** Asks no more; aborts the question under way. */
    stop() {
      stopped = true;
      controller.abort();
      if (timer !== null) environment.clearTimeout(timer);
      timer = null;
    },
  };
}
