// Recordings' logic (ui/lib/recordings.js): sizes and durations for
// people, why a recording ended in words, the start form's body (a
// duration typed with units), an uploaded file's name made a recording's,
// the replaying configuration's name and instance, and the API's problems
// placed beside the form's fields.

import { test } from "node:test";
import assert from "node:assert/strict";
import {
  REFRESH_MS, MAX_DURATION_S, ENDED, UPLOAD_FALLBACK, isRecordingName, formatSize, formatDuration, describeState, anyActive,
  newestFirst, parseDuration, startBody, sanitiseStem, replayName, replayInstance, placeUploadProblems, placeNameTaken,
} from "../../ui/lib/recordings.js";

/** @typedef {import("../../ui/lib/types.js").Recording} Recording */

/**
 * A recording, as the API lists it.
 * @param {Partial<Recording>} [changes]
 * @returns {Recording}
 */
function recording(changes = {}) {
  return { name: "night", size: 24, started_ms: 1_700_000_000_000, duration_ms: 0, datagrams: 0, active: false, ended: "stopped", ...changes };
}

test("the list is asked for every 2 s while one records; a duration is at most a week", () => {
  assert.equal(REFRESH_MS, 2000);
  assert.equal(MAX_DURATION_S, 604_800);
});

test("sizes in decimal units with three figures at most", () => {
  assert.equal(formatSize(0), "0 B");
  assert.equal(formatSize(24), "24 B");
  assert.equal(formatSize(999), "999 B");
  assert.equal(formatSize(1000), "1 kB");
  assert.equal(formatSize(1536), "1.54 kB");
  assert.equal(formatSize(99_949), "99.9 kB");
  assert.equal(formatSize(123_456), "123 kB");
  assert.equal(formatSize(999_999), "1 MB", "the rounded figure decides the unit");
  assert.equal(formatSize(12_345_678), "12.3 MB");
  assert.equal(formatSize(1_073_741_824), "1.07 GB");
  assert.equal(formatSize(5e15), "5000 TB");
  assert.equal(formatSize(-1), "0 B");
  assert.equal(formatSize(Number.NaN), "0 B");
});

test("durations in seconds with a tenth under a minute, as a clock from a minute", () => {
  assert.equal(formatDuration(0), "0.0 s");
  assert.equal(formatDuration(2549), "2.5 s");
  assert.equal(formatDuration(59_999), "59.9 s");
  assert.equal(formatDuration(60_000), "1:00");
  assert.equal(formatDuration(3_725_000), "1:02:05");
  assert.equal(formatDuration(-3), "0.0 s");
});

test("a recording's state: recording while active, else why it ended, a limit or failure as a warning", () => {
  assert.deepEqual(describeState(recording({ active: true, ended: undefined })), { text: "recording…", tone: "running" });
  assert.deepEqual(describeState(recording({ ended: "stopped" })), { text: "stopped", tone: "stopped" });
  assert.deepEqual(describeState(recording({ ended: "duration" })), { text: "its duration passed", tone: "stopped" });
  assert.deepEqual(describeState(recording({ ended: "network_stopped" })), { text: "the configuration stopped", tone: "stopped" });
  assert.deepEqual(describeState(recording({ ended: "uploaded" })), { text: "uploaded", tone: "stopped" });
  for (const ended of /** @type {const} */ (["recording_limit", "total_limit", "disk", "interrupted"])) {
    assert.deepEqual(describeState(recording({ ended })), { text: ENDED[ended], tone: "warning" }, ended);
  }
  assert.equal(describeState(recording({ ended: /** @type {any} */ ("meteor") })).text, "ended (meteor)", "a reason added later still shows");
  assert.equal(describeState(recording({ ended: undefined })).text, "ended");
  // every reason the API names has its words
  assert.deepEqual(Object.keys(ENDED).sort(),
    ["disk", "duration", "interrupted", "network_stopped", "recording_limit", "stopped", "total_limit", "uploaded"]);
});

test("the list refreshes while any records; the newest first, then by name", () => {
  assert.equal(anyActive([]), false);
  assert.equal(anyActive([recording(), recording({ name: "b", active: true })]), true);
  const listed = newestFirst([
    recording({ name: "old", started_ms: 1 }),
    recording({ name: "b", started_ms: 5 }),
    recording({ name: "a", started_ms: 5 }),
  ]);
  assert.deepEqual(listed.map((item) => item.name), ["a", "b", "old"]);
});

