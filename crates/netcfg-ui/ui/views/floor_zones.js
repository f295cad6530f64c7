// The floor plan's zones (decisions §13), beside views/floor.js: the zones
// of the configuration and who is inside each now (kept from the `zone`
// events, asked again from `/occupancy` when the view opens, when the zones
// change and after a resync), the toolbar that draws a new one, and the
// panel listing the zones and the latest enters and exits. The forms are
// views/zone_forms.js's; the plan's drawing is lib/zone_layer.js's. Not a
// view of its own: floor.js imports it.

import { html, useState, useEffect, useMemo, useRef } from "../lib/html.js";
import { get, path } from "../lib/api.js";
import { Notice, useLoad, useLive, useReloadOn } from "../lib/components.js";
import { describeFailure } from "../lib/forms.js";
import { shortTime } from "../lib/format.js";
import { Occupancy, MIN_POINTS } from "../lib/zones.js";

/** @typedef {import("../lib/types.js").Zone} Zone */
/** @typedef {import("../lib/types_events.js").ZoneEvent} ZoneEvent */

/** How many `/occupancy` questions are under way at once. */
const ASKING_AT_ONCE = 4;

/**
 * The zones of `net` and who is inside them. `version` changes whenever
 * the occupancy does (at most every 100 ms), so what shows it re-renders.
 * @param {string} net
 * @param {boolean} running  only a running network has occupants to ask for
 * @param {() => void} [changed]  called at once on each change of the occupancy (the plan redraws)
 */
export function useZones(net, running, changed) {
  const list = useLoad(async () => /** @type {Zone[]} */ ((await get(path`/nets/${net}/zones`)).zones), [net]);
  useReloadOn(list.reload, ["change"], net);
  const book = useMemo(() => new Occupancy(), [net]);
  const [version, setVersion] = useState(0);
  const [askAgain, setAskAgain] = useState(0);
  const timer = useRef(/** @type {number | undefined} */ (undefined));
  const latestChanged = useRef(changed);
  latestChanged.current = changed;

  /** Re-renders soon (once for a burst of events); the plan redraws now. */
  function bump() {
    latestChanged.current?.();
    if (timer.current !== undefined) return;
    timer.current = setTimeout(() => {
      timer.current = undefined;
      setVersion((value) => value + 1);
    }, 100);
  }
  useEffect(() => () => clearTimeout(timer.current), []);

  const zones = list.data || [];
  const names = zones.map((zone) => zone.name);
  const nameKey = names.join("\n");
  useEffect(() => {
    book.retain(names);
    if (!running) {
      book.empty();
      bump();
      return undefined;
    }
    const controller = new AbortController();
    const queue = [...names];
    async function askNext() {
      for (let name = queue.shift(); name !== undefined && !controller.signal.aborted; name = queue.shift()) {
        const token = book.ask();
        try {
          const body = await get(path`/nets/${net}/zones/${name}/occupancy`);
          if (controller.signal.aborted) book.forget(token);
          else book.settle(name, body.occupancy || [], token);
        } catch {
          // Stopped meanwhile (409), or deleted (404): the events and the next reload tell.
          book.forget(token);
        }
        bump();
      }
    }
    for (let at = 0; at < Math.min(ASKING_AT_ONCE, queue.length); at += 1) askNext();
    return () => controller.abort();
  }, [net, running, nameKey, askAgain]);

  useLive(["zone"], (data, type) => {
    if (type === "resync") setAskAgain((value) => value + 1);
    else if (type === "zone") {
      book.apply(/** @type {ZoneEvent} */ (data));
      bump();
    }
  }, net);

  return { zones, list, book, version };
}

/**
 * The toolbar's part for zones: "Draw zone", and while drawing what to do
 * next, with buttons for the keys. `access` disables "Draw zone", with the
 * reason, for a role that may not create a zone.
 * @param {{drawing: boolean, points: number, disabled: boolean, onStart: () => void, onFinish: () => void, onUndo: () => void, onCancel: () => void,
 *   access?: {disabled?: boolean, title?: string}}} props
 */
