// The netcfg manager: the page's frame (header, navigation, status line),
// the sign-in when access control is on, and the routing to the views of
// lib/views.js. Each view is a module under views/, loaded when first
// shown; its default export is a component that takes `{params, query}`
// from its URL.

import { html, render, useState, useEffect, useRef } from "./lib/html.js";
import { useErrorBoundary } from "./vendor/hooks.mjs";
import {
  beginSignOn, call, finishSignOn, loadSession, session, setToken, signIn, signOnAnswered, signOnIssuer, signOut,
  token,
} from "./lib/api.js";
import { reconnect, watchConnection } from "./lib/events.js";
import { useRoute, match, href } from "./lib/router.js";
import { StatusLine, Notice } from "./lib/components.js";
import { useForm, Field, FormFooter } from "./lib/forms.js";
import { VIEWS } from "./lib/views.js";


/** @type {Map<string, Promise<any>>} */
const loaded = new Map();

/** @param {string} module */
function loadView(module) {
  if (!loaded.has(module)) loaded.set(module, import(`./views/${module}.js`));
  return /** @type {Promise<any>} */ (loaded.get(module));
}

function resolve(/** @type {string} */ path) {
  for (const view of VIEWS) {
    const params = match(view.pattern, path);
    if (params) return { view, params };
  }
  return null;
}

function App() {
  const route = useRoute();
  const [signingIn, setSigningIn] = useState(false);
  const [signOnFailure, setSignOnFailure] = useState("");
  // Back from the provider of a single sign-on: no view asks the server
  // anything until the sign-in is finished (it would be refused).
  const [finishing, setFinishing] = useState(signOnAnswered);
  const [, setWho] = useState(/** @type {any} */ (null));
  useEffect(() => {
    const ask = () => setSigningIn(true);
    const changed = () => setWho(session());
    window.addEventListener("netcfg:unauthorized", ask);
    window.addEventListener("netcfg:session", changed);
    // Back from the provider of a single sign-on: finish it first.
    finishSignOn().then(
      (finished) => {
        setFinishing(false);
        if (finished) reconnect();
        else loadSession();
      },
      (/** @type {any} */ failure) => {
        setSignOnFailure(String(failure?.message || failure));
        setSigningIn(true);
        setFinishing(false);
      },
    );
    return () => {
      window.removeEventListener("netcfg:unauthorized", ask);
      window.removeEventListener("netcfg:session", changed);
    };
  }, []);
  const who = session();
  const found = resolve(route.path);
  const net = found?.params.net;
  return html`
    <a class="skip" href="#main" onClick=${(/** @type {Event} */ event) => {
      event.preventDefault();
      document.getElementById("page-title")?.focus();
    }}>Skip to content</a>
    <header class="top">
      <a class="brand" href="#/">netcfg</a>
      <${Connection} />
      <${StatusLine} />
      ${who && html`<span class="person" title=${`signed in with ${who.via}`}>${who.user} (${who.role})</span>`}
      ${(token() || who) && html`<button type="button" class="quiet" onClick=${async () => {
        await signOut().catch(() => {});
        setSigningIn(true);
      }}>Sign out</button>`}
    </header>
    <div class="frame">
      <nav class="side" aria-label="Views">
        <ul>
          ${VIEWS.filter((view) => !view.pattern.includes(":") && visible(view, who)).map((view) => html`<li>
            <a href=${"#" + view.pattern} aria-current=${found?.view === view ? "page" : undefined}>${view.label}</a>
          </li>`)}
        </ul>
        ${net !== undefined && html`<h2 class="nav-net" title=${net}>${net}</h2>
          <ul>
            ${VIEWS.filter((view) => view.pattern.startsWith("/nets/:net")).map((view) => {
              const rest = view.pattern.slice("/nets/:net".length).replace(/^\//, "");
              const target = rest ? href("nets", net, ...rest.split("/")) : href("nets", net);
              return html`<li><a href=${target} aria-current=${found?.view === view ? "page" : undefined}>${view.label}</a></li>`;
            })}
          </ul>`}
      </nav>
      <main id="main">
        ${finishing
          ? html`<p class="loading" aria-busy="true">Signing in…</p>`
          : signingIn
          ? html`<${SignIn} failure=${signOnFailure} done=${() => {
              setSignOnFailure("");
              setSigningIn(false);
            }} />`
          : found
            ? html`<${ViewHost} key=${found.view.pattern + JSON.stringify(found.params)} module=${found.view.module} params=${found.params} query=${route.query} />`
            : html`<${Notice} level=${2}><p>There is no view at ${route.path}. <a href="#/">Configurations</a></p><//>`}
      </main>
    </div>`;
}

/** Loads a view's module and shows it; a failure of the view stays inside it. */
function ViewHost(/** @type {{module: string, params: Record<string,string>, query: URLSearchParams}} */ { module, params, query }) {
  const [View, setView] = useState(/** @type {any} */ (null));
  const [failure, resetFailure] = useErrorBoundary((error) => console.error(error));
  useEffect(() => {
    let live = true;
    loadView(module).then(
      (loadedModule) => live && setView(() => loadedModule.default),
      (error) => live && setView(() => () => html`<${Notice} level=${1}><p>This view could not be loaded: ${String(error)}</p><//>`),
    );
    return () => {
      live = false;
    };
  }, [module]);
  const focused = useRef(false);
  useEffect(() => {
    // Moves focus to the new view's heading, so keyboard and screen-reader
    // users start there after following a link.
    if (View && !focused.current && document.activeElement?.closest("nav")) {
      focused.current = true;
      document.getElementById("page-title")?.focus();
    }
  }, [View]);
  if (failure) {
    return html`<${Notice} level=${1}>
      <p>This view failed: ${String(failure)}</p>
      <button type="button" onClick=${resetFailure}>Try again</button>
    <//>`;
  }
  if (!View) return html`<p class="loading" aria-busy="true">Loading…</p>`;
  return html`<${View} params=${params} query=${query} />`;
}

