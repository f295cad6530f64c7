// The data table's sorting, its virtual window, and client-side paging
// (ui/lib/table.js).

import { test } from "node:test";
import assert from "node:assert/strict";
import { sortRows, parseSort, nextSort, visibleRows, pageOf } from "../../ui/lib/table.js";

/** @typedef {{name?: string | null, count?: number | null}} Row */

/** @type {import("../../ui/lib/table.js").Column<Row>} */
const byName = { key: "name", label: "Name", value: (row) => row.name };
/** @type {import("../../ui/lib/table.js").Column<Row>} */
const byCount = { key: "count", label: "Count", value: (row) => row.count };

test("strings sort naturally: case ignored, A2 before A10, leading zeros ignored", () => {
  const rows = ["anchor-10", "Anchor-2", "anchor-1", "anchor-02b", "Tag"].map((name) => ({ name }));
  assert.deepEqual(sortRows(rows, byName, false).map((row) => row.name), ["anchor-1", "Anchor-2", "anchor-02b", "anchor-10", "Tag"]);
});

test("descending reverses the order, and numbers compare as numbers", () => {
  const rows = [{ count: 10 }, { count: 9 }, { count: 100 }];
  assert.deepEqual(sortRows(rows, byCount, false).map((row) => row.count), [9, 10, 100]);
  assert.deepEqual(sortRows(rows, byCount, true).map((row) => row.count), [100, 10, 9]);
});

test("empty values go last in both directions, and equal keys keep their order", () => {
  const rows = [{ name: "b", count: 1 }, { name: "", count: 2 }, { name: "a", count: 3 }, { name: null, count: 4 }, { name: "a", count: 5 }];
  assert.deepEqual(sortRows(rows, byName, false).map((row) => row.count), [3, 5, 1, 2, 4]);
  assert.deepEqual(sortRows(rows, byName, true).map((row) => row.count), [1, 3, 5, 2, 4]);
});

test("no column, or one that does not sort, leaves the rows as they are; the input is not changed", () => {
  const rows = [{ name: "b" }, { name: "a" }];
  assert.equal(sortRows(rows, undefined, false), rows);
  assert.equal(sortRows(rows, { key: "x", label: "X" }, false), rows);
  sortRows(rows, byName, false);
  assert.deepEqual(rows, [{ name: "b" }, { name: "a" }]);
});

test("the URL's sort value, and the value after a click on a header", () => {
  assert.deepEqual(parseSort("-serial", "name"), { key: "serial", descending: true });
  assert.deepEqual(parseSort(null, "name"), { key: "name", descending: false });
  assert.equal(nextSort({ key: "name", descending: false }, "name"), "-name");
  assert.equal(nextSort({ key: "name", descending: true }, "name"), "name");
  assert.equal(nextSort({ key: "name", descending: false }, "serial"), "serial");
});

test("the virtual window: the rows in view and the overscan, within the table", () => {
  assert.deepEqual(visibleRows(10_000, 0, 600, 37, 8), { first: 0, last: 25 });
  assert.deepEqual(visibleRows(10_000, 3700, 600, 37, 8), { first: 92, last: 125 });
  assert.deepEqual(visibleRows(100, 3700, 600, 37, 8), { first: 92, last: 100 });
  assert.deepEqual(visibleRows(0, 0, 600, 37, 8), { first: 0, last: 0 });
});

test("client-side pages: the asked page, clamped to the pages there are", () => {
  const items = Array.from({ length: 120 }, (_, index) => index);
  const second = pageOf(items, "2", 50);
  assert.equal(second.page, 2);
  assert.equal(second.pages, 3);
  assert.deepEqual([second.shown[0], second.shown.length], [50, 50]);
  assert.deepEqual(pageOf(items, "9", 50).shown, items.slice(100));
  for (const text of [null, "", "0", "-3", "abc"]) assert.equal(pageOf(items, text, 50).page, 1, String(text));
  assert.deepEqual(pageOf([], null, 50), { page: 1, pages: 1, shown: [] });
});

test("a fractional page number means its whole page", () => {
  const items = Array.from({ length: 120 }, (_, index) => index);
  const { page, shown } = pageOf(items, "2.5", 50);
  assert.equal(page, 2);
  assert.deepEqual([shown[0], shown.length], [50, 50]);
});
