// The floor plan: anchors and seeders where they were surveyed, the position
// limits, and the tags live from the `position` events, on one canvas
// (lib/floorplan.js draws it). An anchor dragged on the plan, or moved with
// the form below it, is saved through the API (PATCH of its device).
// Under them, on request, the predicted coverage; around the anchors, the
// last survey's verdicts (both from views/floor_site.js). Over the limits,
// the zones with how many tags are inside, drawn and edited on the plan
// (views/floor_zones.js, views/zone_forms.js, lib/zone_layer.js). Over
// the plan of a running replay, its timeline (views/floor_replay.js).
// Behind each tag, its trail of the last seconds; over a tag, its speed as
// the canvas's tooltip (views/floor_trail.js).
//
// Positions never go through Preact: they land in the plan's Map (and the
// trails') and the plan redraws on the next animation frame. Only the tag
// list re-renders, once a second.
//
// What the signed-in role may not change (decisions §17) is disabled with
// the reason: moving anchors, drawing, dragging and saving zones.

import { html, useState, useEffect, useRef, useMemo } from "../lib/html.js";
import { get, patch, path, ApiError } from "../lib/api.js";
import { Page, Notice, useLoad, useLive, useReloadOn, say } from "../lib/components.js";
import { useForm, Field, FormFooter, describeFailure, numberOrUndefined } from "../lib/forms.js";
import { href } from "../lib/router.js";
import { may } from "../lib/access.js";
import { FloorPlan, newStats } from "../lib/floorplan.js";
import { COLORS, VERDICT_COLORS, STALE_MS } from "../lib/floor_style.js";
import { formatAge } from "../lib/floor_format.js";
import { useCoverage, CoverageLegend, useSurvey, SurveyPanel } from "./floor_site.js";
import { useZones, ZoneTools, ZonePanel } from "./floor_zones.js";
import { NewZoneForm, ZoneEditor, saveOutline } from "./zone_forms.js";
import { ZoneLayer, ZONE_COLORS } from "../lib/zone_layer.js";
import { isReplayInstance } from "../lib/replay.js";
import { ReplayBar } from "./floor_replay.js";
import { Trails, drawTrails, withTrails, TRAIL_MS, TRAIL_COLOR } from "./floor_trail.js";

const ANCHOR = 2;
const SEEDER = 3;
const TAG_ROWS = 100;

/** @typedef {import("../lib/types.js").Device} Device */

/**
 * The anchors and seeders of the devices: one per positioned interface.
 * @param {Device[]} devices
 * @returns {import("../lib/floorplan.js").Anchor[]}
 */
function anchorsOf(devices) {
  const anchors = [];
  for (const device of devices) {
    for (const face of device.interfaces) {
      if ((face.role_id === ANCHOR || face.role_id === SEEDER) && face.x != null && face.y != null) {
        anchors.push({
          key: `${device.serial_number}-${face.identifier}`,
          serial_number: device.serial_number,
          name: device.name,
          identifier: face.identifier,
          role_id: face.role_id,
          x: face.x,
          y: face.y,
          z: face.z ?? 0,
        });
      }
    }
  }
  return anchors;
}

/**
 * The PATCH body (a full device_body) with one interface moved.
 * @param {Device} device
 * @param {number} identifier
 * @param {{x: any, y: any, z: any}} to
 */
function movedBody(device, identifier, to) {
  const interfaces = device.interfaces.map((face) => {
    /** @type {Record<string, any>} */
    const out = { identifier: face.identifier, role_id: face.role_id };
    const position = face.identifier === identifier ? to : face;
    for (const axis of /** @type {const} */ (["x", "y", "z"])) {
      if (position[axis] !== undefined && position[axis] !== null && position[axis] !== "") out[axis] = position[axis];
    }
    return out;
  });
  /** @type {Record<string, any>} */
  const body = { serial_number: device.serial_number, disabled: device.disabled, interfaces };
  if (device.name) body.name = device.name;
  return body;
}

/**
 * A failed save's sentence and the API's problems, one line each.
 * @param {unknown} failure
 */
function failureOf(failure) {
  const { message } = describeFailure(failure);
  const problems = failure instanceof ApiError ? failure.problems.map((item) => (item.field ? `${item.field}: ${item.problem}` : item.problem)) : [];
  return { message, problems };
}

