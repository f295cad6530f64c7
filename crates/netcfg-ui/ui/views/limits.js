// Position limits (bounding boxes) of a configuration, in millimetres:
// positions outside a box are limited to it. A box's name is set when it
// is added; its bounds can change.

import { html } from "../lib/html.js";
import { path } from "../lib/api.js";
import { Page } from "../lib/components.js";
import { CollectionEditor } from "../lib/collection.js";

/** @param {number} mm */
const metres = (mm) => `${(mm / 1000).toLocaleString(undefined, { maximumFractionDigits: 3 })} m`;

/** @param {string} axis */
const range = (axis) => ({
  label: `${axis.toUpperCase()} (mm)`,
  /** @param {any} limit */
  value: (limit) => html`${limit[`min_${axis}`].toLocaleString()} to ${limit[`max_${axis}`].toLocaleString()}
    <br /><small class="muted">${metres(limit[`max_${axis}`] - limit[`min_${axis}`])}</small>`,
});

/** @param {{params: Record<string, string>, query: URLSearchParams}} props */
export default function View({ params }) {
  const net = params.net;
  /** @type {import("../lib/collection.js").FieldSpec[]} */
  const bounds = [];
  for (const end of ["min", "max"]) {
    for (const axis of ["x", "y", "z"]) {
      bounds.push({
        name: `${end}_${axis}`,
        label: `${end === "min" ? "Smallest" : "Largest"} ${axis} (mm)`,
        type: "integer",
        required: true,
        hint: end === "min" ? `Below the largest ${axis}` : undefined,
      });
    }
  }
  /** @type {import("../lib/collection.js").CollectionSpec} */
  const spec = {
    noun: "position limit",
    listUrl: path`/nets/${net}/position_limits`,
    listKey: "position_limits",
    itemUrl: (limit) => path`/nets/${net}/position_limits/${limit.id}`,
    nameOf: (limit) => limit.name,
    keyOf: (limit) => limit.id,
    updateMode: "diff",
    columns: [
      { label: "Name", value: (limit) => limit.name },
      { label: "ID", value: (limit) => limit.id, number: true },
      range("x"),
      range("y"),
      range("z"),
    ],
    blank: { name: "", min_x: "0", min_y: "0", min_z: "0", max_x: "", max_y: "", max_z: "" },
    fields: [{ name: "name", label: "Name", required: true, createOnly: true, hint: "1 to 64 characters, unique in the configuration" }, ...bounds],
  };
  return html`<${Page} title="Position limits" view="limits">
    <p class="muted">Bounding boxes in millimetres: a position outside a box is limited to it.</p>
    <${CollectionEditor} spec=${spec} net=${net} />
  <//>`;
}
