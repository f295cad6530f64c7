// The words of schedules (ui/lib/schedules.js): the next run and the last.

import { test } from "node:test";
import assert from "node:assert/strict";
import { browserTimeZone, lastRunText, nextRunText, zonedTime, zoneName } from "../../ui/lib/schedules.js";
import { formatTime } from "../../ui/lib/format.js";

// 2026-11-29 05:00 UTC: 06:00 in Berlin (winter time), 00:00 in New York.
const SUNDAY_SIX_BERLIN = Date.UTC(2026, 10, 29, 5, 0, 0);

test("a time reads as the schedule's clock; the zone is named once, apart", () => {
  assert.equal(zonedTime(SUNDAY_SIX_BERLIN, "Europe/Berlin"), "2026-11-29 06:00");
  assert.equal(zonedTime(SUNDAY_SIX_BERLIN, "America/New_York"), "2026-11-29 00:00");
  // summer time: 04:00 UTC is 06:00 in Berlin
  assert.equal(zonedTime(Date.UTC(2026, 6, 1, 4, 0, 0), "Europe/Berlin"), "2026-07-01 06:00");
  // a cron with seconds: they show when not zero
  assert.equal(zonedTime(SUNDAY_SIX_BERLIN + 30_000, "Europe/Berlin"), "2026-11-29 06:00:30");
  // no zone is the server's default, UTC
  assert.equal(zonedTime(SUNDAY_SIX_BERLIN, null), "2026-11-29 05:00");
  assert.equal(zoneName(null), "UTC");
  assert.equal(zoneName("Europe/Berlin"), "Europe/Berlin");
  // a zone this browser does not know: its own time, said so
  assert.equal(zonedTime(5_000, "Mars/Olympus"), `${formatTime(5_000)} (this browser's time)`);
});

test("the next run is a time in the schedule's zone, or says why there is none", () => {
  assert.equal(nextRunText({ enabled: true, next_run_ms: SUNDAY_SIX_BERLIN, timezone: "Europe/Berlin" }), "2026-11-29 06:00");
  assert.equal(nextRunText({ enabled: false, next_run_ms: null }), "disabled");
  assert.equal(nextRunText({ enabled: true, next_run_ms: null }), "never");
});

test("the last run says its outcome, its time in the schedule's zone and what happened", () => {
  assert.equal(lastRunText(null), "never");
  assert.equal(
    lastRunText({ due_ms: SUNDAY_SIX_BERLIN, at_ms: SUNDAY_SIX_BERLIN + 50, outcome: "ok", message: "started" }, "Europe/Berlin"),
    "ok at 2026-11-29 06:00: started",
  );
  assert.equal(
    lastRunText({ due_ms: SUNDAY_SIX_BERLIN, at_ms: SUNDAY_SIX_BERLIN + 1, outcome: "running", message: "" }, "UTC"),
    "running since 2026-11-29 05:00",
  );
  assert.match(lastRunText({ due_ms: 3_000, at_ms: 9_000, outcome: "missed", message: "missed 2 runs" }), /^missed at .*: missed 2 runs$/);
});

test("the form's zone is the browser's, an IANA name", () => {
  assert.match(browserTimeZone(), /^[A-Za-z_]+(\/[A-Za-z_+-]+)*$/);
});
