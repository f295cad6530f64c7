// Forms that keep what the user typed and show every problem the API
// names beside the field it names (docs/api.md: a 400 carries `problems`,
// each `{field, problem}`; `field` is the body's path, e.g. `interfaces[0].x`).
// A problem whose field is not on the form is shown above its buttons.

import { html, useState, useId, useRef } from "./html.js";
import { ApiError } from "./api.js";
import { may } from "./access.js";

/**
 * @typedef {object} Form
 * @property {Record<string, any>} values
 * @property {(name: string, value: any) => void} set
 * @property {(values: Record<string, any>) => void} reset
 * @property {Record<string, string>} problems   field → problem
 * @property {string} error                      the message of the last failure
 * @property {string[]} unplaced                 problems of fields the form does not show
 * @property {boolean} placed                    some problem sits beside its field
 * @property {boolean} busy
 * @property {(action: (values: Record<string, any>) => Promise<any>) => (event?: Event) => Promise<void>} submit
 * @property {(field: string) => void} register  called by each Field, so problems of unknown fields show above the buttons
 */

/**
 * Form state. `submit(action)` gives an onSubmit handler: it runs `action`
 * with the values; an ApiError's problems land beside their fields and the
 * values stay as typed.
 * @param {Record<string, any>} initial
 * @returns {Form}
 */
export function useForm(initial) {
  const [values, setValues] = useState(initial);
  const [problems, setProblems] = useState(/** @type {Record<string,string>} */ ({}));
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const fields = useRef(new Set());
  const fieldNames = fields.current;
  /** @param {string} name @param {any} value */
  const set = (name, value) => {
    setValues((old) => ({ ...old, [name]: value }));
    if (problems[name]) setProblems((old) => ({ ...old, [name]: "" }));
  };
  // A problem of the whole request that only repeats the message (a 409
  // answered as a 400, a command refused) is not listed twice.
  const unplaced = Object.entries(problems)
    .filter(([field, problem]) => problem && !fieldNames.has(field))
    .filter(([field, problem]) => field !== "" || !error.startsWith(problem))
    .map(([field, problem]) => (field ? `${field}: ${problem}` : problem));
  const placed = Object.entries(problems).some(([field, problem]) => problem && fieldNames.has(field));
  return {
    values,
    set,
    reset: (next) => {
      setValues(next);
      setProblems({});
      setError("");
    },
    problems,
    error,
    unplaced,
    placed,
    busy,
    register: (field) => fieldNames.add(field),
    submit: (action) => async (event) => {
      event?.preventDefault();
      setBusy(true);
      setError("");
      setProblems({});
      try {
        await action(values);
      } catch (failure) {
        const { message, byField } = describeFailure(failure);
        setError(message);
        setProblems(byField);
      } finally {
        setBusy(false);
      }
    },
  };
}

/**
 * The message of a failure and its problems by field.
 * @param {unknown} failure
 */
export function describeFailure(failure) {
  /** @type {Record<string, string>} */
  const byField = {};
  if (failure instanceof ApiError) {
    for (const { field, problem } of failure.problems) {
      byField[field] = byField[field] ? `${byField[field]}; ${problem}` : problem;
    }
    const incident = failure.incident ? ` (incident ${failure.incident})` : "";
    return { message: failure.message + incident, byField };
  }
  return { message: failure instanceof Error ? failure.message : String(failure), byField };
}

/**
 * A labelled control with its problem beside it.
 * kinds: text (default), number, select (options: [value, label][]),
 * checkbox, textarea, file (`accept`: the kinds of file offered),
 * password. `autocomplete` keeps a browser from filling a credential it
 * saved for this site into a field meant for another.
 * @param {{form: Form, name: string, label: string, kind?: string, options?: [string, string][], hint?: string, required?: boolean, step?: string, min?: number, max?: number, placeholder?: string, disabled?: boolean, onFile?: (file: File | null) => void, accept?: string, autofocus?: boolean, autocomplete?: string}} props
 */
