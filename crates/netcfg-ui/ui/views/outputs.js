// Outputs of a configuration (decisions §14): where its live events go, an
// MQTT broker or a webhook. The list shows each output with its live
// status, asked for every 2 s while the view is shown (lib/outputs.js's
// poller, at most 4 questions at once); a dialog adds one or edits one
// (PATCH of the changed fields), with the fields its URL's scheme takes
// and the API's problems beside them; a button enables or disables it and
// another deletes it after a confirmation. There is no test endpoint: an
// output is tested by watching its status, which the help text says.

import { html, useEffect, useId, useRef, useState } from "../lib/html.js";
import { call, get, post, patch, del, path, ApiError } from "../lib/api.js";
import { Page, Loaded, Modal, Notice, ConfirmDelete, LongPath, act, say, useLive, useLoad, useReloadOn } from "../lib/components.js";
import { useForm, Field, FormFooter, describeFailure } from "../lib/forms.js";
import { href } from "../lib/router.js";
import { may } from "../lib/access.js";
import {
  EVENT_KINDS, DEFAULT_TOPIC_PREFIX, STATUS_PERIOD_MS, blankValues, valuesOf, kindOf, isTls, postBody, patchBody,
  credentialsText, credentialPlaceholder, describeStatus, countersText, createStatusPoller,
} from "../lib/outputs.js";

/** @typedef {import("../lib/types.js").Output} Output */
/** @typedef {import("../lib/types.js").OutputStatus} OutputStatus */
/** @typedef {import("../lib/types.js").OutputEventKind} OutputEventKind */
/** @typedef {import("../lib/forms.js").Form} Form */
/** @typedef {ReturnType<typeof createStatusPoller>} Poller */
/** @typedef {{status: OutputStatus} | {error: unknown}} Outcome */

/** The events' names in the form. @type {Record<OutputEventKind, string>} */
const EVENT_LABELS = {
  position: "Positions",
  zone: "Zone enters and exits",
  notification: "Notifications",
  device: "Device events",
  state: "Configuration state",
};

/** @param {{params: Record<string, string>, query: URLSearchParams}} props */
export default function View({ params }) {
  const net = params.net;
  const list = useLoad(async (signal) => /** @type {Output[]} */ ((await call("GET", path`/nets/${net}/outputs`, { signal })).body.outputs || []), [net]);
  const config = useLoad(() => get(path`/nets/${net}`), [net]);
  useReloadOn(list.reload, ["change"], net);
  useReloadOn(config.reload, ["state"], net);
  const outputs = list.data || [];
  const { statuses, poller } = useStatuses(net, outputs.map((output) => output.name));
  // Started or stopped: the outputs start or stop with it; ask again now.
  useLive(["state"], () => poller.current?.pollNow(), net);
  const running = config.data?.configuration?.state === "running";
  const [editing, setEditing] = useState(/** @type {{output: Output | null} | null} */ (null));
  const [deleting, setDeleting] = useState(/** @type {Output | null} */ (null));

  /** Reloads the list and asks every status again: the change shows within the poll's period. */
  function changed() {
    list.reload();
    poller.current?.pollNow();
  }

  /** @param {Output} output */
  async function toggle(output) {
    const answer = await act(() => patch(path`/nets/${net}/outputs/${output.name}`, { enabled: !output.enabled }));
    if (answer) changed();
  }

  return html`<${Page} title="Outputs" view="outputs">
    <p class="muted">An output sends this configuration's live events (positions, zone enters and exits, notifications,
      device events, its state) to an MQTT broker or to a web service (a webhook) while the configuration runs.
      Usernames, passwords and secrets are write-only: the list says which are set, never what they are.</p>
    <p class="muted"><strong>Testing an output:</strong> there is no test button; you test an output by watching it. Add or
      change it while the configuration runs and watch its row: its status is asked for every ${STATUS_PERIOD_MS / 1000} s,
      so within ${STATUS_PERIOD_MS / 1000} s it shows <em>connected</em>, or <em>not connected</em> with the error it met
      (a refused connection, a rejected password, a certificate not trusted). A webhook shows connected once a delivery
      has succeeded.</p>
    ${config.data && !running && html`<${Notice} level=${3}>
      <p>${net} is ${config.data.configuration?.state || "not running"}: its outputs run, and connect, only while it runs.
        <a href=${href("nets", net)}>Go to the overview to start it.</a></p>
    <//>`}
    <${Loaded} load=${list}>${(/** @type {Output[]} */ items) => html`
      <div class="toolbar">
        <button type="button" class="primary" ...${may("POST", path`/nets/${net}/outputs`)} onClick=${() => setEditing({ output: null })}>Add output</button>
      </div>
      ${items.length === 0
        ? html`<p class="muted">No outputs yet.</p>`
        : html`<${OutputTable} net=${net} outputs=${items} statuses=${statuses} running=${running}
            onEdit=${(/** @type {Output} */ output) => setEditing({ output })}
            onToggle=${toggle}
            onDelete=${setDeleting} />`}
    `}<//>
    ${editing && html`<${OutputDialog} net=${net} output=${editing.output} poller=${poller}
      onClose=${() => setEditing(null)}
      onDone=${() => {
        setEditing(null);
        changed();
      }} />`}
    ${deleting && html`<${DeleteOutput} net=${net} output=${deleting} poller=${poller}
      onClose=${() => setDeleting(null)}
      onDone=${() => {
        setDeleting(null);
        changed();
      }} />`}
  <//>`;
}

