// Notifications of one configuration, newest first and live: a
// `notification` event is prepended without reloading. Filter by level and
// read state, mark one read or unread, mark all read; paged client-side
// (the API keeps up to 10,000 and answers them in one list).

import { html, useState, useEffect, useRef, useId } from "../lib/html.js";
import { call, patch, path } from "../lib/api.js";
import { Page, Loaded, Notice, useLoad, useLive, act, formatTime } from "../lib/components.js";
import { levelName, shortTime } from "../lib/format.js";
import { pageOf } from "../lib/table.js";
import { setQuery } from "../lib/router.js";
import { may } from "../lib/access.js";

/** @typedef {import("../lib/types.js").Notification} Notification */

const PAGE_SIZE = 50;
const NOWRAP = { whiteSpace: "nowrap" };

/** Newest first. @param {Notification[]} list */
function newestFirst(list) {
  return [...list].sort((a, b) => b.identifier - a.identifier);
}

/** Badge colours per level (until style.css has `.badge.level-N`). */
const LEVEL_STYLE = {
  1: { background: "var(--error-paper)", borderColor: "var(--error)", color: "#5c1510" },
  2: { background: "var(--warning-paper)", borderColor: "#c98a00", color: "#4d3000" },
  3: { background: "var(--info-paper)", borderColor: "#7fa7d6", color: "#0f2740" },
  4: {},
};

/** @param {{level: number}} props */
export function LevelBadge({ level }) {
  return html`<span class=${`badge level-${level}`} style=${/** @type {any} */ (LEVEL_STYLE)[level] || {}}>${levelName(level)}</span>`;
}

/** @param {{params: Record<string, string>, query: URLSearchParams}} props */
export default function View({ params, query }) {
  const net = params.net;
  const load = useLoad(async (signal) => {
    const answer = await call("GET", path`/nets/${net}/notifications`, { signal });
    return newestFirst(/** @type {Notification[]} */ (answer.body.notifications || []));
  }, [net]);

  // What is shown: the last load, plus notifications that arrived live
  // after it, with the read flags this page changed since.
  const [items, setItems] = useState(/** @type {Notification[] | undefined} */ (undefined));
  useEffect(() => {
    const loaded = load.data;
    if (!loaded) return;
    setItems((old) => {
      const newestLoaded = loaded.length ? loaded[0].identifier : -1;
      const newer = (old || []).filter((item) => item.identifier > newestLoaded);
      return [...newer, ...loaded];
    });
  }, [load.data]);

  // Live: prepend new ones; reload when another client changed read flags,
  // and after a resync.
  const reloadTimer = useRef(/** @type {number | undefined} */ (undefined));
  const reloadSoon = () => {
    if (reloadTimer.current !== undefined) return;
    reloadTimer.current = setTimeout(() => {
      reloadTimer.current = undefined;
      load.reload();
    }, 300);
  };
  useEffect(() => () => clearTimeout(reloadTimer.current), []);
  useLive(["notification", "change"], (data, type) => {
    if (type === "notification") {
      const { net: _net, ...notification } = data;
      setItems((old) => {
        const list = old || [];
        const added = /** @type {Notification} */ (notification);
        if (!list.length || added.identifier > list[0].identifier) return [added, ...list];
        if (list.some((item) => item.identifier === added.identifier)) return list;
        return newestFirst([added, ...list]);
      });
    } else if (type === "resync") {
      reloadSoon();
    } else if (type === "change" && String(data.resource || "").startsWith("/nets/{net_name}/notifications")) {
      reloadSoon();
    }
  }, net);

  /** @param {Notification} changed */
  const replace = (changed) => setItems((old) => (old || []).map((item) => (item.identifier === changed.identifier ? changed : item)));

  const all = items || [];
  const unread = all.filter((item) => !item.read).length;
  const level = query.get("level") || "";
  const show = query.get("show") || "";
  const filtered = all.filter((item) =>
    (!level || String(item.level) === level) && (show === "unread" ? !item.read : show === "read" ? item.read : true));
  const { page, pages, shown } = pageOf(filtered, query.get("page"), PAGE_SIZE);

  const markAllRead = async () => {
    const answer = await act(() => patch(path`/nets/${net}/notifications`, { read: true }));
    if (answer) setItems((old) => (old || []).map((item) => (item.read ? item : { ...item, read: true })));
  };

  const title = items === undefined ? "Notifications" : `Notifications (${unread} unread)`;
  return html`<${Page} title=${title} view="notifications" actions=${html`
      <button type="button" class="primary" disabled=${unread === 0} ...${may("PATCH", path`/nets/${net}/notifications`)} onClick=${markAllRead}>Mark all read</button>`}>
    <${Loaded} load=${{ ...load, data: items === undefined ? undefined : items }}>${() => html`
      <${Filters} level=${level} show=${show} />
      ${load.error && html`<${Notice} level=${2}><p>The list could not be refreshed; it may be out of date.</p>
        <button type="button" onClick=${load.reload}>Try again</button><//>`}
      ${filtered.length === 0
        ? html`<p class="muted">${all.length === 0 ? "No notifications yet." : "No notification matches these filters."}</p>`
        : html`
          <div class="table-wrap">
            <table>
              <caption class="muted" style=${{ captionSide: "bottom", textAlign: "left", padding: ".35rem .6rem" }}>
                ${filtered.length === all.length ? `${all.length} notifications` : `${filtered.length} of ${all.length} notifications`}, newest first
              </caption>
              <thead><tr>
                <th scope="col">Level</th>
                <th scope="col">Time</th>
                <th scope="col">Device</th>
                <th scope="col">Message</th>
                <th scope="col">State</th>
                <th scope="col">Action</th>
              </tr></thead>
              <tbody>
                ${shown.map((item) => html`<${Row} key=${item.identifier} net=${net} item=${item} replace=${replace} />`)}
              </tbody>
            </table>
          </div>
          ${pages > 1 && html`<${Pager} page=${page} pages=${pages} />`}`}
    `}<//>
  <//>`;
}