/**
 * The canvas's title while the pointer is over a tag: its speed ("1.4
 * m/s", or "untracked"); the details the plan draws beside the pointer say
 * the rest. None elsewhere.
 * @param {FloorPlan} floor @param {Trails} trails
 */
function showSpeed(floor, trails) {
  const canvas = floor.canvas;
  const hover = floor.hover;
  if (hover?.kind === "tag") {
    const serial = hover.tag.serial_number;
    const name = floor.callbacks.tagName?.(serial);
    const title = `Tag ${serial}${name ? ` (${name})` : ""}: ${trails.speedText(serial)}`;
    if (canvas.title !== title) canvas.title = title;
  } else if (canvas.hasAttribute("title")) {
    canvas.removeAttribute("title");
  }
}

/**
 * Makes the plan (lib/floorplan.js) and its zones' layer (lib/zone_layer.js)
 * on the canvas, again for each configuration, with the callbacks that
 * save a dropped anchor or zone outline (undone on the plan when refused),
 * and the tags' trails drawn under the zones (`view.trails`, while
 * `view.trailsShown`).
 * What changes between renders is read through refs (`view.latest`,
 * `view.latestZones`, `view.canDrag`, `view.drawing`, `view.trailsShown`).
 * @param {string} net
 * @param {{current: FloorPlan | null}} plan  set to the plan
 * @param {{current: ZoneLayer | null}} zoneLayer  set to its layer
 * @param {any} view  the refs, setters and functions of the view's render
 */
function useFloorPlan(net, plan, zoneLayer, view) {
  useEffect(() => {
    const element = /** @type {HTMLCanvasElement} */ (view.canvas.current);
    const stats = newStats();
    /** @type {any} */ (window).netcfgFloorStats = stats;
    const floor = new FloorPlan(element, {
      // While drawing a zone, a click on an anchor is a point of the outline.
      canDrag: () => view.canDrag.current && !view.drawing.current,
      tagName: (serial) => view.latest.current.names.get(serial),
      onSelectAnchor: (key) => view.setSelected(key),
      onAnchorDrop: async (anchor, x, y, from) => {
        view.setDropFailure(null);
        try {
          await view.saveAnchor(anchor.key, { x, y, z: anchor.z });
        } catch (failure) {
          floor.moveAnchor(anchor.key, from.x, from.y);
          const { message, problems } = failureOf(failure);
          view.setDropFailure({ anchor: anchor.serial_number, message, problems });
          say(message, 1);
        }
      },
    }, stats);
    plan.current = floor;
    /** @type {Trails} */
    const trails = view.trails;
    // Where a plan point is on the canvas, for the browser tests (they click
    // there), and a tag's trail: its points (mm) and the vertices drawn.
    const where = {
      toScreen: (/** @type {number} */ x, /** @type {number} */ y) => floor.toScreen(x, y),
      trail: (/** @type {string} */ serial) => ({ points: trails.points(serial), drawn: view.trailsShown.current ? trails.drawn(serial) : 0 }),
    };
    /** @type {any} */ (window).netcfgFloorPlan = where;
    zoneLayer.current = new ZoneLayer(floor, {
      count: (zone) => view.latestZones.current.book.count(zone),
      onSelect: (zone) => view.setSelectedZone(zone),
      onDraftChange: (points) => view.setDrawn(points),
      onDraftClosed: (points) => {
        view.setDrawn(null);
        view.setOutline(points);
      },
      onDraftCancel: () => view.stopDrawing(),
      canEdit: (zone) => !may("PATCH", path`/nets/${view.latest.current.net}/zones/${zone}`).disabled,
      onPolygonDrop: async (zone, polygon, from) => {
        view.setZoneFailure(null);
        try {
          const answer = await saveOutline(view.latest.current.net, zone, polygon);
          say(answer.message || `Zone ${zone} updated`, answer.level);
          view.latestZones.current.list.reload();
        } catch (failure) {
          zoneLayer.current?.moveZone(zone, from);
          const { message, problems } = failureOf(failure);
          view.setZoneFailure({ zone, message, problems });
          say(message, 1);
        }
      },
    });
    floor.setOverlay(withTrails(zoneLayer.current, () => {
      if (view.trailsShown.current) drawTrails(floor, trails, performance.now());
    }));
    const speed = () => showSpeed(floor, trails);
    element.addEventListener("pointermove", speed);
    element.addEventListener("pointerleave", speed);
    return () => {
      element.removeEventListener("pointermove", speed);
      element.removeEventListener("pointerleave", speed);
      element.removeAttribute("title");
      floor.destroy();
      plan.current = null;
      zoneLayer.current = null;
      if (/** @type {any} */ (window).netcfgFloorStats === stats) delete /** @type {any} */ (window).netcfgFloorStats;
      if (/** @type {any} */ (window).netcfgFloorPlan === where) delete /** @type {any} */ (window).netcfgFloorPlan;
    };
  }, [net]);
}

