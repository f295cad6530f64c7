// Devices of a configuration (`#/nets/:net/devices`): a table that stays
// fast with 10,000 devices (search, sort and role filter kept in the URL;
// virtual scrolling), add, edit and delete one device, select several to
// edit or delete them at once, and import a survey of anchors from a CSV
// file (previewed with each row's problems, then sent row by row).

import { html, useState, useMemo, useEffect, useRef } from "../lib/html.js";
import { call, post, patch, del, path, ApiError } from "../lib/api.js";
import { Page, Notice, Loaded, Modal, useLoad, useReloadOn, act, say } from "../lib/components.js";
import { useForm, Field, FormFooter, numberOrUndefined, describeFailure } from "../lib/forms.js";
import { setQuery } from "../lib/router.js";
import { DataTable, sortRows, parseSort, nextSort } from "../lib/table.js";
import { parseCsvRecords } from "../lib/csv.js";
import { may } from "../lib/access.js";
import { nameProblem } from "./nets.js";
import { RestartNeeded } from "./restart_needed.js";

/**
 * @typedef {import("../lib/types.js").Interface} Iface
 * @typedef {import("../lib/types.js").Device} Device
 * @typedef {{id: number, name: string}} Role
 * @typedef {{device: Device, text: string, roles: string}} Entry
 */

const ANCHOR = 2;
const SEEDER = 3;
const PATCH_CHUNK = 1000;
/** Compact buttons, so rows stay short. */
const SMALL = { padding: ".1rem .6rem" };

/**
 * A serial number in the API's form (XX:XX:XXXX, upper case), or null when
 * the text is not one.
 * @param {string} text
 */
export function normaliseSerial(text) {
  const value = String(text).trim();
  let match = /^([0-9A-Fa-f]{2}):([0-9A-Fa-f]{2}):([0-9A-Fa-f]{4})$/.exec(value);
  if (!match) {
    const plain = /^([0-9A-Fa-f]{2})([0-9A-Fa-f]{2})([0-9A-Fa-f]{4})$/.exec(value);
    if (!plain) return null;
    match = plain;
  }
  return `${match[1]}:${match[2]}:${match[3]}`.toUpperCase();
}

/** @param {Iface | undefined} face @param {"x"|"y"|"z"} axis */
const coordinate = (face, axis) => (face && typeof face[axis] === "number" ? face[axis] : undefined);

/** @param {{params: Record<string, string>, query: URLSearchParams}} props */
export default function View({ params, query }) {
  const net = params.net;
  const load = useLoad(async (signal) => {
    const [devices, roles] = await Promise.all([
      call("GET", path`/nets/${net}/devices`, { signal }),
      call("GET", path`/nets/${net}/roles`, { signal }),
    ]);
    return {
      /** @type {Device[]} */ devices: devices.body.devices || [],
      /** @type {Role[]} */ roles: roles.body.roles || [],
    };
  }, [net]);
  useReloadOn(load.reload, ["change"], net);

  if (load.error instanceof ApiError && load.error.code === "configuration_not_found") {
    return html`<${Page} title="Devices" view="devices">
      <${Notice} level=${2}>
        <p>There is no configuration named <strong>${net}</strong>.</p>
        <p><a href="#/">Back to the configurations</a></p>
      <//>
    <//>`;
  }
  if (load.data) {
    return html`<${DevicesPage} net=${net} devices=${load.data.devices} roles=${load.data.roles} query=${query} reload=${load.reload} />`;
  }
  return html`<${Page} title=${`Devices of ${net}`} view="devices"><${Loaded} load=${load}>${() => null}<//><//>`;
}

/**
 * The table's columns; Edit and Delete open their dialogs with `setDialog`
 * (disabled, with the reason, for a role that may not make their request).
 * @param {string} net
 * @param {(dialog: any) => void} setDialog
 * @returns {import("../lib/table.js").Column<Entry>[]}
 */
