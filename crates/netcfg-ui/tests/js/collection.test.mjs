// The bodies the collection editor sends (ui/lib/item_body.js, used by
// ui/lib/collection.js for roles, RF settings, data streams and limits).

import { test } from "node:test";
import assert from "node:assert/strict";
import { toBodyValue, toFormValues, itemBody } from "../../ui/lib/item_body.js";

/** @typedef {import("../../ui/lib/collection.js").CollectionSpec} CollectionSpec */
/** @typedef {import("../../ui/lib/collection.js").FieldSpec} FieldSpec */

/**
 * A spec with these fields and update mode; the rest is not used here.
 * @param {FieldSpec[]} fields
 * @param {"diff" | "full"} updateMode
 * @returns {CollectionSpec}
 */
function spec(fields, updateMode) {
  return {
    noun: "thing",
    listUrl: "/things",
    listKey: "things",
    itemUrl: (item) => `/things/${item.id}`,
    nameOf: (item) => item.name,
    keyOf: (item) => item.id,
    columns: [],
    fields,
    blank: {},
    updateMode,
  };
}

const FIELDS = /** @type {FieldSpec[]} */ ([
  { name: "name", label: "Name", required: true, createOnly: true },
  { name: "period", label: "Period", type: "integer", required: true },
  { name: "note", label: "Note" },
]);

test("integer fields are sent as numbers, text that is not one as typed; others as strings", () => {
  const integer = /** @type {FieldSpec} */ ({ name: "n", label: "N", type: "integer" });
  const text = /** @type {FieldSpec} */ ({ name: "t", label: "T" });
  assert.equal(toBodyValue(integer, " 42 "), 42);
  assert.equal(toBodyValue(integer, "4x"), "4x");
  assert.equal(toBodyValue(integer, ""), undefined);
  assert.equal(toBodyValue(text, 7), "7");
  assert.equal(toBodyValue(text, null), undefined);
});

test("an item's values in the form are text, empty for none", () => {
  assert.deepEqual(toFormValues({ name: "r", period: 975, note: null }, FIELDS), { name: "r", period: "975", note: "" });
});

test("adding sends the filled fields, and a required empty one so the API names it", () => {
  assert.deepEqual(itemBody(spec(FIELDS, "diff"), null, { name: "r", period: "975", note: "" }, null), { name: "r", period: 975 });
  const body = itemBody(spec(FIELDS, "diff"), null, { name: "", period: "", note: "" }, null);
  assert.deepEqual(Object.keys(body), ["name", "period"]);
  assert.equal(body.name, "");
  assert.equal(body.period, undefined);
});

test("editing in diff mode sends only what changed, never a create-only or locked field", () => {
  const item = { id: 1, name: "r", period: 975, note: "old" };
  const fields = FIELDS.map((field) => (field.name === "note" ? { ...field, locked: () => "built in" } : field));
  assert.deepEqual(itemBody(spec(FIELDS, "diff"), item, { name: "other", period: "975", note: "new" }, null), { note: "new" });
  assert.deepEqual(itemBody(spec(fields, "diff"), item, { name: "r", period: "1950", note: "new" }, null), { period: 1950 });
  assert.deepEqual(itemBody(spec(FIELDS, "diff"), item, { name: "r", period: "975", note: "" }, null), {}, "nothing changed");
});

test("editing in full mode sends every field, an empty one as an empty string", () => {
  const item = { id: 1, name: "r", period: 975, note: "old" };
  assert.deepEqual(itemBody(spec(FIELDS, "full"), item, { name: "r", period: "", note: "x" }, null), { name: "r", period: "", note: "x" });
});

test("boolean fields are sent as booleans, and only a change of one in diff mode", () => {
  const flag = /** @type {FieldSpec} */ ({ name: "enabled", label: "Enabled", type: "boolean" });
  assert.equal(toBodyValue(flag, "true"), true);
  assert.equal(toBodyValue(flag, "false"), false);
  assert.equal(toBodyValue(flag, ""), undefined);
  assert.deepEqual(toFormValues({ enabled: false }, [flag]), { enabled: "false" });
  assert.deepEqual(itemBody(spec([flag], "diff"), { enabled: true }, { enabled: "false" }, null), { enabled: false });
  assert.deepEqual(itemBody(spec([flag], "diff"), { enabled: true }, { enabled: "true" }, null), {});
});
