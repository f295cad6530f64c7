// Device pairs of a configuration: two devices that range with each other
// (twr) or ignore each other (blacklist). Pairs are created and deleted in
// batches: 201/200 all done, 206 some (level 2), 409 all existed already,
// 417 none could be. The API says each failed pair's reason in its message
// ("A-B (type): reason", joined by "; "); this view reads it back into one
// outcome per pair.

import { html, useState } from "../lib/html.js";
import { call, path, ApiError } from "../lib/api.js";
import { Page, Loaded, Notice, useLoad, useReloadOn, act, say } from "../lib/components.js";
import { useForm, Field, FormFooter } from "../lib/forms.js";
import { href } from "../lib/router.js";
import { may } from "../lib/access.js";

/** @typedef {{serial_number_1: string, serial_number_2: string, type: string}} PairBody */
/** @typedef {{pair: PairBody, ok: boolean, text: string}} Outcome */
/** @typedef {{verb: string, status: number, message: string, level: number, outcomes: Outcome[]}} Batch */

const TYPES = /** @type {[string, string][]} */ ([
  ["twr", "Two-way ranging (twr)"],
  ["blacklist", "Ignore each other (blacklist)"],
]);

/** Serial numbers as the API returns them: upper case, XX:XX:XXXX. @param {string} serial */
function normal(serial) {
  const text = String(serial).trim().toUpperCase();
  return /^[0-9A-F]{8}$/.test(text) ? `${text.slice(0, 2)}:${text.slice(2, 4)}:${text.slice(4)}` : text;
}

/** @param {PairBody} pair */
const pairKey = (pair) => `${normal(pair.serial_number_1)}-${normal(pair.serial_number_2)} (${pair.type})`;

/**
 * Each pair's outcome, read from the API's message.
 * @param {PairBody[]} pairs
 * @param {string} message
 * @param {boolean} allFailed
 * @param {string} verb  created or deleted
 * @returns {Outcome[]}
 */
function outcomesOf(pairs, message, allFailed, verb) {
  /** @type {Map<string, string>} */
  const failures = new Map();
  for (const part of message.replace(/^no pairs? \w+: /, "").split("; ")) {
    const found = /^([0-9A-F]{2}:[0-9A-F]{2}:[0-9A-F]{4}-[0-9A-F]{2}:[0-9A-F]{2}:[0-9A-F]{4} \(\w+\)): (.+)$/.exec(part);
    if (found) failures.set(found[1], found[2]);
  }
  return pairs.map((pair) => {
    const reason = failures.get(pairKey(pair));
    if (reason !== undefined) return { pair, ok: false, text: reason };
    return allFailed ? { pair, ok: false, text: "not " + verb } : { pair, ok: true, text: verb };
  });
}

/**
 * Creates (POST) or deletes (DELETE) pairs; resolves with the batch's
 * outcome, or rejects with the API's error after calling `done` with the
 * outcome when the API answered for each pair (409, 417).
 * @param {string} net
 * @param {"POST"|"DELETE"} method
 * @param {PairBody[]} pairs
 * @param {(batch: Batch) => void} done
 */
async function runBatch(net, method, pairs, done) {
  const verb = method === "POST" ? "created" : "deleted";
  try {
    const answer = await call(method, path`/nets/${net}/device_pairs`, { body: { pairs } });
    const batch = { verb, status: answer.status, message: answer.message, level: answer.level, outcomes: outcomesOf(pairs, answer.message, false, verb) };
    done(batch);
    return answer;
  } catch (failure) {
    if (failure instanceof ApiError && (failure.status === 409 || failure.status === 417)) {
      done({ verb, status: failure.status, message: failure.message, level: 1, outcomes: outcomesOf(pairs, failure.message, true, verb) });
    }
    throw failure;
  }
}