function deviceColumns(net, setDialog) {
  return [
    { key: "serial_number", label: "Serial number", value: (entry) => entry.device.serial_number,
      render: (entry) => html`<span class="mono">${entry.device.serial_number}</span>` },
    { key: "id", label: "ID", className: "number", value: (entry) => entry.device.id },
    { key: "name", label: "Name", value: (entry) => entry.device.name || "" },
    { key: "role", label: "Role", value: (entry) => entry.roles },
    { key: "x", label: "x (mm)", className: "number", value: (entry) => coordinate(entry.device.interfaces[0], "x") },
    { key: "y", label: "y (mm)", className: "number", value: (entry) => coordinate(entry.device.interfaces[0], "y") },
    { key: "z", label: "z (mm)", className: "number", value: (entry) => coordinate(entry.device.interfaces[0], "z") },
    { key: "disabled", label: "State", value: (entry) => (entry.device.disabled ? "disabled" : "enabled"),
      render: (entry) => (entry.device.disabled ? html`<span class="badge stopped">Disabled</span>` : html`<span class="badge ok">Enabled</span>`) },
    { key: "actions", label: "Actions",
      render: (entry) => html`<span class="buttons" style=${{ flexWrap: "nowrap" }}>
        <button type="button" style=${SMALL} ...${may("PATCH", path`/nets/${net}/devices/${entry.device.serial_number}`)}
          onClick=${() => setDialog({ kind: "edit", device: entry.device })}
          aria-label=${`Edit device ${entry.device.serial_number}`}>Edit</button>
        <button type="button" class="danger" style=${SMALL} ...${may("DELETE", path`/nets/${net}/devices/${entry.device.serial_number}`)}
          onClick=${() => setDialog({ kind: "delete", keys: [entry.device.serial_number] })}
          aria-label=${`Delete device ${entry.device.serial_number}`}>Delete</button>
      </span>` },
  ];
}

/**
 * Text typed into a search field, and the function that takes it: the
 * search goes into the URL (`q`) a moment after typing stops.
 * @param {string} initial
 * @returns {[string, (value: string) => void]}
 */
function useSearch(initial) {
  const [search, setSearch] = useState(initial);
  const timer = useRef(/** @type {number | undefined} */ (undefined));
  useEffect(() => () => clearTimeout(timer.current), []);
  /** @param {string} value */
  const onSearch = (value) => {
    setSearch(value);
    clearTimeout(timer.current);
    timer.current = setTimeout(() => setQuery({ q: value.trim() || null }), 300);
  };
  return [search, onSearch];
}

/**
 * The search field and the role filter (in the URL: `role`).
 * @param {{search: string, onSearch: (value: string) => void, roleFilter: string, roles: Role[]}} props
 */
function SearchBar({ search, onSearch, roleFilter, roles }) {
  return html`<div class="toolbar" role="search">
      <div class="field" style=${{ marginBottom: 0, flex: "1 1 18rem" }}>
        <label for="device-search">Search</label>
        <input id="device-search" type="search" value=${search} placeholder="Serial number, name, ID, role…"
          onInput=${(/** @type {Event} */ event) => onSearch(/** @type {HTMLInputElement} */ (event.target).value)} />
      </div>
      <div class="field" style=${{ marginBottom: 0 }}>
        <label for="device-role">Role</label>
        <select id="device-role" value=${roleFilter} onChange=${(/** @type {Event} */ event) => setQuery({ role: /** @type {HTMLSelectElement} */ (event.target).value || null })}>
          <option value="">All roles</option>
          ${roles.map((role) => html`<option value=${String(role.id)}>${role.name}</option>`)}
        </select>
      </div>
    </div>`;
}

/**
 * @param {{net: string, devices: Device[], roles: Role[], query: URLSearchParams, reload: () => void}} props
 */
