// Device commands: one action, with its parameters, to one device
// (POST /nets/{net}/devices/{key}/action) or to several
// (POST /nets/{net}/devices/action), and each device's reply. The last
// commands of each configuration stay listed while the page is open.

import { html, useState, useEffect, useMemo } from "../lib/html.js";
import { get, post, path, ApiError } from "../lib/api.js";
import { Page, Notice, useLoad, useReloadOn, say, formatTime } from "../lib/components.js";
import { useForm, Field, FormFooter, describeFailure, numberOrUndefined, compact } from "../lib/forms.js";
import { href } from "../lib/router.js";

/**
 * The valid device actions (the spec's list) and the parameters each takes
 * (docs/openapi/5.1.json, device_command_body).
 * @type {{value: string, label: string, effect: string, params: string[], warning?: string}[]}
 */
export const ACTIONS = [
  { value: "set_led", label: "Set LED", effect: "Sets a temporary LED behaviour.", params: ["color", "mode", "timeout"] },
  { value: "clear_device_error", label: "Clear device error", effect: "Clears LED behaviour related to errors.", params: [] },
  { value: "get_device_attributes", label: "Get device attributes", effect: "Returns the device's attributes (beacon period, jurisdiction, enclosure colour, SKU).", params: [] },
  { value: "get_property_list", label: "Get property list", effect: "Returns the ids of the device's persistent properties.", params: [] },
  { value: "get_property", label: "Get property", effect: "Returns the value of one persistent property.", params: ["property_id"] },
  { value: "set_property", label: "Set property", effect: "Writes one persistent property; it takes effect after a hard reset.", params: ["property_id", "value"] },
  { value: "soft_reset", label: "Soft reset", effect: "Resets the device's network state without rebooting.", params: [] },
  { value: "hard_reset", label: "Hard reset", effect: "Reboots the device.", params: [], warning: "The device reboots: it stops positioning until it has started again." },
  { value: "ship_mode", label: "Ship mode", effect: "Readies the device for ship mode.", params: [], warning: "The device leaves the network and is readied for shipping; it does not come back by itself." },
];

/** @type {[string, string][]} */
const COLOURS = [["red", "Red"], ["green", "Green"], ["blue", "Blue"], ["magenta", "Magenta"], ["yellow", "Yellow"], ["white", "White"]];
/** @type {[string, string][]} */
const MODES = [["solid", "Solid"], ["flash", "Flashing"]];

const HISTORY_KEPT = 20;
const CHECKBOXES_SHOWN = 200;

/**
 * @typedef {object} Sent
 * @property {number} id
 * @property {number} at
 * @property {string} action
 * @property {Record<string, any>} params
 * @property {string[]} devices
 * @property {string} message
 * @property {number} level
 * @property {{serial_number: string, action: string, outcome: any}[]} replies
 * @property {{serial_number: string, message: string}[]} failures
 * @property {string} [code]   the error's code when the command was refused
 */

/** The commands sent, per configuration, kept while the page is open. @type {Map<string, Sent[]>} */
const histories = new Map();
let nextId = 1;

/**
 * A device's answer, for people.
 * @param {any} outcome
 */
export function describeOutcome(outcome) {
  if (!outcome || typeof outcome !== "object") return String(outcome);
  switch (outcome.result) {
    case "done":
      return "Done";
    case "property_list":
      return outcome.property_ids?.length ? `Property ids: ${outcome.property_ids.join(", ")}` : "No persistent properties";
    case "property":
      return `Property ${outcome.property_id} = ${outcome.value}`;
    case "attributes": {
      const a = outcome.attributes || {};
      const period = Number(a.minimum_beacon_period);
      const ms = Number.isFinite(period) ? ` (${(period / 975).toFixed(period % 975 ? 1 : 0)} ms)` : "";
      return `Minimum beacon period ${a.minimum_beacon_period}${ms}; jurisdiction ${a.jurisdiction}; enclosure ${a.enclosure_colour}; SKU ${a.sku}`;
    }
    default:
      return JSON.stringify(outcome);
  }
}

/** @param {Record<string, any>} params */
function describeParams(params) {
  return Object.entries(params).map(([key, value]) => `${key} ${value}`).join(", ");
}

/**
 * Sends the command the form describes; the answer, or the refusal, is
 * remembered in the history (`remember`). A refusal is thrown on for the
 * form to show, and a configuration found not running is reloaded
 * (`reloadConfig`).
 * @param {string} net
 * @param {Record<string, any>} values  the form's
 * @param {(entry: Sent) => void} remember
 * @param {() => void} reloadConfig
 */