/**
 * The zones drawn and edited on the plan: the selected zone, the outline
 * being drawn (its points so far; null when not drawing), a closed outline
 * waiting for its name, and the last refused outline.
 * @param {ReturnType<typeof useZones>} zones
 * @param {{current: ZoneLayer | null}} zoneLayer
 * @param {{current: HTMLCanvasElement | null}} canvas
 */
function useZoneDrafts(zones, zoneLayer, canvas) {
  const [selectedZone, setSelectedZone] = useState(/** @type {string | null} */ (null));
  const [drawn, setDrawn] = useState(/** @type {[number, number][] | null} */ (null));
  const [outline, setOutline] = useState(/** @type {[number, number][] | null} */ (null));
  const [zoneFailure, setZoneFailure] = useState(/** @type {{zone: string, message: string, problems: string[]} | null} */ (null));
  // The selected zone's points as changed in its form, not yet saved.
  const [preview, setPreview] = useState(/** @type {[number, number][] | null} */ (null));
  const drawing = useRef(false);
  drawing.current = drawn !== null;

  function startDrawing() {
    setOutline(null);
    setSelectedZone(null);
    setZoneFailure(null);
    setDrawn([]);
    zoneLayer.current?.startDrawing();
    // Enter and Escape go to the plan.
    canvas.current?.focus();
  }

  function stopDrawing() {
    zoneLayer.current?.stopDrawing();
    setDrawn(null);
  }

  /** @param {import("../lib/types.js").Zone} zone */
  function zoneSaved(zone) {
    setOutline(null);
    setSelectedZone(zone.name);
    // Drawn at once, without waiting for the change event.
    const others = zones.zones.filter((item) => item.name !== zone.name && item.name !== selectedZone);
    zoneLayer.current?.setZones([...others, zone]);
    zones.list.reload();
  }

  return {
    selectedZone, setSelectedZone, drawn, setDrawn, outline, setOutline, zoneFailure, setZoneFailure, preview, setPreview,
    drawing, startDrawing, stopDrawing, zoneSaved,
  };
}

/**
 * Hands the plan and its zones' layer what the view loaded and chose, as
 * it changes, and the live positions (to the trails too).
 * @param {string} net
 * @param {{current: FloorPlan | null}} plan
 * @param {{current: ZoneLayer | null}} zoneLayer
 * @param {{anchors: import("../lib/floorplan.js").Anchor[], limits: any, selected: string | null, showCoverage: boolean,
 *   coverage: import("../lib/types.js").Coverage | null | undefined, survey: import("../lib/types.js").SurveyReport | null,
 *   zones: ReturnType<typeof useZones>, drafts: ReturnType<typeof useZoneDrafts>, trails: Trails, showTrails: boolean}} data
 */
function usePlanData(net, plan, zoneLayer, { anchors, limits, selected, showCoverage, coverage, survey, zones, drafts, trails, showTrails }) {
  const { selectedZone, setSelectedZone, outline, preview } = drafts;
  useEffect(() => plan.current?.setAnchors(anchors), [anchors]);
  useEffect(() => plan.current?.setLimits(limits?.position_limits || []), [limits]);
  useEffect(() => plan.current?.selectAnchor(selected), [selected]);
  useEffect(() => plan.current?.setCoverage((showCoverage && coverage) || null), [showCoverage, coverage]);
  useEffect(() => plan.current?.setSurvey(survey), [survey]);
  useEffect(() => zoneLayer.current?.setZones(zones.zones), [zones.list.data]);
  useEffect(() => zoneLayer.current?.select(selectedZone), [selectedZone]);
  useEffect(() => zoneLayer.current?.setPending(outline || preview), [outline, preview]);
  useEffect(() => plan.current?.requestDraw(), [showTrails]);
  // A selected zone that is gone (deleted, renamed elsewhere) is unselected.
  useEffect(() => {
    if (selectedZone !== null && zones.list.data && !zones.zones.some((zone) => zone.name === selectedZone)) setSelectedZone(null);
  }, [zones.list.data]);
  useLive(["position"], (data, type) => {
    if (type !== "position" || !Array.isArray(data.positions)) return;
    // Kept while trails are off too: turned on, they show the last seconds.
    trails.add(data.positions, performance.now());
    const floor = plan.current;
    if (!floor) return;
    floor.updatePositions(data.positions);
    if (floor.hover?.kind === "tag") showSpeed(floor, trails);
  }, net);
}