function DevicesPage({ net, devices, roles, query, reload }) {
  const [search, onSearch] = useSearch(query.get("q") || "");
  const roleFilter = query.get("role") || "";
  const sort = parseSort(query.get("sort"), "serial_number");
  /** @type {[Set<string>, (next: Set<string>) => void]} */
  const [selected, setSelected] = useState(() => new Set());
  /** @type {[any, (value: any) => void]} */
  const [dialog, setDialog] = useState(null);
  const close = () => setDialog(null);
  const done = () => {
    setDialog(null);
    reload();
  };

  const roleName = useMemo(() => new Map(roles.map((role) => [role.id, role.name])), [roles]);
  /** @type {Entry[]} */
  const entries = useMemo(() => devices.map((device) => {
    const names = [...new Set(device.interfaces.map((face) => roleName.get(face.role_id) ?? `role ${face.role_id}`))].join(", ");
    const text = [device.serial_number, device.serial_number.replace(/:/g, ""), String(device.id), device.name || "", names,
      device.disabled ? "disabled" : "enabled"].join("\u0001").toLowerCase();
    return { device, text, roles: names };
  }), [devices, roleName]);
  const byKey = useMemo(() => new Map(devices.map((device) => [device.serial_number, device])), [devices]);

  /** @type {import("../lib/table.js").Column<Entry>[]} */
  const columns = useMemo(() => deviceColumns(net, setDialog), [net]);

  // Sorted once per order (and data); a search then filters the sorted
  // list, which keeps its order: typing costs a filter, never a sort.
  const ordered = useMemo(() => sortRows(entries, columns.find((column) => column.key === sort.key), sort.descending),
    [entries, sort.key, sort.descending]);
  const filtered = useMemo(() => {
    const started = performance.now();
    const words = search.trim().toLowerCase().split(/\s+/).filter(Boolean);
    const roleId = roleFilter === "" ? null : Number(roleFilter);
    let result = ordered;
    if (roleId !== null) result = result.filter((entry) => entry.device.interfaces.some((face) => face.role_id === roleId));
    if (words.length > 0) result = result.filter((entry) => words.every((word) => entry.text.includes(word)));
    lastTiming.filterMs = performance.now() - started;
    return result;
  }, [ordered, search, roleFilter]);

  const selectedKeys = [...selected].filter((key) => byKey.has(key));

  return html`<${Page} title=${`Devices of ${net}`} view="devices" actions=${html`
      <button type="button" class="primary" ...${may("POST", path`/nets/${net}/devices`)} onClick=${() => setDialog({ kind: "add" })}>Add device</button>
      <button type="button" ...${may("POST", path`/nets/${net}/devices`)} onClick=${() => setDialog({ kind: "import" })}>Import survey (CSV)</button>`}>
    <${RestartNeeded} net=${net} />
    <${SearchBar} search=${search} onSearch=${onSearch} roleFilter=${roleFilter} roles=${roles} />
    <div class="toolbar">
      <span data-count>${filtered.length === devices.length
        ? `${devices.length} device${devices.length === 1 ? "" : "s"}`
        : `${filtered.length} of ${devices.length} devices`}${selectedKeys.length > 0 ? ` · ${selectedKeys.length} selected` : ""}</span>
      ${selectedKeys.length > 0 && html`
        <button type="button" ...${may("PATCH", path`/nets/${net}/devices`)} onClick=${() => setDialog({ kind: "bulk", keys: selectedKeys })}>Edit selected</button>
        <button type="button" class="danger" ...${may("DELETE", path`/nets/${net}/devices`)} onClick=${() => setDialog({ kind: "delete", keys: selectedKeys })}>Delete selected</button>
        <button type="button" onClick=${() => setSelected(new Set())}>Clear selection</button>`}
    </div>
    ${devices.length === 0
      ? html`<${Notice} level=${3}><p>This configuration has no devices yet. Add one, or import a survey of anchors.</p><//>`
      : html`<${DataTable} label="Devices" rows=${filtered} columns=${columns} rowKey=${(/** @type {Entry} */ entry) => entry.device.serial_number}
          sort=${sort} onSort=${(/** @type {string} */ key) => setQuery({ sort: nextSort(sort, key) === "serial_number" ? null : nextSort(sort, key) })}
          selected=${selected} onSelect=${setSelected} selectLabel=${(/** @type {Entry} */ entry) => `Select ${entry.device.serial_number}`}
          empty="No device matches the search." />`}
    ${dialog?.kind === "add" && html`<${DeviceDialog} net=${net} roles=${roles} onClose=${close} onDone=${done} />`}
    ${dialog?.kind === "edit" && html`<${DeviceDialog} net=${net} roles=${roles} device=${dialog.device} onClose=${close} onDone=${done} />`}
    ${dialog?.kind === "delete" && html`<${DeleteDialog} net=${net} keys=${dialog.keys} onClose=${close} onDone=${() => {
      setSelected(new Set([...selected].filter((key) => !dialog.keys.includes(key))));
      done();
    }} />`}
    ${dialog?.kind === "bulk" && html`<${BulkDialog} net=${net} roles=${roles} devices=${dialog.keys.map((/** @type {string} */ key) => byKey.get(key)).filter(Boolean)}
      onClose=${close} onDone=${done} />`}
    ${dialog?.kind === "import" && html`<${ImportDialog} net=${net} roles=${roles} byKey=${byKey} onClose=${close} onDone=${done} />`}
  <//>`;
}

/** The last filter's duration, for measurements (window.netcfgDevicesTiming). */
const lastTiming = { filterMs: 0 };
/** @type {any} */ (window).netcfgDevicesTiming = lastTiming;

/**
 * The form's values of a device: flat, named after the body's paths
 * (`interfaces[0].x`), so the API's problems land beside their fields.
 * @param {Device | undefined} device
 */
function deviceValues(device) {
  /** @type {Record<string, any>} */
  const values = {
    serial_number: device?.serial_number ?? "",
    name: device?.name ?? "",
    id: "",
    disabled: device?.disabled ?? false,
  };
  const faces = device?.interfaces?.length ? device.interfaces : [{ identifier: 0, role_id: ANCHOR }];
  faces.forEach((face, index) => {
    values[`interfaces[${index}].identifier`] = String(face.identifier);
    values[`interfaces[${index}].role_id`] = String(face.role_id);
    for (const axis of /** @type {const} */ (["x", "y", "z"])) {
      const value = face[axis];
      values[`interfaces[${index}].${axis}`] = typeof value === "number" ? String(value) : "";
    }
  });
  return { values, count: faces.length };
}

