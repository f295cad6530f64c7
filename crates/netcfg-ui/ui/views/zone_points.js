// The points of a zone's outline as a table a person can edit (beside
// views/zone_forms.js): x and y of each point in mm, a point added or
// removed, and which edges cross. Redrawing a whole outline to fix one
// crossing edge is slow and loses the other points: here one number is
// changed. Edge n runs from point n to point n + 1, the last back to
// point 1, as the server and the plan count them.

import { html, useEffect, useState } from "../lib/html.js";
import { pointTexts, pointsFromTexts, addPoint, removePoint, samePoints, crossingEdges, MIN_POINTS, MAX_POINTS } from "../lib/zones.js";

/** @typedef {import("../lib/zones.js").Point} Point */

/**
 * The outline's points, editable; each whole change (every number a whole
 * number of mm) goes to `onChange`.
 * @param {{points: Point[], onChange: (points: Point[]) => void}} props
 */
export function OutlinePoints({ points, onChange }) {
  const [texts, setTexts] = useState(() => pointTexts(points));
  // Points changed elsewhere (dragged on the plan, saved, a point added or
  // removed) show as they are; a number being typed is kept meanwhile.
  useEffect(() => {
    const typed = pointsFromTexts(texts);
    if (!typed || !samePoints(typed, points)) setTexts(pointTexts(points));
  }, [points]);
  const crossing = new Set(crossingEdges(points));

  /** @param {number} index @param {0 | 1} axis @param {string} text */
  function edit(index, axis, text) {
    const next = texts.map((row, at) => (at === index ? /** @type {[string, string]} */ (axis === 0 ? [text, row[1]] : [row[0], text]) : row));
    setTexts(next);
    const typed = pointsFromTexts(next);
    if (typed) onChange(typed);
  }

  return html`<fieldset class="outline-points">
    <legend>Points of the outline</legend>
    <p class="muted">In mm. Edge n runs from point n to the next; the last edge closes the outline back to point 1.</p>
    <div class="table-wrap" style=${{ maxHeight: "18rem" }}>
      <table>
        <thead><tr>
          <th scope="col" class="number">Point</th><th scope="col">x (mm)</th><th scope="col">y (mm)</th>
          <th scope="col">Edge to the next point</th><th scope="col"><span class="sr-only">Remove</span></th>
        </tr></thead>
        <tbody>
          ${texts.map(([x, y], index) => {
            const number = index + 1;
            const next = number === texts.length ? 1 : number + 1;
            return html`<tr key=${index} class=${crossing.has(number) ? "crossing" : ""}>
              <th scope="row" class="number">${number}</th>
              <td>${coordinate(`x of point ${number}`, x, (text) => edit(index, 0, text))}</td>
              <td>${coordinate(`y of point ${number}`, y, (text) => edit(index, 1, text))}</td>
              <td>edge ${number} to point ${next}${crossing.has(number) && html` <span class="badge error">crosses</span>`}</td>
              <td><button type="button" aria-label=${`Remove point ${number}`} disabled=${texts.length <= MIN_POINTS}
                onClick=${() => onChange(removePoint(points, index))}>Remove</button></td>
            </tr>`;
          })}
        </tbody>
      </table>
    </div>
    <div class="buttons" style=${{ marginTop: ".4rem" }}>
      <button type="button" disabled=${texts.length >= MAX_POINTS} onClick=${() => onChange(addPoint(points))}
        title="A point half way along the last edge; then move it">Add a point</button>
    </div>
  </fieldset>`;
}

/**
 * One coordinate's field, marked when it is not a whole number of mm.
 * @param {string} label @param {string} text @param {(text: string) => void} onInput
 */
function coordinate(label, text, onInput) {
  const bad = pointsFromTexts([[text, "0"]]) === null;
  return html`<input type="text" inputmode="numeric" aria-label=${label} value=${text} size="8"
    aria-invalid=${bad ? "true" : undefined} title=${bad ? "a whole number of millimetres" : undefined}
    onInput=${(/** @type {Event} */ event) => onInput(/** @type {HTMLInputElement} */ (event.target).value)} />`;
}