async function sendCommand(net, values, remember, reloadConfig) {
  const chosen = ACTIONS.find((item) => item.value === values.action) || ACTIONS[0];
  /** @type {Record<string, any>} */
  const parameters = {};
  for (const name of chosen.params) {
    parameters[name] = name === "color" || name === "mode" ? values[name] : numberOrUndefined(values[name]);
  }
  const body = compact({ action: chosen.value, ...parameters });
  const several = values.target === "several";
  const targets = several ? values.serial_numbers : [values.device_key];
  if (!several && !values.device_key) {
    throw new ApiError(400, { message: "Choose the device to send the command to.", problems: [{ field: "device_key", problem: "choose a device" }] });
  }
  /** @type {Sent} */
  const entry = { id: nextId++, at: Date.now(), action: chosen.value, params: compact(parameters), devices: targets, message: "", level: 3, replies: [], failures: [] };
  try {
    const answer = several
      ? await post(path`/nets/${net}/devices/action`, { ...body, serial_numbers: values.serial_numbers })
      : await post(path`/nets/${net}/devices/${values.device_key}/action`, body);
    entry.message = answer.message;
    entry.level = answer.level;
    entry.replies = answer.body.status?.replies || [];
    entry.failures = answer.body.status?.failures || [];
    remember(entry);
    say(answer.message, answer.level);
  } catch (failure) {
    entry.message = describeFailure(failure).message;
    entry.level = 1;
    entry.code = failure instanceof ApiError ? failure.code : "";
    remember(entry);
    if (entry.code === "configuration_not_running") reloadConfig();
    if (failure instanceof ApiError) {
      // A problem of the request as a whole repeats the message: show it once.
      failure.problems = failure.problems.filter((item) => item.field || item.problem !== failure.message);
    }
    throw failure;
  }
}