const FACE_FIELDS = ["identifier", "role_id", "x", "y", "z"];

/**
 * @param {{net: string, roles: Role[], device?: Device, onClose: () => void, onDone: () => void}} props
 */
function DeviceDialog({ net, roles, device, onClose, onDone }) {
  const initial = useMemo(() => deviceValues(device), []);
  const form = useForm(initial.values);
  const [count, setCount] = useState(initial.count);
  const roleOptions = /** @type {[string, string][]} */ (roles.map((role) => [String(role.id), `${role.name} (${role.id})`]));

  const addInterface = () => {
    const used = new Set(Array.from({ length: count }, (_, index) => Number(form.values[`interfaces[${index}].identifier`])));
    let next = 0;
    while (used.has(next) && next < 255) next += 1;
    form.set(`interfaces[${count}].identifier`, String(next));
    form.set(`interfaces[${count}].role_id`, String(form.values["interfaces[0].role_id"] ?? ANCHOR));
    setCount(count + 1);
  };
  /** @param {number} removed */
  const removeInterface = (removed) => {
    /** @type {Record<string, any>} */
    const values = { ...form.values };
    for (let index = removed; index < count; index += 1) {
      for (const field of FACE_FIELDS) {
        const later = values[`interfaces[${index + 1}].${field}`];
        if (index + 1 < count) values[`interfaces[${index}].${field}`] = later;
        else delete values[`interfaces[${index}].${field}`];
      }
    }
    form.reset(values);
    setCount(count - 1);
  };

  return html`<${Modal} title=${device ? `Edit device ${device.serial_number}` : "Add device"} onClose=${onClose} wide>
    <form onSubmit=${form.submit(async (values) => {
      /** @type {Record<string, any>} */
      const body = {
        serial_number: String(values.serial_number).trim(),
        disabled: Boolean(values.disabled),
        interfaces: Array.from({ length: count }, (_, index) => {
          /** @type {Record<string, any>} */
          const face = {
            identifier: numberOrUndefined(values[`interfaces[${index}].identifier`]),
            role_id: numberOrUndefined(values[`interfaces[${index}].role_id`]),
          };
          for (const axis of ["x", "y", "z"]) {
            const value = numberOrUndefined(values[`interfaces[${index}].${axis}`]);
            if (value !== undefined) face[axis] = value;
          }
          return face;
        }),
      };
      const name = String(values.name).trim();
      if (name) body.name = name;
      if (!device && String(values.id).trim()) body.id = numberOrUndefined(String(values.id).trim());
      const answer = device
        ? await patch(path`/nets/${net}/devices/${device.serial_number}`, body).catch(nameProblem("serial_number"))
        : await post(path`/nets/${net}/devices`, body).catch(nameProblem("serial_number"));
      await act(async () => answer);
      onDone();
    })}>
      <div class="form-grid">
        <${Field} form=${form} name="serial_number" label="Serial number" required autofocus placeholder="01:04:0719"
          hint="XX:XX:XXXX in hexadecimal." />
        <${Field} form=${form} name="name" label="Name" hint="Optional." />
        ${!device && html`<${Field} form=${form} name="id" label="ID" kind="number" min=${1} max=${9999999} hint="Optional: the server picks one when empty." />`}
        <${Field} form=${form} name="disabled" label="Disabled (kept but not pushed to the network)" kind="checkbox" />
      </div>
      <h3>Interfaces</h3>
      <p class="muted">Positions in millimetres; anchors and seeders need x, y and z.</p>
      ${Array.from({ length: count }, (_, index) => html`<fieldset key=${index} data-interface=${index}
          style=${{ border: "1px solid var(--line)", borderRadius: "var(--radius)", marginBottom: ".75rem" }}>
        <legend>Interface ${index + 1}</legend>
        <div class="form-grid">
          <${Field} form=${form} name=${`interfaces[${index}].identifier`} label="Identifier" kind="number" min=${0} max=${255} required />
          <${Field} form=${form} name=${`interfaces[${index}].role_id`} label="Role" kind="select" options=${roleOptions} />
          <${Field} form=${form} name=${`interfaces[${index}].x`} label="x (mm)" kind="number" step="1" />
          <${Field} form=${form} name=${`interfaces[${index}].y`} label="y (mm)" kind="number" step="1" />
          <${Field} form=${form} name=${`interfaces[${index}].z`} label="z (mm)" kind="number" step="1" />
        </div>
        ${count > 1 && html`<button type="button" onClick=${() => removeInterface(index)}>Remove interface ${index + 1}</button>`}
      </fieldset>`)}
      <p><button type="button" onClick=${addInterface}>Add interface</button></p>
      <${FormFooter} form=${form} submitLabel=${device ? "Save device" : "Add device"}
        request=${device ? ["PATCH", path`/nets/${net}/devices/${device.serial_number}`] : ["POST", path`/nets/${net}/devices`]}><button type="button" onClick=${onClose}>Cancel</button><//>
    </form>
  <//>`;
}

