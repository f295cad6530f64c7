// The floor plan's site checks (decisions §12), beside views/floor.js: the
// predicted coverage under the plan with its legend, and the survey of the
// anchors (each one's verdict in a table and rung on the plan). Not a view
// of its own: floor.js imports it.

import { html, useState, useEffect } from "../lib/html.js";
import { get, post, path, ApiError } from "../lib/api.js";
import { Notice, useLoad, say, formatTime } from "../lib/components.js";
import { describeFailure } from "../lib/forms.js";
import { GOOD_MM, POOR_MM, NOT_COVERED, cssColor, legendGradient, coverageResolution, formatError } from "../lib/coverage.js";
import { VERDICT_COLORS } from "../lib/floor_style.js";
import { metres } from "../lib/floor_format.js";
import { may } from "../lib/access.js";

/** @typedef {import("../lib/types.js").Coverage} Coverage */
/** @typedef {import("../lib/types.js").SurveyReport} SurveyReport */

/** The height (mm) the coverage is predicted at: a tag worn or carried (the API's default). */
const COVERAGE_Z = 1000;

/**
 * The predicted coverage while `shown`, asked again whenever the anchors
 * change (their positions are all it depends on, with the mode).
 * @param {string} net
 * @param {boolean} shown
 * @param {import("../lib/floorplan.js").Anchor[] | undefined} anchors  undefined until the devices came
 * @returns {{data: Coverage | null | undefined, error: unknown, loading: boolean, reload: () => void}}
 */
export function useCoverage(net, shown, anchors) {
  return useLoad(async () => {
    if (!shown || !anchors) return null;
    const body = await get(path`/nets/${net}/coverage`, { z: COVERAGE_Z, resolution_mm: coverageResolution(anchors) });
    return /** @type {Coverage} */ (body.coverage);
  }, [net, shown, anchors]);
}

/**
 * The coverage's colour scale, under the plan while it shows.
 * @param {{coverage: Coverage | null | undefined, loading: boolean}} props
 */