/** @param {{params: Record<string, string>, query: URLSearchParams}} props */
export default function View({ params, query }) {
  const net = params.net;
  const devices = useLoad(() => get(path`/nets/${net}/devices`), [net]);
  const roles = useLoad(() => get(path`/nets/${net}/roles`), [net]);
  const config = useLoad(() => get(path`/nets/${net}`), [net]);
  useReloadOn(devices.reload, ["change"], net);
  useReloadOn(roles.reload, ["change"], net);
  useReloadOn(config.reload, ["state"], net);

  const [history, setHistory] = useState(/** @type {Sent[]} */ (histories.get(net) || []));
  const [last, setLast] = useState(/** @type {Sent | null} */ (null));

  const preset = query.get("devices");
  const form = useForm({
    target: preset ? "several" : "one",
    device_key: query.get("device") || "",
    serial_numbers: preset ? preset.split(",").filter(Boolean) : [],
    action: query.get("action") && ACTIONS.some((item) => item.value === query.get("action")) ? query.get("action") : "set_led",
    color: "green",
    mode: "solid",
    timeout: "30",
    property_id: "",
    value: "",
  });
  form.register("serial_numbers");

  const roleNames = useMemo(() => new Map((roles.data?.roles || []).map((/** @type {any} */ role) => [role.id, role.name])), [roles.data]);
  /** @type {{serial_number: string, name: string | null, disabled: boolean, label: string, search: string}[]} */
  const deviceList = useMemo(() => (devices.data?.devices || []).map((/** @type {any} */ device) => {
    const faces = [...new Set(device.interfaces.map((/** @type {any} */ face) => roleNames.get(face.role_id) || `role ${face.role_id}`))].join(", ");
    const label = `${device.serial_number}${device.name ? ` (${device.name})` : ""} · ${faces}${device.disabled ? " · disabled" : ""}`;
    return { serial_number: device.serial_number, name: device.name, disabled: device.disabled, label, search: label.toUpperCase() };
  }), [devices.data, roleNames]);

  const state = config.data?.configuration?.state;
  const running = state === "running";
  const action = ACTIONS.find((item) => item.value === form.values.action) || ACTIONS[0];

  /** @param {Sent} entry */
  const remember = (entry) => {
    const next = [entry, ...(histories.get(net) || [])].slice(0, HISTORY_KEPT);
    histories.set(net, next);
    setHistory(next);
    setLast(entry);
  };

  const send = form.submit((values) => sendCommand(net, values, remember, config.reload));

  const refusedNotRunning = last?.code === "configuration_not_running";
  return html`<${Page} title="Device commands" view="commands">
    ${(config.data ? !running : refusedNotRunning) && html`<${Notice} level=${refusedNotRunning ? 1 : 2}>
      <p><strong>${net} is not running${state && state !== "running" ? ` (${state})` : ""}.</strong>${" "}
        Device commands go to the devices of a running configuration${refusedNotRunning ? "; the server refused this one (configuration_not_running)" : ""}.</p>
      <p><a class="button" href=${href("nets", net)}>Go to the overview to start it</a></p>
    <//>`}
    ${devices.error && html`<${Notice} level=${1}>
      <p>${describeFailure(devices.error).message}</p>
      <button type="button" onClick=${devices.reload}>Try again</button>
    <//>`}
    <section aria-labelledby="commands-form">
      <h2 id="commands-form">Command</h2>
      <form onSubmit=${send}>
        <div class="form-grid">
          <${Field} form=${form} name="target" label="Send to" kind="select"
            options=${[["one", "One device"], ["several", "Several devices"]]} />
          <${Field} form=${form} name="action" label="Action" kind="select"
            options=${ACTIONS.map((item) => /** @type {[string, string]} */ ([item.value, item.label]))} hint=${action.effect} />
        </div>
        ${form.values.target === "one"
          ? html`<${Field} form=${form} name="device_key" label="Device" kind="select"
              options=${[["", deviceList.length ? "Choose a device…" : devices.data ? "This configuration has no devices" : "Loading…"],
                ...deviceList.map((device) => /** @type {[string, string]} */ ([device.serial_number, device.label]))]} />`
          : html`<${DevicePicker} form=${form} devices=${deviceList} />`}
        ${action.params.length > 0 && html`<div class="form-grid">
          ${action.params.includes("color") && html`<${Field} form=${form} name="color" label="Colour" kind="select" options=${COLOURS} required />`}
          ${action.params.includes("mode") && html`<${Field} form=${form} name="mode" label="Mode" kind="select" options=${MODES} />`}
          ${action.params.includes("timeout") && html`<${Field} form=${form} name="timeout" label="Timeout (s)" kind="number" step="1" hint="5 to 1800 seconds; 30 when empty" />`}
          ${action.params.includes("property_id") && html`<${Field} form=${form} name="property_id" label="Property id" kind="number" step="1" required />`}
          ${action.params.includes("value") && html`<${Field} form=${form} name="value" label="Value" kind="number" step="1" required hint="An integer; it takes effect after a hard reset" />`}
        </div>`}
        ${action.warning && html`<${Notice} level=${2}><p>${action.label}: ${action.warning}</p><//>`}
        <${FormFooter} form=${form} submitLabel="Send command" request=${["POST", form.values.target === "several"
          ? path`/nets/${net}/devices/action`
          : path`/nets/${net}/devices/${form.values.device_key || "device"}/action`]} />
      </form>
    </section>
    ${last && last.level !== 1 && html`<section aria-labelledby="commands-reply">
      <h2 id="commands-reply">Reply</h2>
      <${Reply} entry=${last} />
    </section>`}
    <${History} history=${history} onClear=${() => {
      histories.delete(net);
      setHistory([]);
    }} />
  <//>`;
}

/**
 * The commands sent from this page to the configuration, newest first, each
 * with its result and, folded, each device's reply or failure.
 * @param {{history: Sent[], onClear: () => void}} props
 */
function History({ history, onClear }) {
  return html`<section aria-labelledby="commands-history">
    <div class="page-header" style=${{ marginBottom: 0 }}>
      <h2 id="commands-history">History</h2>
      ${history.length > 0 && html`<button type="button" onClick=${onClear}>Clear history</button>`}
    </div>
    ${history.length === 0
      ? html`<p class="muted">No command sent yet from this page.</p>`
      : html`<div class="table-wrap">
        <table>
          <thead><tr>
            <th scope="col">Sent</th><th scope="col">Action</th><th scope="col">Devices</th><th scope="col">Result</th>
          </tr></thead>
          <tbody>
            ${history.map((entry) => html`<tr key=${entry.id}>
              <td>${formatTime(entry.at)}</td>
              <td><code>${entry.action}</code>${Object.keys(entry.params).length > 0 && html`<br /><span class="muted">${describeParams(entry.params)}</span>`}</td>
              <td>${entry.devices.length <= 3 ? entry.devices.join(", ") : `${entry.devices.length} devices`}</td>
              <td>
                <span class=${`badge ${entry.level === 1 ? "error" : entry.level === 2 ? "" : "ok"}`}>${entry.level === 1 ? "refused" : entry.level === 2 ? "partly" : "done"}</span>
                ${" "}${entry.message}
                ${(entry.replies.length + entry.failures.length > 0) && html`<details>
                  <summary>Replies (${entry.replies.length}) and failures (${entry.failures.length})</summary>
                  <${Outcomes} entry=${entry} />
                </details>`}
              </td>
            </tr>`)}
          </tbody>
        </table>
      </div>`}
  </section>`;
}

