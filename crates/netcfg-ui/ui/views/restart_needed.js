// The line the Overview and the Devices views show while the saved
// configuration holds a change its running network takes only when it is
// restarted or reloaded (the 5.1 configuration's `restart_needed`), with
// the two buttons that apply it. A device added while the network runs
// would otherwise never join, and nothing would say why.

import { html } from "../lib/html.js";
import { call, post, path } from "../lib/api.js";
import { Notice, useLoad, useReloadOn, act } from "../lib/components.js";
import { may } from "../lib/access.js";

/**
 * Asks the configuration again on each change (a device added, a restart:
 * both raise `change`) and each start or stop (`state`), so the line comes
 * and goes without a page reload. Shows nothing until it is needed.
 * @param {{net: string, onApplied?: () => void}} props
 */
export function RestartNeeded({ net, onApplied }) {
  const load = useLoad(async (signal) => {
    const answer = await call("GET", path`/nets/${net}`, { signal });
    return Boolean(answer.body.configuration?.restart_needed);
  }, [net]);
  useReloadOn(load.reload, ["state", "change"], net);
  if (!load.data) return null;
  /** @param {"restart" | "reload"} action */
  const apply = (action) => act(() => post(path`/nets/${net}`, { action })).then(() => {
    load.reload();
    onApplied?.();
  });
  const allowed = may("POST", path`/nets/${net}`);
  return html`<div data-restart-needed><${Notice} level=${2}>
    <p><strong>Changes wait for a restart:</strong> the running network takes them when it is restarted or reloaded.
      Reload applies them without stopping the network; Restart stops it and starts it again.</p>
    <div class="buttons">
      <button type="button" class="primary" ...${allowed} onClick=${() => apply("restart")}>Restart</button>
      <button type="button" ...${allowed} onClick=${() => apply("reload")}>Reload</button>
    </div>
  <//></div>`;
}