/** @param {{net: string, keys: string[], onClose: () => void, onDone: () => void}} props */
function DeleteDialog({ net, keys, onClose, onDone }) {
  const form = useForm({});
  const one = keys.length === 1;
  return html`<${Modal} title=${one ? `Delete device ${keys[0]}?` : `Delete ${keys.length} devices?`} onClose=${onClose}>
    <form onSubmit=${form.submit(async () => {
      const answer = one
        ? await del(path`/nets/${net}/devices/${keys[0]}`)
        : await del(path`/nets/${net}/devices`, { delete: keys.join(",") });
      await act(async () => answer);
      onDone();
    })}>
      <p>${one ? `The device ${keys[0]} is removed from ${net}.` : `These ${keys.length} devices are removed from ${net}.`} This cannot be undone.</p>
      ${!one && html`<p class="muted">${keys.slice(0, 12).join(", ")}${keys.length > 12 ? ` and ${keys.length - 12} more` : ""}</p>`}
      <${FormFooter} form=${form} submitLabel=${one ? "Delete device" : `Delete ${keys.length} devices`}
        request=${["DELETE", one ? path`/nets/${net}/devices/${keys[0]}` : path`/nets/${net}/devices`]}><button type="button" onClick=${onClose}>Cancel</button><//>
    </form>
  <//>`;
}

/**
 * Edits several devices at once: the multiple-device PATCH, an array of
 * whole devices (fields not changed here are sent as stored), in chunks.
 * @param {{net: string, roles: Role[], devices: Device[], onClose: () => void, onDone: () => void}} props
 */
function BulkDialog({ net, roles, devices, onClose, onDone }) {
  const form = useForm({ disabled: "", role_id: "", z: "" });
  return html`<${Modal} title=${`Edit ${devices.length} device${devices.length === 1 ? "" : "s"}`} onClose=${onClose}>
    <form onSubmit=${form.submit(async (values) => {
      const role = numberOrUndefined(values.role_id);
      const z = numberOrUndefined(values.z);
      if (values.disabled === "" && role === undefined && z === undefined) {
        throw Object.assign(new Error("Choose at least one change."), {});
      }
      if (z !== undefined && typeof z !== "number") {
        throw new ApiError(400, { message: "The height is not a number.", problems: [{ field: "z", problem: "not a number" }] });
      }
      const items = devices.map((device) => {
        /** @type {Record<string, any>} */
        const item = {
          serial_number: device.serial_number,
          disabled: values.disabled === "" ? device.disabled : values.disabled === "true",
          interfaces: device.interfaces.map((face) => {
            /** @type {Record<string, any>} */
            const next = { identifier: face.identifier, role_id: role ?? face.role_id };
            for (const axis of /** @type {const} */ (["x", "y", "z"])) if (typeof face[axis] === "number") next[axis] = face[axis];
            if (z !== undefined) next.z = z;
            return next;
          }),
        };
        if (device.name) item.name = device.name;
        return item;
      });
      let changed = 0;
      /** @type {string[]} */
      const messages = [];
      for (let start = 0; start < items.length; start += PATCH_CHUNK) {
        const chunk = items.slice(start, start + PATCH_CHUNK);
        try {
          const answer = await patch(path`/nets/${net}/devices`, chunk);
          changed += Array.isArray(answer.body.device) ? answer.body.device.length : chunk.length;
          if (answer.message) messages.push(answer.message);
        } catch (failure) {
          if (failure instanceof ApiError) {
            // `[3].interfaces[0].x` names the chunk's fourth item: say which device.
            failure.problems = failure.problems.map(({ field, problem }) => {
              const found = /^\[(\d+)\](.*)$/.exec(field);
              if (!found) return { field, problem };
              const serial = chunk[Number(found[1])]?.serial_number ?? `item ${found[1]}`;
              return { field: `${serial} ${found[2].replace(/^\./, "")}`, problem };
            });
            if (failure.problems.length > 0) failure.message = "Some of the selected devices cannot take this change; nothing in this batch was changed.";
            if (changed > 0) failure.message = `${changed} devices were changed before this failure. ${failure.message}`;
          }
          throw failure;
        }
      }
      say(messages.length === 1 ? messages[0] : `${changed} of ${items.length} devices updated`, 3);
      onDone();
    })}>
      <p class="muted">Fields left as they are keep each device's own value.</p>
      <${Field} form=${form} name="disabled" label="State" kind="select"
        options=${[["", "Leave as they are"], ["false", "Enabled"], ["true", "Disabled"]]} />
      <${Field} form=${form} name="role_id" label="Role of every interface" kind="select"
        options=${[["", "Leave as they are"], ...roles.map((role) => [String(role.id), `${role.name} (${role.id})`])]} />
      <${Field} form=${form} name="z" label="Height z (mm) of every interface" kind="number" step="1" hint="Empty: leave as they are." />
      <${FormFooter} form=${form} submitLabel="Apply to selected devices" request=${["PATCH", path`/nets/${net}/devices`]}><button type="button" onClick=${onClose}>Cancel</button><//>
    </form>
  <//>`;
}