/**
 * Each output's last status, asked for every 2 s while the view is shown
 * (and the page is visible), at most 4 questions at once; nothing is asked
 * once the view is left.
 * @param {string} net
 * @param {string[]} names
 */
function useStatuses(net, names) {
  const [statuses, setStatuses] = useState(/** @type {Map<string, Outcome>} */ (new Map()));
  const poller = useRef(/** @type {Poller | null} */ (null));
  useEffect(() => {
    const made = createStatusPoller({
      ask: async (name, signal) => (await call("GET", path`/nets/${net}/outputs/${name}/status`, { signal })).body.status,
      report: (name, outcome) => setStatuses((old) => new Map(old).set(name, outcome)),
      setTimeout: (callback, ms) => setTimeout(callback, ms),
      clearTimeout: (timer) => clearTimeout(/** @type {number | undefined} */ (timer)),
      hidden: () => document.visibilityState === "hidden",
    });
    poller.current = made;
    return () => {
      made.stop();
      poller.current = null;
    };
  }, [net]);
  const key = names.join("\n");
  useEffect(() => poller.current?.setNames(names), [net, key]);
  return { statuses, poller };
}

/**
 * The outputs with their live status: each output's name, URL and
 * credentials (whether set) in its first cell, its status with its last
 * error, and its counters.
 * @param {{net: string, outputs: Output[], statuses: Map<string, Outcome>, running: boolean,
 *   onEdit: (output: Output) => void, onToggle: (output: Output) => void, onDelete: (output: Output) => void}} props
 */
function OutputTable({ net, outputs, statuses, running, onEdit, onToggle, onDelete }) {
  return html`<div class="table-wrap">
    <table class="outputs">
      <caption class="count">${outputs.length} output${outputs.length === 1 ? "" : "s"}; the status of each is asked for every ${STATUS_PERIOD_MS / 1000} s</caption>
      <thead><tr>
        <th scope="col">Output</th>
        <th scope="col">Events</th>
        <th scope="col">Enabled</th>
        <th scope="col">Status</th>
        <th scope="col" class="number">Sent</th>
        <th scope="col" class="number">Queued</th>
        <th scope="col" class="number" title="Positions dropped because the queue was full">Dropped positions</th>
        <th scope="col" class="number" title="Other events dropped because the queue was full of them">Dropped events</th>
        <th scope="col">Actions</th>
      </tr></thead>
      <tbody>
        ${outputs.map((output) => {
          const outcome = statuses.get(output.name);
          const url = path`/nets/${net}/outputs/${output.name}`;
          const status = outcome && "status" in outcome ? outcome.status : undefined;
          const failure = outcome && "error" in outcome && !(outcome.error instanceof ApiError && outcome.error.status === 404)
            ? describeFailure(outcome.error).message
            : "";
          const { text, tone } = failure && !status ? { text: "unknown", tone: "" } : describeStatus(output, status, running);
          const lastError = failure ? `status unavailable: ${failure}` : status?.last_error || "";
          /** @param {keyof OutputStatus} counter */
          const count = (counter) => (status ? Number(status[counter]).toLocaleString() : "–");
          return html`<tr key=${output.name} data-item=${output.name}>
            <th scope="row">
              <span class="output-name">${output.name}</span>
              <${LongPath} class="output-url mono" text=${output.url} />
              <small class="output-credentials">${credentialsText(output)}</small>
            </th>
            <td>${output.events.join(", ")}</td>
            <td>${output.enabled ? "yes" : "no"}</td>
            <td>
              <span class=${`badge ${tone}`} title=${status ? countersText(status) : undefined}>${text}</span>
              ${lastError && html`<small class="output-error">${lastError}</small>`}
            </td>
            <td class="number">${count("sent")}</td>
            <td class="number">${count("queued")}</td>
            <td class="number">${count("dropped")}</td>
            <td class="number">${count("dropped_events")}</td>
            <td>
              <div class="buttons">
                <button type="button" aria-label=${`Edit ${output.name}`} ...${may("PATCH", url)} onClick=${() => onEdit(output)}>Edit</button>
                <button type="button" aria-label=${`${output.enabled ? "Disable" : "Enable"} ${output.name}`} ...${may("PATCH", url)}
                  onClick=${() => onToggle(output)}>${output.enabled ? "Disable" : "Enable"}</button>
                <button type="button" class="danger" aria-label=${`Delete ${output.name}`} ...${may("DELETE", url)} onClick=${() => onDelete(output)}>Delete</button>
              </div>
            </td>
          </tr>`;
        })}
      </tbody>
    </table>
  </div>`;
}

