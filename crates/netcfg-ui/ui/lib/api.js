// The front end's only way to the server: the public 5.1 API, exactly as a
// script would call it (decisions.md §9). Every request names version 5.1,
// whatever the server's default, and carries the signed-in token if any.
// A person signed in with a name and password holds a session cookie (the
// browser sends it); its changes carry the session's CSRF token
// (decisions.md §17).

const TOKEN_KEY = "netcfg.token";
const API_VERSION = "5.1";

/** The token of this browser session (sessionStorage: gone when the tab closes). */
export function token() {
  return sessionStorage.getItem(TOKEN_KEY);
}

/** @param {string | null} secret */
export function setToken(secret) {
  if (secret) sessionStorage.setItem(TOKEN_KEY, secret);
  else sessionStorage.removeItem(TOKEN_KEY);
  window.dispatchEvent(new CustomEvent("netcfg:token"));
}

/**
 * Who is signed in, as `GET /session` last answered (null: nobody known).
 * @type {import("./types.js").SessionInfo | null}
 */
let current = null;

/** Who is signed in, as last known. */
export function session() {
  return current;
}

/** @param {import("./types.js").SessionInfo | null} info */
function setSession(info) {
  current = info;
  window.dispatchEvent(new CustomEvent("netcfg:session"));
}

/**
 * Marks that this browser signed in with a name and password (the cookie
 * itself is out of the page's reach): only then, or with a token, is the
 * server asked who it is, so an open server is never asked (it would
 * answer 401: nobody is signed in, and nobody needs to be).
 */
const SIGNED_IN_KEY = "netcfg.signed-in";

/**
 * Asks the server who this browser is (a session cookie, or the token):
 * null when nobody, without asking the page to sign in.
 */
export async function loadSession() {
  if (!token() && !localStorage.getItem(SIGNED_IN_KEY)) {
    setSession(null);
    return current;
  }
  try {
    const answer = await call("GET", "/session", { quiet: true });
    setSession(answer.body.session);
  } catch {
    localStorage.removeItem(SIGNED_IN_KEY);
    setSession(null);
  }
  return current;
}

/**
 * Signs in with a name and password: the server sets the session cookie.
 * @param {string} name
 * @param {string} password
 */
export async function signIn(name, password) {
  setToken(null);
  const answer = await call("POST", "/session", { body: { name, password }, quiet: true });
  localStorage.setItem(SIGNED_IN_KEY, "1");
  setSession(answer.body.session);
  return current;
}

/** Where the page was when a single sign-on began (restored after it). */
const SIGN_ON_RETURN_KEY = "netcfg.sign-on-return";

/**
 * The single sign-on's provider, if the server has one (`GET
 * /session/oidc`); null when not set up or not known.
 * @returns {Promise<string | null>}
 */
export async function signOnIssuer() {
  try {
    const answer = await call("GET", "/session/oidc", { quiet: true });
    const oidc = answer.body.oidc;
    return oidc.enabled ? oidc.issuer || "" : null;
  } catch {
    return null;
  }
}

/**
 * Begins a single sign-on: the browser leaves for the provider, which
 * sends it back to this page with `code` and `state` in its query.
 */
export async function beginSignOn() {
  const answer = await call("POST", "/session/oidc", { quiet: true });
  sessionStorage.setItem(SIGN_ON_RETURN_KEY, location.hash);
  location.assign(answer.body.oidc.url);
}

/** Whether the address carries a provider's answer to finish first. */
export function signOnAnswered() {
  const query = new URLSearchParams(location.search);
  return Boolean(query.get("state") && (query.get("code") || query.get("error")));
}

/**
 * Finishes a single sign-on when the provider sent the browser back here
 * (`?code=&state=`, or `?error=` when it refused): the session cookie is
 * set, the query removed from the address, and the page goes back where
 * it was. Nothing when the address carries no answer of a provider.
 * @returns {Promise<boolean>} whether the address carried one
 */
export async function finishSignOn() {
  if (!signOnAnswered()) return false;
  const query = new URLSearchParams(location.search);
  const code = query.get("code");
  const state = query.get("state");
  const refused = query.get("error");
  const back = sessionStorage.getItem(SIGN_ON_RETURN_KEY) || "#/";
  sessionStorage.removeItem(SIGN_ON_RETURN_KEY);
  history.replaceState(null, "", location.pathname + back);
  if (refused) {
    const reason = query.get("error_description") || refused;
    throw new ApiError(401, { message: `the provider refused the sign-in: ${reason}`, code: "sign_on_refused" });
  }
  setToken(null);
  const answer = await call("POST", "/session/oidc/callback", { body: { code, state }, quiet: true });
  localStorage.setItem(SIGNED_IN_KEY, "1");
  setSession(answer.body.session);
  return true;
}

/** Signs out: the server forgets the session; the token is dropped too. */
export async function signOut() {
  try {
    await call("DELETE", "/session", { quiet: true });
  } finally {
    localStorage.removeItem(SIGNED_IN_KEY);
    setToken(null);
    setSession(null);
  }
}

/**
 * An error answer of the API, with what a client can act on (docs/api.md,
 * "Errors clients can act on").
 */
export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {Partial<import("./types_extra.js").EnvelopeBase> & Record<string, any>} body  the
   *   error's envelope (some carry a payload too: a 404 of `/packages` its list)
   */
  constructor(status, body) {
    super(body.message || `the server answered ${status}`);
    this.status = status;
    this.code = body.code || "";
    /** @type {import("./types.js").FieldProblem[]} */
    this.problems = Array.isArray(body.problems) ? body.problems : [];
    this.incident = body.incident || "";
    this.level = body.Classification || 1;
    this.body = body;
  }
}

