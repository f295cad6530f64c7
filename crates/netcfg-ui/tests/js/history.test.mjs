// What the change history offers for each entry (ui/lib/history.js).

import { test } from "node:test";
import assert from "node:assert/strict";
import { isRunStep, restoreOffers } from "../../ui/lib/history.js";

/** @param {string[]} summaries newest first */
const entries = (...summaries) => summaries.map((summary) => ({ summary }));

test("starts, stops, restarts and reloads are run steps; changes of content are not", () => {
  for (const summary of ["Started", "Stopped", "Restarted", "Reloaded"]) assert.equal(isRunStep({ summary }), true, summary);
  for (const summary of ["Add a device: device 01:04:0001 added", "Create a configuration", "Restore to change 3", "started"]) {
    assert.equal(isRunStep({ summary }), false, summary);
  }
});

test("run steps offer no restore, and the newest change of content is the current one", () => {
  assert.deepEqual(
    restoreOffers(entries("Restarted", "Add a device: device 01:05:0001 added", "Started", "Add a device: device 01:04:0001 added",
      "Create a configuration"), true),
    ["step", "current", "step", "restore", "restore"],
  );
  assert.deepEqual(restoreOffers(entries("Add a device", "Create a configuration"), true), ["current", "restore"]);
});

test("on an older page every change of content can be restored to", () => {
  assert.deepEqual(restoreOffers(entries("Stopped", "Change a zone", "Create a configuration"), false), ["step", "restore", "restore"]);
});

test("a page of run steps alone has nothing to restore", () => {
  assert.deepEqual(restoreOffers(entries("Stopped", "Started"), true), ["step", "step"]);
  assert.deepEqual(restoreOffers([], true), []);
});
