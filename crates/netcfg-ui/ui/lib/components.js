// Pieces every view uses: loading data, listening to live events, the
// page's frame, notices, dialogs (a deletion's confirmation among them) and
// the status line.

import { html, useState, useEffect, useRef, useCallback } from "./html.js";
import { listen } from "./events.js";
import { describeFailure } from "./forms.js";
import { wrapPoints } from "./format.js";
import { may } from "./access.js";

/**
 * A URL or file path that may wrap after its separators (a <wbr> after
 * each): a long one stays in its cell, and its host, folders and
 * parameters stay readable.
 * @param {{text: string, class?: string}} props
 */
export function LongPath({ text, class: className }) {
  const pieces = wrapPoints(text);
  return html`<span class=${`long-path ${className || ""}`.trim()}>${pieces.map((piece, at) => (at ? html`<wbr />${piece}` : piece))}</span>`;
}

/**
 * Loads data with `loader` when `deps` change; `reload()` loads again
 * (keeping the old data on screen meanwhile).
 * @template T
 * @param {(signal: AbortSignal) => Promise<T>} loader
 * @param {any[]} deps
 * @returns {{data: T | undefined, error: unknown, loading: boolean, reload: () => void}}
 */
export function useLoad(loader, deps) {
  const [state, setState] = useState(/** @type {{data: T | undefined, error: unknown, loading: boolean}} */ ({ data: undefined, error: null, loading: true }));
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    const controller = new AbortController();
    setState((old) => ({ ...old, loading: true }));
    loader(controller.signal).then(
      (data) => !controller.signal.aborted && setState({ data, error: null, loading: false }),
      (error) => !controller.signal.aborted && setState((old) => ({ data: old.data, error, loading: false })),
    );
    return () => controller.abort();
  }, [...deps, generation]);
  const reload = useCallback(() => setGeneration((value) => value + 1), []);
  return { ...state, reload };
}

/**
 * Listens to live events while the view is shown. The handler may change
 * between renders; the subscription does not.
 * @param {import("./events.js").EventType[]} types
 * @param {import("./events.js").Handler} handler
 * @param {string} [net]
 */
export function useLive(types, handler, net) {
  const latest = useRef(handler);
  latest.current = handler;
  useEffect(() => listen(types, (data, type) => latest.current(data, type), net === undefined ? {} : { net }), [types.join(","), net]);
}

/**
 * Calls `reload` after any event of configuration `net` (or of any when
 * absent) of the given types, and on `resync`; at most once per 250 ms, so a
 * burst of changes costs one reload.
 * @param {() => void} reload
 * @param {import("./events.js").EventType[]} types
 * @param {string} [net]
 */
export function useReloadOn(reload, types, net) {
  const timer = useRef(/** @type {number | undefined} */ (undefined));
  useLive(types, () => {
    if (timer.current !== undefined) return;
    timer.current = setTimeout(() => {
      timer.current = undefined;
      reload();
    }, 250);
  }, net);
  useEffect(() => () => clearTimeout(timer.current), []);
}

/**
 * A view's frame: its heading, actions beside it, then its content.
 * @param {{title: string, actions?: any, children?: any, view: string}} props
 */
export function Page({ title, actions, children, view }) {
  useEffect(() => {
    document.title = `${title} · netcfg`;
  }, [title]);
  return html`<section class="page" data-view=${view} aria-labelledby="page-title">
    <header class="page-header">
      <h1 id="page-title" tabindex="-1">${title}</h1>
      ${actions && html`<div class="actions">${actions}</div>`}
    </header>
    ${children}
  </section>`;
}

/**
 * A message of the API at its level (1 error, 2 warning, 3 information).
 * @param {{level?: number, children?: any}} props
 */
export function Notice({ level = 3, children }) {
  return html`<div class=${`notice level-${level}`} role=${level <= 2 ? "alert" : "status"}>${children}</div>`;
}

/**
 * What `useLoad` gives, shown: a failure as a notice, a first load as a
 * placeholder, else `render(data)`.
 * @template T
 * @param {{load: {data: T | undefined, error: unknown, loading: boolean, reload: () => void}, children: (data: T) => any}} props
 */
export function Loaded({ load, children }) {
  if (load.error && load.data === undefined) {
    return html`<${Notice} level=${1}>
      <p>${describeFailure(load.error).message}</p>
      <button type="button" onClick=${load.reload}>Try again</button>
    <//>`;
  }
  if (load.data === undefined) return html`<p class="loading" aria-busy="true">Loading…</p>`;
  return children(load.data);
}

