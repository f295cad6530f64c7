// Configurations (`#/`): every configuration with its state, its link and
// its unread notifications; create, copy, rename, upload, download, delete,
// start, stop and restart. Updates live on `state`, `change` and `notification`.
// A button whose request the signed-in role may not make is disabled, with
// the reason as its title (decisions §17).

import { html, useState } from "../lib/html.js";
import { call, post, patch, del, path, download, ApiError } from "../lib/api.js";
import { Page, Notice, Loaded, Modal, LongPath, useLoad, useLive, useReloadOn, act } from "../lib/components.js";
import { useForm, Field, FormFooter } from "../lib/forms.js";
import { may } from "../lib/access.js";
import { href, navigate } from "../lib/router.js";

/** @typedef {import("../lib/types.js").Configuration} Configuration */

/**
 * Names whose link went down (a `state` event `link_down`), until they are
 * started or stopped again. Kept for the page's life, so coming back to
 * this view still shows it.
 * @type {Set<string>}
 */
export const linkDown = new Set();

/**
 * Turns a 409 `name_taken` (which has no `problems`) into a problem of the
 * form's `field`, so it shows beside that field.
 * @param {string} field
 * @returns {(failure: unknown) => never}
 */
export function nameProblem(field) {
  return (failure) => {
    if (failure instanceof ApiError && failure.problems.length === 0 && (failure.code === "name_taken" || failure.status === 409)) {
      failure.problems = [{ field, problem: failure.message }];
    }
    throw failure;
  };
}

/**
 * A configuration's instance, for people.
 * @param {string} instance
 */
export function describeInstance(instance) {
  if (!instance) return "server's default";
  if (instance === "sim") return "simulator";
  if (instance.startsWith("sim:")) return `simulator (${instance.slice(4)})`;
  return instance;
}

/**
 * The state badges of a configuration.
 * @param {{state: string, down: boolean}} props
 */
export function StateBadges({ state, down }) {
  return html`<span class=${`badge ${state === "running" ? "running" : "stopped"}`}>${state === "running" ? "Running" : "Stopped"}</span>
    ${state === "running" && (down
      ? html` <span class="badge down">Link down</span>`
      : html` <span class="badge ok">Link up</span>`)}`;
}