export function CoverageLegend({ coverage, loading }) {
  const covered = coverage ? coverage.error_mm.filter((mm) => mm != null).length : 0;
  const cells = coverage ? coverage.columns * coverage.rows : 0;
  return html`<section aria-labelledby="floor-coverage-legend" style=${{ margin: ".5rem 0" }}>
    <h2 id="floor-coverage-legend" class="muted" style=${{ fontSize: ".9rem", margin: ".25rem 0" }}>Coverage: predicted 95% error at a height of ${metres(COVERAGE_Z)}</h2>
    <div style=${{ display: "flex", flexWrap: "wrap", gap: ".5rem 1.5rem", alignItems: "flex-start" }}>
      <div style=${{ width: "16rem" }}>
        <div aria-hidden="true" style=${{ height: ".8rem", borderRadius: "3px", border: "1px solid #c9d1d9", background: legendGradient() }}></div>
        <div style=${{ display: "flex", justifyContent: "space-between", fontSize: ".85rem" }}>
          <span>≤ ${formatError(GOOD_MM)} good</span><span>fair</span><span>≥ ${formatError(POOR_MM)} poor</span>
        </div>
      </div>
      <div style=${{ display: "flex", gap: ".35rem", alignItems: "center", fontSize: ".85rem" }}>
        <span aria-hidden="true" style=${{ display: "inline-block", width: ".9rem", height: ".8rem", borderRadius: "3px", background: cssColor(NOT_COVERED), opacity: ".6" }}></span>
        Not covered (too few anchors in range)
      </div>
      <p class="muted" style=${{ margin: 0, fontSize: ".85rem" }} aria-live="polite">
        ${coverage
          ? `${covered.toLocaleString()} of ${cells.toLocaleString()} cells of ${formatError(coverage.resolution_mm)} covered. Hover over the plan for a cell's error and anchors in range.`
          : loading ? "Predicting…" : ""}
      </p>
    </div>
  </section>`;
}

/** Where this tab notes the configurations surveyed (sessionStorage). */
const SURVEYED_KEY = "netcfg.surveyed";

/**
 * Whether this tab has seen a survey of `net` (made one, or shown one),
 * or notes that it has (`seen` true) or that there is none (false).
 * @param {string} net @param {boolean} [seen]
 */
function surveyedHere(net, seen) {
  try {
    /** @type {string[]} */
    const nets = JSON.parse(sessionStorage.getItem(SURVEYED_KEY) || "[]");
    if (seen === undefined) return nets.includes(net);
    const kept = nets.filter((name) => name !== net);
    sessionStorage.setItem(SURVEYED_KEY, JSON.stringify(seen ? [...kept, net] : kept));
    return seen;
  } catch {
    return false;
  }
}

/**
 * The last survey of `net`, and a new one on request (POST, while it
 * runs). Before the first survey GET answers 404, which the browser logs
 * as an error on every load: so the last survey is asked for as the view
 * opens only once this tab has seen one, else when the user asks
 * (`show`); `asked` says whether the answer is known.
 * @param {string} net
 */
export function useSurvey(net) {
  const [report, setReport] = useState(/** @type {SurveyReport | null} */ (null));
  const [failure, setFailure] = useState(/** @type {unknown} */ (null));
  const [busy, setBusy] = useState(false);
  const [wanted, setWanted] = useState(() => surveyedHere(net));
  // Another configuration's survey never shows over this one's.
  useEffect(() => {
    setReport(null);
    setFailure(null);
    setWanted(surveyedHere(net));
  }, [net]);
  const last = useLoad(async () => {
    if (!wanted) return undefined;
    try {
      const found = /** @type {SurveyReport} */ ((await get(path`/nets/${net}/survey`)).survey);
      surveyedHere(net, true);
      return found;
    } catch (error) {
      // No survey made yet: nothing to show, not a failure.
      if (!(error instanceof ApiError && error.status === 404)) throw error;
      surveyedHere(net, false);
      return null;
    }
  }, [net, wanted]);
  useEffect(() => {
    if (last.data !== undefined) setReport(last.data);
    setFailure(last.error || null);
  }, [last.data, last.error]);

  async function run() {
    setBusy(true);
    setFailure(null);
    try {
      const answer = await post(path`/nets/${net}/survey`);
      setReport(answer.body.survey);
      surveyedHere(net, true);
      say(answer.message || "Survey done", answer.level);
    } catch (error) {
      setFailure(error);
      say(describeFailure(error).message, 1);
    } finally {
      setBusy(false);
    }
  }
  const asked = report !== null || (wanted && !last.loading && last.data !== undefined);
  /** Asks for the last survey (again). */
  const show = () => (wanted ? last.reload() : setWanted(true));
  // Disables Survey anchors, with the reason, for a role that may not survey.
  const access = may("POST", path`/nets/${net}/survey`);
  return { report, failure, busy, run, asked, loading: wanted && last.loading, show, dismiss: () => setFailure(null), access };
}

const VERDICT_BADGES = { good: "ok", check: "level-2", bad: "error" };

/**
 * The survey's button and its result: each anchor's residual and verdict.
 * @param {{survey: ReturnType<typeof useSurvey>, running: boolean, names: Map<string, string | null>}} props
 */
export function SurveyPanel({ survey, running, names }) {
  const { report, failure, busy } = survey;
  const bad = report ? report.anchors.filter((anchor) => anchor.verdict === "bad").length : 0;
  return html`<section aria-labelledby="floor-survey">
    <h2 id="floor-survey">Anchor survey</h2>
    <p class="muted">The anchors range each other; an anchor far from where those ranges put it is ringed red on the plan, with a dashed line to where they put it.</p>
    <div class="toolbar">
      <button type="button" disabled=${!running || busy} ...${survey.access} onClick=${survey.run}>
        ${busy ? "Surveying…" : "Survey anchors"}</button>
      ${!running && html`<span class="muted">The configuration must run to survey.</span>`}
    </div>
    ${failure && html`<${Notice} level=${1}>
      <p>${describeFailure(failure).message}</p>
      <button type="button" onClick=${survey.dismiss}>Dismiss</button>
    <//>`}
    ${report ? html`<div class="table-wrap">
      <table>
        <caption class="muted" style=${{ textAlign: "left", padding: ".25rem .6rem" }}>
          ${`Survey of ${formatTime(report.time_ms)}: ${report.anchors.length} anchor${report.anchors.length === 1 ? "" : "s"}, ${bad} bad; `
            + `${report.pairs.length} pair${report.pairs.length === 1 ? "" : "s"} of anchors heard each other.`}
        </caption>
        <thead><tr>
          <th scope="col">Anchor</th><th scope="col" class="number">Residual (mm)</th><th scope="col">Verdict</th><th scope="col">Suggested position</th>
        </tr></thead>
        <tbody>
          ${report.anchors.map((anchor) => html`<tr key=${anchor.serial_number}>
            <td>${anchor.serial_number}${names.get(anchor.serial_number) && html` <span class="muted">${names.get(anchor.serial_number)}</span>`}</td>
            <td class="number">${Math.round(anchor.residual_mm).toLocaleString()}</td>
            <td><span class=${`badge ${VERDICT_BADGES[anchor.verdict] || ""}`}>
              <span aria-hidden="true" style=${{ color: VERDICT_COLORS[anchor.verdict] }}>○ </span>${anchor.verdict}</span></td>
            <td>${anchor.suggested ? `x ${metres(anchor.suggested.x)}, y ${metres(anchor.suggested.y)}, z ${metres(anchor.suggested.z)}` : html`<span class="muted">–</span>`}</td>
          </tr>`)}
        </tbody>
      </table>
    </div>` : html`<${NoSurvey} survey=${survey} />`}
  </section>`;
}

/**
 * What shows before a survey: that there is none, or a button that asks
 * for the last one (made before this tab opened, or elsewhere).
 * @param {{survey: ReturnType<typeof useSurvey>}} props
 */
function NoSurvey({ survey }) {
  if (survey.busy) return null;
  if (survey.loading) return html`<p class="muted">Asking for the last survey…</p>`;
  if (survey.asked) return html`<p class="muted">No survey yet.</p>`;
  return html`<p class="muted">No survey in this session.
    <button type="button" class="inline" onClick=${survey.show}>Show the last survey</button> if one was made before.</p>`;
}
