// Overview of one configuration (`#/nets/:net`): its state, instance and
// network mode, its devices by role, the alerts firing now, their health
// (the cache manager's last reports, then live `device` events), unread
// notifications, start, stop and restart (and the line saying a change
// waits for one), and links to the configuration's other views.

import { html, useState, useRef, useEffect } from "../lib/html.js";
import { call, post, path, ApiError } from "../lib/api.js";
import { Page, Notice, Loaded, LongPath, useLoad, useLive, useReloadOn, act, formatTime } from "../lib/components.js";
import { href, navigate } from "../lib/router.js";
import { may } from "../lib/access.js";
import { VIEWS } from "../lib/views.js";
import { linkDown, describeInstance, StateBadges } from "./nets.js";
import { RestartNeeded } from "./restart_needed.js";

/**
 * @typedef {{connectivity: string, synchronisation: string, status: any, event: string, at: number}} Health
 * @typedef {import("../lib/types.js").Device} Device
 */

const CONNECTIVITY = { none: "None", uwb: "UWB", ethernet: "Ethernet", uwb_and_ethernet: "UWB and Ethernet" };
const SYNCHRONISATION = { none: "None", tx: "TX", rx: "RX", tx_and_rx: "TX and RX" };
const LOW_BATTERY = 20;

/**
 * The devices' health: the cache manager's last reports (asked for once the
 * configuration is `loaded`), then each live `device` event. `healthTick`
 * changes when it did (at most every 300 ms: `bump`).
 * @param {string} net
 * @param {boolean} loaded
 */
function useHealth(net, loaded) {
  /** @type {{current: Map<string, Health>}} */
  const health = useRef(new Map());
  const [healthTick, setHealthTick] = useState(0);
  const pending = useRef(/** @type {number | undefined} */ (undefined));
  const bump = () => {
    if (pending.current !== undefined) return;
    pending.current = setTimeout(() => {
      pending.current = undefined;
      setHealthTick((value) => value + 1);
    }, 300);
  };
  useEffect(() => () => clearTimeout(pending.current), []);
  const cache = useLoad(async (signal) => {
    if (!loaded) return false;
    const answer = await call("GET", path`/cache-manager/${net}`, { signal });
    for (const entry of answer.body.cached_devices || []) {
      if (!health.current.has(entry.serial_number)) {
        health.current.set(entry.serial_number, {
          connectivity: entry.connectivity,
          synchronisation: entry.synchronisation,
          status: entry.status,
          event: "cached",
          at: entry.last_seen_ms,
        });
      }
    }
    bump();
    return true;
  }, [net, loaded]);
  useLive(["device"], (data) => {
    health.current.set(data.serial_number, {
      connectivity: data.connectivity,
      synchronisation: data.synchronisation,
      status: data.status,
      event: data.event,
      at: Date.now(),
    });
    bump();
  }, net);
  return { health, healthTick, cache, bump };
}

/** @param {{params: Record<string, string>, query: URLSearchParams}} props */
export default function View({ params }) {
  const net = params.net;
  const load = useLoad(async (signal) => {
    const config = await call("GET", path`/nets/${net}`, { signal });
    const [devices, roles, count, alerts] = await Promise.all([
      call("GET", path`/nets/${net}/devices`, { signal }),
      call("GET", path`/nets/${net}/roles`, { signal }),
      call("GET", path`/nets/${net}/notifications_count`, { signal }),
      call("GET", path`/nets/${net}/alerts`, { signal }),
    ]);
    return {
      config: config.body.configuration,
      /** @type {Device[]} */
      devices: devices.body.devices || [],
      /** @type {{id: number, name: string}[]} */
      roles: roles.body.roles || [],
      /** @type {number} */
      unread: count.body.count,
      /** @type {import("../lib/types.js").Firing[]} */
      firing: alerts.body.alerts || [],
    };
  }, [net]);
  // A rule that fires or clears raises a notification: the alerts follow them.
  useReloadOn(load.reload, ["state", "change", "notification"], net);

  const { health, healthTick, cache, bump } = useHealth(net, Boolean(load.data));
  const [, setTick] = useState(0);
  useLive(["state"], (data) => {
    if (data.state === "link_down") linkDown.add(data.net);
    else if (data.state === "started" || data.state === "stopped" || data.state === "deleted") linkDown.delete(data.net);
    if (data.state === "renamed" && data.renamed_to) {
      navigate(href("nets", data.renamed_to));
      return;
    }
    if (data.state === "started") {
      health.current.clear();
      bump();
    }
    setTick((value) => value + 1);
  }, net);

  if (load.error instanceof ApiError && load.error.code === "configuration_not_found") {
    return html`<${Page} title="Overview" view="overview">
      <${Notice} level=${2}>
        <p>There is no configuration named <strong>${net}</strong>: it may have been deleted or renamed.</p>
        <p><a href="#/">Back to the configurations</a></p>
      <//>
    <//>`;
  }

  const running = load.data?.config?.state === "running";
  /** @param {"start" | "stop" | "restart"} action */
  const run = (action) => act(() => post(path`/nets/${net}`, { action })).then(load.reload);
  const allowed = may("POST", path`/nets/${net}`);
  return html`<${Page} title=${`Overview of ${net}`} view="overview" actions=${load.data && html`
      ${running
        ? html`<button type="button" onClick=${() => run("restart")} title="Stops the network and starts it again from the saved configuration" ...${allowed}>Restart</button>
            <button type="button" ...${allowed} onClick=${() => run("stop")}>Stop</button>`
        : html`<button type="button" class="primary" ...${allowed} onClick=${() => run("start")}>Start</button>`}`}>
    <${Loaded} load=${load}>${(/** @type {any} */ data) => html`
      <${RestartNeeded} net=${net} onApplied=${load.reload} />
      <${Summary} net=${net} data=${data} />
      <${FiringAlerts} net=${net} firing=${data.firing} devices=${data.devices} running=${running} />
      <${HealthSection} devices=${data.devices} roles=${data.roles} health=${health.current} running=${running}
        tick=${healthTick} cacheError=${cache.error} />
      <h2>Views of this configuration</h2>
      <ul class="cards" style=${{ listStyle: "none", padding: 0 }}>
        ${VIEWS.filter((view) => view.pattern.startsWith("/nets/:net/")).map((view) => {
          const rest = view.pattern.slice("/nets/:net/".length).split("/");
          return html`<li><a class="card" style=${{ display: "block" }} href=${href("nets", net, ...rest)}>${view.label}</a></li>`;
        })}
      </ul>
    `}<//>
  <//>`;
}