/**
 * A modal dialog (the browser's own <dialog>: focus kept inside, Escape
 * closes it).
 * @param {{title: string, onClose: () => void, children?: any, wide?: boolean}} props
 */
export function Modal({ title, onClose, children, wide }) {
  const dialog = useRef(/** @type {HTMLDialogElement | null} */ (null));
  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
    return () => element?.close();
  }, []);
  return html`<dialog ref=${dialog} class=${wide ? "wide" : ""} aria-labelledby="dialog-title"
      onCancel=${(/** @type {Event} */ event) => {
        event.preventDefault();
        onClose();
      }}>
    <header class="dialog-header">
      <h2 id="dialog-title">${title}</h2>
      <button type="button" class="icon" aria-label="Close" onClick=${onClose}>×</button>
    </header>
    ${children}
  </dialog>`;
}

/**
 * The confirmation of a deletion: `children` say what it does. Delete runs
 * `remove` (disabled meanwhile), says the answer's message (or `deleted`)
 * and calls `onDone`; a failure shows in the dialog. Cancel takes the
 * focus, so Enter does no harm. `request` (method and path) is what
 * `remove` sends: a role that may not send it finds Delete disabled, with
 * the reason as its title (decisions §17).
 * @param {{title: string, remove: () => Promise<{message?: string, level?: number}>, deleted: string,
 *   onClose: () => void, onDone: () => void, children?: any, request?: [string, string]}} props
 */
export function ConfirmDelete({ title, remove, deleted, onClose, onDone, children, request }) {
  const [failure, setFailure] = useState("");
  const [busy, setBusy] = useState(false);
  const cancel = useRef(/** @type {HTMLButtonElement | null} */ (null));
  useEffect(() => {
    const timer = setTimeout(() => cancel.current?.focus(), 0);
    return () => clearTimeout(timer);
  }, []);
  async function confirm() {
    setBusy(true);
    try {
      const answer = await remove();
      say(answer.message || deleted, answer.level);
      onDone();
    } catch (error) {
      setFailure(describeFailure(error).message);
      setBusy(false);
    }
  }
  return html`<${Modal} title=${title} onClose=${onClose}>
    ${children}
    ${failure && html`<div class="notice level-1" role="alert"><p>${failure}</p></div>`}
    <div class="buttons">
      <button type="button" class="danger" onClick=${confirm} disabled=${busy} ...${request ? may(request[0], request[1]) : {}}>Delete</button>
      <button type="button" ref=${cancel} onClick=${onClose}>Cancel</button>
    </div>
  <//>`;
}

/** @type {Set<(entry: {text: string, level: number, at: number}) => void>} */
const statusWatchers = new Set();

/**
 * Shows a sentence in the page's status line (a live region, so screen
 * readers say it): the API's message after an action.
 * @param {string} text
 * @param {number} [level]
 */
export function say(text, level = 3) {
  const entry = { text, level, at: Date.now() };
  for (const watcher of statusWatchers) watcher(entry);
}

/**
 * Runs an action from a button: says the API's answer, or its failure.
 * Resolves with the answer, or undefined after a failure.
 * @template T
 * @param {() => Promise<T>} action
 * @returns {Promise<T | undefined>}
 */
export async function act(action) {
  try {
    const answer = await action();
    const message = /** @type {any} */ (answer)?.message;
    if (message) say(message, /** @type {any} */ (answer).level ?? 3);
    return answer;
  } catch (failure) {
    say(describeFailure(failure).message, 1);
    return undefined;
  }
}

/** The page's status line. */
export function StatusLine() {
  const [entry, setEntry] = useState(/** @type {{text: string, level: number, at: number} | null} */ (null));
  useEffect(() => {
    statusWatchers.add(setEntry);
    return () => statusWatchers.delete(setEntry);
  }, []);
  useEffect(() => {
    if (!entry) return undefined;
    const timer = setTimeout(() => setEntry(null), entry.level === 1 ? 15000 : 6000);
    return () => clearTimeout(timer);
  }, [entry]);
  return html`<div class=${`status-line ${entry ? `level-${entry.level}` : ""}`} role="status" aria-live="polite">
    ${entry && html`<span>${entry.text}</span>
      <button type="button" class="icon" aria-label="Dismiss" onClick=${() => setEntry(null)}>×</button>`}
  </div>`;
}

// The formatting the views share lives in format.js (no DOM, tested under
// node); these two are imported from here by the views.
export { LEVELS, formatTime } from "./format.js";