/** @param {{params: Record<string, string>, query: URLSearchParams}} props */
export default function View({ params }) {
  const net = params.net;
  const load = useLoad(async (signal) => {
    const [pairs, devices] = await Promise.all([
      call("GET", path`/nets/${net}/device_pairs`, { signal }),
      call("GET", path`/nets/${net}/devices`, { signal }),
    ]);
    return { pairs: /** @type {any[]} */ (pairs.body.pairs || []), devices: /** @type {any[]} */ (devices.body.devices || []) };
  }, [net]);
  useReloadOn(load.reload, ["change"], net);
  const [batch, setBatch] = useState(/** @type {Batch | null} */ (null));
  const [selected, setSelected] = useState(/** @type {Set<string>} */ (new Set()));
  /** @param {"POST"|"DELETE"} method @param {PairBody[]} pairs */
  const run = (method, pairs) => runBatch(net, method, pairs, setBatch);
  return html`<${Page} title="Device pairs" view="pairs">
    <p class="muted">Pairs of devices (their interface 0) that range with each other (two-way ranging) or ignore each other.</p>
    <${Loaded} load=${load}>${(/** @type {{pairs: any[], devices: any[]}} */ { pairs, devices }) => {
      const names = new Map(devices.map((device) => [device.serial_number, device.name]));
      /** @param {string} serial */
      const who = (serial) => html`<span class="mono">${serial}</span>${names.get(serial) ? html` <span class="muted">${names.get(serial)}</span>` : ""}`;
      const keys = pairs.map((pair) => pairKey(pair));
      const chosen = pairs.filter((pair) => selected.has(pairKey(pair)));
      return html`
        ${batch && html`<${BatchOutcome} batch=${batch} onClose=${() => setBatch(null)} />`}
        <h2>Pairs</h2>
        ${pairs.length === 0
          ? html`<p class="muted">No pairs yet.</p>`
          : html`<div class="toolbar">
              <button type="button" class="danger" disabled=${chosen.length === 0} ...${may("DELETE", path`/nets/${net}/device_pairs`)}
                onClick=${async () => {
                  const body = chosen.map((pair) => ({ serial_number_1: pair.serial_number_1, serial_number_2: pair.serial_number_2, type: pair.type }));
                  if (await act(() => run("DELETE", body))) setSelected(new Set());
                  load.reload();
                }}>Delete selected (${chosen.length})</button>
            </div>
            <div class="table-wrap"><table>
              <thead><tr>
                <th scope="col"><input type="checkbox" aria-label="Select every pair"
                  checked=${chosen.length === pairs.length}
                  onChange=${(/** @type {Event} */ event) => setSelected(new Set(/** @type {HTMLInputElement} */ (event.target).checked ? keys : []))} /></th>
                <th scope="col">First device</th><th scope="col">Second device</th><th scope="col">Type</th><th scope="col">Actions</th>
              </tr></thead>
              <tbody>${pairs.map((pair) => {
                const key = pairKey(pair);
                const label = `${pair.serial_number_1} and ${pair.serial_number_2} (${pair.type})`;
                return html`<tr key=${key} class=${selected.has(key) ? "selected" : ""} data-pair=${key}>
                  <td><input type="checkbox" aria-label=${`Select pair ${label}`} checked=${selected.has(key)}
                    onChange=${(/** @type {Event} */ event) => {
                      const next = new Set(selected);
                      if (/** @type {HTMLInputElement} */ (event.target).checked) next.add(key);
                      else next.delete(key);
                      setSelected(next);
                    }} /></td>
                  <td>${who(pair.serial_number_1)}</td>
                  <td>${who(pair.serial_number_2)}</td>
                  <td>${TYPES.find(([value]) => value === pair.type)?.[1] || pair.type}</td>
                  <td><button type="button" class="danger" aria-label=${`Delete pair ${label}`} ...${may("DELETE", path`/nets/${net}/device_pairs`)}
                    onClick=${async () => {
                      await act(() => run("DELETE", [{ serial_number_1: pair.serial_number_1, serial_number_2: pair.serial_number_2, type: pair.type }]));
                      load.reload();
                    }}>Delete</button></td>
                </tr>`;
              })}</tbody>
            </table></div>`}
        <${CreatePairs} devices=${devices} net=${net} run=${run} reload=${load.reload} />
      `;
    }}<//>
  <//>`;
}

/**
 * The last batch's outcome, pair by pair.
 * @param {{batch: Batch, onClose: () => void}} props
 */
