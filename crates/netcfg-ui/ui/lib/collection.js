// A generic editor of one collection of a configuration (roles, RF
// settings, data streams, position limits): a table of the items, a dialog
// to add one and to edit one, and a confirmation to delete one. Built-in
// items are marked, and their delete button is disabled with the reason;
// so are the buttons whose request the signed-in role may not make
// (decisions §17: Add POSTs `listUrl`, Edit PATCHes and Delete DELETEs
// `itemUrl`).
// Every form goes through useForm/Field/FormFooter, with Field names equal
// to the body's field paths, so a 400's problems land beside their fields.

import { html, useState } from "./html.js";
import { call } from "./api.js";
import { may } from "./access.js";
import { useLoad, useReloadOn, Loaded, Modal, Notice, say } from "./components.js";
import { useForm, Field, FormFooter } from "./forms.js";
import { itemBody, toFormValues } from "./item_body.js";

/**
 * @typedef {object} FieldSpec
 * @property {string} name         the body's field
 * @property {string} label
 * @property {string} [kind]       Field's kind: text (default), number, select
 * @property {"integer"|"string"|"boolean"} [type]   integer: sent as a JSON number; boolean: "true"/"false" sent as JSON booleans
 * @property {[string, string][] | ((values: Record<string, any>, extra: any) => [string, string][])} [options]
 * @property {string | ((values: Record<string, any>, extra: any) => string)} [hint]
 * @property {number} [min]
 * @property {number} [max]
 * @property {string} [step]
 * @property {string} [placeholder]
 * @property {boolean} [required]  required when adding (an empty optional field is left out)
 * @property {boolean} [createOnly] not part of the change body: shown read-only when editing
 * @property {(item: any, extra: any) => string | null} [locked] why this item's field cannot change
 */

/**
 * @typedef {object} Column
 * @property {string} label
 * @property {(item: any, extra: any) => any} value
 * @property {boolean} [number]
 */

/**
 * @typedef {object} CollectionSpec
 * @property {string} noun                       "role", "RF setting"...
 * @property {string} listUrl                    GET (list) and POST (add)
 * @property {string} listKey                    the list's payload key
 * @property {(item: any) => string} itemUrl      PATCH and DELETE of one item
 * @property {(item: any) => string} nameOf
 * @property {(item: any) => string | number} keyOf
 * @property {Column[]} columns
 * @property {FieldSpec[]} fields
 * @property {Record<string, any>} blank         a new item's values
 * @property {"diff"|"full"} updateMode          diff: PATCH the changed fields; full: PATCH the whole body
 * @property {boolean} [canAdd]                  default true
 * @property {(signal: AbortSignal) => Promise<any>} [loadExtra]  more data the columns and rules need
 * @property {(item: any, extra: any) => string | null} [builtIn]  why it cannot be deleted (a built-in item)
 * @property {(item: any, extra: any) => string | null} [cannotDelete] another reason (in use)
 * @property {(item: any, extra: any) => string} [deleteLabel]     "Delete" unless given ("Reset")
 * @property {(item: any, extra: any, reload: () => void) => any} [rowActions]
 * @property {(item: any, extra: any) => any} [badges]
 * @property {(extra: any) => Record<string, any>} [blankFrom]      a new item's values, from extra data
 * @property {import("./events.js").EventType[]} [reloadOn]  live event types that reload it too (beside change and state)
 */

// The bodies it sends and the periods it describes are worked out in
// item_body.js and format.js (plain modules, tested under node).
export { toBodyValue } from "./item_body.js";
export { describePeriod, describeDuration } from "./format.js";

/**
 * The table and dialogs of one collection; render inside a Page.
 * @param {{spec: CollectionSpec, net: string, before?: (extra: any, items: any[]) => any}} props
 */
