// Data streams of a configuration: where its live data (CDP over UDP)
// goes. The default streams (GET /default-data-streams) keep their names;
// Config, Anchor and User cannot be deleted, and deleting another default
// stream (Data-to-Device) resets it to its default values.

import { html } from "../lib/html.js";
import { path } from "../lib/api.js";
import { Page } from "../lib/components.js";
import { CollectionEditor, getBody } from "../lib/collection.js";

const KEPT = ["Config", "Anchor", "User"];
const VALUES = ["destination_ip", "destination_port", "interface", "interface_port", "time_to_live"];

/**
 * @param {any} stream
 * @param {{defaults: any[]}} extra
 */
function defaultOf(stream, extra) {
  return extra.defaults.find((candidate) => candidate.name === stream.name) || null;
}

/** @param {{params: Record<string, string>, query: URLSearchParams}} props */
export default function View({ params }) {
  const net = params.net;
  /** @type {import("../lib/collection.js").CollectionSpec} */
  const spec = {
    noun: "data stream",
    listUrl: path`/nets/${net}/data-streams`,
    listKey: "streams",
    itemUrl: (stream) => path`/nets/${net}/data-streams/${stream.id}`,
    nameOf: (stream) => stream.name,
    keyOf: (stream) => stream.id,
    updateMode: "full",
    loadExtra: async (signal) => ({ defaults: (await getBody("/default-data-streams", signal)).streams || [] }),
    columns: [
      { label: "Name", value: (stream) => stream.name },
      { label: "ID", value: (stream) => stream.id, number: true },
      { label: "Destination", value: (stream) => html`<span class="mono">${stream.destination_ip}:${stream.destination_port}</span>` },
      { label: "Host interface", value: (stream) => html`<span class="mono">${stream.interface}:${stream.interface_port}</span>` },
      { label: "TTL", value: (stream) => stream.time_to_live, number: true },
    ],
    badges: (stream, extra) => {
      const base = defaultOf(stream, extra);
      if (!base) return null;
      const changed = VALUES.some((name) => base[name] !== stream[name]);
      return changed ? html` <span class="badge" title="Its values differ from the default ones">changed</span>` : null;
    },
    builtIn: (stream) => (KEPT.includes(stream.name) ? `The ${stream.name} stream is built in: it cannot be deleted (it can be changed).` : null),
    deleteLabel: (stream, extra) => (defaultOf(stream, extra) && !KEPT.includes(stream.name) ? "Reset" : "Delete"),
    blank: { name: "", destination_ip: "239.255.76.67", destination_port: "", interface: "0.0.0.0", interface_port: "0", time_to_live: "1" },
    // A new stream starts from the defaults' address, on the first port after theirs.
    blankFrom: (extra) => {
      const ports = extra.defaults.map((/** @type {any} */ stream) => stream.destination_port);
      return ports.length ? { destination_port: String(Math.max(...ports) + 1) } : {};
    },
    fields: [
      {
        name: "name",
        label: "Name",
        required: true,
        hint: "1 to 64 characters, unique in the configuration",
        locked: (stream, extra) => (defaultOf(stream, extra) ? "A default stream keeps its name" : null),
      },
      { name: "destination_ip", label: "Destination IP", required: true, placeholder: "239.255.76.67", hint: "A unicast or multicast IPv4 or IPv6 address" },
      { name: "destination_port", label: "Destination port", type: "integer", min: 1, max: 65535, required: true, hint: "1 to 65535" },
      { name: "interface", label: "Host interface", required: true, placeholder: "0.0.0.0", hint: "The host address datagrams leave from; 0.0.0.0 lets the system choose" },
      { name: "interface_port", label: "Host port", type: "integer", min: 0, max: 65535, required: true, hint: "The local UDP port; 0 for any" },
      { name: "time_to_live", label: "Time to live", type: "integer", min: 1, max: 255, required: true, hint: "Multicast hops, 1 to 255" },
    ],
  };
  return html`<${Page} title="Data streams" view="streams">
    <p class="muted">A running configuration sends its live data as CDP datagrams on these streams: positions and sensor data on User,
      anchor health on Anchor, announcements on Config.</p>
    <${CollectionEditor} spec=${spec} net=${net}
      before=${(/** @type {{defaults: any[]}} */ extra) => html`<details>
        <summary>Default values of the default streams</summary>
        <div class="table-wrap">
          <table>
            <thead><tr><th scope="col">Name</th><th scope="col">Destination</th><th scope="col">Host interface</th><th scope="col" class="number">TTL</th></tr></thead>
            <tbody>${extra.defaults.map((stream) => html`<tr key=${stream.name}>
              <td>${stream.name}</td>
              <td class="mono">${stream.destination_ip}:${stream.destination_port}</td>
              <td class="mono">${stream.interface}:${stream.interface_port}</td>
              <td class="number">${stream.time_to_live}</td>
            </tr>`)}</tbody>
          </table>
        </div>
      </details>`} />
  <//>`;
}