/**
 * A path with each interpolated value percent-encoded as one segment:
 * path`/nets/${name}/devices/${key}`.
 * @param {TemplateStringsArray} strings
 * @param {...(string|number)} values
 */
export function path(strings, ...values) {
  let out = strings[0];
  values.forEach((value, index) => {
    out += encodeURIComponent(String(value)) + strings[index + 1];
  });
  return out;
}

/** Headers every request carries. */
export function baseHeaders() {
  /** @type {Record<string, string>} */
  const headers = { "Api-Version": API_VERSION, Accept: "application/json" };
  const secret = token();
  if (secret) headers.Authorization = `Bearer ${secret}`;
  return headers;
}

/**
 * @typedef {object} Answer
 * @property {number} status
 * @property {string} message   the sentence the API answered with
 * @property {number} level     its classification: 1 error, 2 warning, 3 information, 4 debug
 * @property {any} body         the whole JSON body ({} for a 204)
 * @property {Headers} headers
 */

/**
 * One request. Resolves with the answer for a 2xx or 304; rejects with an
 * ApiError otherwise (a 401 also tells the page to sign in).
 * `file` sends a file as the body as it is (an upload the API takes whole,
 * with `contentType`). `cache: "no-store"` asks the server every time,
 * never revalidating a kept answer (for state that changes without the
 * configuration changing: recordings, a replay).
 * @param {string} method
 * @param {string} url          a path, as `path` builds it
 * `quiet` keeps a 401 from asking the page to sign in (the session's own calls).
 * @param {{body?: any, query?: Record<string, any>, form?: FormData, file?: Blob, contentType?: string, cache?: RequestCache, headers?: Record<string,string>, raw?: boolean, signal?: AbortSignal, quiet?: boolean}} [options]
 * @returns {Promise<Answer & {response?: Response}>}
 */
export async function call(method, url, options = {}) {
  const headers = { ...baseHeaders(), ...(options.headers || {}) };
  if (current?.csrf_token && !["GET", "HEAD", "OPTIONS"].includes(method)) headers["X-CSRF-Token"] = current.csrf_token;
  /** @type {BodyInit | undefined} */
  let body;
  if (options.form) {
    body = options.form;
  } else if (options.file) {
    body = options.file;
    headers["Content-Type"] = options.contentType || options.file.type || "application/octet-stream";
  } else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers["Content-Type"] = "application/json";
  }
  let target = url;
  if (options.query) {
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(options.query)) {
      if (value !== undefined && value !== null && value !== "") search.set(key, String(value));
    }
    const text = search.toString();
    if (text) target += (target.includes("?") ? "&" : "?") + text;
  }
  let response;
  try {
    response = await fetch(target, { method, headers, body, signal: options.signal, ...(options.cache ? { cache: options.cache } : {}) });
  } catch (error) {
    if (error instanceof DOMException && error.name === "AbortError") throw error;
    throw new ApiError(0, { message: "The server cannot be reached. Check that it runs and that this computer can reach it." });
  }
  if (response.status === 401 && !options.quiet) window.dispatchEvent(new CustomEvent("netcfg:unauthorized"));
  if (options.raw && response.ok) {
    return { status: response.status, message: "", level: 3, body: null, headers: response.headers, response };
  }
  const text = response.status === 204 || response.status === 304 ? "" : await response.text();
  /** @type {Partial<import("./types_extra.js").EnvelopeBase> & Record<string, any>} */
  let parsed = {};
  if (text) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = { message: text.slice(0, 300) };
    }
  }
  if (!response.ok && response.status !== 304) throw new ApiError(response.status, parsed);
  const headerMessage = response.headers.get("Netcfg-Message");
  return {
    status: response.status,
    message: parsed.message || (headerMessage ? decodeURIComponent(headerMessage) : ""),
    level: parsed.Classification || Number(response.headers.get("Netcfg-Classification")) || 3,
    body: parsed,
    headers: response.headers,
  };
}

/**
 * GET, resolving with the body.
 * @param {string} url
 * @param {Record<string, any>} [query]
 */
export async function get(url, query) {
  return (await call("GET", url, { query })).body;
}

/** @param {string} url @param {any} [body] */
export const post = (url, body) => call("POST", url, { body });
/** @param {string} url @param {any} [body] */
export const patch = (url, body) => call("PATCH", url, { body });
/** @param {string} url @param {any} [body] */
export const put = (url, body) => call("PUT", url, { body });
/** @param {string} url @param {any} [body] */
export const del = (url, body) => call("DELETE", url, { body });

/**
 * Downloads a file the API serves (a saved-state file, a log) with the
 * token, and hands it to the browser under its own name.
 * @param {string} url
 * @param {string} fallbackName
 */
export async function download(url, fallbackName) {
  const answer = await call("GET", url, { raw: true });
  const response = /** @type {Response} */ (answer.response);
  const disposition = response.headers.get("Content-Disposition") || "";
  const match = /filename="?([^";]+)"?/.exec(disposition);
  const blob = await response.blob();
  const link = document.createElement("a");
  link.href = URL.createObjectURL(blob);
  link.download = match ? match[1] : fallbackName;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
  return blob;
}
