// The words of schedules (ui/lib/schedules.js): the next run and the last.

import { test } from "node:test";
import assert from "node:assert/strict";
import { browserTimeZone, lastRunText, nextRunText } from "../../ui/lib/schedules.js";
import { formatTime } from "../../ui/lib/format.js";

test("the next run is a time, or says why there is none", () => {
  assert.equal(nextRunText({ enabled: true, next_run_ms: 5_000 }), formatTime(5_000));
  assert.equal(nextRunText({ enabled: false, next_run_ms: null }), "disabled");
  assert.equal(nextRunText({ enabled: true, next_run_ms: null }), "never");
});

test("the last run says its outcome, its time and what happened", () => {
  assert.equal(lastRunText(null), "never");
  assert.equal(
    lastRunText({ due_ms: 1_000, at_ms: 1_050, outcome: "ok", message: "started" }),
    `ok at ${formatTime(1_000)}: started`,
  );
  assert.equal(
    lastRunText({ due_ms: 2_000, at_ms: 2_001, outcome: "running", message: "" }),
    `running since ${formatTime(2_000)}`,
  );
  assert.match(lastRunText({ due_ms: 3_000, at_ms: 9_000, outcome: "missed", message: "missed 2 runs" }), /^missed at .*: missed 2 runs$/);
});

test("the form's zone is the browser's, an IANA name", () => {
  assert.match(browserTimeZone(), /^[A-Za-z_]+(\/[A-Za-z_+-]+)*$/);
});
