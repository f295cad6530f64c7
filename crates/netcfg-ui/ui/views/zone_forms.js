// The floor plan's zone forms (views/floor.js shows them under the plan):
// naming an outline just drawn (POST), and the selected zone's name, dwell,
// hysteresis and points (PATCH of what changed) with its deletion after a
// confirmation. Both edit the outline's points (views/zone_points.js), so
// a self-crossing outline is fixed, not redrawn; the plan shows the points
// being edited. The API's problems show beside their fields; the
// outline's (`polygon`, e.g. a self-intersecting one) beside the outline.

import { html, useEffect, useId, useRef, useState } from "../lib/html.js";
import { post, patch, del, path, ApiError } from "../lib/api.js";
import { Modal, say } from "../lib/components.js";
import { useForm, Field, FormFooter, numberOrUndefined, compact } from "../lib/forms.js";
import { outlineHint, outlineProblems, polygonArea, samePoints } from "../lib/zones.js";
import { OutlinePoints } from "./zone_points.js";
import { may } from "../lib/access.js";

/** @typedef {import("../lib/types.js").Zone} Zone */
/** @typedef {import("../lib/zones.js").Point} Point */
/** @typedef {import("../lib/forms.js").Form} Form */

/**
 * Runs a write of a zone's body; its failure's outline problems go on `polygon`.
 * @template T
 * @param {() => Promise<T>} write
 */
async function zoneWrite(write) {
  try {
    return await write();
  } catch (failure) {
    if (failure instanceof ApiError) failure.problems = outlineProblems(failure.problems);
    throw failure;
  }
}

/**
 * Saves a zone's new outline (a point dragged on the plan): the API's
 * answer, or its failure with the outline's problems on `polygon`.
 * @param {string} net @param {string} name @param {Point[]} polygon
 */
export function saveOutline(net, name, polygon) {
  return zoneWrite(() => patch(path`/nets/${net}/zones/${name}`, { polygon }));
}

/**
 * The outline as a field: its points and area, a hint when it crosses
 * itself, and the server's problem with it.
 * @param {{form: Form, points: Point[]}} props
 */
function OutlineField({ form, points }) {
  const id = useId();
  form.register("polygon");
  const problem = form.problems.polygon;
  // The server's problem was with the outline it was sent: once the points
  // change it no longer applies (the hint judges the new ones).
  const key = points.join(";");
  const sent = useRef(key);
  useEffect(() => {
    if (problem && key !== sent.current) form.reset(form.values);
    sent.current = key;
  }, [key]);
  const hint = outlineHint(points);
  const describedBy = [problem ? `${id}-problem` : "", hint ? `${id}-hint` : ""].filter(Boolean).join(" ") || undefined;
  return html`<div class=${"field" + (problem ? " invalid" : "")}>
    <label for=${id}>Outline</label>
    <output id=${id} aria-invalid=${problem ? "true" : undefined} aria-describedby=${describedBy}>
      ${points.length} points${hint ? "" : `, ${(polygonArea(points) / 1e6).toFixed(1)} m²`}</output>
    ${hint && html`<small id=${`${id}-hint`} class="hint">Check it: ${hint} (marked red on the plan); move or remove a point below. The server decides when you save.</small>`}
    ${problem && html`<p id=${`${id}-problem`} class="problem" role="alert">${problem}</p>`}
  </div>`;
}

/** @param {{form: Form}} props */
function TuningFields({ form }) {
  return html`<div class="form-grid" style=${{ gridTemplateColumns: "repeat(2, minmax(8rem, 1fr))" }}>
    <${Field} form=${form} name="dwell_ms" label="Dwell (ms)" kind="number" step="1" min=${0} placeholder="0"
      hint="How long a tag stays inside before it enters." />
    <${Field} form=${form} name="hysteresis_mm" label="Hysteresis (mm)" kind="number" step="1" min=${0} placeholder="150"
      hint="How far inside to enter, and outside to leave." />
  </div>`;
}

/**
 * Names the outline just drawn, lets its points be changed, and saves it
 * as a zone.
 * @param {{net: string, points: Point[], onPoints: (points: Point[]) => void, onSaved: (zone: Zone) => void, onCancel: () => void}} props
 */
export function NewZoneForm({ net, points, onPoints, onSaved, onCancel }) {
  const form = useForm({ name: "", dwell_ms: "", hysteresis_mm: "" });
  const box = useRef(/** @type {HTMLElement | null} */ (null));
  useEffect(() => box.current?.querySelector("input")?.focus(), []);
  return html`<section ref=${box} class="zone-form" aria-labelledby="zone-new">
    <h2 id="zone-new">New zone</h2>
    <form onSubmit=${form.submit(async (values) => {
      const body = compact({
        name: String(values.name).trim(),
        polygon: points,
        dwell_ms: numberOrUndefined(values.dwell_ms),
        hysteresis_mm: numberOrUndefined(values.hysteresis_mm),
      });
      const answer = await zoneWrite(() => post(path`/nets/${net}/zones`, body));
      say(answer.message || `Zone ${body.name} created`, answer.level);
      onSaved(answer.body.zone);
    })}>
      <${Field} form=${form} name="name" label="Zone name" required />
      <${OutlineField} form=${form} points=${points} />
      <${OutlinePoints} points=${points} onChange=${onPoints} />
      <${TuningFields} form=${form} />
      <${FormFooter} form=${form} submitLabel="Save zone" request=${["POST", path`/nets/${net}/zones`]}>
        <button type="button" onClick=${onCancel}>Discard outline</button>
      <//>
    </form>
  </section>`;
}

