// The fragment router (ui/lib/router.js) and the table of views
// (ui/lib/views.js). The browser's location and history are faked on
// globalThis for the functions that read them.

import { test } from "node:test";
import assert from "node:assert/strict";
import { match, href, currentRoute, navigate, setQuery } from "../../ui/lib/router.js";
import { VIEWS } from "../../ui/lib/views.js";

/** A fake `location`, `history` and `window` on globalThis; returns what the page saw. */
function fakeBrowser(/** @type {string} */ hash) {
  const seen = { hash, replaced: /** @type {string[]} */ ([]), events: /** @type {string[]} */ ([]) };
  const global = /** @type {any} */ (globalThis);
  global.location = {
    get hash() {
      return seen.hash;
    },
    set hash(value) {
      seen.hash = "#" + String(value).replace(/^#/, "");
    },
  };
  global.history = {
    replaceState(/** @type {unknown} */ _state, /** @type {string} */ _title, /** @type {string} */ url) {
      seen.replaced.push(url);
      seen.hash = url;
    },
  };
  global.window = { dispatchEvent: (/** @type {Event} */ event) => seen.events.push(event.type) };
  global.HashChangeEvent = class extends Event {};
  return seen;
}

test("a pattern's :name segments match one segment each, decoded", () => {
  assert.deepEqual(match("/nets/:net/devices", "/nets/site%20A/devices"), { net: "site A" });
  assert.deepEqual(match("/", "/"), {});
  assert.equal(match("/nets/:net", "/nets/site/devices"), null, "not a prefix match");
  assert.equal(match("/nets/:net", "/nets/"), null, "a parameter is never empty");
  assert.equal(match("/host", "/hosts"), null);
});

test("an href percent-encodes each part, so any name stays one segment", () => {
  assert.equal(href("nets", "a/b c", "devices"), "#/nets/a%2Fb%20c/devices");
  assert.equal(href("nets", 7), "#/nets/7");
  assert.deepEqual(match("/nets/:net/devices", href("nets", "a/b c", "devices").slice(1)), { net: "a/b c" });
});

test("every view's pattern resolves, and only its own route matches it", () => {
  for (const view of VIEWS) {
    const path = view.pattern.replace(":net", "site");
    const matching = VIEWS.filter((other) => match(other.pattern, path) !== null);
    assert.deepEqual(matching.map((other) => other.module), [view.module], path);
  }
});

test("the current route is the fragment's path and its query", () => {
  fakeBrowser("#/nets/site/devices?sort=-name&page=2");
  const route = currentRoute();
  assert.equal(route.path, "/nets/site/devices");
  assert.equal(route.query.get("sort"), "-name");
  assert.equal(route.query.get("page"), "2");
  fakeBrowser("");
  assert.equal(currentRoute().path, "/");
});

test("setQuery replaces the query without a history entry and tells the router; navigate adds one", () => {
  const seen = fakeBrowser("#/nets/site/devices?page=3&sort=name");
  setQuery({ page: null, search: "tag 1", sort: "" });
  assert.deepEqual(seen.replaced, ["#/nets/site/devices?search=tag+1"]);
  assert.deepEqual(seen.events, ["hashchange"]);
  navigate("#/host");
  assert.equal(seen.hash, "#/host");
  assert.equal(seen.replaced.length, 1);
});