/** @param {{level: string, show: string}} props */
function Filters({ level, show }) {
  const levelId = useId();
  const showId = useId();
  return html`<div class="toolbar" role="group" aria-label="Filters">
    <label for=${levelId}>Level</label>
    <select id=${levelId} value=${level} onChange=${(/** @type {Event} */ event) =>
      setQuery({ level: /** @type {HTMLSelectElement} */ (event.target).value, page: null })}>
      <option value="">All levels</option>
      <option value="1">Error</option>
      <option value="2">Warning</option>
      <option value="3">Information</option>
      <option value="4">Debug</option>
    </select>
    <label for=${showId}>Read state</label>
    <select id=${showId} value=${show} onChange=${(/** @type {Event} */ event) =>
      setQuery({ show: /** @type {HTMLSelectElement} */ (event.target).value, page: null })}>
      <option value="">Read and unread</option>
      <option value="unread">Unread only</option>
      <option value="read">Read only</option>
    </select>
  </div>`;
}

/** @param {{net: string, item: Notification, replace: (item: Notification) => void}} props */
function Row({ net, item, replace }) {
  const [busy, setBusy] = useState(false);
  const toggle = async () => {
    setBusy(true);
    const answer = await act(() => patch(path`/nets/${net}/notifications/${item.identifier}`, { read: !item.read }));
    setBusy(false);
    if (answer?.body?.notification) replace(answer.body.notification);
  };
  return html`<tr class=${item.read ? "read" : "unread"} data-identifier=${item.identifier}>
    <td><${LevelBadge} level=${item.level} /></td>
    <td><time datetime=${new Date(item.timestamp_ms).toISOString()} title=${formatTime(item.timestamp_ms)}>${shortTime(item.timestamp_ms)}</time></td>
    <td>${item.serial_number ? html`<span class="mono">${item.serial_number}</span>` : html`<span class="muted">the whole network</span>`}</td>
    <td style=${item.read ? {} : { fontWeight: 600 }}>${item.message}</td>
    <td>${item.read ? html`<span class="badge">Read</span>` : html`<span class="badge unread">Unread</span>`}</td>
    <td style=${NOWRAP}><button type="button" disabled=${busy} ...${may("PATCH", path`/nets/${net}/notifications/${item.identifier}`)} onClick=${toggle}>${item.read ? "Mark unread" : "Mark read"}</button></td>
  </tr>`;
}

/** @param {{page: number, pages: number}} props */
function Pager({ page, pages }) {
  return html`<nav class="toolbar" aria-label="Pages">
    <button type="button" disabled=${page <= 1} onClick=${() => setQuery({ page: page - 1 === 1 ? null : page - 1 })}>Newer</button>
    <span>Page ${page} of ${pages}</span>
    <button type="button" disabled=${page >= pages} onClick=${() => setQuery({ page: page + 1 })}>Older</button>
  </nav>`;
}