/**
 * The dialog that adds an output (`output` null) or edits one: the fields
 * its URL's scheme takes, the credentials left empty (sent only when typed),
 * and the API's problems beside their fields.
 * @param {{net: string, output: Output | null, poller: {current: Poller | null}, onClose: () => void, onDone: () => void}} props
 */
function OutputDialog({ net, output, poller, onClose, onDone }) {
  const adding = output === null;
  const form = useForm(output ? valuesOf(output) : blankValues());
  const [nothing, setNothing] = useState(false);
  const kind = kindOf(form.values.url);
  const wasMqtt = output !== null && kindOf(output.url) === "mqtt";
  const wasWebhook = output !== null && kindOf(output.url) === "webhook";
  return html`<${Modal} title=${adding ? "Add output" : `Edit output ${output.name}`} onClose=${onClose} wide>
    <form noValidate onSubmit=${form.submit(async (values) => {
      setNothing(false);
      let answer;
      if (output === null) {
        answer = await post(path`/nets/${net}/outputs`, postBody(values));
      } else {
        const body = patchBody(output, values);
        if (Object.keys(body).length === 0) {
          setNothing(true);
          return;
        }
        // Renamed, its status is asked for under the new name only: the
        // old one would be a 404.
        const release = "name" in body ? await poller.current?.hold(output.name) : undefined;
        try {
          answer = await patch(path`/nets/${net}/outputs/${output.name}`, body);
        } catch (failure) {
          release?.();
          throw failure;
        }
      }
      say(answer.message, answer.level);
      onDone();
    })}>
      <div class="form-grid">
        <${Field} form=${form} name="name" label="Name" required autofocus hint="1 to 64 characters, unique in the configuration" />
        <${Field} form=${form} name="url" label="URL" required placeholder="mqtt://127.0.0.1:1883"
          hint="An MQTT broker: mqtt://host:port, or mqtts://host:port with TLS. A webhook: the web service's http or https URL, with its path." />
      </div>
      <${EventsField} form=${form} />
      <${Field} form=${form} name="enabled" label="Enabled" kind="checkbox" />
      ${kind === "mqtt" && html`<fieldset class="plain">
        <legend>MQTT</legend>
        <div class="form-grid two">
          <${Field} form=${form} name="topic_prefix" label="Topic prefix" placeholder=${DEFAULT_TOPIC_PREFIX}
            hint=${`The topics' first levels; {net_name} is this configuration's name. No + or #, no / at the end. Empty: ${DEFAULT_TOPIC_PREFIX}.`} />
          <${Field} form=${form} name="qos" label="QoS" kind="select"
            options=${[["0", "0: at most once"], ["1", "1: at least once"]]}
            hint="Of positions and device events; zone, notification and state events always use 1." />
          <${CredentialField} form=${form} name="username" label="Username" isSet=${wasMqtt && Boolean(output?.username_set)} adding=${adding} />
          <${CredentialField} form=${form} name="password" label="Password" isSet=${wasMqtt && Boolean(output?.password_set)} adding=${adding} />
        </div>
      </fieldset>`}
      ${kind === "webhook" && html`<fieldset class="plain">
        <legend>Webhook</legend>
        <div class="form-grid">
          <${CredentialField} form=${form} name="secret" label="Secret" isSet=${wasWebhook && Boolean(output?.secret_set)} adding=${adding}
            hint="Required: each request carries Netcfg-Signature, the body's HMAC-SHA256 with it." />
        </div>
      </fieldset>`}
      ${kind === null && html`<p class="muted">Type a URL that starts with mqtt:// or mqtts:// (an MQTT broker), or with http or https (a webhook), to see its settings.</p>`}
      <fieldset class="plain">
        <legend>Rate and batching</legend>
        <div class="form-grid">
          <${Field} form=${form} name="max_rate_hz" label="Most positions a second per tag" kind="number" step="any" min=${0} max=${1000}
            placeholder="0" hint="0 to 1000; 0: every position" />
          <${Field} form=${form} name="batch_ms" label="Batch (ms)" kind="number" step="1" min=${0} max=${60000}
            placeholder="0" hint="Positions gathered this long go as one message; 0: one message per position" />
          ${isTls(form.values.url) && html`<${Field} form=${form} name="ca_file" label="CA file" placeholder="/etc/netcfg/broker-ca.pem"
            hint="A PEM file on the server of the authorities to trust instead of the system's; empty: the system's" />`}
        </div>
      </fieldset>
      ${nothing && html`<${Notice} level=${3}><p>Nothing was changed: every value is as stored.</p><//>`}
      <${FormFooter} form=${form} submitLabel=${adding ? "Add output" : "Save changes"}
        request=${output === null ? ["POST", path`/nets/${net}/outputs`] : ["PATCH", path`/nets/${net}/outputs/${output.name}`]}>
        <button type="button" onClick=${onClose}>Cancel</button>
      <//>
    </form>
  <//>`;
}

