// Logs of one configuration: its log files (one per run), one file's text
// (text/plain, read raw), its download, and the recent log messages.

import { html, useEffect, useRef } from "../lib/html.js";
import { call, download, path } from "../lib/api.js";
import { Page, Loaded, useLoad, useReloadOn, act } from "../lib/components.js";
import { setQuery } from "../lib/router.js";

/** The most text shown on the page; the download has the whole file. */
const SHOWN_CHARACTERS = 500_000;

/** @param {{params: Record<string, string>, query: URLSearchParams}} props */
export default function View({ params, query }) {
  const net = params.net;
  const file = query.get("file") || "";
  const files = useLoad(async (signal) => {
    const answer = await call("GET", path`/nets/${net}/logs`, { signal });
    return /** @type {string[]} */ ([...(answer.body.logs || [])]).sort().reverse();
  }, [net]);
  // A start opens a new log file.
  useReloadOn(files.reload, ["state"], net);

  return html`<${Page} title="Logs" view="logs">
    <section aria-labelledby="log-files">
      <div class="page-header" style=${{ marginBottom: ".25rem" }}>
        <h2 id="log-files">Log files</h2>
        <button type="button" onClick=${files.reload}>Refresh the list</button>
      </div>
      <${Loaded} load=${files}>${(/** @type {string[]} */ names) => names.length === 0
        ? html`<p class="muted">No log files yet: a configuration writes one each time it starts.</p>`
        : html`<div class="table-wrap" style=${{ maxHeight: "18rem" }}>
          <table>
            <thead><tr><th scope="col">File</th><th scope="col">Actions</th></tr></thead>
            <tbody>${names.map((name) => html`<tr key=${name} class=${name === file ? "selected" : ""}>
              <td class="mono">${name}</td>
              <td>
                <div class="buttons">
                  <button type="button" aria-pressed=${name === file ? "true" : "false"}
                    onClick=${() => setQuery({ file: name === file ? null : name })}>${name === file ? "Hide" : "View"}</button>
                  <button type="button" onClick=${() => downloadLog(net, name)}>Download</button>
                </div>
              </td>
            </tr>`)}</tbody>
          </table>
        </div>`}<//>
    </section>
    ${file && html`<${LogFile} key=${file} net=${net} name=${file} />`}
    <${LogMessages} net=${net} />
  <//>`;
}

/** @param {string} net @param {string} name */
function downloadLog(net, name) {
  return act(async () => {
    await download(path`/nets/${net}/logs/${name}`, name);
    return { message: `Downloading ${name}`, level: 3 };
  });
}

/** One log file's text. @param {{net: string, name: string}} props */
function LogFile({ net, name }) {
  const load = useLoad(async (signal) => {
    const answer = await call("GET", path`/nets/${net}/logs/${name}`, { raw: true, signal });
    return /** @type {Response} */ (answer.response).text();
  }, [net, name]);
  const pre = useRef(/** @type {HTMLPreElement | null} */ (null));
  useEffect(() => {
    // The newest lines are at the end: start there.
    if (pre.current) pre.current.scrollTop = pre.current.scrollHeight;
  }, [load.data]);
  return html`<section aria-labelledby="log-file-title">
    <div class="page-header" style=${{ marginBottom: ".25rem", marginTop: "1rem" }}>
      <h2 id="log-file-title">Log file <span class="mono">${name}</span></h2>
      <div class="buttons">
        <button type="button" onClick=${load.reload} disabled=${load.loading}>Reload the file</button>
        <button type="button" onClick=${() => downloadLog(net, name)}>Download</button>
        <button type="button" onClick=${() => setQuery({ file: null })}>Close</button>
      </div>
    </div>
    <${Loaded} load=${load}>${(/** @type {string} */ text) => {
      const cut = text.length > SHOWN_CHARACTERS;
      const shown = cut ? text.slice(text.length - SHOWN_CHARACTERS) : text;
      return html`
        ${cut && html`<p class="muted">The file is long: this shows its end. Download it for the whole file.</p>`}
        ${text.length === 0
          ? html`<p class="muted">The file is empty.</p>`
          : html`<pre ref=${pre} tabindex="0" aria-label=${`Contents of ${name}`}>${shown}</pre>`}`;
    }}<//>
  </section>`;
}

/** The recent log messages, live. @param {{net: string}} props */
function LogMessages({ net }) {
  const load = useLoad(async (signal) => {
    const answer = await call("GET", path`/nets/${net}/log_messages`, { signal });
    return /** @type {string[]} */ (answer.body.log_messages || []);
  }, [net]);
  // What the engine logs comes with what it reports: reload on those events.
  useReloadOn(load.reload, ["state", "notification", "device"], net);
  const pre = useRef(/** @type {HTMLPreElement | null} */ (null));
  const atEnd = useRef(true);
  useEffect(() => {
    const element = pre.current;
    if (element && atEnd.current) element.scrollTop = element.scrollHeight;
  }, [load.data]);
  return html`<section aria-labelledby="log-messages">
    <div class="page-header" style=${{ marginBottom: ".25rem", marginTop: "1rem" }}>
      <h2 id="log-messages">Recent log messages</h2>
      <button type="button" onClick=${load.reload}>Refresh messages</button>
    </div>
    <${Loaded} load=${load}>${(/** @type {string[]} */ lines) => lines.length === 0
      ? html`<p class="muted">No log messages.</p>`
      : html`<pre ref=${pre} tabindex="0" aria-label="Recent log messages"
          onScroll=${(/** @type {Event} */ event) => {
            const element = /** @type {HTMLElement} */ (event.currentTarget);
            atEnd.current = element.scrollTop + element.clientHeight >= element.scrollHeight - 8;
          }}>${lines.join("\n")}</pre>`}<//>
  </section>`;
}
