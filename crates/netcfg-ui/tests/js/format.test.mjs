// Values written for people: levels, times, network-time periods, clocks
// (ui/lib/format.js) and the floor plan's lengths and ages
// (ui/lib/floor_format.js).

import { test } from "node:test";
import assert from "node:assert/strict";
import { LEVELS, levelName, shortTime, describePeriod, describeDuration, formatClock, wrapPoints } from "../../ui/lib/format.js";
import { formatLength, formatAge, metres, niceLength } from "../../ui/lib/floor_format.js";

test("levels have the API's names, capitalised for badges", () => {
  assert.deepEqual(LEVELS, { 1: "error", 2: "warning", 3: "information", 4: "debug" });
  assert.equal(levelName(1), "Error");
  assert.equal(levelName(3), "Information");
  assert.equal(levelName(7), "Level 7");
});

test("a time of today shows the time only, another day's the date too", () => {
  const now = new Date(2026, 10, 25, 15, 0, 0).getTime();
  const earlier = new Date(2026, 10, 25, 9, 30, 0).getTime();
  const yesterday = new Date(2026, 10, 24, 9, 30, 0).getTime();
  assert.equal(shortTime(earlier, now), new Date(earlier).toLocaleTimeString());
  assert.equal(shortTime(yesterday, now), new Date(yesterday).toLocaleString());
  assert.notEqual(shortTime(yesterday, now), shortTime(earlier, now));
});

test("network-time periods in milliseconds and hertz (975 units a millisecond)", () => {
  assert.equal(describePeriod(97500), "100 ms (10 Hz)");
  assert.equal(describePeriod("975"), "1 ms (1000 Hz)");
  assert.equal(describePeriod(9750), "10 ms (100 Hz)");
  assert.equal(describePeriod(1462), "1.5 ms (667 Hz)");
  assert.equal(describePeriod(19500), "20 ms (50 Hz)");
  assert.equal(describePeriod(0), "off");
  for (const nothing of ["", null, undefined, "abc"]) assert.equal(describePeriod(nothing), "");
});

test("a network-time duration that does not repeat reads in milliseconds alone", () => {
  assert.equal(describeDuration(4875), "5 ms");
  assert.equal(describeDuration("1462"), "1.5 ms");
  assert.equal(describeDuration(0), "none");
  for (const nothing of ["", null, undefined, "abc"]) assert.equal(describeDuration(nothing), "");
});

test("lengths in mm for people, and the floor plan's scale bar lengths", () => {
  assert.equal(formatLength(500), "500 mm");
  assert.equal(formatLength(2000), "2 m");
  assert.equal(formatLength(-1500), "-1.5 m");
  assert.equal(formatLength(1_500_000), "1.5 km");
  assert.equal(metres(1234), "1.23 m");
  assert.deepEqual([0.9, 1.4, 1.6, 3, 4, 7, 8, 130, 4200].map(niceLength), [1, 1, 2, 2, 5, 5, 10, 100, 5000]);
});

test("ages: tenths of a second, then seconds, minutes and hours", () => {
  assert.equal(formatAge(250), "0.3 s");
  assert.equal(formatAge(12_400), "12 s");
  assert.equal(formatAge(90_000), "2 min");
  assert.equal(formatAge(2 * 3_600_000), "2 h");
});

test("a length of time as a clock: m:ss, then h:mm:ss, whole seconds", () => {
  assert.equal(formatClock(0), "0:00");
  assert.equal(formatClock(999), "0:00");
  assert.equal(formatClock(65_000), "1:05");
  assert.equal(formatClock(600_000), "10:00");
  assert.equal(formatClock(3_599_999), "59:59");
  assert.equal(formatClock(3_665_000), "1:01:05");
  assert.equal(formatClock(-5), "0:00");
  assert.equal(formatClock(Number.NaN), "0:00");
});

test("a URL or path is cut after its separators, and the pieces join to it again", () => {
  assert.deepEqual(wrapPoints("mqtts://broker.example.com:8883"), ["mqtts://", "broker.", "example.", "com:", "8883"]);
  assert.deepEqual(wrapPoints("https://hooks.example.com/a/b?x=1&y=2"),
    ["https://", "hooks.", "example.", "com/", "a/", "b?", "x=", "1&", "y=", "2"]);
  assert.deepEqual(wrapPoints("/etc/netcfg/ca.pem"), ["/", "etc/", "netcfg/", "ca.", "pem"]);
  assert.deepEqual(wrapPoints("simulator"), ["simulator"]);
  assert.deepEqual(wrapPoints(""), []);
  const long = "replay:site/2026-11-29.pcap?speed=2&loop=1";
  assert.equal(wrapPoints(long).join(""), long);
});
