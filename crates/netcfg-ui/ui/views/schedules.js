// Schedules of a configuration (decisions §16): cron expressions, read in
// an IANA time zone, that start, stop, restart or reload the network. Each
// run raises a notification, so the table reloads on notifications and
// shows the server's next and last run.

import { html } from "../lib/html.js";
import { path } from "../lib/api.js";
import { Page } from "../lib/components.js";
import { href } from "../lib/router.js";
import { CollectionEditor } from "../lib/collection.js";
import { browserTimeZone, lastRunText, nextRunText, zoneName } from "../lib/schedules.js";

/** @type {[string, string][]} */
const ACTIONS = [
  ["start", "Start"],
  ["stop", "Stop"],
  ["restart", "Restart (when running)"],
  ["reload", "Reload (when running)"],
];
/** The table's words for an action: the form's, without its condition. */
const ACTION_WORDS = Object.fromEntries(ACTIONS.map(([action, label]) => [action, label.replace(/ \(.*\)$/, "")]));

/** @param {{params: Record<string, string>, query: URLSearchParams}} props */
export default function View({ params }) {
  const net = params.net;
  /** @type {import("../lib/collection.js").CollectionSpec} */
  const spec = {
    noun: "schedule",
    listUrl: path`/nets/${net}/schedules`,
    listKey: "schedules",
    itemUrl: (schedule) => path`/nets/${net}/schedules/${schedule.name}`,
    nameOf: (schedule) => schedule.name,
    keyOf: (schedule) => schedule.name,
    updateMode: "diff",
    reloadOn: ["notification"],
    columns: [
      { label: "Name", value: (schedule) => schedule.name },
      { label: "Action", value: (schedule) => ACTION_WORDS[schedule.action] ?? schedule.action },
      { label: "Cron", value: (schedule) => html`<code>${schedule.cron}</code>` },
      // The cron and both runs read in this zone: named here once, not after each time.
      { label: "Time zone", value: (schedule) => zoneName(schedule.timezone) },
      {
        label: "Next run",
        value: (schedule) => {
          const text = nextRunText(schedule);
          return schedule.enabled ? text : html`<span class="muted">${text}</span>`;
        },
      },
      {
        label: "Last run",
        value: (schedule) => {
          const text = lastRunText(schedule.last_run, schedule.timezone);
          const bad = schedule.last_run?.outcome === "failed" || schedule.last_run?.outcome === "missed";
          return bad ? html`<strong>${text}</strong>` : text;
        },
      },
    ],
    blank: { name: "", cron: "0 6 * * MON-FRI", timezone: browserTimeZone(), action: "start", enabled: "true" },
    fields: [
      { name: "name", label: "Name", required: true, hint: "1 to 64 characters, unique in the configuration" },
      {
        name: "cron",
        label: "Cron",
        required: true,
        hint: "minute hour day-of-month month day-of-week, or 6 fields with seconds first: 0 6 * * MON-FRI is 06:00 on weekdays",
      },
      { name: "timezone", label: "Time zone", hint: "An IANA name such as Europe/Berlin; daylight saving follows it" },
      { name: "action", label: "Action", kind: "select", options: ACTIONS, required: true },
      {
        name: "enabled",
        label: "Enabled",
        kind: "select",
        type: "boolean",
        options: [
          ["true", "yes"],
          ["false", "no"],
        ],
      },
    ],
  };
  return html`<${Page} title="Schedules" view="schedules">
    <p class="muted">
      Each run raises a <a href=${href("nets", net, "notifications")}>notification</a> and is journalled in the${" "}
      <a href=${href("nets", net, "history")}>change history</a> as <code>schedule:name</code>. A run the server was down
      for is reported as missed, not run late. The cron, the next run and the last run read in the schedule's time zone.
    </p>
    <${CollectionEditor} spec=${spec} net=${net} />
  <//>`;
}
