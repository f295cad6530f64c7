// Magnetometer calibration per device: three signed 16-bit hard-iron
// offsets, set with POST /nets/{net}/devices/{key}/set_magnetometer_calibration
// (saved in the configuration, and sent to the device when it runs). The
// 5.1 API has no route that reads a stored calibration back, so this view
// shows the last calibration set from this browser tab (its answer), and
// says so.

import { html } from "../lib/html.js";
import { call, path } from "../lib/api.js";
import { Page, Loaded, Notice, useLoad, useReloadOn, say } from "../lib/components.js";
import { useForm, Field, FormFooter } from "../lib/forms.js";
import { href, setQuery } from "../lib/router.js";

/** @typedef {import("../lib/types.js").MagnetometerCalibration} Calibration */

const KEPT = "netcfg.calibrations";

/** @returns {Record<string, Calibration & {at: number}>} */
function kept() {
  try {
    return JSON.parse(sessionStorage.getItem(KEPT) || "{}");
  } catch {
    return {};
  }
}

/** @param {string} net @param {Calibration} calibration */
function keep(net, calibration) {
  const all = kept();
  all[`${net}/${calibration.serial_number}`] = { ...calibration, at: Date.now() };
  sessionStorage.setItem(KEPT, JSON.stringify(all));
}

/** @param {{params: Record<string, string>, query: URLSearchParams}} props */
export default function View({ params, query }) {
  const net = params.net;
  const chosen = query.get("device") || "";
  const load = useLoad(async (signal) => {
    const [devices, configuration] = await Promise.all([
      call("GET", path`/nets/${net}/devices`, { signal }),
      call("GET", path`/nets/${net}`, { signal }),
    ]);
    return { devices: /** @type {any[]} */ (devices.body.devices || []), running: configuration.body.configuration?.state === "running" };
  }, [net]);
  useReloadOn(load.reload, ["change", "state"], net);
  return html`<${Page} title="Magnetometer calibration" view="calibration">
    <p class="muted">A magnetometer's hard-iron calibration: three signed 16-bit offsets (-32,768 to 32,767), saved in the configuration,
      and sent to the device at once when the configuration is running.</p>
    <${Loaded} load=${load}>${(/** @type {{devices: any[], running: boolean}} */ { devices, running }) => {
      const device = devices.find((candidate) => candidate.serial_number === chosen) || null;
      return html`
        ${devices.length === 0 && html`<${Notice} level=${3}><p>This configuration has no devices yet: <a href=${href("nets", net, "devices")}>add devices</a>.</p><//>`}
        ${devices.length > 0 && html`<div class="field">
          <label for="calibration-device">Device</label>
          <select id="calibration-device" value=${chosen}
            onChange=${(/** @type {Event} */ event) => setQuery({ device: /** @type {HTMLSelectElement} */ (event.target).value })}>
            <option value="">Choose a device</option>
            ${devices.map((candidate) => html`<option key=${candidate.serial_number} value=${candidate.serial_number}>
              ${candidate.serial_number}${candidate.name ? ` ${candidate.name}` : ""}</option>`)}
          </select>
        </div>`}
        ${chosen && !device && html`<${Notice} level=${2}><p>Device ${chosen} is not in this configuration.</p><//>`}
        ${device && html`<${DeviceCalibration} key=${device.serial_number} net=${net} device=${device} running=${running} />`}
      `;
    }}<//>
  <//>`;
}

/** @param {{net: string, device: any, running: boolean}} props */
function DeviceCalibration({ net, device, running }) {
  const last = kept()[`${net}/${device.serial_number}`];
  const form = useForm({
    x_offset: last ? String(last.x_offset) : "0",
    y_offset: last ? String(last.y_offset) : "0",
    z_offset: last ? String(last.z_offset) : "0",
  });
  /** @param {any} text */
  const number = (text) => {
    const trimmed = String(text).trim();
    return trimmed !== "" && !Number.isNaN(Number(trimmed)) ? Number(trimmed) : trimmed === "" ? undefined : trimmed;
  };
  return html`<section aria-labelledby="calibration-title">
    <h2 id="calibration-title">Device ${device.serial_number}${device.name ? ` (${device.name})` : ""}</h2>
    <h3>Its calibration</h3>
    ${last
      ? html`<p data-calibration=${device.serial_number}>Set from this browser at ${new Date(last.at).toLocaleString()}:
          x <strong>${last.x_offset}</strong>, y <strong>${last.y_offset}</strong>, z <strong>${last.z_offset}</strong>.</p>`
      : html`<p class="muted">No calibration was set from this browser tab.</p>`}
    <p class="muted">The API does not report a device's stored calibration (it has no route to read it back), so only a calibration set here is shown.</p>
    <h3>Set the calibration</h3>
    <form noValidate onSubmit=${form.submit(async (values) => {
      const answer = await call("POST", path`/nets/${net}/devices/${device.serial_number}/set_magnetometer_calibration`, {
        body: { x_offset: number(values.x_offset), y_offset: number(values.y_offset), z_offset: number(values.z_offset) },
      });
      const calibration = answer.body.magnetometer_calibration;
      if (calibration) keep(net, calibration);
      say(answer.message, answer.level);
      form.reset({ ...values });
    })}>
      <div class="form-grid">
        <${Field} form=${form} name="x_offset" label="X offset" kind="number" step="1" min=${-32768} max=${32767} required />
        <${Field} form=${form} name="y_offset" label="Y offset" kind="number" step="1" min=${-32768} max=${32767} required />
        <${Field} form=${form} name="z_offset" label="Z offset" kind="number" step="1" min=${-32768} max=${32767} required />
      </div>
      <p class="muted">${running ? "The configuration runs: the calibration is also sent to the device now." : "The configuration is stopped: the calibration is saved in it, not sent to the device."}</p>
      <${FormFooter} form=${form} submitLabel="Set calibration"
        request=${["POST", path`/nets/${net}/devices/${device.serial_number}/set_magnetometer_calibration`]} />
    </form>
  </section>`;
}