function BatchOutcome({ batch, onClose }) {
  const level = batch.status === 206 ? 2 : batch.status >= 400 ? 1 : 3;
  const summary = batch.message.split("; ")[0];
  return html`<section aria-labelledby="outcome-title" data-outcome=${batch.status}>
    <${Notice} level=${level}>
      <h2 id="outcome-title" style=${{ margin: ".2rem 0" }}>Outcome (${batch.status}): ${summary}</h2>
      <ul>${batch.outcomes.map((outcome) => html`<li key=${pairKey(outcome.pair)}>
        <span class="mono">${pairKey(outcome.pair)}</span>${": "}<span class=${`badge ${outcome.ok ? "ok" : "error"}`}>${outcome.ok ? batch.verb : "failed"}</span>
        ${!outcome.ok && html` ${outcome.text}`}
      </li>`)}</ul>
      <button type="button" onClick=${onClose}>Dismiss outcome</button>
    <//>
  </section>`;
}

/**
 * The form that pairs devices: one or more rows, sent as one batch. Field
 * names are the body's paths (`pairs[0].serial_number_1`).
 * @param {{devices: any[], net: string, run: (method: "POST"|"DELETE", pairs: PairBody[]) => Promise<any>, reload: () => void}} props
 */
function CreatePairs({ devices, net, run, reload }) {
  const [rows, setRows] = useState(1);
  const form = useForm({ "pairs[0].serial_number_1": "", "pairs[0].serial_number_2": "", "pairs[0].type": "twr" });
  /** @type {[string, string][]} */
  const options = [["", "Choose a device"], ...devices.map((device) => /** @type {[string, string]} */ ([device.serial_number, `${device.serial_number}${device.name ? ` ${device.name}` : ""}`]))];
  return html`<section aria-labelledby="create-pairs-title">
    <h2 id="create-pairs-title">Pair devices</h2>
    ${devices.length < 2 && html`<${Notice} level=${3}><p>Pairs join two devices of this configuration: <a href=${href("nets", net, "devices")}>add devices</a> first.</p><//>`}
    <form noValidate onSubmit=${form.submit(async (values) => {
      /** @type {PairBody[]} */
      const pairs = [];
      for (let index = 0; index < rows; index += 1) {
        pairs.push({
          serial_number_1: values[`pairs[${index}].serial_number_1`] || "",
          serial_number_2: values[`pairs[${index}].serial_number_2`] || "",
          type: values[`pairs[${index}].type`] || "twr",
        });
      }
      const answer = await run("POST", pairs);
      say(answer.message, answer.level);
      if (answer.status === 201) {
        // Every pair was made: the form starts again; otherwise it keeps the rows.
        setRows(1);
        form.reset({ "pairs[0].serial_number_1": "", "pairs[0].serial_number_2": "", "pairs[0].type": "twr" });
      }
      reload();
    })}>
      ${Array.from({ length: rows }, (_, index) => {
        const suffix = rows > 1 ? ` (pair ${index + 1})` : "";
        return html`<fieldset key=${index} class="form-grid" style=${{ border: "none", padding: 0, margin: 0 }}>
          <legend class="muted" style=${{ padding: 0 }}>${rows > 1 ? `Pair ${index + 1}` : ""}</legend>
          <${Field} form=${form} name=${`pairs[${index}].serial_number_1`} label=${`First device${suffix}`} kind="select" options=${options} />
          <${Field} form=${form} name=${`pairs[${index}].serial_number_2`} label=${`Second device${suffix}`} kind="select" options=${options} />
          <${Field} form=${form} name=${`pairs[${index}].type`} label=${`Pair type${suffix}`} kind="select" options=${TYPES} />
        </fieldset>`;
      })}
      <div class="toolbar">
        <button type="button" onClick=${() => {
          form.set(`pairs[${rows}].type`, "twr");
          setRows(rows + 1);
        }}>Add another pair</button>
        ${rows > 1 && html`<button type="button" onClick=${() => setRows(rows - 1)}>Remove the last pair</button>`}
      </div>
      <${FormFooter} form=${form} submitLabel=${rows > 1 ? `Create ${rows} pairs` : "Create pair"} request=${["POST", path`/nets/${net}/device_pairs`]} />
    </form>
  </section>`;
}
