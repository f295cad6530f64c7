// Roles of a configuration: the built-in ones (0 UNCONFIGURED, 2 ANCHOR,
// 3 SEEDER, 4 DEFAULT TAG: never deleted, never renamed) and custom tag
// roles (ids from 5). Periods are in network time units of 1/975,000 s.
// Tag roles (ids from 4) also say how their tags' positions are tracked
// and how fast their tags can move (decisions §18); the other roles have
// neither, and their forms show both locked, saying why.

import { html } from "../lib/html.js";
import { path } from "../lib/api.js";
import { Page } from "../lib/components.js";
import { href } from "../lib/router.js";
import { CollectionEditor, describePeriod, describeDuration, getBody } from "../lib/collection.js";

const SENSORS = [
  ["accelerometer_period", "Accelerometer period"],
  ["gyroscope_period", "Gyroscope period"],
  ["quaternion_period", "Quaternion period"],
  ["magnetometer_period", "Magnetometer period"],
  ["pressure_period", "Pressure period"],
  ["temperature_period", "Temperature period"],
];

const LED = ["Off", "Very Dim", "Dim", "Bright"];

/** The tracking strengths (the API's values) and what each does. */
const TRACKING = [
  ["off", "every beacon's fix as it is"],
  ["light", "follows turns fastest, smooths least"],
  ["default", "between light and strong"],
  ["strong", "smooths most, slowest through turns"],
];
/** A tag role's max_speed_mm_s when it has none set. */
const DEFAULT_MAX_SPEED = 3000;

/** Tag roles (ids from 4) track their tags; unconfigured, anchors and seeders (0, 2, 3) do not. */
const isTagRole = (/** @type {{id: number}} */ role) => role.id >= 4;
const notTracked = (/** @type {{id: number}} */ role) => (isTagRole(role) ? null : "Only tag roles are tracked");

/** A speed in mm/s as m/s with one decimal: "3.0 m/s". @param {any} mmPerSecond */
const metresPerSecond = (mmPerSecond) => `${(Number(mmPerSecond) / 1000).toFixed(1)} m/s`;

/** @param {string} name @returns {(values: Record<string, any>) => string} */
const periodHint = (name) => (values) => {
  const words = describePeriod(values[name]);
  return words ? `= ${words}` : "";
};

