// Users (decisions §17; admin): who may sign in, with which role, and to
// which configurations. A password is set here and never shown again; the
// last enabled admin cannot be removed, disabled or demoted (the server
// says so).

import { html } from "../lib/html.js";
import { path } from "../lib/api.js";
import { Page, formatTime } from "../lib/components.js";
import { CollectionEditor } from "../lib/collection.js";
import { ROLES } from "../lib/people.js";

/** The view (it takes no parameters from its URL). */
export default function View() {
  /** @type {import("../lib/collection.js").CollectionSpec} */
  const spec = {
    noun: "user",
    listUrl: "/users",
    listKey: "users",
    itemUrl: (user) => path`/users/${user.name}`,
    nameOf: (user) => user.name,
    keyOf: (user) => user.name,
    updateMode: "diff",
    columns: [
      { label: "Name", value: (user) => user.name },
      { label: "Shown as", value: (user) => user.display_name },
      { label: "Role", value: (user) => user.role },
      { label: "Configurations", value: (user) => (user.nets ? user.nets.join(", ") : "all") },
      { label: "State", value: (user) => (user.disabled ? html`<strong>disabled</strong>` : "enabled") },
      { label: "Last sign-in", value: (user) => (user.last_sign_in_ms ? formatTime(user.last_sign_in_ms) : "never") },
    ],
    blank: { name: "", display_name: "", role: "viewer", password: "", disabled: "false" },
    fields: [
      { name: "name", label: "Name", required: true, createOnly: true, hint: "1 to 64 of a-z 0-9 . _ -, starting with a letter or digit" },
      { name: "display_name", label: "Shown as" },
      { name: "role", label: "Role", kind: "select", options: Object.entries(ROLES), required: true },
      { name: "password", label: "Password", kind: "password", required: true, hint: "At least 12 characters; when editing, empty leaves it unchanged" },
      {
        name: "disabled",
        label: "State",
        kind: "select",
        type: "boolean",
        options: [
          ["false", "enabled"],
          ["true", "disabled: cannot sign in; its keys stop"],
        ],
      },
    ],
  };
  return html`<${Page} title="Users" view="users">
    <p class="muted">Every change to a configuration names who made it in its change history; the audit trail says who signed in and who was refused.</p>
    <${CollectionEditor} spec=${spec} net=${""} />
  <//>`;
}
