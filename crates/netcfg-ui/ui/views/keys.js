// My API keys (decisions §17): the signed-in user's keys for scripts and
// tools. A new key's secret is shown once, with a copy button; the server
// keeps only its digest. Revoking one ends it at its next request.

import { html, useState } from "../lib/html.js";
import { call, path, session } from "../lib/api.js";
import { Page, Loaded, Modal, ConfirmDelete, Notice, useLoad, formatTime, say } from "../lib/components.js";
import { useForm, Field, FormFooter } from "../lib/forms.js";
import { ROLES, rolesUpTo } from "../lib/people.js";

/** The view (it takes no parameters from its URL). */
export default function View() {
  const who = session();
  if (!who || who.via === "token") {
    return html`<${Page} title="My API keys" view="keys">
      <${Notice} level=${2}><p>API keys belong to a user: sign in with your name and password to see and make yours.</p><//>
    <//>`;
  }
  return html`<${Page} title="My API keys" view="keys"><${Keys} user=${who.user} role=${who.role} /><//>`;
}

/** @param {{user: string, role: string}} props */
function Keys({ user, role }) {
  const load = useLoad(async (signal) => (await call("GET", path`/users/${user}/keys`, { signal })).body.api_keys || [], [user]);
  const [adding, setAdding] = useState(false);
  const [secret, setSecret] = useState(/** @type {{name: string, key: string} | null} */ (null));
  const [revoking, setRevoking] = useState(/** @type {any} */ (null));
  return html`
    <p class="muted">A key acts with the lower of its role and yours; send it as <code>Authorization: Bearer ncfg_…</code>.</p>
    <div class="toolbar"><button type="button" class="primary" onClick=${() => setAdding(true)}>Make a key</button></div>
    <${Loaded} load=${load}>${(/** @type {any[]} */ keys) => keys.length === 0
      ? html`<p class="muted">No key yet.</p>`
      : html`<div class="table-wrap"><table>
        <thead><tr><th scope="col">Name</th><th scope="col">Role</th><th scope="col">Starts with</th><th scope="col">Made</th><th scope="col">Last used</th><th scope="col">Expires</th><th scope="col">Actions</th></tr></thead>
        <tbody>${keys.map((key) => html`<tr key=${key.name} data-item=${key.name}>
          <td>${key.name}</td><td>${key.role}</td><td><code>${key.prefix}…</code></td>
          <td>${formatTime(key.created_ms)}</td><td>${key.last_used_ms ? formatTime(key.last_used_ms) : "never"}</td>
          <td>${key.expires_ms ? formatTime(key.expires_ms) : "never"}</td>
          <td><button type="button" class="danger" aria-label=${`Revoke ${key.name}`} onClick=${() => setRevoking(key)}>Revoke</button></td>
        </tr>`)}</tbody>
      </table></div>`}<//>
    ${adding && html`<${NewKey} user=${user} role=${role} onClose=${() => setAdding(false)} onMade=${(/** @type {{name: string, key: string}} */ made) => {
      setAdding(false);
      setSecret(made);
      load.reload();
    }} />`}
    ${secret && html`<${Modal} title=${`Key ${secret.name}`} onClose=${() => setSecret(null)}>
      <p>Copy the key now: it is not shown again.</p>
      <p><code class="secret" data-secret>${secret.key}</code></p>
      <div class="buttons">
        <button type="button" class="primary" onClick=${() => navigator.clipboard?.writeText(secret.key).then(() => say("The key is copied"), () => say("The browser did not let the page copy: select the key and copy it", 2))}>Copy</button>
        <button type="button" onClick=${() => setSecret(null)}>Done</button>
      </div>
    <//>`}
    ${revoking && html`<${ConfirmDelete} title=${`Revoke ${revoking.name}?`} deleted=${`Key ${revoking.name} revoked`}
      remove=${() => call("DELETE", path`/users/${user}/keys/${revoking.name}`)}
      onClose=${() => setRevoking(null)} onDone=${() => {
        setRevoking(null);
        load.reload();
      }}>
      <p>A script that uses it is refused at its next request.</p>
    <//>`}`;
}

/** @param {{user: string, role: string, onClose: () => void, onMade: (made: {name: string, key: string}) => void}} props */
function NewKey({ user, role, onClose, onMade }) {
  const form = useForm({ name: "", role: role, days: "" });
  return html`<${Modal} title="Make an API key" onClose=${onClose}>
    <form onSubmit=${form.submit(async (values) => {
      const days = Number(values.days);
      const body = {
        name: String(values.name).trim(),
        role: values.role,
        ...(values.days !== "" && days > 0 ? { expires_ms: Date.now() + days * 86_400_000 } : {}),
      };
      const answer = await call("POST", path`/users/${user}/keys`, { body });
      onMade({ name: answer.body.api_key.name, key: answer.body.api_key.key });
    })}>
      <${Field} form=${form} name="name" label="Name" required autofocus hint="a-z 0-9 . _ -, for example ci or dashboard" />
      <${Field} form=${form} name="role" label="Role" kind="select" options=${rolesUpTo(role).map((name) => [name, ROLES[name]])}
        hint="At most your own role" />
      <${Field} form=${form} name="days" label="Expires after (days)" kind="number" min=${1} hint="Empty: never" />
      <${FormFooter} form=${form} submitLabel="Make the key" />
    </form>
  <//>`;
}