/** @param {{params: Record<string, string>, query: URLSearchParams}} props */
export default function View({ params }) {
  const net = params.net;
  /** @type {import("../lib/collection.js").CollectionSpec} */
  const spec = {
    noun: "role",
    listUrl: path`/nets/${net}/roles`,
    listKey: "roles",
    itemUrl: (role) => path`/nets/${net}/roles/${role.id}`,
    nameOf: (role) => role.name,
    keyOf: (role) => role.id,
    updateMode: "diff",
    // How many interfaces have each role: a role in use cannot be deleted.
    loadExtra: async (signal) => {
      const body = await getBody(path`/nets/${net}/devices`, signal);
      /** @type {Record<number, number>} */
      const uses = {};
      for (const device of body.devices || []) {
        for (const iface of device.interfaces || []) uses[iface.role_id] = (uses[iface.role_id] || 0) + 1;
      }
      return { uses };
    },
    columns: [
      { label: "Name", value: (role) => role.name },
      { label: "ID", value: (role) => role.id, number: true },
      {
        label: "Network period",
        number: true,
        value: (role) => html`${role.network_period.toLocaleString()}<br /><small class="muted">${describePeriod(role.network_period)}</small>`,
      },
      {
        label: "Downlink window",
        number: true,
        value: (role) => html`${role.window_duration.toLocaleString()}<br /><small class="muted">${describeDuration(role.window_duration)}</small>`,
      },
      { label: "Devices planned", value: (role) => role.device_count.toLocaleString(), number: true },
      {
        label: "Sensors",
        value: (role) => {
          const on = SENSORS.filter(([name]) => role[name] > 0);
          return on.length === 0
            ? html`<span class="muted">none</span>`
            : on.map(([name, label]) => html`<div>${label.replace(" period", "")}: ${describePeriod(role[name])}</div>`);
        },
      },
      { label: "LED", value: (role) => role.led_brightness },
      {
        label: "Tracking",
        value: (role) => (isTagRole(role) && role.tracking
          ? `${role.tracking}, ${metresPerSecond(role.max_speed_mm_s ?? DEFAULT_MAX_SPEED)}`
          : html`<span class="muted">–</span>`),
      },
      { label: "Interfaces", value: (role, extra) => (extra.uses[role.id] || 0).toLocaleString(), number: true },
    ],
    builtIn: (role) => (role.id <= 4 ? "Built-in roles (ids 0 to 4) cannot be deleted or renamed." : null),
    cannotDelete: (role, extra) => {
      const count = extra.uses[role.id] || 0;
      return count > 0 ? `In use by ${count} interface${count === 1 ? "" : "s"}: give them another role first.` : null;
    },
    blank: {
      name: "", network_period: "97500", window_duration: "", device_count: "", led_brightness: "Bright",
      tracking: "default", max_speed_mm_s: String(DEFAULT_MAX_SPEED),
    },
    fields: [
      {
        name: "name",
        label: "Name",
        required: true,
        hint: "1 to 64 characters, unique in the configuration",
        locked: (role) => (role.id <= 4 ? "Built-in roles keep their name" : null),
      },
      {
        name: "network_period",
        label: "Network period",
        type: "integer",
        min: 0,
        required: true,
        hint: (values) => ["Units of 1/975,000 s (975 = 1 ms)", periodHint("network_period")(values)].filter(Boolean).join(" "),
      },
      {
        name: "window_duration",
        label: "Window duration",
        type: "integer",
        min: 0,
        hint: (values) => {
          const words = Number(values.window_duration) > 0 ? `= ${describeDuration(values.window_duration)}` : "";
          return ["Downlink window after each beacon, same units; 0 for none", words].filter(Boolean).join(" ");
        },
      },
      { name: "device_count", label: "Devices planned", type: "integer", min: 0, hint: "Input of the maximum-tag check" },
      ...SENSORS.map(([name, label]) => ({
        name,
        label,
        type: /** @type {"integer"} */ ("integer"),
        min: 0,
        hint: (/** @type {Record<string, any>} */ values) => ["0 (off) or at least 975 (1 ms)", periodHint(name)(values)].filter(Boolean).join(" "),
      })),
      {
        name: "led_brightness",
        label: "LED brightness",
        kind: "select",
        options: LED.map((value) => [value, value]),
      },
      {
        name: "tracking",
        label: "Tracking",
        kind: "select",
        // A role that is not tracked shows none (its field is locked).
        options: (values) => /** @type {[string, string][]} */ ([
          ...(values.tracking ? [] : [["", "–"]]),
          ...TRACKING.map(([value, does]) => [value, `${value}: ${does}`]),
        ]),
        hint: "How its tags' positions are smoothed between beacons",
        locked: notTracked,
      },
      {
        name: "max_speed_mm_s",
        label: "Max speed (mm/s)",
        type: "integer",
        min: 100,
        max: 100000,
        hint: (values) => {
          const speed = Number(values.max_speed_mm_s) > 0 ? ` (${metresPerSecond(values.max_speed_mm_s)})` : "";
          return `100 to 100,000${speed}: the tracker refuses a fix that would need a tag to move faster`;
        },
        locked: notTracked,
      },
    ],
  };
  return html`<${Page} title="Roles" view="roles">
    <p class="muted">A role gives its devices' interfaces their timing and sensors. Periods are in network time units of 1/975,000 s.
      Devices get their roles on the <a href=${href("nets", net, "devices")}>Devices</a> view.</p>
    <${CollectionEditor} spec=${spec} net=${net} />
  <//>`;
}
