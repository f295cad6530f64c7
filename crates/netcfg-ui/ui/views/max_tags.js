// The maximum-tag calculator (docs/max-tags.md): how many tags one coverage
// area carries at a rate. From parameters (POST /calculate_maximum_tags) or
// from a configuration's tag role (POST /nets/{net}/calculate_maximum_tags).
// Problems of single values (400) and conflicts between values (409
// inputs_conflict) show beside the fields they name.

import { html, useState, useEffect, useId } from "../lib/html.js";
import { ApiError, call, post, path } from "../lib/api.js";
import { Page, Loaded, Notice, useLoad, say } from "../lib/components.js";
import { useForm, Field, FormFooter, numberOrUndefined, compact } from "../lib/forms.js";
import { setQuery, href } from "../lib/router.js";

/** @typedef {import("../lib/types.js").MaxTagsResult} MaxTagsResult */

/** Network time units per second (domain.md). */
const UNITS_PER_SECOND = 975_000;

/** The required inputs, with the public figure's values (docs/max-tags.md, example 1). */
const REQUIRED = [
  { name: "number_of_seeders", label: "Number of seeders", value: "4", period: false },
  { name: "seeder_period", label: "Seeder period", value: "97500", period: true },
  { name: "tag_period", label: "Tag period", value: "97500", period: true },
  { name: "maximum_tag_period", label: "Maximum tag period", value: "48750", period: true },
];

/** Optional periods: empty (or 0) is off. */
const SENSORS = [
  { name: "accelerometer_period", label: "Accelerometer period" },
  { name: "gyroscope_period", label: "Gyroscope period" },
  { name: "magnetometer_period", label: "Magnetometer period" },
  { name: "quaternion_period", label: "Quaternion period" },
  { name: "pressure_period", label: "Pressure period" },
  { name: "temperature_period", label: "Temperature period" },
  { name: "user_data_period", label: "User data period" },
];

const LIMITS = {
  airtime: {
    label: "Airtime",
    text: "The tags' slots fill the airtime the seeders leave.",
  },
  maximum_tag_period: {
    label: "Maximum tag period",
    text: "The network schedules in cycles of the maximum tag period. The tag period is not a whole number of cycles, so tags beacon at the whole number of cycles below it (the effective tag period), and fewer fit than the tag period alone would allow.",
  },
  seeders: {
    label: "Seeders",
    text: "The seeders' timing packets alone fill the channel (too many seeders, or too short a seeder period), so no tag fits.",
  },
};

const MODES = { multitime: "MultiTime (one beacon per location)", multirange: "MultiRange (a ranging exchange per location)" };

/**
 * A number for people: grouped digits, at most `digits` decimals.
 * @param {number} value
 * @param {number} [digits]
 */
function figure(value, digits = 3) {
  return Number(value).toLocaleString(undefined, { maximumFractionDigits: digits });
}

/**
 * A period in network time units, in milliseconds and hertz.
 * @param {any} text
 * @param {boolean} [optional]  empty and 0 mean off
 */
function describePeriod(text, optional = true) {
  if (text === "" || text === undefined || text === null) return optional ? "Empty: off." : "Required, in units of 1/975,000 s.";
  const units = Number(text);
  if (!Number.isFinite(units) || units < 0) return "In units of 1/975,000 s.";
  if (units === 0) return optional ? "0: off" : "0 units";
  const ms = (units / UNITS_PER_SECOND) * 1000;
  const hz = UNITS_PER_SECOND / units;
  return `${figure(units, 0)} units = ${figure(ms)} ms (${figure(hz, 2)} Hz)`;
}

/**
 * The API names each conflicting field in `problems` (a 409
 * inputs_conflict, as a 400 does); an unknown RF setting (a 404) concerns
 * the RF setting field, so its message goes there.
 * @param {unknown} failure
 */
function withConflictProblems(failure) {
  if (failure instanceof ApiError && failure.code === "rf_setting_not_found" && failure.problems.length === 0) {
    failure.problems = [{ field: "settings", problem: failure.message }];
  }
  return failure;
}

/** @param {{params: Record<string, string>, query: URLSearchParams}} props */
export default function View({ query }) {
  const from = query.get("from") === "role" || query.get("net") ? "role" : "parameters";
  const [outcome, setOutcome] = useState(/** @type {{result: MaxTagsResult, about: string} | null} */ (null));
  const radioName = useId();
  // The status line says the figure; bring the whole result into view.
  useEffect(() => {
    if (outcome) document.getElementById("max-tags-result")?.scrollIntoView({ block: "start" });
  }, [outcome]);
  return html`<${Page} title="Maximum tags" view="max_tags">
    <p>How many tags one coverage area carries at a rate, and what limits it.
      Periods are in network time units of 1/975,000 s: 975 = 1 ms, 97,500 = 100 ms (10 Hz).</p>
    <fieldset style=${{ border: "none", padding: 0, margin: "0 0 1rem" }}>
      <legend style=${{ fontWeight: 600, marginBottom: ".25rem" }}>Calculate from</legend>
      <div class="toolbar">
        <label><input type="radio" name=${radioName} value="parameters" checked=${from === "parameters"}
          onChange=${() => setQuery({ from: null, net: null })} /> Parameters</label>
        <label><input type="radio" name=${radioName} value="role" checked=${from === "role"}
          onChange=${() => setQuery({ from: "role" })} /> A configuration's tag role</label>
      </div>
    </fieldset>
    ${from === "role"
      ? html`<${RoleForm} key="role" initialNet=${query.get("net") || ""} done=${setOutcome} />`
      : html`<${ParametersForm} key="parameters" done=${setOutcome} />`}
    ${outcome && html`<${Result} result=${outcome.result} about=${outcome.about} />`}
  <//>`;
}