export function ZoneTools({ drawing, points, disabled, onStart, onFinish, onUndo, onCancel, access }) {
  if (!drawing) {
    return html`<button type="button" onClick=${onStart} disabled=${disabled}
      title="Draw a new zone on the plan, point by point" ...${access || {}}>Draw zone</button>`;
  }
  return html`<span class="zone-drawing" role="status">
    <strong>Drawing a zone:</strong> ${points} point${points === 1 ? "" : "s"}.
    ${points < MIN_POINTS
      ? ` Click on the plan to add points (at least ${MIN_POINTS}).`
      : " Click the first point, double-click or press Enter to close it."} Escape cancels.
  </span>
  <button type="button" onClick=${onFinish} disabled=${points < MIN_POINTS}>Close outline</button>
  <button type="button" onClick=${onUndo} disabled=${points === 0}>Undo point</button>
  <button type="button" onClick=${onCancel}>Cancel drawing</button>`;
}

/**
 * The zones with their points and occupants, and the latest events.
 * @param {{zones: Zone[], book: Occupancy, running: boolean, selected: string | null, onSelect: (name: string | null) => void,
 *   names: Map<string, string | null>, failure: unknown}} props
 */
export function ZonePanel({ zones, book, running, selected, onSelect, names, failure }) {
  return html`<section aria-labelledby="floor-zones" class="zone-panel">
    <h2 id="floor-zones">Zones</h2>
    ${failure && html`<${Notice} level=${1}><p>${describeFailure(failure).message}</p><//>`}
    ${!running && zones.length > 0 && html`<p class="muted">Nobody is counted inside while the configuration is stopped.</p>`}
    ${zones.length > 0 ? html`<div class="table-wrap" style=${{ maxHeight: "22rem" }}>
      <table>
        <caption class="muted" style=${{ textAlign: "left", padding: ".25rem .6rem" }}>
          ${zones.length} zone${zones.length === 1 ? "" : "s"}; select one to edit it, or click it on the plan.</caption>
        <thead><tr><th scope="col">Zone</th><th scope="col" class="number">Points</th><th scope="col" class="number">Inside</th><th scope="col">Tags inside</th></tr></thead>
        <tbody>
          ${zones.map((zone) => {
            const count = book.count(zone.name);
            const chosen = zone.name === selected;
            return html`<tr key=${zone.name} class=${`${chosen ? "selected" : ""} ${count > 0 ? "occupied" : ""}`}>
              <td><button type="button" class="inline" aria-pressed=${chosen ? "true" : "false"} title="Select on the plan"
                onClick=${() => onSelect(chosen ? null : zone.name)}>${zone.name}</button></td>
              <td class="number">${zone.polygon.length}</td>
              <td class="number"><span class=${`badge ${count > 0 ? "occupied" : ""}`} aria-label=${`${count} inside`}>${count}</span></td>
              <td>${book.tags(zone.name).map((serial) => tagLabel(serial, names)).join(", ") || html`<span class="muted">–</span>`}</td>
            </tr>`;
          })}
        </tbody>
      </table>
    </div>` : html`<p class="muted">No zones yet: use Draw zone above the plan.</p>`}
    <${ZoneEvents} events=${book.latest} names=${names} />
  </section>`;
}

/**
 * @param {string} serial @param {Map<string, string | null>} names
 */
function tagLabel(serial, names) {
  const name = names.get(serial);
  return name ? `${serial} (${name})` : serial;
}

/**
 * The latest enters and exits, newest first.
 * @param {{events: ZoneEvent[], names: Map<string, string | null>}} props
 */
function ZoneEvents({ events, names }) {
  return html`<section aria-labelledby="floor-zone-events">
    <h3 id="floor-zone-events">Latest zone events</h3>
    ${events.length > 0 ? html`<div class="table-wrap" style=${{ maxHeight: "22rem" }}>
      <table>
        <thead><tr><th scope="col">Time</th><th scope="col">Tag</th><th scope="col">Event</th><th scope="col">Zone</th></tr></thead>
        <tbody>
          ${events.map((event) => html`<tr key=${`${event.time_ms}-${event.zone}-${event.serial_number}-${event.event}`}>
            <td class="nowrap">${shortTime(event.time_ms)}</td>
            <td>${tagLabel(event.serial_number, names)}</td>
            <td><span class=${`badge ${event.event === "enter" ? "occupied" : ""}`}>${event.event === "enter" ? "enter" : "exit"}</span></td>
            <td>${event.zone}</td>
          </tr>`)}
        </tbody>
      </table>
    </div>` : html`<p class="muted">No tag has entered or left a zone since this view opened.</p>`}
  </section>`;
}