/**
 * @typedef {object} SurveyRow
 * @property {number} line
 * @property {string} serial       as typed
 * @property {string | null} serialNumber  normalised, or null
 * @property {string} name
 * @property {number | undefined} x
 * @property {number | undefined} y
 * @property {number | undefined} z
 * @property {number | undefined} role
 * @property {"create" | "update"} action
 * @property {string[]} problems
 */

const UNITS = { mm: 1, cm: 10, m: 1000 };

/**
 * A number of a survey, in mm; accepts a decimal comma.
 * @param {string} text
 * @param {number} factor
 */
function surveyNumber(text, factor) {
  const value = String(text).trim().replace(/\s/g, "");
  if (value === "") return { value: undefined, problem: "missing" };
  const normal = value.includes(".") ? value : value.replace(",", ".");
  if (!/^[-+]?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(normal)) return { value: undefined, problem: `“${text}” is not a number` };
  const mm = Math.round(Number(normal) * factor);
  if (mm < -2147483648 || mm > 2147483647) return { value: undefined, problem: "out of range" };
  return { value: mm, problem: "" };
}

/**
 * The survey's rows with their problems.
 * @param {string} text
 * @param {keyof typeof UNITS} units
 * @param {Map<string, Device>} byKey
 * @param {Role[]} roles
 */
export function readSurvey(text, units, byKey, roles) {
  const { header, records } = parseCsvRecords(text);
  const aliases = { serial_number: ["serial_number", "serial", "sn", "serialnumber"], x: ["x", "x_mm"], y: ["y", "y_mm"], z: ["z", "z_mm"],
    name: ["name", "label"], role: ["role", "role_id"] };
  /** @param {string[]} names */
  const column = (names) => names.find((name) => header.includes(name));
  const columns = Object.fromEntries(Object.entries(aliases).map(([key, names]) => [key, column(names)]));
  /** @type {string[]} */
  const fileProblems = [];
  for (const required of ["serial_number", "x", "y", "z"]) {
    if (!columns[required]) fileProblems.push(`the header row has no “${required}” column`);
  }
  if (records.length === 0) fileProblems.push("the file has no rows after its header");
  if (fileProblems.length > 0) return { rows: /** @type {SurveyRow[]} */ ([]), fileProblems };
  const factor = UNITS[units] || 1;
  const roleByName = new Map(roles.map((role) => [role.name.toLowerCase(), role.id]));
  const seen = new Map();
  /** @type {SurveyRow[]} */
  const rows = records.map(({ values, line }) => {
    /** @type {string[]} */
    const problems = [];
    const serial = values[/** @type {string} */ (columns.serial_number)] || "";
    const serialNumber = normaliseSerial(serial);
    if (!serial) problems.push("serial number missing");
    else if (!serialNumber) problems.push(`“${serial}” is not a serial number (XX:XX:XXXX)`);
    else if (seen.has(serialNumber)) problems.push(`the same serial number as line ${seen.get(serialNumber)}`);
    else seen.set(serialNumber, line);
    /** @type {Record<string, number | undefined>} */
    const position = {};
    for (const axis of ["x", "y", "z"]) {
      const { value, problem } = surveyNumber(values[/** @type {string} */ (columns[axis])] || "", factor);
      position[axis] = value;
      if (problem) problems.push(`${axis}: ${problem}`);
    }
    const name = columns.name ? values[columns.name] || "" : "";
    if (name.length > 64) problems.push("name: longer than 64 characters");
    /** @type {number | undefined} */
    let role;
    const roleText = columns.role ? (values[columns.role] || "").trim() : "";
    if (roleText) {
      if (/^\d+$/.test(roleText)) role = Number(roleText);
      else role = roleByName.get(roleText.toLowerCase());
      if (role === undefined || !roles.some((known) => known.id === role)) problems.push(`role “${roleText}” does not exist`);
    }
    return {
      line, serial, serialNumber, name, x: position.x, y: position.y, z: position.z, role,
      action: serialNumber && byKey.has(serialNumber) ? "update" : "create", problems,
    };
  });
  return { rows, fileProblems };
}