/** @param {{net: string, data: {config: any, devices: Device[], roles: {id: number, name: string}[], unread: number}}} props */
function Summary({ net, data }) {
  const { config, devices, roles, unread } = data;
  const roleName = new Map(roles.map((role) => [role.id, role.name]));
  /** @type {Map<number, number>} */
  const byRole = new Map();
  for (const device of devices) {
    for (const roleId of new Set(device.interfaces.map((face) => face.role_id))) {
      byRole.set(roleId, (byRole.get(roleId) || 0) + 1);
    }
  }
  const disabled = devices.filter((device) => device.disabled).length;
  return html`
    <div class="cards">
      <div class="card" data-card="state">
        <h2 style=${{ marginTop: 0 }}>State</h2>
        <p><${StateBadges} state=${config.state} down=${linkDown.has(net)} /></p>
      </div>
      <div class="card" data-card="instance">
        <h2 style=${{ marginTop: 0 }}>Instance</h2>
        <p><${LongPath} text=${describeInstance(config.instance)} /></p>
      </div>
      <div class="card" data-card="network-mode">
        <h2 style=${{ marginTop: 0 }}>Network mode</h2>
        <p><a href=${href("nets", net, "network-mode")}>${config.network_mode === "multirange" ? "MultiRange" : "MultiTime"}</a></p>
      </div>
      <div class="card" data-card="notifications">
        <h2 style=${{ marginTop: 0 }}>Unread notifications</h2>
        <p class="figure"><a href=${href("nets", net, "notifications")}>${unread}</a></p>
      </div>
      <div class="card" data-card="devices">
        <h2 style=${{ marginTop: 0 }}>Devices</h2>
        <p class="figure"><a href=${href("nets", net, "devices")}>${devices.length}</a></p>
        ${disabled > 0 && html`<p class="muted">${disabled} disabled</p>`}
      </div>
    </div>
    <h2>Devices by role</h2>
    ${byRole.size === 0
      ? html`<p class="muted">No devices yet. <a href=${href("nets", net, "devices")}>Add devices</a>.</p>`
      : html`<div class="table-wrap" style=${{ maxWidth: "32rem" }}><table>
          <thead><tr><th scope="col">Role</th><th scope="col" class="number">Devices</th></tr></thead>
          <tbody>
            ${[...byRole.entries()].sort((a, b) => a[0] - b[0]).map(([roleId, count]) => html`<tr data-role=${roleId}>
              <td>${roleName.get(roleId) ?? `role ${roleId}`}</td><td class="number">${count}</td>
            </tr>`)}
          </tbody>
        </table></div>`}`;
}

/**
 * The alerts firing now, oldest first: each rule with its device and
 * since when. While the network is stopped no rule is watched: nothing
 * shows.
 * @param {{net: string, firing: import("../lib/types.js").Firing[], devices: Device[], running: boolean}} props
 */
