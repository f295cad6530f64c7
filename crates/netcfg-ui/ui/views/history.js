// The change history of one configuration, newest first: who changed what
// and when, paged with `before` (the id of the oldest entry shown), and
// "Restore to here", which puts the configuration's content back to what it
// was right after that change. A restore is itself a new change at the top
// of the list, so it can be undone by restoring to the change before it.

import { html, useState } from "../lib/html.js";
import { call, post, path, ApiError } from "../lib/api.js";
import { Page, Loaded, Modal, LongPath, useLoad, useReloadOn, act, formatTime } from "../lib/components.js";
import { useForm, FormFooter } from "../lib/forms.js";
import { href, setQuery } from "../lib/router.js";
import { restoreOffers } from "../lib/history.js";
import { may } from "../lib/access.js";

/** @typedef {import("../lib/types.js").HistoryEntry} HistoryEntry */

const PAGE_SIZE = 50;
const NOWRAP = { whiteSpace: "nowrap" };
/** The table's columns; the change's id is a number, aligned right. */
const COLUMNS = ["Change", "Time", "By", "Request", "Summary", "Action"];

/** @param {{params: Record<string, string>, query: URLSearchParams}} props */
export default function View({ params, query }) {
  const net = params.net;
  const before = query.get("before") || "";
  const load = useLoad(async (signal) => {
    const answer = await call("GET", path`/nets/${net}/history`, { signal, query: { before, limit: PAGE_SIZE } });
    return /** @type {HistoryEntry[]} */ (answer.body.history || []);
  }, [net, before]);
  // Every change to this configuration, made here or elsewhere, adds an entry.
  useReloadOn(load.reload, ["change"], net);
  const [restoring, setRestoring] = useState(/** @type {HistoryEntry | null} */ (null));

  const restored = () => {
    setRestoring(null);
    // The restore is the newest entry now: show the first page, where it is.
    if (before) setQuery({ before: null });
    else load.reload();
  };

  return html`<${Page} title="Change history" view="history" actions=${html`
      <button type="button" onClick=${load.reload} disabled=${load.loading}>Refresh</button>`}>
    <p class="muted">Every change to this configuration's content, newest first, and each start, stop, restart and reload of its network.
      Restoring to a change puts the content back to what it was right after it, as one new change; starts, stops, restarts and reloads
      change no content, so there is nothing to restore to them.</p>
    <${Loaded} load=${load}>${(/** @type {HistoryEntry[]} */ entries) => {
      const offers = restoreOffers(entries, !before);
      return html`
      ${entries.length === 0
        ? html`<p class="muted">${before ? "No older changes." : "No changes yet."}</p>`
        : html`<div class="table-wrap">
          <table>
            <caption>${entries.length} ${entries.length === 1 ? "change" : "changes"}${before ? ` older than change ${before}` : ""}, newest first</caption>
            <thead><tr>${COLUMNS.map((label) => html`<th scope="col" class=${label === "Change" ? "number" : undefined}>${label}</th>`)}</tr></thead>
            <tbody>${entries.map((entry, index) => html`<tr key=${entry.id} data-id=${entry.id}>
              <td class="number">${entry.id}</td>
              <td style=${NOWRAP}><time datetime=${new Date(entry.timestamp_ms).toISOString()}>${formatTime(entry.timestamp_ms)}</time></td>
              <td>${entry.origin}${entry.address && html`<br /><span class="muted mono">${entry.address}</span>`}</td>
              <td class="mono">${entry.method ? html`${entry.method} <${LongPath} text=${entry.path} />` : html`<span class="muted">–</span>`}</td>
              <td>${entry.summary}</td>
              <td style=${NOWRAP}>${offers[index] === "restore"
                ? html`<button type="button" aria-label=${`Restore to here, change ${entry.id}`}
                    ...${may("POST", path`/nets/${net}/history/${entry.id}/restore`)} onClick=${() => setRestoring(entry)}>Restore to here</button>`
                : offers[index] === "current" && html`<span class="muted">current</span>`}</td>
            </tr>`)}</tbody>
          </table>
        </div>`}
      <nav class="toolbar" aria-label="Pages">
        <button type="button" disabled=${!before} onClick=${() => setQuery({ before: null })}>Newest</button>
        <button type="button" disabled=${entries.length < PAGE_SIZE}
          onClick=${() => setQuery({ before: entries[entries.length - 1].id })}>Older</button>
      </nav>`;
    }}<//>
    ${restoring && html`<${RestoreDialog} net=${net} entry=${restoring} onClose=${() => setRestoring(null)} onDone=${restored} />`}
  <//>`;
}

/**
 * Asks before restoring; the API's refusal (the configuration runs, the
 * change was pruned) shows in the dialog.
 * @param {{net: string, entry: HistoryEntry, onClose: () => void, onDone: () => void}} props
 */
function RestoreDialog({ net, entry, onClose, onDone }) {
  const form = useForm({});
  const [running, setRunning] = useState(false);
  return html`<${Modal} title=${`Restore ${net} to change ${entry.id}?`} onClose=${onClose}>
    <form onSubmit=${form.submit(async () => {
      try {
        const answer = await post(path`/nets/${net}/history/${entry.id}/restore`);
        await act(async () => answer);
        onDone();
      } catch (failure) {
        setRunning(failure instanceof ApiError && failure.code === "configuration_running");
        throw failure;
      }
    })}>
      <p>The content of <strong>${net}</strong> goes back to what it was right after change ${entry.id} (${formatTime(entry.timestamp_ms)}): ${entry.summary}.</p>
      <p>The changes since stay in the history, and the restore is a new change: to undo it, restore to the change that is newest now.</p>
      ${running && html`<p>It runs now: stop it on its <a href=${href("nets", net)} onClick=${onClose}>overview</a>, then restore.</p>`}
      <${FormFooter} form=${form} submitLabel="Restore" request=${["POST", path`/nets/${net}/history/${entry.id}/restore`]}>
        <button type="button" onClick=${onClose} autofocus>Cancel</button>
      <//>
    </form>
  <//>`;
}