/** The live events' connection, as a small badge. */
function Connection() {
  const [state, setState] = useState("closed");
  useEffect(() => watchConnection(setState), []);
  const label = { open: "Live", connecting: "Reconnecting…", closed: "Idle" }[state];
  return html`<span class=${`connection ${state}`} title="Live events from the server">${label}</span>`;
}

/**
 * Whether the navigation shows `view` to `who`: a view that needs a role
 * (the people's) only to whom has it; with nobody known (access control
 * off, or before the answer) only the views that need none.
 * @param {{role?: string, signedIn?: boolean}} view
 * @param {import("./lib/types.js").SessionInfo | null} who
 */
function visible(view, who) {
  if (view.signedIn && !who?.user) return false;
  if (view.role === "admin") return who?.role === "admin";
  return true;
}

/**
 * The sign-in: a name and password (a session cookie, decisions §17),
 * single sign-on through the server's OpenID provider when it has one, or
 * an API key or token kept until this browser tab closes.
 */
function SignIn(/** @type {{done: () => void, failure: string}} */ { done, failure }) {
  const person = useForm({ name: "", password: "" });
  const form = useForm({ token: "" });
  const [issuer, setIssuer] = useState(/** @type {string | null} */ (null));
  const [leaving, setLeaving] = useState("");
  useEffect(() => {
    signOnIssuer().then(setIssuer);
  }, []);
  return html`<section class="page sign-in" data-view="sign-in" aria-labelledby="page-title">
    <h1 id="page-title" tabindex="-1">Sign in</h1>
    <p>Access control is on. Sign in with your name and password, or enter an API key or access token.</p>
    ${failure && html`<${Notice} level=${2}><p>Single sign-on failed: ${failure}</p><//>`}
    ${issuer !== null && html`<p class="sign-on">
      <button type="button" disabled=${leaving === "…"} onClick=${() => {
        setLeaving("…");
        beginSignOn().catch((/** @type {any} */ error) => setLeaving(String(error?.message || error)));
      }}>Sign in with single sign-on</button>
      <span class="hint">through ${issuer}</span>
      ${leaving && leaving !== "…" && html`<span role="alert" class="problem">${leaving}</span>`}
    </p>`}
    <form onSubmit=${person.submit(async (values) => {
      try {
        await signIn(String(values.name).trim(), String(values.password));
      } catch (failure) {
        const error = /** @type {any} */ (failure);
        if (error.status === 401) error.problems = [{ field: "password", problem: error.message }];
        throw error;
      }
      reconnect();
      done();
    })}>
      <${Field} form=${person} name="name" label="Name" required autofocus />
      <${Field} form=${person} name="password" label="Password" kind="password" required />
      <${FormFooter} form=${person} submitLabel="Sign in" />
    </form>
    <h2>With an API key or token</h2>
    <form onSubmit=${form.submit(async (values) => {
      const secret = String(values.token).trim();
      setToken(secret);
      try {
        await call("GET", "/nets");
        await loadSession();
      } catch (failure) {
        setToken(null);
        throw Object.assign(/** @type {any} */ (failure), {
          problems: [{ field: "token", problem: "this token is not known to the server" }],
        });
      }
      reconnect();
      done();
    })}>
      <${Field} form=${form} name="token" label="Access token" kind="password" required />
      <${FormFooter} form=${form} submitLabel="Use the key" />
    </form>
  </section>`;
}

const root = /** @type {HTMLElement} */ (document.getElementById("app"));
root.textContent = "";
render(html`<${App} />`, root);