/**
 * The events to carry, as checkboxes; the API's problem with them beside them.
 * @param {{form: Form}} props
 */
function EventsField({ form }) {
  const id = useId();
  form.register("events");
  const problem = form.problems.events;
  /** @type {string[]} */
  const chosen = form.values.events || [];
  return html`<fieldset class=${`choices ${problem ? "invalid" : ""}`} aria-describedby=${problem ? `${id}-problem` : undefined}>
    <legend>Events</legend>
    <ul class="legend">
      ${EVENT_KINDS.map((kind) => html`<li key=${kind}>
        <label>
          <input type="checkbox" name="events" value=${kind} checked=${chosen.includes(kind)} disabled=${form.busy}
            onChange=${(/** @type {Event} */ event) => {
              const on = /** @type {HTMLInputElement} */ (event.target).checked;
              form.set("events", on ? [...chosen.filter((name) => name !== kind), kind] : chosen.filter((name) => name !== kind));
            }} />
          ${EVENT_LABELS[kind]}
        </label>
      </li>`)}
    </ul>
    ${problem && html`<p id=${`${id}-problem`} class="problem" role="alert">${problem}</p>`}
  </fieldset>`;
}

/**
 * A write-only credential: empty, sent only when typed. When one is kept,
 * the placeholder says so, and (username, password) a box removes it.
 * @param {{form: Form, name: "username" | "password" | "secret", label: string, isSet: boolean, adding: boolean, hint?: string}} props
 */
function CredentialField({ form, name, label, isSet, adding, hint }) {
  const noun = label.toLowerCase();
  const clearing = Boolean(form.values[`clear_${name}`]);
  const kept = isSet ? "Write-only: kept, never shown; leave empty to keep it." : "Write-only: never shown again.";
  return html`<div>
    <${Field} form=${form} name=${name} label=${label} kind=${name === "username" ? "text" : "password"}
      autocomplete=${name === "username" ? "off" : "new-password"}
      placeholder=${adding ? "" : credentialPlaceholder(isSet, noun)} disabled=${clearing}
      hint=${[hint, kept].filter(Boolean).join(" ")} />
    ${isSet && name !== "secret" && html`<${Field} form=${form} name=${`clear_${name}`} label=${`Remove the ${noun}`} kind="checkbox" />`}
  </div>`;
}

/**
 * The confirmation of an output's deletion; Cancel takes the focus, so
 * Enter does no harm.
 * @param {{net: string, output: Output, poller: {current: Poller | null}, onClose: () => void, onDone: () => void}} props
 */
function DeleteOutput({ net, output, poller, onClose, onDone }) {
  async function remove() {
    // Its status is not asked for meanwhile: after the deletion it would be a 404.
    const release = await poller.current?.hold(output.name);
    try {
      return await del(path`/nets/${net}/outputs/${output.name}`);
    } catch (error) {
      release?.();
      throw error;
    }
  }
  return html`<${ConfirmDelete} title=${`Delete output ${output.name}?`} remove=${remove}
      request=${["DELETE", path`/nets/${net}/outputs/${output.name}`]}
      deleted=${`Output ${output.name} deleted`} onClose=${onClose} onDone=${onDone}>
    <p>It stops sending this configuration's events, and its credentials are forgotten.</p>
  <//>`;
}
