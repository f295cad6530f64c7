// The operating mode of a configuration: the current one (GET /nets/{net}),
// the choices (GET /network_modes), and the change
// (PATCH /nets/{net}/network_mode), which a running configuration refuses
// (409 configuration_running): stop it first.

import { html } from "../lib/html.js";
import { call, path } from "../lib/api.js";
import { Page, Loaded, Notice, useLoad, useReloadOn, act, say } from "../lib/components.js";
import { useForm, Field, FormFooter } from "../lib/forms.js";
import { may } from "../lib/access.js";

/** @typedef {import("../lib/types.js").NetworkModeInfo} ModeInfo */

/** @param {{params: Record<string, string>, query: URLSearchParams}} props */
export default function View({ params }) {
  const net = params.net;
  const load = useLoad(async (signal) => {
    const [configuration, modes] = await Promise.all([
      call("GET", path`/nets/${net}`, { signal }),
      call("GET", "/network_modes", { signal }),
    ]);
    return { configuration: configuration.body.configuration, modes: /** @type {ModeInfo[]} */ (modes.body.network_modes || []) };
  }, [net]);
  useReloadOn(load.reload, ["change", "state"], net);
  return html`<${Page} title="Network mode" view="network_mode">
    <${Loaded} load=${load}>${(/** @type {{configuration: any, modes: ModeInfo[]}} */ { configuration, modes }) => html`
      <${ModeForm} key=${configuration.network_mode + configuration.state} net=${net} configuration=${configuration} modes=${modes} reload=${load.reload} />
    `}<//>
  <//>`;
}

/**
 * @param {{net: string, configuration: any, modes: ModeInfo[], reload: () => void}} props
 */
function ModeForm({ net, configuration, modes, reload }) {
  const form = useForm({ network_mode: configuration.network_mode });
  const running = configuration.state === "running";
  const current = modes.find((mode) => mode.network_mode === configuration.network_mode);
  return html`
    <p>Current mode: <strong data-current-mode=${configuration.network_mode}>${configuration.network_mode}</strong>
      ${current && html` <span class="muted">(${current.description})</span>`}
      ${" "}<span class=${`badge ${running ? "running" : "stopped"}`}>${configuration.state}</span></p>
    ${running && html`<${Notice} level=${2}>
      <p>The configuration is running: its network mode cannot change until it stops (the API answers 409).</p>
      <button type="button" ...${may("POST", path`/nets/${net}`)} onClick=${async () => {
        await act(() => call("POST", path`/nets/${net}`, { body: { action: "stop" } }));
        reload();
      }}>Stop the configuration</button>
    <//>`}
    <h2>Modes</h2>
    <div class="table-wrap"><table>
      <thead><tr><th scope="col">Mode</th><th scope="col">How it locates tags</th><th scope="col" class="number">Typical locations per second</th></tr></thead>
      <tbody>${modes.map((mode) => html`<tr key=${mode.network_mode} class=${mode.network_mode === configuration.network_mode ? "selected" : ""}>
        <td>${mode.network_mode}${mode.network_mode === configuration.network_mode && html` <span class="badge ok">current</span>`}</td>
        <td>${mode.description}</td>
        <td class="number">${mode.typical_locations_per_second.toLocaleString()}</td>
      </tr>`)}</tbody>
    </table></div>
    <h2>Change the mode</h2>
    <form noValidate onSubmit=${form.submit(async (values) => {
      const answer = await call("PATCH", path`/nets/${net}/network_mode`, { body: { network_mode: values.network_mode } });
      say(answer.message, answer.level);
      reload();
    })}>
      <${Field} form=${form} name="network_mode" label="Network mode" kind="select"
        options=${modes.map((mode) => /** @type {[string, string]} */ ([mode.network_mode, `${mode.network_mode}: ${mode.description}`]))}
        hint=${running ? "Stop the configuration first: a running network keeps its mode." : undefined} />
      <${FormFooter} form=${form} submitLabel="Change mode" request=${["PATCH", path`/nets/${net}/network_mode`]} />
    </form>`;
}
