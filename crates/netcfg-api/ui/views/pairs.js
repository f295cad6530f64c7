// Device pairs: not built yet.
import { html } from "../lib/html.js";
import { Page, Notice } from "../lib/components.js";

/** @param {{params: Record<string, string>, query: URLSearchParams}} props */
export default function View({ params }) {
  return html`<${Page} title=${'Device pairs'} view="pairs"><${Notice} level=${2}><p>This view is not built yet.</p><//><//>`;
}