/** @param {{params: Record<string, string>, query: URLSearchParams}} props */
export default function View({ params }) {
  const net = params.net;
  const devices = useLoad(() => get(path`/nets/${net}/devices`), [net]);
  const limits = useLoad(() => get(path`/nets/${net}/position_limits`), [net]);
  const config = useLoad(() => get(path`/nets/${net}`), [net]);
  useReloadOn(devices.reload, ["change"], net);
  useReloadOn(limits.reload, ["change"], net);
  useReloadOn(config.reload, ["state"], net);

  const canvas = useRef(/** @type {HTMLCanvasElement | null} */ (null));
  const plan = useRef(/** @type {FloorPlan | null} */ (null));
  const zoneLayer = useRef(/** @type {ZoneLayer | null} */ (null));
  const [selected, setSelected] = useState(/** @type {string | null} */ (null));
  // Off until asked for: a drag that meant to pan but started on an
  // anchor would move a surveyed anchor.
  const [dragging, setDragging] = useState(false);
  const canDrag = useRef(false);
  // What moving an anchor sends (any anchor's: the role needed is the same).
  const moveAccess = may("PATCH", path`/nets/${net}/devices/anchor`);
  canDrag.current = dragging && !moveAccess.disabled;
  const [showCoverage, setShowCoverage] = useState(false);
  const [showTrails, setShowTrails] = useState(true);
  const trailsShown = useRef(true);
  trailsShown.current = showTrails;
  const trails = useMemo(() => new Trails(), [net]);
  const [dropFailure, setDropFailure] = useState(/** @type {{anchor: string, message: string, problems: string[]} | null} */ (null));

  /** @type {Device[]} */
  const deviceList = devices.data?.devices || [];
  const anchors = useMemo(() => anchorsOf(deviceList), [devices.data]);
  const names = useMemo(() => new Map(deviceList.filter((device) => device.name).map((device) => [device.serial_number, device.name])), [devices.data]);
  const latest = useRef({ deviceList, names, net });
  latest.current = { deviceList, names, net };
  const coverage = useCoverage(net, showCoverage, devices.data ? anchors : undefined);
  const survey = useSurvey(net);
  const running = config.data?.configuration?.state === "running";
  const replaying = running && isReplayInstance(config.data?.configuration?.instance);
  const zones = useZones(net, running, () => plan.current?.requestDraw());
  const latestZones = useRef(zones);
  latestZones.current = zones;
  const drafts = useZoneDrafts(zones, zoneLayer, canvas);
  const { selectedZone, setSelectedZone, outline, setOutline, zoneFailure, setZoneFailure } = drafts;

  /**
   * Saves an anchor's position; resolves with the answer or throws the API's error.
   * @param {string} key @param {{x: any, y: any, z: any}} to
   */
  async function saveAnchor(key, to) {
    const [serial, identifier] = splitKey(key);
    const device = latest.current.deviceList.find((item) => item.serial_number === serial);
    if (!device) throw new ApiError(404, { message: `Device ${serial} is no longer in ${net}.` });
    const answer = await patch(path`/nets/${net}/devices/${serial}`, movedBody(device, identifier, to));
    say(answer.message || `Device ${serial} updated`, answer.level);
    // Shows what the API stored at once, without waiting for the change event.
    const stored = answer.body.device?.interfaces?.find((/** @type {any} */ face) => face.identifier === identifier);
    if (stored && stored.x != null && stored.y != null) plan.current?.moveAnchor(key, stored.x, stored.y);
    devices.reload();
    return answer;
  }

  useFloorPlan(net, plan, zoneLayer, { canvas, canDrag, latest, latestZones, saveAnchor, setSelected, setDropFailure, trails, trailsShown, ...drafts });
  usePlanData(net, plan, zoneLayer, {
    anchors, limits: limits.data, selected, showCoverage, coverage: coverage.data, survey: survey.report, zones, drafts, trails, showTrails,
  });

  const selectedZoneItem = zones.zones.find((zone) => zone.name === selectedZone) || null;
  const loadError = devices.error || limits.error || (showCoverage && coverage.error);

  return html`<${Page} title="Floor plan" view="floor">
    ${config.data && !running && html`<${Notice} level=${3}>
      <p>${net} is ${config.data.configuration?.state || "not running"}: no live positions come until it runs. <a href=${href("nets", net)}>Go to the overview to start it.</a></p>
    <//>`}
    ${loadError && html`<${Notice} level=${1}>
      <p>${describeFailure(loadError).message}</p>
      <button type="button" onClick=${() => { devices.reload(); limits.reload(); coverage.reload(); }}>Try again</button>
    <//>`}
    ${zoneFailure && html`<${FailureNotice} failure=${zoneFailure} onDismiss=${() => setZoneFailure(null)}
      text=${`The outline of zone ${zoneFailure.zone} was not changed: ${zoneFailure.message}`} />`}
    ${dropFailure && html`<${FailureNotice} failure=${dropFailure} onDismiss=${() => setDropFailure(null)}
      text=${`Anchor ${dropFailure.anchor} was not moved: ${dropFailure.message}`} />`}
    <${Toolbar} net=${net} moveAccess=${moveAccess} plan=${plan} zoneLayer=${zoneLayer} drafts=${drafts} anchors=${anchors.length}
      dragging=${dragging} setDragging=${setDragging} showCoverage=${showCoverage} setShowCoverage=${setShowCoverage}
      showTrails=${showTrails} setShowTrails=${setShowTrails} />
    ${replaying && html`<${ReplayBar} net=${net} />`}
    <div class="floor">
      <canvas ref=${canvas} tabindex="0" role="img" style=${{ height: "min(560px, 62vh)", cursor: "grab" }}
        aria-label=${`Floor plan of ${net}: ${anchors.length} anchors and seeders; the tags are listed below`}
        aria-describedby="floor-help"></canvas>
    </div>
    ${outline ? html`<${NewZoneForm} net=${net} points=${outline} onPoints=${setOutline} onSaved=${drafts.zoneSaved}
        onCancel=${() => setOutline(null)} />`
      : selectedZoneItem && html`<${ZoneEditor} key=${selectedZoneItem.zone_id} net=${net} zone=${selectedZoneItem}
        onPreview=${drafts.setPreview} onSaved=${drafts.zoneSaved} onDeleted=${() => { setSelectedZone(null); zones.list.reload(); }} onClose=${() => setSelectedZone(null)} />`}
    ${help(anchors.length > 0)}
    ${showCoverage && html`<${CoverageLegend} coverage=${coverage.data} loading=${coverage.loading} />`}
    <${Legend} surveyed=${survey.report !== null} trails=${showTrails} />
    <${ZonePanel} zones=${zones.zones} book=${zones.book} running=${running} selected=${selectedZone} onSelect=${setSelectedZone}
      names=${names} failure=${zones.list.error} />
    <${SurveyPanel} survey=${survey} running=${running} names=${names} />
    <div style=${{ display: "grid", gridTemplateColumns: "repeat(auto-fit, minmax(20rem, 1fr))", gap: "0 2rem" }}>
      <${MoveAnchor} net=${net} anchors=${anchors} selected=${selected} onSelect=${setSelected} save=${saveAnchor} />
      <${TagList} plan=${plan} names=${names} />
    </div>
  <//>`;
}