/**
 * Imports a survey of anchors: a CSV file with serial_number, x, y, z and
 * optionally name and role; previewed, then created or updated row by row.
 * @param {{net: string, roles: Role[], byKey: Map<string, Device>, onClose: () => void, onDone: () => void}} props
 */
function ImportDialog({ net, roles, byKey, onClose, onDone }) {
  const form = useForm({ survey_file: null, units: "mm", role_id: String(ANCHOR) });
  const [text, setText] = useState("");
  /** @type {[{line: number, serial: string, ok: boolean, text: string}[] | null, (value: any) => void]} */
  const [results, setResults] = useState(/** @type {any} */ (null));
  const [progress, setProgress] = useState(0);
  const survey = useMemo(() => (text ? readSurvey(text, form.values.units, byKey, roles) : null), [text, form.values.units, byKey, roles]);
  const good = survey ? survey.rows.filter((row) => row.problems.length === 0) : [];
  const roleOptions = /** @type {[string, string][]} */ (roles.filter((role) => role.id === ANCHOR || role.id === SEEDER)
    .map((role) => [String(role.id), role.name]));

  const run = form.submit(async (values) => {
    if (!survey || good.length === 0) throw new Error("Choose a CSV file with at least one row without problems.");
    const defaultRole = Number(values.role_id) || ANCHOR;
    /** @type {{line: number, serial: string, ok: boolean, text: string}[]} */
    const outcomes = [];
    let index = 0;
    const worker = async () => {
      while (index < good.length) {
        const row = good[index];
        index += 1;
        outcomes.push(await applyRow(net, row, byKey, defaultRole));
        setProgress(outcomes.length);
      }
    };
    await Promise.all([worker(), worker(), worker(), worker()]);
    outcomes.sort((a, b) => a.line - b.line);
    const failed = outcomes.filter((outcome) => !outcome.ok).length;
    say(`Survey imported: ${outcomes.length - failed} of ${outcomes.length} rows applied${failed ? `, ${failed} failed` : ""}`, failed ? 2 : 3);
    setResults(outcomes);
  });

  // A function, not a component: the same dialog stays open, its content replaced.
  if (results) return importResults(results, onDone);

  return html`<${Modal} title="Import a survey of anchors" onClose=${onClose} wide>
    <form onSubmit=${run}>
      <p class="muted">A CSV file with a header row: <code>serial_number,x,y,z</code>, optionally <code>name</code> and <code>role</code>.
        Devices already in ${net} get the new position (and name, when given); the others are created.</p>
      <div class="form-grid">
        <${Field} form=${form} name="survey_file" label="CSV file" kind="file" required
          onFile=${(/** @type {File | null} */ file) => {
            if (!file) setText("");
            else file.text().then(setText, (error) => say(`The file could not be read: ${error}`, 1));
          }} />
        <${Field} form=${form} name="units" label="Units of x, y and z" kind="select"
          options=${[["mm", "millimetres"], ["cm", "centimetres"], ["m", "metres"]]} />
        <${Field} form=${form} name="role_id" label="Role of new devices" kind="select" options=${roleOptions}
          hint="When the file has no role column." />
      </div>
      ${survey && survey.fileProblems.length > 0 && html`<${Notice} level=${1}>
        <p>This file cannot be imported:</p>
        <ul>${survey.fileProblems.map((problem) => html`<li>${problem}</li>`)}</ul>
      <//>`}
      ${survey && survey.rows.length > 0 && surveyPreview(survey, good)}
      ${form.busy && html`<p role="status">Importing… ${progress} of ${good.length}</p>`}
      <${FormFooter} form=${form} submitLabel=${good.length ? `Import ${good.length} row${good.length === 1 ? "" : "s"}` : "Import"}
        request=${["POST", path`/nets/${net}/devices`]}>
        <button type="button" onClick=${onClose}>Cancel</button>
      <//>
    </form>
  <//>`;
}

/**
 * Applies one row of a survey: the device's first anchor or seeder
 * interface moved (and its name and role, when given), or a new device.
 * Resolves with the outcome, never throws.
 * @param {string} net
 * @param {ReturnType<typeof readSurvey>["rows"][number]} row  a row without problems
 * @param {Map<string, Device>} byKey
 * @param {number} defaultRole  the role of a new device when the row names none
 * @returns {Promise<{line: number, serial: string, ok: boolean, text: string}>}
 */
