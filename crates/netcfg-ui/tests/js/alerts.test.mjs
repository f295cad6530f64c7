// The words of alert rules (ui/lib/alerts.js): what the threshold field
// asks for each condition, and a rule's state from the rules that fire.

import { test } from "node:test";
import assert from "node:assert/strict";
import { ruleState, thresholdHint } from "../../ui/lib/alerts.js";
import { formatTime } from "../../ui/lib/format.js";

test("the threshold field asks what the condition takes", () => {
  assert.match(thresholdHint("battery_below"), /percentage/);
  assert.match(thresholdHint("packet_loss_above"), /percentage/);
  assert.match(thresholdHint("positions_below"), /positions a second/);
  assert.match(thresholdHint("anchor_offline"), /no threshold/);
});

test("a rule that does not fire is ok", () => {
  assert.equal(ruleState("anchor-offline", []), "ok");
  assert.equal(ruleState("anchor-offline", [{ rule: "other", serial_number: null, since_ms: 5 }]), "ok");
});

test("a firing rule says since when, from its earliest device, and which devices", () => {
  const firing = [
    { rule: "anchor-offline", serial_number: "01:04:0002", since_ms: 2_000 },
    { rule: "anchor-offline", serial_number: "01:04:0001", since_ms: 1_000 },
    { rule: "busy", serial_number: null, since_ms: 500 },
  ];
  assert.equal(ruleState("anchor-offline", firing), `firing since ${formatTime(1_000)} (01:04:0002, 01:04:0001)`);
  assert.equal(ruleState("busy", firing), `firing since ${formatTime(500)}`);
});