export function Field(props) {
  const { form, name, label, kind = "text", hint } = props;
  const id = useId();
  form.register(name);
  const problem = form.problems[name];
  const describedBy = [problem ? `${id}-problem` : "", hint ? `${id}-hint` : ""].filter(Boolean).join(" ") || undefined;
  const common = {
    id,
    name,
    "aria-invalid": problem ? "true" : undefined,
    "aria-describedby": describedBy,
    required: props.required,
    disabled: props.disabled || form.busy,
    autofocus: props.autofocus,
    ...(props.autocomplete ? { autocomplete: props.autocomplete } : {}),
  };
  const value = form.values[name] ?? "";
  /** @param {Event} event */
  const onInput = (event) => form.set(name, /** @type {HTMLInputElement} */ (event.target).value);
  let control;
  if (kind === "select") {
    control = html`<select ...${common} value=${value} onChange=${onInput}>
      ${(props.options || []).map(([optionValue, optionLabel]) => html`<option value=${optionValue} ref=${valueAttribute(optionValue)}>${optionLabel}</option>`)}
    </select>`;
  } else if (kind === "checkbox") {
    control = html`<input ...${common} type="checkbox" checked=${Boolean(form.values[name])}
      onChange=${(/** @type {Event} */ event) => form.set(name, /** @type {HTMLInputElement} */ (event.target).checked)} />`;
  } else if (kind === "textarea") {
    control = html`<textarea ...${common} value=${value} onInput=${onInput} placeholder=${props.placeholder} rows="4"></textarea>`;
  } else if (kind === "file") {
    control = html`<input ...${common} type="file" accept=${props.accept}
      onChange=${(/** @type {Event} */ event) => {
        const file = /** @type {HTMLInputElement} */ (event.target).files?.[0] || null;
        form.set(name, file);
        props.onFile?.(file);
      }} />`;
  } else {
    control = html`<input ...${common} type=${kind} value=${value} onInput=${onInput}
      step=${props.step} min=${props.min} max=${props.max} placeholder=${props.placeholder} />`;
  }
  return html`<div class=${"field" + (kind === "checkbox" ? " check" : "") + (problem ? " invalid" : "")}>
    <label for=${id}>${label}</label>
    ${control}
    ${hint && html`<small id=${`${id}-hint`} class="hint">${hint}</small>`}
    ${problem && html`<p id=${`${id}-problem`} class="problem" role="alert">${problem}</p>`}
  </div>`;
}

/**
 * Preact sets an option's value as a property only, which leaves no
 * `value` attribute when it equals the text; tools that find options by
 * their value (and CSS selectors) need the attribute.
 * @param {string} value
 */
function valueAttribute(value) {
  return (/** @type {HTMLOptionElement | null} */ element) => element?.setAttribute("value", value);
}

/**
 * The form's failure (its message, and problems of fields it does not
 * show), then its buttons. When every problem sits beside its field, the
 * footer only points at them. `request` (method and path) is what the
 * submit sends: a role that may not send it finds the button disabled,
 * with the reason as its title (decisions §17).
 * @param {{form: Form, submitLabel: string, children?: any, request?: [string, string]}} props
 */
export function FormFooter({ form, submitLabel, children, request }) {
  const denied = request ? may(request[0], request[1]) : {};
  return html`<div class="form-footer">
    ${form.error && html`<div class="notice level-1" role="alert">
      <p>${form.placed && form.unplaced.length === 0
        ? "Correct the fields marked above; the server named each problem beside its field."
        : form.error}</p>
      ${form.unplaced.length > 0 && html`<ul>${form.unplaced.map((text) => html`<li>${text}</li>`)}</ul>`}
    </div>`}
    <div class="buttons">
      <button type="submit" class="primary" disabled=${form.busy} ...${denied}>${form.busy ? "Working…" : submitLabel}</button>
      ${children}
    </div>
  </div>`;
}

/**
 * A number typed in a field, or undefined when empty (the API takes no
 * `null`: an absent optional field is left out).
 * @param {any} text
 */
export function numberOrUndefined(text) {
  if (text === "" || text === undefined || text === null) return undefined;
  const number = Number(text);
  return Number.isNaN(number) ? text : number;
}

/**
 * An object without its undefined and empty-string members.
 * @param {Record<string, any>} object
 */
export function compact(object) {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined && value !== ""));
}
