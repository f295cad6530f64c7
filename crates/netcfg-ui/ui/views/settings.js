// Settings of a configuration, built from the catalogue of known settings
// (GET /default-settings: each key's default, allowed values, type and
// description) and the configuration's own (GET /nets/{net}/settings).
// One small form per setting: Save changes it (PATCH with `{key: value}`,
// so a problem the API finds lands beside that field); Reset to default
// deletes it (a catalogue key returns to its default). Keys outside the
// catalogue can be added (POST) and deleted.

import { html } from "../lib/html.js";
import { call, path, del } from "../lib/api.js";
import { Page, Loaded, Notice, useLoad, useReloadOn, act, say } from "../lib/components.js";
import { useForm, Field, FormFooter } from "../lib/forms.js";
import { href, setQuery } from "../lib/router.js";
import { may } from "../lib/access.js";

/**
 * @typedef {import("../lib/types.js").DefaultSetting} Known
 * @typedef {{key: string, settingClass: string, settingId: number, value: any, present: boolean, known: Known | null}} Entry
 */

/** "anchor_health_report_period" → "Anchor health report period". @param {string} key */
export function labelOf(key) {
  if (key === "rf_setting") return "RF setting";
  const words = key.replace(/[._-]+/g, " ").trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** @param {any} value */
function show(value) {
  if (value === undefined) return "not set";
  return typeof value === "string" ? value : JSON.stringify(value);
}

/**
 * What the control offers, read from the catalogue's words: a range
 * ("an integer from 1 to 3600"), a list ("one of: auto, manual"), or the
 * configuration's RF settings.
 * @param {Known | null} known
 * @param {any} current
 * @param {string[]} rfNames
 * @returns {{kind: string, options?: [string, string][], min?: number, max?: number, step?: string}}
 */
function controlOf(known, current, rfNames) {
  const type = known ? known.value_type : typeof current === "boolean" ? "boolean" : typeof current === "number" ? (Number.isInteger(current) ? "integer" : "number") : "string";
  /** @param {string[]} values @returns {[string, string][]} */
  const offer = (values) => {
    const list = values.map((value) => /** @type {[string, string]} */ ([value, value]));
    if (current !== undefined && !values.includes(String(current))) list.unshift([String(current), `${String(current)} (not allowed)`]);
    return list;
  };
  if (type === "boolean") return { kind: "select", options: offer(["true", "false"]) };
  const allowed = known?.allowed || "";
  const oneOf = /one of:\s*(.+)$/i.exec(allowed);
  if (oneOf) return { kind: "select", options: offer(oneOf[1].split(/\s*,\s*/).map((value) => value.replace(/\.$/, ""))) };
  if (known?.setting_key === "rf_setting" || /name of an RF setting/i.test(allowed)) return { kind: "select", options: offer(rfNames) };
  if (type === "integer" || type === "number") {
    const range = /from\s+(-?[\d.,]+)\s+to\s+(-?[\d.,]+)/i.exec(allowed);
    const min = range ? Number(range[1].replace(/,/g, "")) : undefined;
    const max = range ? Number(range[2].replace(/,/g, "")) : undefined;
    return { kind: "number", min, max, step: type === "integer" ? "1" : "any" };
  }
  return { kind: "text" };
}

/**
 * The typed text as the setting's JSON value; text that is not of the
 * type is sent as typed, so the API names the problem beside the field.
 * @param {string} text
 * @param {string} type
 */
function toValue(text, type) {
  const trimmed = String(text).trim();
  if (type === "boolean") return trimmed === "true" ? true : trimmed === "false" ? false : trimmed;
  if (type === "integer" || type === "number") return trimmed !== "" && !Number.isNaN(Number(trimmed)) ? Number(trimmed) : trimmed;
  return text;
}

/** @param {any} value */
function typeOfValue(value) {
  if (typeof value === "boolean") return "boolean";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return "string";
}

/** @param {string} net @param {Entry} entry */
function scopeUrl(net, entry) {
  return entry.settingClass === "system" && entry.settingId === 0 ? path`/nets/${net}/settings` : path`/nets/${net}/settings/${entry.settingClass}/${entry.settingId}`;
}

/** @param {string} net @param {Entry} entry */
function keyUrl(net, entry) {
  return entry.settingClass === "system" && entry.settingId === 0
    ? path`/nets/${net}/settings/${entry.key}`
    : path`/nets/${net}/settings/${entry.settingClass}/${entry.settingId}/${entry.key}`;
}

/** @param {{params: Record<string, string>, query: URLSearchParams}} props */
export default function View({ params, query }) {
  const net = params.net;
  const search = query.get("q") || "";
  const load = useLoad(async (signal) => {
    const [catalogue, settings, rf, configuration] = await Promise.all([
      call("GET", "/default-settings", { signal }),
      call("GET", path`/nets/${net}/settings`, { signal }),
      call("GET", path`/nets/${net}/rf_settings`, { signal }),
      call("GET", path`/nets/${net}`, { signal }),
    ]);
    return {
      known: /** @type {Known[]} */ (catalogue.body.default_settings || []),
      settings: /** @type {any[]} */ (settings.body.settings || []),
      rfNames: (rf.body.rf_settings || []).map((/** @type {any} */ item) => item.name),
      running: configuration.body.configuration?.state === "running",
    };
  }, [net]);
  useReloadOn(load.reload, ["change", "state"], net);
  return html`<${Page} title="Settings" view="settings">
    <${Loaded} load=${load}>${(/** @type {any} */ data) => {
      const byKey = new Map(data.known.map((/** @type {Known} */ known) => [known.setting_key, known]));
      /** @type {Entry[]} */
      const entries = data.settings.map((/** @type {any} */ setting) => ({
        key: setting.setting_key,
        settingClass: setting.setting_class,
        settingId: setting.setting_id,
        value: setting.value,
        present: true,
        known: setting.setting_class === "system" ? byKey.get(setting.setting_key) || null : null,
      }));
      for (const known of data.known) {
        if (!entries.some((entry) => entry.key === known.setting_key && entry.settingClass === "system")) {
          entries.push({ key: known.setting_key, settingClass: "system", settingId: 0, value: undefined, present: false, known });
        }
      }
      const needle = search.trim().toLowerCase();
      const shown = entries.filter((entry) => !needle || [entry.key, labelOf(entry.key), entry.known?.description || "", entry.settingClass].some((text) => text.toLowerCase().includes(needle)));
      /** @type {Map<string, Entry[]>} */
      const groups = new Map();
      for (const entry of shown.sort((a, b) => Number(!a.known) - Number(!b.known) || a.key.localeCompare(b.key))) {
        const group = `${entry.settingClass} ${entry.settingId}`;
        if (!groups.has(group)) groups.set(group, []);
        /** @type {Entry[]} */ (groups.get(group)).push(entry);
      }
      return html`
        <p class="muted">Each setting shows its value, its default and the values it takes. Save applies one setting; Reset to default returns it to the catalogue's default.</p>
        ${data.running && html`<${Notice} level=${2}><p>This configuration is running: <code>network_mode</code> and <code>rf_setting</code> cannot change until it stops.</p><//>`}
        <div class="toolbar">
          <div class="field" style=${{ marginBottom: 0, minWidth: "18rem" }}>
            <label for="settings-search">Search settings</label>
            <input id="settings-search" type="search" value=${search} placeholder="key or description"
              onInput=${(/** @type {Event} */ event) => setQuery({ q: /** @type {HTMLInputElement} */ (event.target).value })} />
          </div>
        </div>
        ${shown.length === 0 && html`<p class="muted">No setting matches “${search}”.</p>`}
        ${[...groups.entries()].map(([group, list]) => {
          const [settingClass, settingId] = group.split(" ");
          return html`<section key=${group} aria-labelledby=${`class-${settingClass}-${settingId}`}>
            <h2 id=${`class-${settingClass}-${settingId}`}>${settingClass === "system" ? "System settings" : `Class ${settingClass}, id ${settingId}`}</h2>
            <div style=${{ display: "grid", gridTemplateColumns: "repeat(auto-fill, minmax(22rem, 1fr))", gap: ".75rem" }}>
              ${list.map((entry) => html`<${SettingCard} key=${`${entry.key}=${JSON.stringify(entry.value)}`}
                net=${net} entry=${entry} rfNames=${data.rfNames} reload=${load.reload} />`)}
            </div>
          </section>`;
        })}
        <${AddSetting} net=${net} reload=${load.reload} />
      `;
    }}<//>
  <//>`;
}

/**
 * One setting: its value in a control, its default and allowed values,
 * Save and Reset to default (or Delete for a key outside the catalogue).
 * @param {{net: string, entry: Entry, rfNames: string[], reload: () => void}} props
 */
function SettingCard({ net, entry, rfNames, reload }) {
  const { key, known } = entry;
  const current = entry.present ? entry.value : known?.default_value;
  const form = useForm({ [key]: current === undefined ? "" : String(current) });
  const control = controlOf(known, current, rfNames);
  const type = known ? known.value_type : typeOfValue(entry.value);
  const atDefault = known && entry.present && JSON.stringify(entry.value) === JSON.stringify(known.default_value);
  const link = key === "rf_setting" ? href("nets", net, "rf") : key === "network_mode" ? href("nets", net, "network-mode") : null;
  return html`<form class="card" data-setting=${key} noValidate onSubmit=${form.submit(async (values) => {
    const body = { [key]: toValue(values[key], type) };
    let answer;
    try {
      answer = await call("PATCH", scopeUrl(net, entry), { body });
    } catch (failure) {
      // A catalogue key the configuration does not hold yet is added.
      if (/** @type {any} */ (failure)?.code !== "setting_not_found") throw failure;
      answer = await call("POST", scopeUrl(net, entry), { body });
    }
    say(answer.message, answer.level);
    reload();
  })}>
    <${Field} form=${form} name=${key} label=${labelOf(key)} kind=${control.kind} options=${control.options}
      min=${control.min} max=${control.max} step=${control.step}
      hint=${known ? `Default: ${show(known.default_value)}. Allowed: ${known.allowed}.` : `Type: ${type}. Not in the catalogue of known settings.`} />
    ${known && html`<p class="muted" style=${{ margin: "0 0 .4rem" }}>${known.description}</p>`}
    <p style=${{ margin: "0 0 .4rem" }}>
      <code>${key}</code>
      ${known
        ? atDefault
          ? html` <span class="badge">default</span>`
          : html` <span class="badge unread">changed</span> <span class="muted">stored: ${show(entry.value)}</span>`
        : html` <span class="badge">custom</span>`}
      ${link && html` · <a href=${link}>${key === "rf_setting" ? "RF settings" : "Network mode"}</a>`}
    </p>
    <${FormFooter} form=${form} submitLabel="Save" request=${["PATCH", scopeUrl(net, entry)]}>
      ${known
        ? html`<button type="button" disabled=${!entry.present || atDefault || form.busy}
            title=${atDefault ? "It has its default value already" : undefined} ...${may("DELETE", keyUrl(net, entry))}
            onClick=${async () => {
              await act(() => del(keyUrl(net, entry)));
              reload();
            }}>Reset to default</button>`
        : html`<button type="button" class="danger" disabled=${form.busy} ...${may("DELETE", keyUrl(net, entry))}
            onClick=${async () => {
              await act(() => del(keyUrl(net, entry)));
              reload();
            }}>Delete</button>`}
    <//>
  </form>`;
}

/**
 * Adds a setting outside the catalogue (POST {setting_key, value}).
 * @param {{net: string, reload: () => void}} props
 */
function AddSetting({ net, reload }) {
  const form = useForm({ setting_key: "", type: "string", value: "" });
  return html`<section aria-labelledby="add-setting-title">
    <h2 id="add-setting-title">Add a setting</h2>
    <p class="muted">A key outside the catalogue, with a value of the type you choose. A key the configuration holds already is a conflict.</p>
    <form noValidate onSubmit=${form.submit(async (values) => {
      const answer = await call("POST", path`/nets/${net}/settings`, {
        body: { setting_key: String(values.setting_key).trim(), value: toValue(values.value, values.type) },
      });
      say(answer.message, answer.level);
      form.reset({ setting_key: "", type: values.type, value: "" });
      reload();
    })}>
      <div class="form-grid">
        <${Field} form=${form} name="setting_key" label="Key" required hint="1 to 64 of A-Z a-z 0-9 . _ -" />
        <${Field} form=${form} name="type" label="Type" kind="select"
          options=${[["string", "Text"], ["integer", "Whole number"], ["number", "Number"], ["boolean", "true or false"]]} />
        <${Field} form=${form} name="value" label="Value" required />
      </div>
      <${FormFooter} form=${form} submitLabel="Add setting" request=${["POST", path`/nets/${net}/settings`]} />
    </form>
  </section>`;
}