/**
 * The selected zone: rename it, change its dwell, hysteresis and points,
 * delete it. Its points also drag on the plan; the points changed here
 * and not yet saved show on the plan (`onPreview`, null when none).
 * @param {{net: string, zone: Zone, onSaved: (zone: Zone) => void, onDeleted: () => void, onClose: () => void,
 *   onPreview: (points: Point[] | null) => void}} props
 */
export function ZoneEditor({ net, zone, onSaved, onDeleted, onClose, onPreview }) {
  const form = useForm(valuesOf(zone));
  const [deleting, setDeleting] = useState(false);
  const [points, setPoints] = useState(zone.polygon);
  const stored = zone.polygon.join(";");
  // Another zone selected, or this one changed elsewhere: show what it is now.
  useEffect(() => form.reset(valuesOf(zone)), [zone.name, zone.dwell_ms, zone.hysteresis_mm]);
  useEffect(() => setPoints(zone.polygon), [stored]);
  const edited = !samePoints(points, zone.polygon);
  useEffect(() => onPreview(edited ? points : null), [edited, points]);
  useEffect(() => () => onPreview(null), []);
  return html`<section class="zone-form" aria-labelledby="zone-edit">
    <h2 id="zone-edit">Zone ${zone.name}</h2>
    <p class="muted">Drag its points on the plan (saved as you let go), or change them below and save: the plan shows them dashed until then.</p>
    <form onSubmit=${form.submit(async (values) => {
      const wanted = { name: String(values.name).trim(), dwell_ms: numberOrUndefined(values.dwell_ms), hysteresis_mm: numberOrUndefined(values.hysteresis_mm) };
      /** @type {Record<string, any>} */
      const body = {};
      if (wanted.name !== zone.name) body.name = wanted.name;
      if (wanted.dwell_ms !== undefined && wanted.dwell_ms !== zone.dwell_ms) body.dwell_ms = wanted.dwell_ms;
      if (wanted.hysteresis_mm !== undefined && wanted.hysteresis_mm !== zone.hysteresis_mm) body.hysteresis_mm = wanted.hysteresis_mm;
      if (edited) body.polygon = points;
      if (Object.keys(body).length === 0) {
        say(`Zone ${zone.name}: nothing to change`);
        return;
      }
      const answer = await zoneWrite(() => patch(path`/nets/${net}/zones/${zone.name}`, body));
      say(answer.message || `Zone ${zone.name} updated`, answer.level);
      onSaved(answer.body.zone);
    })}>
      <${Field} form=${form} name="name" label="Zone name" required />
      <${OutlineField} form=${form} points=${points} />
      <${OutlinePoints} points=${points} onChange=${setPoints} />
      <${TuningFields} form=${form} />
      <${FormFooter} form=${form} submitLabel="Save changes" request=${["PATCH", path`/nets/${net}/zones/${zone.name}`]}>
        <button type="button" class="danger" ...${may("DELETE", path`/nets/${net}/zones/${zone.name}`)} onClick=${() => setDeleting(true)}>Delete zone</button>
        <button type="button" onClick=${onClose}>Close</button>
      <//>
    </form>
    ${deleting && html`<${DeleteZone} net=${net} zone=${zone} onClose=${() => setDeleting(false)} onDone=${onDeleted} />`}
  </section>`;
}

/** @param {Zone} zone */
function valuesOf(zone) {
  return { name: zone.name, dwell_ms: String(zone.dwell_ms), hysteresis_mm: String(zone.hysteresis_mm) };
}

/**
 * The confirmation of a zone's deletion; Cancel takes the focus, so Enter does no harm.
 * @param {{net: string, zone: Zone, onClose: () => void, onDone: () => void}} props
 */
function DeleteZone({ net, zone, onClose, onDone }) {
  const [failure, setFailure] = useState("");
  const cancel = useRef(/** @type {HTMLButtonElement | null} */ (null));
  useEffect(() => {
    const timer = setTimeout(() => cancel.current?.focus(), 0);
    return () => clearTimeout(timer);
  }, []);
  async function confirm() {
    try {
      const answer = await del(path`/nets/${net}/zones/${zone.name}`);
      say(answer.message || `Zone ${zone.name} deleted`, answer.level);
      onClose();
      onDone();
    } catch (error) {
      setFailure(error instanceof Error ? error.message : String(error));
    }
  }
  return html`<${Modal} title=${`Delete zone ${zone.name}?`} onClose=${onClose}>
    <p>The tags inside it leave it now, and its enters and exits stop.</p>
    ${failure && html`<div class="notice level-1" role="alert"><p>${failure}</p></div>`}
    <div class="buttons">
      <button type="button" class="danger" ...${may("DELETE", path`/nets/${net}/zones/${zone.name}`)} onClick=${confirm}>Delete</button>
      <button type="button" ref=${cancel} onClick=${onClose}>Cancel</button>
    </div>
  <//>`;
}
