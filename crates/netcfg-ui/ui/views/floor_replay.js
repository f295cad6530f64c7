// The replay timeline (decisions §15), over the floor plan of a running
// configuration whose instance replays a recording (views/floor.js shows
// it): play or pause, the speed, a seek slider with the position as m:ss,
// and whether it loops. Where the replay stands is asked for every 500 ms
// while the bar is shown (lib/replay.js's poller; nothing once the view is
// left or while the page is hidden); each control sends a PATCH and shows
// its answer at once.

import { html, useEffect, useId, useRef, useState } from "../lib/html.js";
import { call, patch, path } from "../lib/api.js";
import { say } from "../lib/components.js";
import { describeFailure } from "../lib/forms.js";
import { createReplayPoller, speedOptions, speedLabel, positionText, playButton } from "../lib/replay.js";
import { may } from "../lib/access.js";

/** @typedef {import("../lib/types.js").ReplayState} ReplayState */
/** @typedef {ReturnType<typeof createReplayPoller>} Poller */

/** The slider's step, ms: fine enough to land on a moment, coarse enough for the arrow keys. */
const SEEK_STEP_MS = 100;

/**
 * Where the replay running as `net` stands, asked for by a poller while the
 * component is shown (and at once when the page is shown again): the last
 * state known, why the last question failed ("" when it did not), and the
 * poller (which sends changes).
 * @param {string} net
 */
function useReplayState(net) {
  const [state, setState] = useState(/** @type {ReplayState | null} */ (null));
  const [unknown, setUnknown] = useState("");
  const poller = useRef(/** @type {Poller | null} */ (null));
  useEffect(() => {
    const made = createReplayPoller({
      // Without the browser's cache: the server's tag follows the
      // configuration's changes, not the replay's, and would answer 304.
      ask: async (signal) => (await call("GET", path`/nets/${net}/replay`, { signal, cache: "no-store" })).body.replay,
      report: (outcome) => {
        if ("state" in outcome) {
          setState(outcome.state);
          setUnknown("");
        } else {
          setUnknown(describeFailure(outcome.error).message);
        }
      },
      setTimeout: (callback, ms) => setTimeout(callback, ms),
      clearTimeout: (timer) => clearTimeout(/** @type {number | undefined} */ (timer)),
      hidden: () => document.visibilityState === "hidden",
    });
    poller.current = made;
    made.pollNow();
    // Shown again, it asks at once rather than at the next turn.
    const shown = () => document.visibilityState === "visible" && made.pollNow();
    document.addEventListener("visibilitychange", shown);
    return () => {
      document.removeEventListener("visibilitychange", shown);
      made.stop();
      poller.current = null;
    };
  }, [net]);
  return { state, unknown, poller };
}

/**
 * The timeline of the replay running as `net`.
 * @param {{net: string}} props
 */
export function ReplayBar({ net }) {
  const id = useId();
  /** The state, and why the last question failed (the state shown may be older). */
  const { state, unknown, poller } = useReplayState(net);
  /** Why the last change was refused. */
  const [refused, setRefused] = useState("");
  /** Where the slider is while the user moves it (the polls do not move it meanwhile). */
  const [seeking, setSeeking] = useState(/** @type {number | null} */ (null));

  /**
   * Sends a change; the answer is shown at once, a refusal beside the controls.
   * @param {Record<string, any>} change
   */
  async function send(change) {
    setRefused("");
    try {
      await poller.current?.change(async () => /** @type {ReplayState} */ ((await patch(path`/nets/${net}/replay`, change)).body.replay));
    } catch (failure) {
      const { message } = describeFailure(failure);
      setRefused(message);
      say(message, 1);
    }
  }

  if (!state) {
    return html`<section class="replay-bar" aria-labelledby=${`${id}-title`}>
      <h2 id=${`${id}-title`}>Replay</h2>
      <p class="muted">${unknown ? `Where the replay stands is not known: ${unknown}` : "Asking where the replay stands…"}</p>
    </section>`;
  }
  const play = playButton(state);
  const position = seeking ?? state.position_ms;
  const shownPosition = positionText(position, state.duration_ms);
  const condition = state.finished ? "finished" : state.paused ? "paused" : "playing";
  // A role that may not steer the replay sees its controls disabled, with the reason.
  const access = may("PATCH", path`/nets/${net}/replay`);
  return html`<section class="replay-bar" aria-labelledby=${`${id}-title`}>
    <h2 id=${`${id}-title`}>Replay of ${state.net}/${state.recording}
      <span class=${`badge ${condition === "playing" ? "running" : "stopped"}`}>${condition}</span></h2>
    <div class="replay-controls">
      <button type="button" class=${play.label === "Pause" ? "" : "primary"} ...${access} onClick=${() => send(play.change)}>${play.label}</button>
      <div class="replay-seek">
        <label for=${`${id}-seek`}>Position</label>
        <input id=${`${id}-seek`} type="range" min="0" max=${state.duration_ms} step=${SEEK_STEP_MS} value=${position}
          aria-valuetext=${shownPosition} ...${access}
          onInput=${(/** @type {Event} */ event) => setSeeking(Number(/** @type {HTMLInputElement} */ (event.target).value))}
          onChange=${async (/** @type {Event} */ event) => {
            const to = Number(/** @type {HTMLInputElement} */ (event.target).value);
            setSeeking(to);
            await send({ position_ms: to });
            setSeeking(null);
          }} />
        <output for=${`${id}-seek`} aria-live="off">${shownPosition}</output>
      </div>
      <div class="field">
        <label for=${`${id}-speed`}>Speed</label>
        <select id=${`${id}-speed`} value=${String(state.speed)} ...${access}
          onChange=${(/** @type {Event} */ event) => send({ speed: Number(/** @type {HTMLSelectElement} */ (event.target).value) })}>
          ${speedOptions(state.speed).map((speed) => html`<option value=${String(speed)} ref=${valueAttribute(String(speed))}>${speedLabel(speed)}</option>`)}
        </select>
      </div>
      <div class="field check">
        <label for=${`${id}-loop`}>Loop</label>
        <input id=${`${id}-loop`} type="checkbox" checked=${state.loop} ...${access}
          onChange=${(/** @type {Event} */ event) => send({ loop: /** @type {HTMLInputElement} */ (event.target).checked })} />
      </div>
    </div>
    <p class="muted replay-counts">
      ${state.datagrams.toLocaleString()} datagram${state.datagrams === 1 ? "" : "s"} played${state.loops > 0 ? `, looped ${state.loops.toLocaleString()} time${state.loops === 1 ? "" : "s"}` : ""}.
      ${unknown && html` <span>Where the replay stands is not known now: ${unknown}</span>`}
    </p>
    ${refused && html`<p class="problem" role="alert">The replay did not change: ${refused}</p>`}
  </section>`;
}

/**
 * Gives an option its `value` attribute (Preact sets only the property),
 * which tools and selectors find options by.
 * @param {string} value
 */
function valueAttribute(value) {
  return (/** @type {HTMLOptionElement | null} */ element) => element?.setAttribute("value", value);
}
