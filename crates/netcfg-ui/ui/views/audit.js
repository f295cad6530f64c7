// The audit trail (decisions §17; admin): sign-ins, keys, users and
// refused requests, newest first, a page at a time.

import { html, useState } from "../lib/html.js";
import { call } from "../lib/api.js";
import { Page, Loaded, useLoad, formatTime } from "../lib/components.js";

const PAGE = 100;

/** The view (it takes no parameters from its URL). */
export default function View() {
  const [before, setBefore] = useState(/** @type {number | null} */ (null));
  const load = useLoad(async (signal) => {
    const query = { limit: PAGE, ...(before ? { before_id: before } : {}) };
    return (await call("GET", "/audit", { query, signal })).body.audit;
  }, [before]);
  return html`<${Page} title="Audit" view="audit">
    <${Loaded} load=${load}>${(/** @type {{entries: any[], dropped: number}} */ page) => html`
      ${page.dropped > 0 && html`<p class="muted">${page.dropped} of the oldest entries were dropped (audit_keep).</p>`}
      ${page.entries.length === 0
        ? html`<p class="muted">No entries${before ? " older than these" : ""}.</p>`
        : html`<div class="table-wrap"><table>
          <thead><tr><th scope="col">When</th><th scope="col">Event</th><th scope="col">Who</th><th scope="col">Address</th><th scope="col">Detail</th><th scope="col">Status</th></tr></thead>
          <tbody>${page.entries.map((entry) => html`<tr key=${entry.id} data-item=${String(entry.id)}>
            <td>${formatTime(entry.time_ms)}</td><td>${entry.event.replaceAll("_", " ")}</td><td>${entry.user ?? ""}</td>
            <td>${entry.address ?? ""}</td><td>${entry.detail}</td><td>${entry.status ?? ""}</td>
          </tr>`)}</tbody>
        </table></div>`}
      <div class="buttons">
        ${before && html`<button type="button" onClick=${() => setBefore(null)}>Newest</button>`}
        ${page.entries.length === PAGE && html`<button type="button" onClick=${() => setBefore(page.entries[page.entries.length - 1].id)}>Older</button>`}
      </div>`}<//>
  <//>`;
}
