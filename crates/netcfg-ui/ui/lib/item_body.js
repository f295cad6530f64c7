// What the collection editor (collection.js) sends: a form's text turned
// into the body of a POST (add) or PATCH (edit) of one item. No DOM and no
// Preact here, so node's test runner loads it (tests/js/collection.test.mjs).

import { numberOrUndefined } from "./forms.js";

/** @typedef {import("./collection.js").FieldSpec} FieldSpec */
/** @typedef {import("./collection.js").CollectionSpec} CollectionSpec */

/**
 * The value of a field as the body takes it: integers as numbers (text
 * that is not a number is sent as typed, so the API names the problem),
 * booleans ("true", "false" from a select) as booleans.
 * @param {FieldSpec} field
 * @param {any} text
 */
export function toBodyValue(field, text) {
  if (field.type === "integer") return numberOrUndefined(typeof text === "string" ? text.trim() : text);
  if (field.type === "boolean") return text === "true" || text === true ? true : text === "false" || text === false ? false : undefined;
  if (text === undefined || text === null) return undefined;
  return String(text);
}

/**
 * An item's values as the form shows them: text, "" for none.
 * @param {any} item @param {FieldSpec[]} fields
 */
export function toFormValues(item, fields) {
  /** @type {Record<string, any>} */
  const values = {};
  for (const field of fields) values[field.name] = item[field.name] === undefined || item[field.name] === null ? "" : String(item[field.name]);
  return values;
}

/**
 * The body to send for the form's `values`: adding (`item` null), every
 * filled field, and a required one even when empty (so the API names it);
 * editing, in `diff` mode the fields that can change and differ from the
 * item, in `full` mode every field (an empty one as ""). An empty body
 * when editing means nothing changed.
 * @param {CollectionSpec} spec
 * @param {any} item
 * @param {Record<string, any>} values
 * @param {any} extra
 * @returns {Record<string, any>}
 */
export function itemBody(spec, item, values, extra) {
  const adding = item === null;
  /** @type {Record<string, any>} */
  const body = {};
  for (const field of spec.fields) {
    const value = toBodyValue(field, values[field.name]);
    if (adding) {
      if (value !== undefined && value !== "") body[field.name] = value;
      else if (field.required) body[field.name] = field.type === "integer" ? undefined : "";
      continue;
    }
    if (field.createOnly && spec.updateMode === "diff") continue;
    if (spec.updateMode === "full") {
      body[field.name] = value === undefined ? "" : value;
      continue;
    }
    if (field.locked?.(item, extra)) continue;
    if (value === undefined || value === "") continue;
    if (value !== item[field.name]) body[field.name] = value;
  }
  return body;
}
