// What the signed-in role may do (ui/lib/access.js, decisions §17): path
// templates matched segment by segment, the least role of an operation
// from the generated table (ui/lib/access_table.js), and the attributes
// that disable a control with the reason.

import { test } from "node:test";
import assert from "node:assert/strict";
import { matches, leastRole, may } from "../../ui/lib/access.js";
import { LEAST_ROLES } from "../../ui/lib/access_table.js";

/** @typedef {import("../../ui/lib/types.js").AccessRole} AccessRole */
/** @typedef {import("../../ui/lib/types.js").SessionInfo} SessionInfo */

/**
 * A signed-in user with `role`.
 * @param {AccessRole} role
 * @returns {SessionInfo}
 */
function as(role) {
  return { user: `ada-${role}`, role, via: "password" };
}

test("a template matches a path segment by segment, a parameter any one non-empty segment", () => {
  assert.equal(matches("/nets/{net_name}", "/nets/dock"), true);
  assert.equal(matches("/nets/{net_name}/devices/{device_key}", "/nets/dock/devices/0A:1B"), true);
  assert.equal(matches("/nets", "/nets"), true);
  // Not the same number of segments.
  assert.equal(matches("/nets/{net_name}", "/nets"), false);
  assert.equal(matches("/nets/{net_name}", "/nets/dock/start"), false);
  assert.equal(matches("/nets", "/nets/dock"), false);
  // A static segment must be the same; a parameter takes no empty segment.
  assert.equal(matches("/nets/{net_name}/zones", "/nets/dock/roles"), false);
  assert.equal(matches("/nets/{net_name}/devices/{device_key}/action", "/nets/dock/devices//action"), false);
  // The query is not part of the path.
  assert.equal(matches("/nets/{net_name}/devices", "/nets/dock/devices?delete=a,b"), true);
  // A percent-encoded value (lib/api.js's `path`) is one segment.
  assert.equal(matches("/nets/{net_name}/zones/{zone_name}", "/nets/dock/zones/a%2Fb"), true);
});

test("the least role of an operation is the table's row", () => {
  assert.equal(leastRole("POST", "/nets/dock"), "operator");
  assert.equal(leastRole("POST", "/nets"), "editor");
  assert.equal(leastRole("PATCH", "/nets/dock"), "editor");
  assert.equal(leastRole("DELETE", "/nets/dock"), "editor");
  assert.equal(leastRole("POST", "/nets/dock/survey"), "operator");
  assert.equal(leastRole("PATCH", "/nets/dock/replay"), "operator");
  assert.equal(leastRole("POST", "/nets/dock/devices/0A:1B/action"), "operator");
  assert.equal(leastRole("DELETE", "/cache-manager/dock"), "operator");
  assert.equal(leastRole("POST", "/users"), "admin");
  assert.equal(leastRole("GET", "/audit"), "admin");
  // The method is taken in either case.
  assert.equal(leastRole("post", "/nets"), "editor");
});

test("a static segment beats a parameter: /nets/upload is not /nets/{net_name}", () => {
  // POST /nets/upload (editor) also matches POST /nets/{net_name} (operator).
  assert.equal(leastRole("POST", "/nets/upload"), "editor");
  // DELETE /nets/{net_name}/devices (editor) and its parameter rows.
  assert.equal(leastRole("POST", "/nets/dock/devices/action"), "operator");
  assert.equal(leastRole("POST", "/nets/dock/devices"), "editor");
});

test("an operation the table does not list needs a viewer: every GET but the audit's", () => {
  assert.equal(leastRole("GET", "/nets"), "viewer");
  assert.equal(leastRole("GET", "/nets/dock"), "viewer");
  assert.equal(leastRole("GET", "/nets/dock/devices/0A:1B"), "viewer");
  assert.equal(leastRole("GET", "/users"), "admin");
  // Not listed: a user's own keys; the server decides.
  assert.equal(leastRole("POST", "/users/ada/keys"), "viewer");
  assert.equal(leastRole("POST", "/nowhere/at/all"), "viewer");
});

test("every row of the table is its own least role", () => {
  for (const [method, template, role] of LEAST_ROLES) {
    const concrete = template.replace(/\{[^}]+\}/g, "x");
    assert.equal(leastRole(method, concrete), role, `${method} ${template}`);
  }
});

test("may: nothing for a role that is enough, disabled with the reason otherwise", () => {
  const start = "/nets/dock";
  assert.deepEqual(may("POST", start, as("viewer")), {
    disabled: true,
    title: "Needs the role operator or more; ada-viewer is viewer",
  });
  assert.deepEqual(may("POST", start, as("operator")), {});
  assert.deepEqual(may("POST", start, as("editor")), {});
  assert.deepEqual(may("POST", start, as("admin")), {});

  const create = "/nets";
  for (const role of /** @type {AccessRole[]} */ (["viewer", "operator"])) {
    assert.deepEqual(may("POST", create, as(role)), {
      disabled: true,
      title: `Needs the role editor or more; ada-${role} is ${role}`,
    });
  }
  assert.deepEqual(may("POST", create, as("editor")), {});
  assert.deepEqual(may("POST", create, as("admin")), {});

  for (const role of /** @type {AccessRole[]} */ (["viewer", "operator", "editor"])) {
    assert.equal(may("DELETE", "/users/ada", as(role)).disabled, true);
    assert.match(may("DELETE", "/users/ada", as(role)).title || "", /^Needs the role admin or more; /);
  }
  assert.deepEqual(may("DELETE", "/users/ada", as("admin")), {});

  // Reading is anyone's.
  for (const role of /** @type {AccessRole[]} */ (["viewer", "operator", "editor", "admin"])) {
    assert.deepEqual(may("GET", "/nets/dock/devices", as(role)), {});
  }
});

test("may: nothing when nobody is known (access control off: the server decides)", () => {
  assert.deepEqual(may("POST", "/nets", null), {});
  assert.deepEqual(may("DELETE", "/users/ada", null), {});
  // Without `who`, the session: nobody has signed in here.
  assert.deepEqual(may("POST", "/nets"), {});
});