export function CollectionEditor({ spec, net, before }) {
  const load = useLoad(async (signal) => {
    const [list, extra] = await Promise.all([
      call("GET", spec.listUrl, { signal }),
      spec.loadExtra ? spec.loadExtra(signal) : Promise.resolve(null),
    ]);
    return { items: /** @type {any[]} */ (list.body[spec.listKey] || []), extra };
  }, [spec.listUrl]);
  useReloadOn(load.reload, ["change", "state", ...(spec.reloadOn || [])], net);
  const [editing, setEditing] = useState(/** @type {{item: any} | null} */ (null));
  const [deleting, setDeleting] = useState(/** @type {any} */ (null));
  const canAdd = spec.canAdd !== false;
  return html`<${Loaded} load=${load}>${(/** @type {{items: any[], extra: any}} */ { items, extra }) => html`
    ${before && before(extra, items)}
    ${canAdd && html`<div class="toolbar">
      <button type="button" class="primary" ...${may("POST", spec.listUrl)} onClick=${() => setEditing({ item: null })}>Add ${spec.noun}</button>
    </div>`}
    ${items.length === 0
      ? html`<p class="muted">No ${spec.noun} yet.</p>`
      : html`<div class="table-wrap">
        <table>
          <caption class="muted" style=${{ textAlign: "left", padding: ".35rem .6rem", captionSide: "bottom" }}>${items.length} ${items.length === 1 ? spec.noun : spec.noun + "s"}</caption>
          <thead><tr>
            ${spec.columns.map((column) => html`<th scope="col" class=${column.number ? "number" : ""}>${column.label}</th>`)}
            <th scope="col">Actions</th>
          </tr></thead>
          <tbody>
            ${items.map((item) => {
              const builtIn = spec.builtIn?.(item, extra) || null;
              const other = spec.cannotDelete?.(item, extra) || null;
              const why = builtIn || other;
              const url = spec.itemUrl(item);
              const name = spec.nameOf(item);
              const deleteLabel = spec.deleteLabel?.(item, extra) || "Delete";
              return html`<tr key=${spec.keyOf(item)} data-item=${name}>
                ${spec.columns.map((column, index) => html`<td class=${column.number ? "number" : ""}>
                  ${column.value(item, extra)}
                  ${index === 0 && builtIn && html` <span class="badge" title=${builtIn}>built in</span>`}
                  ${index === 0 && spec.badges?.(item, extra)}
                </td>`)}
                <td>
                  <div class="buttons">
                    <button type="button" aria-label=${`Edit ${name}`} ...${may("PATCH", url)} onClick=${() => setEditing({ item })}>Edit</button>
                    <button type="button" class="danger" aria-label=${`${deleteLabel} ${name}`}
                      disabled=${Boolean(why)} title=${why || undefined} ...${why ? {} : may("DELETE", url)}
                      aria-describedby=${why ? `why-${spec.keyOf(item)}` : undefined}
                      onClick=${() => setDeleting(item)}>${deleteLabel}</button>
                    ${spec.rowActions?.(item, extra, load.reload)}
                  </div>
                  ${why && html`<small id=${`why-${spec.keyOf(item)}`} class="muted">${why}</small>`}
                </td>
              </tr>`;
            })}
          </tbody>
        </table>
      </div>`}
    ${editing && html`<${ItemDialog} spec=${spec} item=${editing.item} extra=${extra}
      onClose=${() => setEditing(null)} onDone=${() => {
        setEditing(null);
        load.reload();
      }} />`}
    ${deleting && html`<${DeleteDialog} spec=${spec} item=${deleting} extra=${extra}
      onClose=${() => setDeleting(null)} onDone=${() => {
        setDeleting(null);
        load.reload();
      }} />`}
  `}<//>`;
}

/**
 * The dialog to add an item (item null) or edit one.
 * @param {{spec: CollectionSpec, item: any, extra: any, onClose: () => void, onDone: () => void}} props
 */
