// Network mode: not built yet.
import { html } from "../lib/html.js";
import { Page, Notice } from "../lib/components.js";

/** @param {{params: Record<string, string>, query: URLSearchParams}} props */
export default function View({ params }) {
  return html`<${Page} title=${'Network mode'} view="network_mode"><${Notice} level=${2}><p>This view is not built yet.</p><//><//>`;
}
