// RF settings of a configuration: named sets of radio values; the network
// runs with the one the `rf_setting` setting names (the active one).
// `default` always exists and cannot be deleted; the active one cannot be
// deleted either, and neither it nor the network mode changes while the
// configuration runs.

import { html } from "../lib/html.js";
import { path, patch } from "../lib/api.js";
import { Page, act } from "../lib/components.js";
import { CollectionEditor, getBody } from "../lib/collection.js";
import { may } from "../lib/access.js";

const BIT_RATES = [[110, "110 kbit/s"], [850, "850 kbit/s"], [6800, "6.8 Mbit/s"]];
const CHANNELS = [1, 2, 3, 4, 5, 7, 9];
const PRFS = [16, 64];
const PREAMBLE_LENGTHS = [64, 128, 256, 512, 1024, 1536, 2048, 4096];

/** Preamble codes that suit each channel at PRF 16 and 64 (domain.md). */
const CODES = /** @type {Record<number, {16: [number, number], 64: [number, number]}>} */ ({
  1: { 16: [1, 2], 64: [9, 12] },
  2: { 16: [3, 4], 64: [9, 12] },
  3: { 16: [5, 6], 64: [9, 12] },
  4: { 16: [7, 8], 64: [17, 20] },
  5: { 16: [3, 4], 64: [9, 12] },
  7: { 16: [7, 8], 64: [17, 20] },
  9: { 16: [3, 4], 64: [9, 12] },
});

/**
 * The codes that suit the form's channel and PRF (or 1 to 24 when either
 * is unknown); the current value stays offered, so the API can judge it.
 * @param {Record<string, any>} values
 * @returns {[string, string][]}
 */
function codeOptions(values) {
  const range = CODES[Number(values.channel)]?.[/** @type {16|64} */ (Number(values.prf))];
  const [low, high] = range || [1, 24];
  /** @type {[string, string][]} */
  const options = [];
  for (let code = low; code <= high; code += 1) options.push([String(code), String(code)]);
  if (values.preamble_code !== "" && !options.some(([value]) => value === String(values.preamble_code))) {
    options.unshift([String(values.preamble_code), `${values.preamble_code} (does not suit this channel and PRF)`]);
  }
  return options;
}

/** @param {Record<string, any>} values */
function codeHint(values) {
  const range = CODES[Number(values.channel)]?.[/** @type {16|64} */ (Number(values.prf))];
  return range ? `Channel ${values.channel} at PRF ${values.prf} MHz takes ${range[0]} to ${range[1]}` : "1 to 24, as the channel and PRF allow";
}

/** @param {number} rate */
const rateText = (rate) => (rate === 6800 ? "6.8 Mbit/s" : `${rate} kbit/s`);

/** @param {{params: Record<string, string>, query: URLSearchParams}} props */
export default function View({ params }) {
  const net = params.net;
  /** @type {import("../lib/collection.js").CollectionSpec} */
  const spec = {
    noun: "RF setting",
    listUrl: path`/nets/${net}/rf_settings`,
    listKey: "rf_settings",
    itemUrl: (rf) => path`/nets/${net}/rf_settings/${rf.name}`,
    nameOf: (rf) => rf.name,
    keyOf: (rf) => rf.name,
    updateMode: "diff",
    loadExtra: async (signal) => {
      const [settings, configuration] = await Promise.all([
        getBody(path`/nets/${net}/settings`, signal),
        getBody(path`/nets/${net}`, signal),
      ]);
      const active = (settings.settings || []).find((/** @type {any} */ setting) => setting.setting_key === "rf_setting" && setting.setting_class === "system");
      return { active: active ? String(active.value) : "default", running: configuration.configuration?.state === "running" };
    },
    columns: [
      { label: "Name", value: (rf) => rf.name },
      { label: "Bit rate", value: (rf) => rateText(rf.bit_rate) },
      { label: "Channel", value: (rf) => rf.channel, number: true },
      { label: "PRF", value: (rf) => `${rf.prf} MHz` },
      { label: "Preamble code", value: (rf) => rf.preamble_code, number: true },
      { label: "Preamble length", value: (rf) => `${rf.preamble_length} symbols` },
    ],
    badges: (rf, extra) => rf.name === extra.active && html` <span class="badge ok">active</span>`,
    builtIn: (rf) => (rf.name === "default" ? "The default RF setting always exists: it cannot be deleted." : null),
    cannotDelete: (rf, extra) => (rf.name === extra.active ? "In use: the network runs with this RF setting. Make another one active first." : null),
    rowActions: (rf, extra, reload) =>
      rf.name !== extra.active &&
      html`<button type="button" aria-label=${`Make ${rf.name} active`}
        title=${extra.running ? "The configuration runs: stop it before changing its RF setting" : undefined}
        ...${may("PATCH", path`/nets/${net}/settings`)}
        onClick=${async () => {
          await act(() => patch(path`/nets/${net}/settings`, { rf_setting: rf.name }));
          reload();
        }}>Make active</button>`,
    blank: { name: "", bit_rate: "6800", channel: "5", prf: "64", preamble_code: "9", preamble_length: "64" },
    fields: [
      { name: "name", label: "Name", required: true, createOnly: true, hint: "1 to 64 characters, unique in the configuration" },
      { name: "bit_rate", label: "Bit rate", kind: "select", type: "integer", options: BIT_RATES.map(([value, label]) => [String(value), String(label)]) },
      { name: "channel", label: "Channel", kind: "select", type: "integer", options: CHANNELS.map((value) => [String(value), String(value)]), hint: "1 to 7: first-generation radios; 9: second-generation" },
      { name: "prf", label: "PRF", kind: "select", type: "integer", options: PRFS.map((value) => [String(value), `${value} MHz`]) },
      { name: "preamble_code", label: "Preamble code", kind: "select", type: "integer", options: codeOptions, hint: codeHint },
      {
        name: "preamble_length",
        label: "Preamble length",
        kind: "select",
        type: "integer",
        options: PREAMBLE_LENGTHS.map((value) => [String(value), `${value} symbols`]),
        hint: "Typical: 110 kbit/s with 2048 or 4096; 850 kbit/s with 256 to 1024; 6.8 Mbit/s with 64 to 256",
      },
    ],
  };
  return html`<${Page} title="RF settings" view="rf">
    <p class="muted">The network runs with the active RF setting (the <code>rf_setting</code> setting).
      The active setting cannot be changed or replaced while the configuration runs.</p>
    <${CollectionEditor} spec=${spec} net=${net}
      before=${(/** @type {any} */ extra) => html`<p>Active: <strong data-active-rf>${extra.active}</strong>
        ${extra.running && html` <span class="badge running">running</span>`}</p>`} />
  <//>`;
}