/**
 * How to use the plan (the canvas's description).
 * @param {boolean} anchors  whether there are anchors to move
 */
const help = (anchors) => html`<p id="floor-help" class="muted">
      Scroll or use Zoom in and Zoom out to zoom; drag the plan or, with the plan focused, use the arrow keys to pan (+ and − zoom, 0 fits).
      Hover over a tag or anchor for its details (with Coverage on, anywhere for the predicted error there); a tag's tooltip gives its speed, or says it is untracked.
      ${anchors ? " To correct where an anchor is, tick Move anchors by dragging and drag it, or use the form below. " : " "}
      Draw zone adds a zone point by point; click a zone to select it and drag its points, or edit them in its form.
    </p>`;

/**
 * The plan's toolbar: zoom, fit, whether anchors move by dragging (when
 * there are any), the coverage, the tags' trails, and the tools that draw
 * a zone.
 * @param {{net: string, moveAccess: {disabled?: boolean, title?: string}, plan: {current: FloorPlan | null},
 *   zoneLayer: {current: ZoneLayer | null}, drafts: ReturnType<typeof useZoneDrafts>,
 *   anchors: number, dragging: boolean, setDragging: (on: boolean) => void, showCoverage: boolean, setShowCoverage: (on: boolean) => void,
 *   showTrails: boolean, setShowTrails: (on: boolean) => void}} props
 */
