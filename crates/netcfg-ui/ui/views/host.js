// The host: its network interfaces (GET /network-info), the manager's
// installed packages (GET /packages), and the devices the running networks
// hear that no configuration holds (GET /unconfigured_devices).

import { html } from "../lib/html.js";
import { call, ApiError } from "../lib/api.js";
import { Page, Loaded, Notice, useLoad, useReloadOn, formatTime } from "../lib/components.js";
import { href } from "../lib/router.js";

/**
 * @param {string} url
 * @param {string} key
 * @returns {(signal: AbortSignal) => Promise<any[]>}
 */
const list = (url, key) => async (signal) => (await call("GET", url, { signal })).body[key] || [];

const CAPTION_STYLE = { captionSide: "bottom", textAlign: "left", padding: ".35rem .6rem" };

/** The view (it takes no parameters from its URL). */
export default function View() {
  return html`<${Page} title="Host" view="host">
    <${Interfaces} />
    <${Packages} />
    <${Unconfigured} />
  <//>`;
}

/**
 * A section with a heading and a refresh button.
 * @param {{id: string, title: string, reload: () => void, loading: boolean, children?: any}} props
 */
function Section({ id, title, reload, loading, children }) {
  return html`<section aria-labelledby=${id}>
    <div class="page-header" style=${{ marginBottom: ".25rem", marginTop: "1rem" }}>
      <h2 id=${id}>${title}</h2>
      <button type="button" onClick=${reload} disabled=${loading} aria-label=${`Refresh ${title.toLowerCase()}`}>Refresh</button>
    </div>
    ${children}
  </section>`;
}

function Interfaces() {
  const load = useLoad(list("/network-info", "network_interfaces"), []);
  return html`<${Section} id="host-interfaces" title="Network interfaces" reload=${load.reload} loading=${load.loading}>
    <${Loaded} load=${load}>${(/** @type {{name: string, addresses: string[], mac: string | null, up: boolean}[]} */ interfaces) =>
      interfaces.length === 0
        ? html`<p class="muted">The host reports no network interfaces.</p>`
        : html`<div class="table-wrap"><table>
          <thead><tr><th scope="col">Name</th><th scope="col">State</th><th scope="col">Hardware address</th><th scope="col">Addresses</th></tr></thead>
          <tbody>${interfaces.map((item) => html`<tr key=${item.name}>
            <td class="mono">${item.name}</td>
            <td>${item.up ? html`<span class="badge ok">Up</span>` : html`<span class="badge down">Down</span>`}</td>
            <td class="mono">${item.mac || html`<span class="muted">none</span>`}</td>
            <td class="mono">${item.addresses.length
              ? item.addresses.map((address) => html`<div>${address}</div>`)
              : html`<span class="muted">none</span>`}</td>
          </tr>`)}</tbody>
        </table></div>`}<//>
  <//>`;
}

function Packages() {
  // A 404 (a package is missing) still carries the list: show it with the message.
  const load = useLoad(async (signal) => {
    try {
      return { packages: await list("/packages", "packages")(signal), warning: "" };
    } catch (failure) {
      if (failure instanceof ApiError && Array.isArray(failure.body.packages)) {
        return { packages: failure.body.packages, warning: failure.message };
      }
      throw failure;
    }
  }, []);
  return html`<${Section} id="host-packages" title="Installed packages" reload=${load.reload} loading=${load.loading}>
    <${Loaded} load=${load}>${(/** @type {{packages: {name: string, version: string | null, state: string}[], warning: string}} */ { packages, warning }) => html`
      ${warning && html`<${Notice} level=${2}><p>${warning}</p><//>`}
      ${packages.length === 0
        ? html`<p class="muted">No packages are reported.</p>`
        : html`<div class="table-wrap"><table>
          <thead><tr><th scope="col">Package</th><th scope="col">Version</th><th scope="col">State</th></tr></thead>
          <tbody>${packages.map((item) => html`<tr key=${item.name}>
            <td class="mono">${item.name}</td>
            <td class="mono">${item.version || html`<span class="muted">none</span>`}</td>
            <td>${item.state === "installed"
              ? html`<span class="badge ok">Installed</span>`
              : item.state === "missing"
                ? html`<span class="badge error">Missing</span>`
                : html`<span class="badge">${item.state}</span>`}</td>
          </tr>`)}</tbody>
        </table></div>`}`}<//>
  <//>`;
}

function Unconfigured() {
  const load = useLoad(list("/unconfigured_devices", "unconfigured_devices"), []);
  // Strangers are heard by running networks: reload when one starts or
  // stops, or raises a notification (a stranger heard is one).
  useReloadOn(load.reload, ["state", "notification"]);
  return html`<${Section} id="host-unconfigured" title="Unconfigured devices" reload=${load.reload} loading=${load.loading}>
    <p class="muted">Devices a running network hears that its configuration does not hold.</p>
    <${Loaded} load=${load}>${(/** @type {{serial_number: string, heard_by: string | null, last_seen_ms: number}[]} */ devices) =>
      devices.length === 0
        ? html`<p class="muted">No unconfigured device is heard.</p>`
        : html`<div class="table-wrap"><table>
          <caption class="muted" style=${CAPTION_STYLE}>${devices.length} unconfigured ${devices.length === 1 ? "device" : "devices"}</caption>
          <thead><tr><th scope="col">Serial number</th><th scope="col">Heard by</th><th scope="col">Last seen</th></tr></thead>
          <tbody>${devices.map((item) => html`<tr key=${`${item.heard_by}/${item.serial_number}`}>
            <td class="mono">${item.serial_number}</td>
            <td>${item.heard_by
              ? html`<a href=${href("nets", item.heard_by, "devices")}>${item.heard_by}</a>`
              : html`<span class="muted">no configuration</span>`}</td>
            <td>${formatTime(item.last_seen_ms)}</td>
          </tr>`)}</tbody>
        </table></div>`}<//>
  <//>`;
}