/** The view (it takes no parameters from its URL). */
export default function View() {
  const load = useLoad(async (signal) => {
    const answer = await call("GET", "/nets", { signal });
    /** @type {Configuration[]} */
    const nets = answer.body.configurations || [];
    const counts = await Promise.all(nets.map((net) =>
      call("GET", path`/nets/${net.name}/notifications_count`, { signal }).then(
        (reply) => /** @type {number} */ (reply.body.count),
        () => undefined,
      )));
    return nets.map((net, index) => ({ ...net, unread: counts[index] }));
  }, []);
  const [, setTick] = useState(0);
  useLive(["state"], (data) => {
    const { net, state, renamed_to: renamedTo } = data;
    if (state === "link_down") linkDown.add(net);
    else if (state === "started" || state === "stopped" || state === "deleted") linkDown.delete(net);
    else if (state === "renamed" && renamedTo && linkDown.delete(net)) linkDown.add(renamedTo);
    setTick((value) => value + 1);
  });
  useReloadOn(load.reload, ["state", "change", "notification"]);

  /** @type {[null | {kind: string, net?: Configuration}, (value: null | {kind: string, net?: Configuration}) => void]} */
  const [dialog, setDialog] = useState(/** @type {null | {kind: string, net?: Configuration}} */ (null));
  const close = () => setDialog(null);
  const done = () => {
    setDialog(null);
    load.reload();
  };
  /** @param {string} name @param {"start" | "stop" | "restart"} action */
  const run = (name, action) => act(() => post(path`/nets/${name}`, { action })).then(load.reload);

  return html`<${Page} title="Configurations" view="nets" actions=${html`
      <button type="button" class="primary" ...${may("POST", "/nets")} onClick=${() => setDialog({ kind: "create" })}>New configuration</button>
      <button type="button" ...${may("POST", "/nets/upload")} onClick=${() => setDialog({ kind: "upload" })}>Upload configuration</button>`}>
    <${Loaded} load=${load}>${(/** @type {(Configuration & {unread?: number})[]} */ nets) => nets.length === 0
      ? html`<${Notice} level=${3}><p>There is no configuration yet. Create one, or upload a saved-state file.</p><//>`
      : html`<div class="table-wrap">
        <table>
          <caption class="muted" style=${{ textAlign: "left", padding: ".4rem .6rem" }}>${nets.length} configuration${nets.length === 1 ? "" : "s"}</caption>
          <thead><tr>
            <th scope="col">Name</th>
            <th scope="col">State</th>
            <th scope="col">Instance</th>
            <th scope="col">Network mode</th>
            <th scope="col" class="number">Unread</th>
            <th scope="col">Actions</th>
          </tr></thead>
          <tbody>
            ${nets.map((net) => {
              const runAccess = may("POST", path`/nets/${net.name}`);
              return html`<tr key=${net.name} data-net=${net.name}>
              <th scope="row" style=${{ background: "transparent", position: "static" }}><a href=${href("nets", net.name)}>${net.name}</a></th>
              <td style=${{ whiteSpace: "nowrap" }}><${StateBadges} state=${net.state} down=${linkDown.has(net.name)} /></td>
              <td><${LongPath} text=${describeInstance(net.instance)} /></td>
              <td>${net.network_mode === "multirange" ? "MultiRange" : "MultiTime"}</td>
              <td class="number">${net.unread === undefined
                ? "–"
                : html`<a href=${href("nets", net.name, "notifications")} class=${net.unread > 0 ? "badge unread" : "badge"}
                    aria-label=${`${net.unread} unread notifications of ${net.name}`}>${net.unread}</a>`}</td>
              <td><div class="buttons" style=${{ flexWrap: "nowrap" }}>
                ${net.state === "running"
                  ? html`<button type="button" ...${runAccess} onClick=${() => run(net.name, "stop")} aria-label=${`Stop ${net.name}`}>Stop</button>
                      <button type="button" onClick=${() => run(net.name, "restart")} aria-label=${`Restart ${net.name}`}
                        title="Stops the network and starts it again from the saved configuration" ...${runAccess}>Restart</button>`
                  : html`<button type="button" ...${runAccess} onClick=${() => run(net.name, "start")} aria-label=${`Start ${net.name}`}>Start</button>`}
                <button type="button" ...${may(...COPY)} onClick=${() => setDialog({ kind: "copy", net })} aria-label=${`Copy ${net.name}`}>Copy</button>
                <button type="button" ...${may("PATCH", path`/nets/${net.name}`)} onClick=${() => setDialog({ kind: "rename", net })} aria-label=${`Rename ${net.name}`}>Rename</button>
                <button type="button" onClick=${() => act(async () => {
                  await download(path`/nets/${net.name}/download`, `${net.name}.sqlite`);
                  return { message: `Downloaded ${net.name}`, level: 3 };
                })} aria-label=${`Download ${net.name}`}>Download</button>
                <button type="button" class="danger" ...${may("DELETE", path`/nets/${net.name}`)} onClick=${() => setDialog({ kind: "delete", net })} aria-label=${`Delete ${net.name}`}>Delete</button>
              </div></td>
            </tr>`;
            })}
          </tbody>
        </table>
      </div>`}<//>
    ${dialog?.kind === "create" && html`<${CreateDialog} onClose=${close} onDone=${done} />`}
    ${dialog?.kind === "upload" && html`<${UploadDialog} onClose=${close} onDone=${done} />`}
    ${dialog?.kind === "copy" && dialog.net && html`<${CopyDialog} net=${dialog.net} onClose=${close} onDone=${done} />`}
    ${dialog?.kind === "rename" && dialog.net && html`<${RenameDialog} net=${dialog.net} onClose=${close} onDone=${done} />`}
    ${dialog?.kind === "delete" && dialog.net && html`<${DeleteDialog} net=${dialog.net} onClose=${close} onDone=${done} />`}
  <//>`;
}

/**
 * What a copy needs: `POST /nets/{net}` with the action copy is refused to
 * less than an editor (the route itself takes an operator, for start and
 * stop), as a new configuration is: asked as `POST /nets`.
 * @type {[string, string]}
 */
const COPY = ["POST", "/nets"];

const INSTANCE_HINT = "Empty for the server's default; sim, sim:<scenario> (default, strangers, quiet) for the simulator; or a serial port path such as /dev/ttyUSB0.";