function Toolbar({ net, moveAccess, plan, zoneLayer, drafts, anchors, dragging, setDragging, showCoverage, setShowCoverage, showTrails, setShowTrails }) {
  const { drawn, outline } = drafts;
  return html`<div class="toolbar" role="toolbar" aria-label="Floor plan view">
    <button type="button" onClick=${() => plan.current?.zoomBy(1.25)}>Zoom in</button>
    <button type="button" onClick=${() => plan.current?.zoomBy(0.8)}>Zoom out</button>
    <button type="button" onClick=${() => plan.current?.fit()}>Fit to content</button>
    ${anchors > 0 && html`<${Check} id="floor-drag" label="Move anchors by dragging" checked=${dragging && !moveAccess.disabled}
      onChange=${setDragging} access=${moveAccess} />`}
    <${Check} id="floor-coverage" label="Coverage" checked=${showCoverage} onChange=${setShowCoverage} />
    <${Check} id="floor-trails" label="Trails" checked=${showTrails} onChange=${setShowTrails} />
    <${ZoneTools} drawing=${drawn !== null} points=${drawn?.length ?? 0} disabled=${outline !== null} access=${may("POST", path`/nets/${net}/zones`)}
      onStart=${drafts.startDrawing} onCancel=${drafts.stopDrawing}
      onFinish=${() => zoneLayer.current?.finishDrawing()} onUndo=${() => zoneLayer.current?.undoPoint()} />
  </div>`;
}

/**
 * A save the API refused: the sentence, its problems, and Dismiss.
 * @param {{text: string, failure: {problems: string[]}, onDismiss: () => void}} props
 */
function FailureNotice({ text, failure, onDismiss }) {
  return html`<${Notice} level=${1}>
    <p>${text}</p>
    ${failure.problems.length > 0 && html`<ul>${failure.problems.map((line) => html`<li>${line}</li>`)}</ul>`}
    <button type="button" onClick=${onDismiss}>Dismiss</button>
  <//>`;
}

/**
 * A checkbox of the toolbar, its label first; `access` disables it, with
 * the reason, for a role that may not make what it leads to.
 * @param {{id: string, label: string, checked: boolean, onChange: (checked: boolean) => void,
 *   access?: {disabled?: boolean, title?: string}}} props
 */
function Check({ id, label, checked, onChange, access }) {
  return html`<div class="field check" style=${{ margin: 0 }} title=${access?.title}>
    <label for=${id}>${label}</label>
    <input id=${id} type="checkbox" checked=${checked} ...${access || {}}
      onChange=${(/** @type {Event} */ event) => onChange(/** @type {HTMLInputElement} */ (event.target).checked)} />
  </div>`;
}

/** @param {string} key */
function splitKey(key) {
  const cut = key.lastIndexOf("-");
  return /** @type {[string, number]} */ ([key.slice(0, cut), Number(key.slice(cut + 1))]);
}