test("a duration typed as seconds or with units; the range is the server's to check", () => {
  assert.deepEqual(parseDuration(""), {});
  assert.deepEqual(parseDuration("  "), {});
  assert.deepEqual(parseDuration(undefined), {});
  assert.deepEqual(parseDuration("90"), { seconds: 90 });
  assert.deepEqual(parseDuration("90s"), { seconds: 90 });
  assert.deepEqual(parseDuration("10m"), { seconds: 600 });
  assert.deepEqual(parseDuration("2H"), { seconds: 7200 });
  assert.deepEqual(parseDuration("1h 30m"), { seconds: 5400 });
  assert.deepEqual(parseDuration("1h30m15s"), { seconds: 5415 });
  assert.deepEqual(parseDuration("7d"), { seconds: 604_800 });
  assert.deepEqual(parseDuration("0"), { seconds: 0 }, "sent: the server names the problem");
  for (const bad of ["ten", "10 minutes", "1:30", "-5", "5x", "h"]) {
    assert.ok(parseDuration(bad).problem, bad);
  }
});

test("the start form's body leaves out what is empty and names an unreadable duration", () => {
  assert.deepEqual(startBody({ name: "", duration_s: "" }), { body: {}, problems: [] });
  assert.deepEqual(startBody({ name: " morning ", duration_s: "10m" }), { body: { name: "morning", duration_s: 600 }, problems: [] });
  const { body, problems } = startBody({ name: "x", duration_s: "soon" });
  assert.deepEqual(body, { name: "x" });
  assert.equal(problems.length, 1);
  assert.equal(problems[0].field, "duration_s");
});

test("recording names: 1 to 64 of A-Z a-z 0-9 . _ -, not starting with a dot", () => {
  for (const good of ["a", "night.1", "_x", "-x", "A".repeat(64)]) assert.ok(isRecordingName(good), good);
  for (const bad of ["", ".hidden", "a b", "a/b", "é", "A".repeat(65)]) assert.ok(!isRecordingName(bad), bad);
});

test("an uploaded file's name becomes a valid recording name", () => {
  assert.equal(sanitiseStem("capture.pcap"), "capture");
  assert.equal(sanitiseStem("Night shift (2).pcap"), "Night-shift-2");
  assert.equal(sanitiseStem("site.2026-01-05.pcap"), "site.2026-01-05", "only the last extension goes");
  assert.equal(sanitiseStem("C:\\fakepath\\hall.cap"), "hall");
  assert.equal(sanitiseStem("/tmp/x/hall"), "hall");
  assert.equal(sanitiseStem("..hidden.pcap"), "hidden");
  assert.equal(sanitiseStem(".pcap"), "pcap", "a name that is all extension keeps it");
  assert.equal(sanitiseStem("été.pcap"), "t");
  assert.equal(sanitiseStem("((())).pcap"), UPLOAD_FALLBACK);
  assert.equal(sanitiseStem(""), UPLOAD_FALLBACK);
  const long = sanitiseStem(`${"a".repeat(70)}.pcap`);
  assert.equal(long.length, 64);
  for (const name of ["Night shift (2).pcap", "..hidden.pcap", "a b-.pcap", `${"x".repeat(63)} y.pcap`]) {
    assert.ok(isRecordingName(sanitiseStem(name)), name);
  }
});

test("a replay's configuration: its suggested name and its instance", () => {
  assert.equal(replayName("site", "night"), "site-replay-night");
  assert.equal(replayName("s".repeat(40), "n".repeat(40)).length, 64);
  assert.equal(replayInstance("site", "night"), "replay:site/night");
  assert.equal(replayInstance("site", "night", { speed: 1, loop: false }), "replay:site/night");
  assert.equal(replayInstance("site", "night", { speed: 10 }), "replay:site/night?speed=10");
  assert.equal(replayInstance("site", "night", { speed: 0.25, loop: true }), "replay:site/night?speed=0.25&loop=1");
  assert.equal(replayInstance("site", "night", { loop: true }), "replay:site/night?loop=1");
});

test("an upload's problems go beside the file or the name", () => {
  const refused = { code: "upload_refused", message: "not a pcap file", problems: [{ field: "", problem: "not a pcap file" }] };
  assert.deepEqual(placeUploadProblems(refused), [{ field: "file", problem: "not a pcap file" }]);
  const badName = { code: "invalid_request", message: "m", problems: [{ field: "recording_name", problem: "bad" }] };
  assert.deepEqual(placeUploadProblems(badName), [{ field: "name", problem: "bad" }]);
  assert.deepEqual(placeUploadProblems({ code: "name_taken", message: "Recording night exists", problems: [] }),
    [{ field: "name", problem: "Recording night exists" }]);
  assert.deepEqual(placeUploadProblems({ code: "disk_full", message: "full", problems: [] }), [], "the form's own message says it");
});

test("a name taken goes beside the name; other conflicts stay the request's", () => {
  assert.deepEqual(placeNameTaken({ code: "name_taken", message: "taken", problems: [] }, "name"), [{ field: "name", problem: "taken" }]);
  assert.deepEqual(placeNameTaken({ code: "configuration_stopped", message: "stopped", problems: [] }, "name"), []);
  const given = [{ field: "duration_s", problem: "at most 604800" }];
  assert.deepEqual(placeNameTaken({ code: "invalid_request", message: "m", problems: given }, "name"), given);
});
