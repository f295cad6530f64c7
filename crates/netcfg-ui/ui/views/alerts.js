// Alert rules of a configuration (decisions §16): what the running network
// watches in itself. A rule fires (a notification at its level) when its
// condition has held for its time, and clears when it stops holding. The
// state column is the server's last look, a second old at most.

import { html } from "../lib/html.js";
import { path } from "../lib/api.js";
import { Page } from "../lib/components.js";
import { href } from "../lib/router.js";
import { CollectionEditor, getBody } from "../lib/collection.js";
import { LEVELS, levelName } from "../lib/format.js";
import { ruleState, thresholdHint } from "../lib/alerts.js";

/** @type {[string, string][]} */
const CONDITIONS = [
  ["anchor_offline", "Anchor offline"],
  ["anchor_unsynced", "Anchor not synchronised"],
  ["tag_silent", "Tag silent"],
  ["battery_below", "Battery below (%)"],
  ["packet_loss_above", "Packet loss above (%)"],
  ["positions_below", "Positions a second below"],
];

/** @param {string} condition */
const conditionLabel = (condition) => CONDITIONS.find(([value]) => value === condition)?.[1] ?? condition;

/** @param {{params: Record<string, string>, query: URLSearchParams}} props */
export default function View({ params }) {
  const net = params.net;
  /** @type {import("../lib/collection.js").CollectionSpec} */
  const spec = {
    noun: "alert rule",
    listUrl: path`/nets/${net}/alert_rules`,
    listKey: "alert_rules",
    itemUrl: (rule) => path`/nets/${net}/alert_rules/${rule.name}`,
    nameOf: (rule) => rule.name,
    keyOf: (rule) => rule.name,
    // The whole rule: a threshold goes with its condition.
    updateMode: "full",
    // A rule that fires or clears raises a notification: the state column
    // follows them.
    reloadOn: ["notification"],
    loadExtra: async (signal) => {
      const body = await getBody(path`/nets/${net}/alerts`, signal);
      return { firing: body.alerts || [] };
    },
    columns: [
      { label: "Name", value: (rule) => rule.name },
      { label: "Condition", value: (rule) => conditionLabel(rule.condition) },
      { label: "Threshold", value: (rule) => (rule.threshold ?? "–").toLocaleString(), number: true },
      { label: "For (s)", value: (rule) => rule.for_s.toLocaleString(), number: true },
      // The level's name, as the notifications' badges say it (the API's number means nothing to a reader).
      { label: "Level", value: (rule) => levelName(rule.level) },
      {
        label: "State",
        value: (rule, extra) => {
          const state = ruleState(rule.name, extra.firing);
          return state === "ok" ? html`<span class="muted">ok</span>` : html`<strong>${state}</strong>`;
        },
      },
    ],
    blank: { name: "", condition: "anchor_offline", threshold: "", for_s: "30", level: "2" },
    fields: [
      { name: "name", label: "Name", required: true, hint: "1 to 64 characters, unique in the configuration" },
      { name: "condition", label: "Condition", kind: "select", options: CONDITIONS, required: true },
      { name: "threshold", label: "Threshold", type: "integer", min: 0, hint: (values) => thresholdHint(values.condition) },
      { name: "for_s", label: "For (s)", type: "integer", min: 0, max: 86400, hint: "How long the condition must hold before the rule fires" },
      {
        name: "level",
        label: "Level",
        kind: "select",
        type: "integer",
        options: Object.keys(LEVELS).map((level) => [level, levelName(Number(level))]),
      },
    ],
  };
  return html`<${Page} title="Alert rules" view="alerts">
    <p class="muted">A rule raises a <a href=${href("nets", net, "notifications")}>notification</a> when its condition has held
      for its time while the network runs, and another when it clears.</p>
    <${CollectionEditor} spec=${spec} net=${net} />
  <//>`;
}
