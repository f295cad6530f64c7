// The cache manager of one configuration: what the network last reported
// about each device (GET /cache-manager/{net}); forget one device, or clear
// the whole cache after a confirmation. Forgetting changes no device: the
// cache fills again as the devices report.

import { html, useState, useEffect, useRef } from "../lib/html.js";
import { call, del, path } from "../lib/api.js";
import { Page, Loaded, Modal, useLoad, useReloadOn, act, formatTime } from "../lib/components.js";
import { shortTime } from "../lib/format.js";
import { may } from "../lib/access.js";

/** @typedef {import("../lib/types.js").CachedDevice} CachedDevice */

const CONNECTIVITY = { none: "None", uwb: "UWB", ethernet: "Ethernet", uwb_and_ethernet: "UWB and Ethernet" };
const SYNCHRONISATION = { none: "None", tx: "TX", rx: "RX", tx_and_rx: "TX and RX" };
const none = () => html`<span class="muted">none</span>`;
const NOWRAP = { whiteSpace: "nowrap" };

/** @param {Record<string, string>} table @param {string} value */
const named = (table, value) => table[value] || value;

/** Millimetres as metres. @param {number} mm */
const metres = (mm) => (mm / 1000).toFixed(2);

/** @param {{params: Record<string, string>, query: URLSearchParams}} props */
export default function View({ params }) {
  const net = params.net;
  const load = useLoad(async (signal) => {
    const answer = await call("GET", path`/cache-manager/${net}`, { signal });
    return /** @type {CachedDevice[]} */ (answer.body.cached_devices || []);
  }, [net]);
  useReloadOn(load.reload, ["device", "state", "change"], net);
  const [confirming, setConfirming] = useState(false);
  const count = load.data?.length ?? 0;

  const clearAll = async () => {
    const answer = await act(() => del(path`/cache-manager/${net}`));
    setConfirming(false);
    if (answer) load.reload();
  };

  return html`<${Page} title="Cache manager" view="cache" actions=${html`
      <button type="button" onClick=${load.reload} disabled=${load.loading}>Refresh</button>
      <button type="button" class="danger" disabled=${count === 0} ...${may("DELETE", path`/cache-manager/${net}`)} onClick=${() => setConfirming(true)}>Clear the cache…</button>`}>
    <p class="muted">What the network last reported about each device. Deleting an entry changes no device; it fills again when the device reports.</p>
    <${Loaded} load=${load}>${(/** @type {CachedDevice[]} */ devices) => devices.length === 0
      ? html`<p class="muted">Nothing is cached for this configuration. Devices appear here once its network runs and they report.</p>`
      : html`<div class="table-wrap">
        <table>
          <caption class="muted" style=${{ captionSide: "bottom", textAlign: "left", padding: ".35rem .6rem" }}>${devices.length} cached ${devices.length === 1 ? "device" : "devices"}</caption>
          <thead><tr>
            <th scope="col">Device</th>
            <th scope="col">Last seen</th>
            <th scope="col">Connection</th>
            <th scope="col">Status</th>
            <th scope="col">Position (m)</th>
            <th scope="col">Attributes</th>
            <th scope="col">Firmware</th>
            <th scope="col">Last action</th>
            <th scope="col">Action</th>
          </tr></thead>
          <tbody>${[...devices].sort((a, b) => a.serial_number.localeCompare(b.serial_number)).map((device) => html`
            <${Row} key=${device.serial_number} net=${net} device=${device} reload=${load.reload} />`)}
          </tbody>
        </table>
      </div>`}<//>
    ${confirming && html`<${Modal} title="Clear the cache?" onClose=${() => setConfirming(false)}>
      <p>This forgets what the network last reported about all ${count} ${count === 1 ? "device" : "devices"} of <strong>${net}</strong>. No device or configuration is changed.</p>
      <${ConfirmButtons} confirm=${clearAll} cancel=${() => setConfirming(false)} allowed=${may("DELETE", path`/cache-manager/${net}`)} />
    <//>`}
  <//>`;
}

/** @param {{net: string, device: CachedDevice, reload: () => void}} props */
function Row({ net, device, reload }) {
  const [busy, setBusy] = useState(false);
  const { status, attributes, position } = device;
  const forget = async () => {
    setBusy(true);
    const answer = await act(() => del(path`/cache-manager/${net}/${device.serial_number}`));
    setBusy(false);
    if (answer) reload();
  };
  return html`<tr data-serial=${device.serial_number}>
    <td class="mono" style=${NOWRAP}>${device.serial_number}</td>
    <td style=${NOWRAP}><time datetime=${new Date(device.last_seen_ms).toISOString()} title=${formatTime(device.last_seen_ms)}>${shortTime(device.last_seen_ms)}</time></td>
    <td>${named(CONNECTIVITY, device.connectivity)}<br /><span class="muted">sync ${named(SYNCHRONISATION, device.synchronisation)}</span></td>
    <td style=${NOWRAP}>${status
      ? html`${status.battery_percent == null ? "mains power" : `battery ${status.battery_percent} %`}
        ${status.minutes_remaining != null && html`<br />${status.minutes_remaining} min left`}
        <br />${status.temperature_celsius} °C, processor ${status.processor_use_percent} %`
      : none()}</td>
    <td style=${NOWRAP}>${position
      ? html`${metres(position.x)}, ${metres(position.y)}, ${metres(position.z)}
        <br /><span class="muted">quality ${position.quality}, ${position.anchors_used} anchors</span>`
      : none()}</td>
    <td>${attributes
      ? html`${attributes.sku} <span class="muted">(${attributes.jurisdiction}, ${attributes.enclosure_colour})</span>`
      : none()}</td>
    <td>${device.firmware_images.length === 0
      ? none()
      : device.firmware_images.map((image) => html`<div style=${NOWRAP} title=${`SHA-1 ${image.sha1}`}>${image.image_type} ${image.version}</div>`)}</td>
    <td>${device.last_action || none()}</td>
    <td style=${NOWRAP}><button type="button" disabled=${busy} ...${may("DELETE", path`/cache-manager/${net}/${device.serial_number}`)} onClick=${forget}>Delete from cache</button></td>
  </tr>`;
}

/**
 * The dialog's buttons; Cancel takes the focus, so Enter does no harm.
 * @param {{confirm: () => void, cancel: () => void, allowed: {disabled?: boolean, title?: string}}} props
 */
function ConfirmButtons({ confirm, cancel, allowed }) {
  const cancelButton = useRef(/** @type {HTMLButtonElement | null} */ (null));
  useEffect(() => {
    const timer = setTimeout(() => cancelButton.current?.focus(), 0);
    return () => clearTimeout(timer);
  }, []);
  return html`<div class="buttons">
    <button type="button" class="danger" ...${allowed} onClick=${confirm}>Clear all</button>
    <button type="button" ref=${cancelButton} onClick=${cancel}>Cancel</button>
  </div>`;
}