async function applyRow(net, row, byKey, defaultRole) {
  const serial = /** @type {string} */ (row.serialNumber);
  try {
    const existing = byKey.get(serial);
    let answer;
    if (existing) {
      const faces = existing.interfaces.map((face) => ({ ...face }));
      const target = faces.find((face) => face.role_id === ANCHOR || face.role_id === SEEDER) || faces[0];
      Object.assign(target, { x: row.x, y: row.y, z: row.z });
      if (row.role !== undefined) target.role_id = row.role;
      /** @type {Record<string, any>} */
      const body = {
        serial_number: serial,
        disabled: existing.disabled,
        interfaces: faces.map((face) => Object.fromEntries(Object.entries(face).filter(([, value]) => value !== null && value !== undefined))),
      };
      const name = row.name || existing.name;
      if (name) body.name = name;
      answer = await patch(path`/nets/${net}/devices/${serial}`, body);
    } else {
      /** @type {Record<string, any>} */
      const body = {
        serial_number: serial,
        disabled: false,
        interfaces: [{ identifier: 0, role_id: row.role ?? defaultRole, x: row.x, y: row.y, z: row.z }],
      };
      if (row.name) body.name = row.name;
      answer = await post(path`/nets/${net}/devices`, body);
    }
    return { line: row.line, serial, ok: true, text: answer.message || (existing ? "updated" : "created") };
  } catch (failure) {
    const { message, byField } = describeFailure(failure);
    const details = Object.entries(byField).map(([field, problem]) => `${field}: ${problem}`);
    return { line: row.line, serial, ok: false, text: details.length > 0 ? details.join("; ") : message };
  }
}

/**
 * The dialog's content once the import is done: what it did, row by row.
 * @param {{line: number, serial: string, ok: boolean, text: string}[]} results
 * @param {() => void} onDone
 */
function importResults(results, onDone) {
  const failed = results.filter((outcome) => !outcome.ok).length;
  return html`<${Modal} title="Survey imported" onClose=${onDone} wide>
    <${Notice} level=${failed ? 2 : 3}><p>${results.length - failed} of ${results.length} rows applied${failed ? `; ${failed} failed` : ""}.</p><//>
    <div class="table-wrap" style=${{ maxHeight: "50vh" }}><table data-results>
      <thead><tr><th scope="col" class="number">Line</th><th scope="col">Serial number</th><th scope="col">Outcome</th></tr></thead>
      <tbody>${results.map((outcome) => html`<tr key=${outcome.line}>
        <td class="number">${outcome.line}</td><td class="mono">${outcome.serial}</td>
        <td><span class=${`badge ${outcome.ok ? "ok" : "error"}`}>${outcome.ok ? "Done" : "Failed"}</span> ${outcome.text}</td>
      </tr>`)}</tbody>
    </table></div>
    <div class="buttons" style=${{ marginTop: ".75rem" }}><button type="button" class="primary" onClick=${onDone}>Close</button></div>
  <//>`;
}

/**
 * The rows of a survey file before they are imported: what each would do,
 * or its problems.
 * @param {ReturnType<typeof readSurvey>} survey
 * @param {ReturnType<typeof readSurvey>["rows"]} good  its rows without problems
 */
function surveyPreview(survey, good) {
  const rowsWithProblems = survey.rows.length - good.length;
  return html`
    <h3>Preview</h3>
    <p data-preview-summary>${`${survey.rows.length} rows: ${good.filter((row) => row.action === "create").length} to create, ${good.filter((row) => row.action === "update").length} to update${rowsWithProblems ? `, ${rowsWithProblems} with problems (left out)` : ""}.`}</p>
    <div class="table-wrap" style=${{ maxHeight: "40vh" }}><table data-preview>
      <thead><tr>
        <th scope="col" class="number">Line</th><th scope="col">Serial number</th><th scope="col">Name</th>
        <th scope="col" class="number">x (mm)</th><th scope="col" class="number">y (mm)</th><th scope="col" class="number">z (mm)</th>
        <th scope="col">Action</th><th scope="col">Problems</th>
      </tr></thead>
      <tbody>${survey.rows.map((row) => html`<tr key=${row.line} class=${row.problems.length ? "invalid" : ""}>
        <td class="number">${row.line}</td>
        <td class="mono">${row.serialNumber || row.serial}</td>
        <td>${row.name}</td>
        <td class="number">${row.x ?? ""}</td><td class="number">${row.y ?? ""}</td><td class="number">${row.z ?? ""}</td>
        <td>${row.problems.length ? "skip" : row.action}</td>
        <td>${row.problems.length > 0 && html`<span class="problem">${row.problems.join("; ")}</span>`}</td>
      </tr>`)}</tbody>
    </table></div>`;
}