/** @param {{done: (outcome: {result: MaxTagsResult, about: string}) => void}} props */
function ParametersForm({ done }) {
  /** @type {Record<string, any>} */
  const initial = { settings: "default", payload_overhead_size: "", user_data_size: "" };
  for (const field of REQUIRED) initial[field.name] = field.value;
  for (const field of SENSORS) initial[field.name] = "";
  const form = useForm(initial);
  const onSubmit = form.submit(async (values) => {
    /** @type {Record<string, any>} */
    const body = {};
    for (const [name, value] of Object.entries(values)) {
      body[name] = name === "settings" ? String(value).trim() : numberOrUndefined(value);
    }
    try {
      const answer = await post("/calculate_maximum_tags", compact(body));
      say(answer.message, answer.level);
      done({ result: answer.body.maximum_tags_calculation, about: "the parameters given" });
    } catch (failure) {
      throw withConflictProblems(failure);
    }
  });
  return html`<form onSubmit=${onSubmit} aria-labelledby="max-tags-parameters" noValidate>
    <h2 id="max-tags-parameters">Network</h2>
    <div class="form-grid">
      ${REQUIRED.map((field) => html`<${Field} key=${field.name} form=${form} name=${field.name} label=${field.label}
        kind="number" step="1" min=${0} required
        hint=${field.period ? describePeriod(form.values[field.name], false) : "Seeders transmit the network's timing packets."} />`)}
      <${Field} form=${form} name="settings" label="RF setting"
        hint="Without a configuration only “default” exists: 6.8 Mbit/s, channel 5, PRF 64, preamble 64." />
    </div>
    <h2>Sensor and user data</h2>
    <p class="muted">Leave a period empty (or 0) for off; otherwise at least 975 (1 ms).</p>
    <div class="form-grid">
      ${SENSORS.map((field) => html`<${Field} key=${field.name} form=${form} name=${field.name} label=${field.label}
        kind="number" step="1" min=${0} placeholder="off" hint=${describePeriod(form.values[field.name])} />`)}
      <${Field} form=${form} name="user_data_size" label="User data size (bytes)" kind="number" step="1" min=${0} max=${1023}
        placeholder="none" hint="Sent each user data period; at most 1,023." />
      <${Field} form=${form} name="payload_overhead_size" label="Payload overhead (bytes)" kind="number" step="1" min=${0} max=${1022}
        placeholder="12" hint="Framing and header of each frame; 12 (an ISO/IEC 24730-62 blink) when empty." />
    </div>
    <${FormFooter} form=${form} submitLabel="Calculate">
      <button type="button" onClick=${() => form.reset(initial)}>Reset to defaults</button>
    <//>
  </form>`;
}

/** @param {{initialNet: string, done: (outcome: {result: MaxTagsResult, about: string}) => void}} props */
function RoleForm({ initialNet, done }) {
  const nets = useLoad(async (signal) => {
    const answer = await call("GET", "/nets", { signal });
    return /** @type {{name: string, state: string, network_mode: string}[]} */ (answer.body.configurations || []);
  }, []);
  return html`<${Loaded} load=${nets}>${(/** @type {{name: string, state: string, network_mode: string}[]} */ list) =>
    list.length === 0
      ? html`<${Notice} level=${2}><p>There is no configuration yet. <a href="#/">Create one</a>, or calculate from parameters.</p><//>`
      : html`<${RoleFormFields} nets=${list} initialNet=${list.some((net) => net.name === initialNet) ? initialNet : list[0].name} done=${done} />`}<//>`;
}