/** @param {{onClose: () => void, onDone: () => void}} props */
function CreateDialog({ onClose, onDone }) {
  const form = useForm({ name: "", instance: "" });
  return html`<${Modal} title="New configuration" onClose=${onClose}>
    <form onSubmit=${form.submit(async (values) => {
      const answer = await post("/nets", { name: String(values.name).trim(), instance: String(values.instance).trim() }).catch(nameProblem("name"));
      await act(async () => answer);
      onDone();
      navigate(href("nets", answer.body.configuration?.name || values.name));
    })}>
      <${Field} form=${form} name="name" label="Name" required autofocus hint="1 to 64 of A-Z a-z 0-9 . _ -, not starting with a dot." />
      <${Field} form=${form} name="instance" label="Instance" hint=${INSTANCE_HINT} placeholder="sim" />
      <${FormFooter} form=${form} submitLabel="Create" request=${["POST", "/nets"]}><button type="button" onClick=${onClose}>Cancel</button><//>
    </form>
  <//>`;
}

/** @param {{onClose: () => void, onDone: () => void}} props */
function UploadDialog({ onClose, onDone }) {
  const form = useForm({ net_file: null, name: "" });
  return html`<${Modal} title="Upload configuration" onClose=${onClose}>
    <form onSubmit=${form.submit(async (values) => {
      const data = new FormData();
      if (values.net_file) data.append("net_file", values.net_file, values.net_file.name);
      const name = String(values.name).trim();
      if (name) data.append("name", name);
      const answer = await call("POST", "/nets/upload", { form: data }).catch(nameProblem("name"));
      await act(async () => answer);
      onDone();
    })}>
      <${Field} form=${form} name="net_file" label="Saved-state file" kind="file" required />
      <${Field} form=${form} name="name" label="Name" hint="Optional: the file's name without its extension when empty." />
      <${FormFooter} form=${form} submitLabel="Upload" request=${["POST", "/nets/upload"]}><button type="button" onClick=${onClose}>Cancel</button><//>
    </form>
  <//>`;
}

/** @param {{net: Configuration, onClose: () => void, onDone: () => void}} props */
function CopyDialog({ net, onClose, onDone }) {
  const form = useForm({ name: `${net.name}-copy` });
  return html`<${Modal} title=${`Copy ${net.name}`} onClose=${onClose}>
    <form onSubmit=${form.submit(async (values) => {
      const answer = await post(path`/nets/${net.name}`, { action: "copy", name: String(values.name).trim() }).catch(nameProblem("name"));
      await act(async () => answer);
      onDone();
    })}>
      <${Field} form=${form} name="name" label="Name of the copy" required autofocus />
      <${FormFooter} form=${form} submitLabel="Copy" request=${COPY}><button type="button" onClick=${onClose}>Cancel</button><//>
    </form>
  <//>`;
}

/** @param {{net: Configuration, onClose: () => void, onDone: () => void}} props */
function RenameDialog({ net, onClose, onDone }) {
  const form = useForm({ name: net.name, instance: net.instance });
  return html`<${Modal} title=${`Rename ${net.name}`} onClose=${onClose}>
    <form onSubmit=${form.submit(async (values) => {
      const answer = await patch(path`/nets/${net.name}`, { name: String(values.name).trim(), instance: String(values.instance).trim() }).catch(nameProblem("name"));
      await act(async () => answer);
      onDone();
    })}>
      <${Field} form=${form} name="name" label="New name" required autofocus />
      <${Field} form=${form} name="instance" label="Instance" hint=${INSTANCE_HINT} />
      <${FormFooter} form=${form} submitLabel="Save" request=${["PATCH", path`/nets/${net.name}`]}><button type="button" onClick=${onClose}>Cancel</button><//>
    </form>
  <//>`;
}

/** @param {{net: Configuration, onClose: () => void, onDone: () => void}} props */
function DeleteDialog({ net, onClose, onDone }) {
  const form = useForm({});
  return html`<${Modal} title=${`Delete ${net.name}?`} onClose=${onClose}>
    <form onSubmit=${form.submit(async () => {
      const answer = await del(path`/nets/${net.name}`);
      await act(async () => ({ ...answer, message: answer.message || `Configuration ${net.name} deleted` }));
      onDone();
    })}>
      <p>This deletes the configuration <strong>${net.name}</strong> and its saved-state file${net.state === "running" ? ", and stops its network" : ""}. It cannot be undone; download it first to keep a copy.</p>
      <${FormFooter} form=${form} submitLabel="Delete configuration" request=${["DELETE", path`/nets/${net.name}`]}><button type="button" onClick=${onClose}>Cancel</button><//>
    </form>
  <//>`;
}