function ItemDialog({ spec, item, extra, onClose, onDone }) {
  const adding = item === null;
  const start = adding ? { ...spec.blank, ...(spec.blankFrom ? spec.blankFrom(extra) : {}) } : item;
  const form = useForm(toFormValues(start, spec.fields));
  const [nothing, setNothing] = useState(false);
  const title = adding ? `Add ${spec.noun}` : `Edit ${spec.noun} ${spec.nameOf(item)}`;
  // The first field that can change takes the focus when the dialog opens.
  const firstOpen = spec.fields.findIndex((field) => adding || !((field.createOnly && spec.updateMode === "diff") || field.locked?.(item, extra)));
  return html`<${Modal} title=${title} onClose=${onClose} wide>
    <form noValidate onSubmit=${form.submit(async (values) => {
      const body = itemBody(spec, item, values, extra);
      if (!adding && Object.keys(body).length === 0) {
        setNothing(true);
        return;
      }
      const answer = adding ? await call("POST", spec.listUrl, { body }) : await call("PATCH", spec.itemUrl(item), { body });
      say(answer.message, answer.level);
      onDone();
    })}>
      <div class="form-grid">
        ${spec.fields.map((field, index) => {
          const lockedWhy = adding ? null : field.createOnly && spec.updateMode === "diff" ? `${field.label} cannot be changed once set` : field.locked?.(item, extra) || null;
          const options = typeof field.options === "function" ? field.options(form.values, extra) : field.options;
          const hintText = typeof field.hint === "function" ? field.hint(form.values, extra) : field.hint;
          const hint = [lockedWhy, hintText].filter(Boolean).join(" · ") || undefined;
          return html`<${Field} key=${field.name} form=${form} name=${field.name} label=${field.label}
            kind=${field.kind || (field.type === "integer" ? "number" : "text")} options=${options}
            hint=${hint} min=${field.min} max=${field.max} step=${field.step || (field.type === "integer" ? "1" : undefined)}
            placeholder=${field.placeholder} required=${adding && field.required}
            disabled=${Boolean(lockedWhy)} autofocus=${index === firstOpen} />`;
        })}
      </div>
      ${nothing && html`<${Notice} level=${3}><p>Nothing was changed: every value is as stored.</p><//>`}
      <${FormFooter} form=${form} submitLabel=${adding ? `Add ${spec.noun}` : "Save changes"}
        request=${adding ? ["POST", spec.listUrl] : ["PATCH", spec.itemUrl(item)]}>
        <button type="button" onClick=${onClose}>Cancel</button>
      <//>
    </form>
  <//>`;
}

/**
 * Asks before deleting; the API's refusal (in use, built in) shows here.
 * @param {{spec: CollectionSpec, item: any, extra: any, onClose: () => void, onDone: () => void}} props
 */
function DeleteDialog({ spec, item, extra, onClose, onDone }) {
  const form = useForm({});
  const label = spec.deleteLabel?.(item, extra) || "Delete";
  const name = spec.nameOf(item);
  return html`<${Modal} title=${`${label} ${spec.noun} ${name}?`} onClose=${onClose}>
    <form onSubmit=${form.submit(async () => {
      const answer = await call("DELETE", spec.itemUrl(item));
      say(answer.message || `${spec.noun} ${name}: done`, answer.level);
      onDone();
    })}>
      <p>${label === "Delete"
        ? `The ${spec.noun} ${name} will be removed from this configuration.`
        : `The ${spec.noun} ${name} will return to its default values.`}</p>
      <${FormFooter} form=${form} submitLabel=${label} request=${["DELETE", spec.itemUrl(item)]}>
        <button type="button" onClick=${onClose} autofocus>Cancel</button>
      <//>
    </form>
  <//>`;
}

/**
 * A GET's body, abortable (for `loadExtra`).
 * @param {string} url
 * @param {AbortSignal} [signal]
 */
export async function getBody(url, signal) {
  return (await call("GET", url, { signal })).body;
}