function FiringAlerts({ net, firing, devices, running }) {
  if (!running) return null;
  const rules = href("nets", net, "alerts");
  if (firing.length === 0) return html`<p data-alerts>No alerts firing (<a href=${rules}>alert rules</a>).</p>`;
  const names = new Map(devices.map((device) => [device.serial_number, device.name]));
  const sorted = [...firing].sort((a, b) => a.since_ms - b.since_ms);
  return html`<section data-alerts aria-labelledby="overview-alerts">
    <h2 id="overview-alerts">Alerts firing now</h2>
    <div class="table-wrap" style=${{ maxWidth: "48rem", maxHeight: "40vh" }}><table>
      <thead><tr><th scope="col">Rule</th><th scope="col">Device</th><th scope="col">Since</th></tr></thead>
      <tbody>
        ${sorted.map((alert) => html`<tr key=${`${alert.rule}-${alert.serial_number ?? ""}`}>
          <td><a href=${rules}>${alert.rule}</a></td>
          <td>${alert.serial_number
            ? html`<span class="mono">${alert.serial_number}</span>${names.get(alert.serial_number) ? ` ${names.get(alert.serial_number)}` : ""}`
            : html`<span class="muted">the whole network</span>`}</td>
          <td>${formatTime(alert.since_ms)}</td>
        </tr>`)}
      </tbody>
    </table></div>
  </section>`;
}

/**
 * @param {{devices: Device[], roles: {id: number, name: string}[], health: Map<string, Health>, running: boolean, tick: number, cacheError: unknown}} props
 */
function HealthSection({ devices, roles, health, running }) {
  const roleName = new Map(roles.map((role) => [role.id, role.name]));
  let heard = 0;
  let unheard = 0;
  let unsynchronised = 0;
  let lowBattery = 0;
  /** @type {{device: Device, entry: Health | undefined, problems: string[]}[]} */
  const attention = [];
  for (const device of devices) {
    if (device.disabled) continue;
    const entry = health.get(device.serial_number);
    /** @type {string[]} */
    const problems = [];
    const fixed = device.interfaces.some((face) => face.role_id === 2 || face.role_id === 3);
    if (!entry || entry.event === "lost" || entry.connectivity === "none") {
      unheard += 1;
      problems.push(entry?.event === "lost" ? "lost" : "not heard");
    } else {
      heard += 1;
      if (fixed && entry.synchronisation === "none") {
        unsynchronised += 1;
        problems.push("not synchronised");
      }
      const battery = entry.status?.battery_percent;
      if (typeof battery === "number" && battery < LOW_BATTERY) {
        lowBattery += 1;
        problems.push(`battery ${battery}%`);
      }
    }
    if (problems.length > 0) attention.push({ device, entry, problems });
  }
  const enabled = devices.filter((device) => !device.disabled).length;
  const shownLimit = 100;
  return html`<h2>Health</h2>
    ${!running && html`<p class="muted">The network is stopped: the figures are the devices' last reports.</p>`}
    <div class="cards" data-health>
      <div class="card" data-card="heard"><h3 style=${{ marginTop: 0 }}>Heard</h3><p class="figure">${heard}<span class="muted" style=${{ fontSize: "1rem" }}> of ${enabled}</span></p></div>
      <div class="card" data-card="not-heard"><h3 style=${{ marginTop: 0 }}>Not heard or lost</h3><p class="figure">${unheard}</p></div>
      <div class="card" data-card="not-synchronised"><h3 style=${{ marginTop: 0 }}>Anchors not synchronised</h3><p class="figure">${unsynchronised}</p></div>
      <div class="card" data-card="low-battery"><h3 style=${{ marginTop: 0 }}>Battery under ${LOW_BATTERY}%</h3><p class="figure">${lowBattery}</p></div>
    </div>
    ${running && attention.length > 0 && html`<h3>Devices needing attention</h3>
      <div class="table-wrap" style=${{ maxHeight: "40vh" }}><table>
        <thead><tr>
          <th scope="col">Serial number</th><th scope="col">Name</th><th scope="col">Role</th>
          <th scope="col">Problem</th><th scope="col">Connectivity</th><th scope="col">Synchronisation</th>
          <th scope="col" class="number">Battery</th><th scope="col" class="number">Temperature</th><th scope="col">Last report</th>
        </tr></thead>
        <tbody>
          ${attention.slice(0, shownLimit).map(({ device, entry, problems }) => html`<tr key=${device.serial_number}>
            <td class="mono">${device.serial_number}</td>
            <td>${device.name || ""}</td>
            <td>${[...new Set(device.interfaces.map((face) => roleName.get(face.role_id) ?? `role ${face.role_id}`))].join(", ")}</td>
            <td><span class="badge error">${problems.join(", ")}</span></td>
            <td>${entry ? /** @type {any} */ (CONNECTIVITY)[entry.connectivity] ?? entry.connectivity : "–"}</td>
            <td>${entry ? /** @type {any} */ (SYNCHRONISATION)[entry.synchronisation] ?? entry.synchronisation : "–"}</td>
            <td class="number">${battery(entry)}</td>
            <td class="number">${entry?.status ? `${entry.status.temperature_celsius} °C` : "–"}</td>
            <td>${entry ? formatTime(entry.at) : "never"}</td>
          </tr>`)}
        </tbody>
      </table></div>
      ${running && attention.length > shownLimit && html`<p class="muted">The first ${shownLimit} of ${attention.length} devices are shown.</p>`}`}`;
}

/** @param {Health | undefined} entry */
function battery(entry) {
  if (!entry?.status) return "–";
  // A device without a battery reports none.
  const value = entry.status.battery_percent;
  return typeof value === "number" ? `${value}%` : "mains";
}