/** @param {{surveyed: boolean, trails: boolean}} props */
function Legend({ surveyed, trails }) {
  /** @param {string} color @param {string} symbol @param {string} text */
  const item = (color, symbol, text) => html`<li style=${{ display: "flex", gap: ".35rem", alignItems: "center" }}>
    <span aria-hidden="true" style=${{ color, fontSize: "1.1rem" }}>${symbol}</span>${text}
  </li>`;
  return html`<section aria-labelledby="floor-legend">
    <h2 id="floor-legend" class="muted" style=${{ fontSize: ".9rem", margin: ".25rem 0" }}>Legend</h2>
    <ul style=${{ listStyle: "none", padding: 0, margin: 0, display: "flex", flexWrap: "wrap", gap: ".25rem 1.25rem" }}>
      ${item(COLORS.anchor, "■", "Anchor")}
      ${item(COLORS.seeder, "◆", "Seeder")}
      ${item(COLORS.tag, "●", "Tag")}
      ${item(COLORS.stale, "●", `Tag with no position for ${STALE_MS / 1000} s`)}
      ${item(COLORS.limit, "⬚", "Position limit")}
      ${item(ZONE_COLORS.edge, "▱", "Zone")}
      ${item(ZONE_COLORS.occupiedEdge, "▰", "Zone with tags inside")}
      ${item(COLORS.selected, "○", "Selected")}
      ${item(COLORS.tag, "◯", "Tag's 95% error (when zoomed in)")}
      ${trails && item(TRAIL_COLOR, "∿", `Tag's trail, its last ${TRAIL_MS / 1000} s`)}
      ${surveyed && html`
        ${item(VERDICT_COLORS.good, "◯", "Survey: good")}
        ${item(VERDICT_COLORS.check, "◯", "Survey: check")}
        ${item(VERDICT_COLORS.bad, "◯", "Survey: bad")}
        ${item(VERDICT_COLORS.bad, "⊗", "Where the survey puts a bad anchor")}`}
    </ul>
  </section>`;
}

/**
 * The keyboard way to move an anchor: pick it, type its position.
 * @param {{net: string, anchors: import("../lib/floorplan.js").Anchor[], selected: string | null, onSelect: (key: string | null) => void,
 *   save: (key: string, to: {x: any, y: any, z: any}) => Promise<any>}} props
 */
function MoveAnchor({ net, anchors, selected, onSelect, save }) {
  const form = useForm({ anchor: "", x: "", y: "", z: "" });
  const shown = useRef("");
  // A selection (here or on the plan) fills the form with the anchor's position.
  useEffect(() => {
    const key = selected || "";
    if (key === shown.current && form.values.anchor === key) return;
    shown.current = key;
    const anchor = anchors.find((item) => item.key === key);
    form.reset(anchor ? { anchor: key, x: String(anchor.x), y: String(anchor.y), z: String(anchor.z) } : { anchor: "", x: "", y: "", z: "" });
  }, [selected, anchors]);
  useEffect(() => {
    if (form.values.anchor !== (selected || "")) onSelect(form.values.anchor || null);
  }, [form.values.anchor]);

  /** @type {[string, string][]} */
  const options = [["", anchors.length ? "Choose an anchor…" : "No anchors or seeders"],
    ...anchors.map((anchor) => /** @type {[string, string]} */ ([anchor.key,
      `${anchor.role_id === SEEDER ? "Seeder" : "Anchor"} ${anchor.serial_number}${anchor.identifier ? `, interface ${anchor.identifier}` : ""}${anchor.name ? ` (${anchor.name})` : ""}`]))];
  return html`<section aria-labelledby="floor-move">
    <h2 id="floor-move">Move an anchor</h2>
    <form onSubmit=${form.submit(async (values) => {
      if (!values.anchor) {
        throw new ApiError(400, { message: "Choose an anchor first.", problems: [{ field: "anchor", problem: "choose an anchor or seeder" }] });
      }
      try {
        await save(values.anchor, { x: numberOrUndefined(values.x), y: numberOrUndefined(values.y), z: numberOrUndefined(values.z) });
      } catch (failure) {
        // The API names the body's fields (interfaces[0].x): show them beside x, y and z.
        if (failure instanceof ApiError) {
          failure.problems = failure.problems.map((item) => {
            const axis = /^interfaces\[\d+\]\.([xyz])$/.exec(item.field);
            return axis ? { field: axis[1], problem: item.problem } : item;
          });
        }
        throw failure;
      }
    })}>
      <${Field} form=${form} name="anchor" label="Anchor" kind="select" options=${options} />
      <div class="form-grid" style=${{ gridTemplateColumns: "repeat(3, minmax(6rem, 1fr))" }}>
        <${Field} form=${form} name="x" label="x (mm)" kind="number" step="1" required />
        <${Field} form=${form} name="y" label="y (mm)" kind="number" step="1" required />
        <${Field} form=${form} name="z" label="z (mm)" kind="number" step="1" required />
      </div>
      <${FormFooter} form=${form} submitLabel="Save position"
        request=${["PATCH", path`/nets/${net}/devices/${form.values.anchor ? splitKey(form.values.anchor)[0] : "anchor"}`]} />
    </form>
  </section>`;
}

/**
 * The tags seen, with their last position and its age; re-rendered once a
 * second, never per position batch.
 * @param {{plan: {current: FloorPlan | null}, names: Map<string, string | null>}} props
 */
function TagList({ plan, names }) {
  const [, setTick] = useState(0);
  const [filter, setFilter] = useState("");
  const [highlighted, setHighlighted] = useState(/** @type {string | null} */ (null));
  useEffect(() => {
    const timer = setInterval(() => setTick((value) => value + 1), 1000);
    return () => clearInterval(timer);
  }, []);
  const floor = plan.current;
  const now = performance.now();
  const wanted = filter.trim().toUpperCase();
  const all = floor ? [...floor.tags.values()] : [];
  const matching = wanted ? all.filter((tag) => tag.serial_number.includes(wanted) || (names.get(tag.serial_number) || "").toUpperCase().includes(wanted)) : all;
  matching.sort((a, b) => (a.serial_number < b.serial_number ? -1 : a.serial_number > b.serial_number ? 1 : 0));
  const rows = matching.slice(0, TAG_ROWS);
  const fresh = all.filter((tag) => now - tag.seenAt <= STALE_MS).length;
  /** @param {string} serial */
  const show = (serial) => {
    const next = highlighted === serial ? null : serial;
    setHighlighted(next);
    floor?.highlightTag(next);
  };
  return html`<section aria-labelledby="floor-tags">
    <h2 id="floor-tags">Tags</h2>
    <p class="muted" aria-live="off">${all.length} tag${all.length === 1 ? "" : "s"} seen, ${fresh} with a position in the last ${STALE_MS / 1000} s.</p>
    <div class="field">
      <label for="floor-tag-filter">Find a tag</label>
      <input id="floor-tag-filter" type="search" value=${filter} placeholder="serial number or name"
        onInput=${(/** @type {Event} */ event) => setFilter(/** @type {HTMLInputElement} */ (event.target).value)} />
    </div>
    ${rows.length > 0 ? html`<div class="table-wrap" style=${{ maxHeight: "22rem" }}>
      <table>
        <caption class="muted" style=${{ textAlign: "left", padding: ".25rem .6rem" }}>
          ${matching.length > TAG_ROWS ? `The first ${TAG_ROWS} of ${matching.length} tags` : `${matching.length} tag${matching.length === 1 ? "" : "s"}`}
        </caption>
        <thead><tr>
          <th scope="col">Tag</th><th scope="col" class="number">x (m)</th><th scope="col" class="number">y (m)</th>
          <th scope="col" class="number">z (m)</th><th scope="col" class="number">Quality</th>
          <th scope="col" class="number">Error (mm)</th><th scope="col" class="number">Age</th>
        </tr></thead>
        <tbody>
          ${rows.map((tag) => html`<tr key=${tag.serial_number} class=${tag.serial_number === highlighted ? "selected" : ""}>
            <td><button type="button" style=${{ padding: "0 .4rem" }} aria-pressed=${tag.serial_number === highlighted ? "true" : "false"}
              title="Show on the plan" onClick=${() => show(tag.serial_number)}>${tag.serial_number}</button>
              ${names.get(tag.serial_number) && html` <span class="muted">${names.get(tag.serial_number)}</span>`}</td>
            <td class="number">${(tag.x / 1000).toFixed(2)}</td>
            <td class="number">${(tag.y / 1000).toFixed(2)}</td>
            <td class="number">${(tag.z / 1000).toFixed(2)}</td>
            <td class="number">${tag.quality}</td>
            <td class="number">${tag.error_mm != null ? Math.round(tag.error_mm).toLocaleString() : "–"}</td>
            <td class="number" style=${{ whiteSpace: "nowrap" }}>${formatAge(now - tag.seenAt)}</td>
          </tr>`)}
        </tbody>
      </table>
    </div>` : html`<p class="muted">${all.length ? "No tag matches." : "No positions yet."}</p>`}
  </section>`;
}
