// Each view has its own URL in the fragment (`#/nets/site/devices`), so a
// link or a reload lands on the same view. The fragment keeps the page's
// own paths apart from the API's (`/nets/...` is the API).

import { useEffect, useState } from "./html.js";

/**
 * The current route: the fragment's path (still percent-encoded; `match`
 * decodes each segment) and its query.
 * @returns {{path: string, query: URLSearchParams}}
 */
export function currentRoute() {
  const fragment = location.hash.replace(/^#/, "") || "/";
  const [path, search = ""] = fragment.split("?");
  return { path: path || "/", query: new URLSearchParams(search) };
}

/** The current route, re-rendering at each change. */
export function useRoute() {
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    const changed = () => setRoute(currentRoute());
    window.addEventListener("hashchange", changed);
    return () => window.removeEventListener("hashchange", changed);
  }, []);
  return route;
}

/**
 * The href of a view: href("nets", name, "devices") → "#/nets/site/devices".
 * Each part is percent-encoded.
 * @param {...(string|number)} parts
 */
export function href(...parts) {
  return "#/" + parts.map((part) => encodeURIComponent(String(part))).join("/");
}

/**
 * Goes to a view (adds a history entry).
 * @param {string} target  an href
 */
export function navigate(target) {
  location.hash = target.replace(/^#/, "");
}

/**
 * Replaces the view's query (search, sort, page) without a history entry,
 * so a reload keeps it.
 * @param {Record<string, string | number | null | undefined>} changes
 */
export function setQuery(changes) {
  const { path, query } = currentRoute();
  for (const [key, value] of Object.entries(changes)) {
    if (value === null || value === undefined || value === "") query.delete(key);
    else query.set(key, String(value));
  }
  const search = query.toString();
  history.replaceState(null, "", "#" + path + (search ? "?" + search : ""));
  window.dispatchEvent(new HashChangeEvent("hashchange"));
}

/**
 * Matches a path against a pattern with `:name` segments.
 * @param {string} pattern
 * @param {string} path
 * @returns {Record<string, string> | null}
 */
export function match(pattern, path) {
  const want = pattern.split("/");
  const have = path.split("/");
  if (want.length !== have.length) return null;
  /** @type {Record<string, string>} */
  const params = {};
  for (let index = 0; index < want.length; index += 1) {
    if (want[index].startsWith(":")) {
      if (!have[index]) return null;
      params[want[index].slice(1)] = decodeURIComponent(have[index]);
    } else if (want[index] !== have[index]) {
      return null;
    }
  }
  return params;
}
