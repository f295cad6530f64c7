// The group image of a configuration: the path, on the server's host, of
// the firmware image bundle its devices are updated to (GET and PATCH
// /nets/{net}/group_image, payload `group_images`: `{path}`, null until
// set). The `device_update_mode` setting says whether devices take it
// when they join (auto) or only on request (manual).

import { html } from "../lib/html.js";
import { call, path } from "../lib/api.js";
import { Page, Loaded, LongPath, useLoad, useReloadOn, say } from "../lib/components.js";
import { useForm, Field, FormFooter } from "../lib/forms.js";
import { href } from "../lib/router.js";

/** @param {{params: Record<string, string>, query: URLSearchParams}} props */
export default function View({ params }) {
  const net = params.net;
  const load = useLoad(async (signal) => {
    const [image, settings] = await Promise.all([
      call("GET", path`/nets/${net}/group_image`, { signal }),
      call("GET", path`/nets/${net}/settings`, { signal }),
    ]);
    const mode = (settings.body.settings || []).find((/** @type {any} */ setting) => setting.setting_key === "device_update_mode");
    return { path: /** @type {string | null} */ (image.body.group_images?.path ?? null), updateMode: mode ? String(mode.value) : null };
  }, [net]);
  useReloadOn(load.reload, ["change"], net);
  return html`<${Page} title="Group image" view="group_image">
    <p class="muted">The firmware image bundle this configuration's devices are updated to: a file on the server's host, named by its path.</p>
    <${Loaded} load=${load}>${(/** @type {{path: string | null, updateMode: string | null}} */ data) => html`
      <dl>
        <dt>Current image</dt>
        <dd data-group-image>${data.path === null ? html`<span class="muted">none set</span>` : html`<code><${LongPath} text=${data.path} /></code>`}</dd>
        ${data.updateMode && html`<dt>Device update mode</dt>
          <dd>${data.updateMode === "auto" ? "auto: devices are updated when they join" : `${data.updateMode}: devices are updated only on request`}${" "}(<a href=${href("nets", net, "settings") + "?q=device_update_mode"}>change in Settings</a>)</dd>`}
      </dl>
      <${ImageForm} key=${String(data.path)} net=${net} current=${data.path} reload=${load.reload} />
    `}<//>
  <//>`;
}

/** @param {{net: string, current: string | null, reload: () => void}} props */
function ImageForm({ net, current, reload }) {
  const form = useForm({ path: current || "" });
  return html`<form noValidate onSubmit=${form.submit(async (values) => {
    const answer = await call("PATCH", path`/nets/${net}/group_image`, { body: { path: values.path } });
    say(answer.message, answer.level);
    reload();
  })}>
    <h2>Set the group image</h2>
    <${Field} form=${form} name="path" label="Image bundle path" required placeholder="/opt/firmware/bundle.tar"
      hint="The path on the server's host, 1 to 1024 characters" />
    <${FormFooter} form=${form} submitLabel="Set group image" request=${["PATCH", path`/nets/${net}/group_image`]} />
  </form>`;
}