/** @param {{nets: {name: string, network_mode: string}[], initialNet: string, done: (outcome: {result: MaxTagsResult, about: string}) => void}} props */
function RoleFormFields({ nets, initialNet, done }) {
  const form = useForm({ net: initialNet, role_id: "4" });
  const net = String(form.values.net);
  const roles = useLoad(async (signal) => {
    const answer = await call("GET", path`/nets/${net}/roles`, { signal });
    return /** @type {{id: number, name: string, network_period: number, window_duration: number}[]} */ (answer.body.roles || [])
      .filter((role) => role.id >= 4);
  }, [net]);
  const roleOptions = /** @type {[string, string][]} */ ((roles.data || []).map((role) =>
    [String(role.id), `${role.id} ${role.name} (${figure((role.network_period / UNITS_PER_SECOND) * 1000)} ms)`]));
  // Keep a role of this configuration selected.
  useEffect(() => {
    const list = roles.data;
    if (list && list.length && !list.some((role) => String(role.id) === String(form.values.role_id))) {
      form.set("role_id", String(list[0].id));
    }
  }, [roles.data]);
  const onSubmit = form.submit(async (values) => {
    const role = (roles.data || []).find((item) => String(item.id) === String(values.role_id));
    try {
      const answer = await post(path`/nets/${values.net}/calculate_maximum_tags`, { role_id: numberOrUndefined(values.role_id) });
      say(answer.message, answer.level);
      done({ result: answer.body.maximum_tags_calculation, about: `role ${role ? `${role.id} ${role.name}` : values.role_id} of ${values.net}` });
    } catch (failure) {
      // The role's own values (role.network_period, role.window_duration)
      // show beside the role; the configuration's stay above the buttons.
      const known = withConflictProblems(failure);
      if (known instanceof ApiError) {
        known.problems = known.problems.map(({ field, problem }) =>
          field.startsWith("role.") ? { field: "role_id", problem: `the role's ${field.slice(5).replace(/_/g, " ")}: ${problem}` } : { field, problem });
      }
      throw known;
    }
  });
  return html`<form onSubmit=${onSubmit} aria-labelledby="max-tags-role">
    <h2 id="max-tags-role">Configuration and role</h2>
    <p class="muted">Uses the role's period, sensor periods and window, and the configuration's active RF setting, seeders, <code>max_tag_period</code> setting and network mode.</p>
    <div class="form-grid">
      <${Field} form=${form} name="net" label="Configuration" kind="select"
        options=${nets.map((item) => /** @type {[string, string]} */ ([item.name, item.name]))} />
      <${Field} form=${form} name="role_id" label="Tag role" kind="select" options=${roleOptions}
        hint=${roles.error ? "The roles could not be read." : roles.loading && !roles.data ? "Loading the roles…" : ""} />
    </div>
    <p><a href=${href("nets", net, "roles")}>Edit the roles of ${net}</a></p>
    <${FormFooter} form=${form} submitLabel="Calculate" />
  </form>`;
}

/** @param {{result: MaxTagsResult, about: string}} props */
function Result({ result, about }) {
  const limit = LIMITS[result.limiting_factor] || { label: result.limiting_factor, text: "" };
  const rows = [
    ["Tag period", `${figure(result.tag_period_us)} µs`],
    ["Beacon size (average)", `${figure(result.beacon_bytes)} bytes`],
    ["Frames per beacon", figure(result.frames_per_beacon)],
    ["Frame airtime", `${figure(result.frame_airtime_us)} µs`],
    ["Exchange airtime (one location)", `${figure(result.exchange_airtime_us)} µs`],
    ["Guard time", `${figure(result.guard_time_us)} µs`],
    ["Downlink window", `${figure(result.window_us)} µs`],
    ["Slot (exchange + guard + window)", `${figure(result.slot_us)} µs`],
    ["Seeder frame airtime", `${figure(result.seeder_frame_airtime_us)} µs`],
    ["Seeder airtime per tag period", `${figure(result.seeder_airtime_us)} µs`],
    ["Airtime left for tags per tag period", `${figure(result.airtime_left_for_tags_us)} µs`],
  ];
  return html`<section aria-labelledby="max-tags-result" data-result>
    <h2 id="max-tags-result">Result for ${about}</h2>
    <div class="cards">
      <div class="card">
        <div class="muted">Maximum tags</div>
        <div class="figure" data-field="maximum_tags">${figure(result.maximum_tags, 0)}</div>
      </div>
      <div class="card">
        <div class="muted">Locations per second</div>
        <div class="figure" data-field="locations_per_second">${figure(result.locations_per_second, 1)}</div>
      </div>
      <div class="card">
        <div class="muted">Limited by</div>
        <div class="figure" data-field="limiting_factor">${limit.label}</div>
      </div>
      <div class="card">
        <div class="muted">Effective tag period</div>
        <div class="figure" data-field="effective_tag_period">${figure(result.effective_tag_period, 0)}</div>
        <div class="muted">units = ${figure((result.effective_tag_period / UNITS_PER_SECOND) * 1000)} ms</div>
      </div>
    </div>
    <p><strong>What limits it:</strong> ${limit.text}</p>
    <p><strong>Network mode:</strong> ${MODES[result.network_mode] || result.network_mode}</p>
    <h3>Airtime</h3>
    <div class="table-wrap" style=${{ maxWidth: "40rem" }}>
      <table>
        <tbody>${rows.map(([label, value]) => html`<tr><th scope="row">${label}</th><td class="number">${value}</td></tr>`)}</tbody>
      </table>
    </div>
  </section>`;
}