/**
 * The choice of several devices: a filter and a checkbox per device.
 * @param {{form: import("../lib/forms.js").Form, devices: {serial_number: string, label: string, search: string}[]}} props
 */
function DevicePicker({ form, devices }) {
  const [filter, setFilter] = useState("");
  const wanted = filter.trim().toUpperCase();
  const matching = wanted ? devices.filter((device) => device.search.includes(wanted)) : devices;
  /** @type {string[]} */
  const selected = form.values.serial_numbers;
  const chosen = new Set(selected);
  /** @param {string[]} next */
  const choose = (next) => form.set("serial_numbers", next);
  const problem = form.problems.serial_numbers;
  // Keeps only devices that still exist (after a reload).
  useEffect(() => {
    if (!devices.length) return;
    const known = new Set(devices.map((device) => device.serial_number));
    if (selected.some((serial) => !known.has(serial))) choose(selected.filter((serial) => known.has(serial)));
  }, [devices]);
  return html`<fieldset class=${problem ? "invalid" : ""} style=${{ border: "1px solid var(--line)", borderRadius: "var(--radius)", margin: "0 0 .75rem", maxWidth: "48rem" }}
      aria-describedby=${problem ? "commands-devices-problem" : undefined}>
    <legend style=${{ fontWeight: 600 }}>Devices (${selected.length} chosen)</legend>
    <div class="toolbar">
      <div class="field" style=${{ margin: 0, flex: "1 1 14rem" }}>
        <label for="commands-device-filter">Find devices</label>
        <input id="commands-device-filter" type="search" value=${filter} placeholder="serial number, name or role"
          onInput=${(/** @type {Event} */ event) => setFilter(/** @type {HTMLInputElement} */ (event.target).value)} />
      </div>
      <button type="button" onClick=${() => choose([...new Set([...selected, ...matching.map((device) => device.serial_number)])])}>
        Select all shown (${matching.length})
      </button>
      <button type="button" onClick=${() => choose([])} disabled=${selected.length === 0}>Clear selection</button>
    </div>
    <ul style=${{ listStyle: "none", margin: 0, padding: 0, maxHeight: "16rem", overflowY: "auto" }}>
      ${matching.slice(0, CHECKBOXES_SHOWN).map((device) => html`<li key=${device.serial_number}>
        <label style=${{ display: "flex", gap: ".5rem", alignItems: "center", padding: ".1rem 0" }}>
          <input type="checkbox" checked=${chosen.has(device.serial_number)}
            onChange=${(/** @type {Event} */ event) => {
              const on = /** @type {HTMLInputElement} */ (event.target).checked;
              choose(on ? [...selected, device.serial_number] : selected.filter((serial) => serial !== device.serial_number));
            }} />
          ${device.label}
        </label>
      </li>`)}
    </ul>
    ${matching.length > CHECKBOXES_SHOWN && html`<p class="muted">${matching.length - CHECKBOXES_SHOWN} more match: narrow the search, or use Select all shown.</p>`}
    ${matching.length === 0 && html`<p class="muted">${devices.length ? "No device matches." : "This configuration has no devices."}</p>`}
    ${problem && html`<p id="commands-devices-problem" class="problem" role="alert">${problem}</p>`}
  </fieldset>`;
}

/** @param {{entry: Sent}} props */
function Reply({ entry }) {
  return html`<${Notice} level=${entry.level}>
      <p>${entry.message}</p>
    <//>
    ${(entry.replies.length + entry.failures.length > 0) && html`<${Outcomes} entry=${entry} />`}`;
}

/** @param {{entry: Sent}} props */
function Outcomes({ entry }) {
  return html`<div class="table-wrap" style=${{ maxHeight: "24rem" }}>
    <table>
      <thead><tr><th scope="col">Device</th><th scope="col">Outcome</th></tr></thead>
      <tbody>
        ${entry.failures.map((failure) => html`<tr key=${"f" + failure.serial_number}>
          <td class="mono">${failure.serial_number}</td>
          <td><span class="badge error">failed</span> ${failure.message}</td>
        </tr>`)}
        ${entry.replies.map((reply) => html`<tr key=${"r" + reply.serial_number}>
          <td class="mono">${reply.serial_number}</td>
          <td><span class="badge ok">replied</span> ${describeOutcome(reply.outcome)}</td>
        </tr>`)}
      </tbody>
    </table>
  </div>`;
}
