// Recordings of a configuration (decisions §15): every datagram its data
// streams send, kept in a pcap file. The list shows each with its size,
// length and state, asked for again every 2 s while one records; a form
// starts one while the configuration runs; per row, Stop (recording) or
// Delete (after a confirmation), Download, and Replay, which creates a
// configuration playing it, starts it and opens its floor plan. A pcap made
// elsewhere is uploaded as a recording; the server's reason for refusing
// it shows beside the file.

import { html, useEffect, useRef, useState } from "../lib/html.js";
import { call, get, post, del, path, download, ApiError } from "../lib/api.js";
import { Page, Loaded, Modal, Notice, ConfirmDelete, act, say, useLoad, useReloadOn } from "../lib/components.js";
import { useForm, Field, FormFooter, describeFailure } from "../lib/forms.js";
import { shortTime } from "../lib/format.js";
import { href, navigate } from "../lib/router.js";
import {
  REFRESH_MS, formatSize, formatDuration, describeState, anyActive, newestFirst, startBody, sanitiseStem,
  isRecordingName, replayName, replayInstance, placeUploadProblems, placeNameTaken,
} from "../lib/recordings.js";
import { SPEEDS, speedLabel } from "../lib/replay.js";
import { may } from "../lib/access.js";

/** @typedef {import("../lib/types.js").Recording} Recording */

const PCAP = "application/vnd.tcpdump.pcap";

/** @param {{params: Record<string, string>, query: URLSearchParams}} props */
export default function View({ params }) {
  const net = params.net;
  const config = useLoad(() => get(path`/nets/${net}`), [net]);
  // Asked without the browser's cache: the server's tag of the list follows
  // the configuration's changes, not the recordings', and would answer 304
  // to a list that grew.
  const list = useLoad(async (signal) => /** @type {Recording[]} */ (
    (await call("GET", path`/nets/${net}/recordings`, { signal, cache: "no-store" })).body.recordings || []), [net]);
  useReloadOn(config.reload, ["state"], net);
  // A recording ends when its configuration stops.
  useReloadOn(list.reload, ["state"], net);
  const recordings = list.data || [];
  const active = anyActive(recordings);
  // No event tells a recording's growth: while one records, the list is
  // asked for again (not while the page is hidden).
  useEffect(() => {
    if (!active) return undefined;
    const timer = setInterval(() => document.visibilityState !== "hidden" && list.reload(), REFRESH_MS);
    return () => clearInterval(timer);
  }, [active, list.reload]);
  const running = config.data?.configuration?.state === "running";
  const [deleting, setDeleting] = useState(/** @type {Recording | null} */ (null));
  const [replaying, setReplaying] = useState(/** @type {Recording | null} */ (null));

  return html`<${Page} title="Recordings" view="recordings">
    <p class="muted">A recording keeps every datagram this configuration's data streams send while it runs, in a pcap file
      (Wireshark and tcpdump open it). Replay one to see it again on a floor plan, at its own pace or faster, as often as you like;
      upload a capture made elsewhere to replay it here.</p>
    <section aria-labelledby="recordings-start">
      <h2 id="recordings-start">Start a recording</h2>
      ${!config.data ? null : running
        ? html`<${StartForm} net=${net} onStarted=${list.reload} />`
        : html`<${Notice} level=${3}>
            <p>${net} is ${config.data.configuration?.state || "not running"}: a recording takes what the configuration sends while it
              runs, so one starts only then. <a href=${href("nets", net)}>Go to the overview to start it.</a></p>
          <//>`}
    </section>
    <section aria-labelledby="recordings-list">
      <h2 id="recordings-list">Recordings</h2>
      <${Loaded} load=${list}>${(/** @type {Recording[]} */ items) => items.length === 0
        ? html`<p class="muted">No recordings yet.</p>`
        : html`<${RecordingTable} net=${net} recordings=${newestFirst(items)} active=${active}
            onStop=${(/** @type {Recording} */ recording) => act(() => del(path`/nets/${net}/recordings/${recording.name}`)).then(list.reload)}
            onDelete=${setDeleting} onReplay=${setReplaying} />`}<//>
    </section>
    <${UploadForm} net=${net} onUploaded=${list.reload} />
    ${deleting && html`<${DeleteRecording} net=${net} recording=${deleting} onClose=${() => setDeleting(null)}
      onDone=${() => {
        setDeleting(null);
        list.reload();
      }} />`}
    ${replaying && html`<${ReplayDialog} net=${net} recording=${replaying} onClose=${() => setReplaying(null)} />`}
  <//>`;
}

/**
 * The form that starts a recording: both fields optional.
 * @param {{net: string, onStarted: () => void}} props
 */
function StartForm({ net, onStarted }) {
  const form = useForm({ name: "", duration_s: "" });
  return html`<form noValidate onSubmit=${form.submit(async (values) => {
    const { body, problems } = startBody(values);
    if (problems.length) throw new ApiError(400, { message: "Correct the fields marked.", problems });
    const answer = await post(path`/nets/${net}/recordings`, body).catch((failure) => {
      // Taken, the name is the problem; stopped or out of room, the request.
      if (failure instanceof ApiError) failure.problems = placeNameTaken(failure, "name");
      throw failure;
    });
    say(answer.message, answer.level);
    form.reset({ name: "", duration_s: "" });
    onStarted();
  })}>
    <div class="form-grid two">
      <${Field} form=${form} name="name" label="Name" placeholder="morning-shift"
        hint="Optional: 1 to 64 of A-Z a-z 0-9 . _ -, not starting with a dot; empty: the start's date and time (UTC)." />
      <${Field} form=${form} name="duration_s" label="Duration" placeholder="until stopped"
        hint="Optional: seconds, or 10m, 2h, 1h 30m (at most a week); empty: until you stop it." />
    </div>
    <${FormFooter} form=${form} submitLabel="Start recording" request=${["POST", path`/nets/${net}/recordings`]} />
  </form>`;
}

/**
 * The recordings, the newest first.
 * @param {{net: string, recordings: Recording[], active: boolean, onStop: (recording: Recording) => void,
 *   onDelete: (recording: Recording) => void, onReplay: (recording: Recording) => void}} props
 */
function RecordingTable({ net, recordings, active, onStop, onDelete, onReplay }) {
  const count = `${recordings.length} recording${recordings.length === 1 ? "" : "s"}`;
  return html`<div class="table-wrap">
    <table class="recordings">
      <caption class="count">${active ? `${count}; asked for again every ${REFRESH_MS / 1000} s while one records` : count}</caption>
      <thead><tr>
        <th scope="col">Name</th>
        <th scope="col">Started</th>
        <th scope="col" class="number">Duration</th>
        <th scope="col" class="number">Size</th>
        <th scope="col" class="number">Datagrams</th>
        <th scope="col">State</th>
        <th scope="col">Actions</th>
      </tr></thead>
      <tbody>
        ${recordings.map((recording) => {
          const { text, tone } = describeState(recording);
          const name = recording.name;
          return html`<tr key=${name} data-item=${name}>
            <th scope="row" class="mono">${name}</th>
            <td class="nowrap">${shortTime(recording.started_ms)}</td>
            <td class="number">${formatDuration(recording.duration_ms)}</td>
            <td class="number" title=${`${recording.size.toLocaleString()} bytes`}>${formatSize(recording.size)}</td>
            <td class="number">${recording.datagrams.toLocaleString()}</td>
            <td><span class=${`badge ${tone === "warning" ? "level-2" : tone}`}>${text}</span></td>
            <td><div class="buttons">
              ${recording.active
                ? html`<button type="button" aria-label=${`Stop ${name}`} ...${may("DELETE", path`/nets/${net}/recordings/${name}`)}
                    onClick=${() => onStop(recording)}>Stop</button>`
                : html`<button type="button" class="danger" aria-label=${`Delete ${name}`} ...${may("DELETE", path`/nets/${net}/recordings/${name}`)}
                    onClick=${() => onDelete(recording)}>Delete</button>`}
              <button type="button" aria-label=${`Download ${name}`} onClick=${() => act(async () => {
                await download(path`/nets/${net}/recordings/${name}/download`, `${name}.pcap`);
                return { message: `Downloaded ${name}.pcap`, level: 3 };
              })}>Download</button>
              <button type="button" aria-label=${`Replay ${name}`} disabled=${recording.active}
                title=${recording.active ? "Stop it first: a replay plays a finished recording" : undefined}
                ...${recording.active ? {} : may("POST", "/nets")} onClick=${() => onReplay(recording)}>Replay</button>
            </div></td>
          </tr>`;
        })}
      </tbody>
    </table>
  </div>`;
}

/**
 * Uploads a pcap file as a recording; its name is the file's own (made a
 * valid name) unless typed.
 * @param {{net: string, onUploaded: () => void}} props
 */
function UploadForm({ net, onUploaded }) {
  // A new form after each upload: a file input cannot be emptied otherwise.
  const [generation, setGeneration] = useState(0);
  return html`<section aria-labelledby="recordings-upload">
    <h2 id="recordings-upload">Upload a recording</h2>
    <p class="muted">
      A classic pcap file (not pcapng) holding CDP datagrams, such as one downloaded here or written by <code>tcpdump -w</code>: raw IP, Ethernet, Linux cooked or loopback captures.
    </p>
    <${UploadFields} key=${generation} net=${net} onUploaded=${() => {
      setGeneration((value) => value + 1);
      onUploaded();
    }} />
  </section>`;
}

/** @param {{net: string, onUploaded: () => void}} props */
function UploadFields({ net, onUploaded }) {
  const form = useForm({ file: null, name: "" });
  // The name suggested from the last file chosen: replaced by the next
  // file's unless the user typed another.
  const suggested = useRef("");
  return html`<form noValidate onSubmit=${form.submit(async (values) => {
    /** @type {File | null} */
    const file = values.file;
    const name = String(values.name).trim() || (file ? sanitiseStem(file.name) : "");
    if (!file) throw new ApiError(400, { message: "Choose a file.", problems: [{ field: "file", problem: "choose a pcap file" }] });
    if (!isRecordingName(name)) {
      throw new ApiError(400, { message: "Correct the name.", problems: [{ field: "name", problem: "1 to 64 of A-Z a-z 0-9 . _ -, not starting with a dot" }] });
    }
    try {
      const answer = await call("PUT", path`/nets/${net}/recordings/${name}`, { file, contentType: PCAP });
      say(answer.message, answer.level);
    } catch (failure) {
      if (failure instanceof ApiError) failure.problems = placeUploadProblems(failure);
      throw failure;
    }
    onUploaded();
  })}>
    <div class="form-grid two">
      <${Field} form=${form} name="file" label="Capture file" kind="file" accept=".pcap,.cap,${PCAP}"
        onFile=${(/** @type {File | null} */ file) => {
          const typed = String(form.values.name).trim();
          if (file && (typed === "" || typed === suggested.current)) {
            suggested.current = sanitiseStem(file.name);
            form.set("name", suggested.current);
          }
        }} />
      <${Field} form=${form} name="name" label="Name" hint="The file's name without its extension unless you type another." />
    </div>
    <${FormFooter} form=${form} submitLabel="Upload"
      request=${["PUT", path`/nets/${net}/recordings/${String(form.values.name).trim() || "recording"}`]} />
  </form>`;
}

/**
 * The confirmation of a recording's deletion; Cancel takes the focus, so
 * Enter does no harm.
 * @param {{net: string, recording: Recording, onClose: () => void, onDone: () => void}} props
 */
function DeleteRecording({ net, recording, onClose, onDone }) {
  return html`<${ConfirmDelete} title=${`Delete recording ${recording.name}?`}
      remove=${() => del(path`/nets/${net}/recordings/${recording.name}`)}
      request=${["DELETE", path`/nets/${net}/recordings/${recording.name}`]}
      deleted=${`Recording ${recording.name} deleted`} onClose=${onClose} onDone=${onDone}>
    <p>Its capture file (${formatSize(recording.size)}) is deleted; this cannot be undone. Download it first to keep a copy.</p>
  <//>`;
}

/**
 * Creates a configuration that replays the recording, starts it and opens
 * its floor plan. Created but not started, it says why and stays (sent
 * again, the form would only meet the name it took).
 * @param {{net: string, recording: Recording, onClose: () => void}} props
 */
function ReplayDialog({ net, recording, onClose }) {
  const form = useForm({ name: replayName(net, recording.name), speed: "1", loop: false });
  const [unstarted, setUnstarted] = useState(/** @type {{name: string, message: string} | null} */ (null));
  return html`<${Modal} title=${`Replay ${recording.name}`} onClose=${onClose}>
    <p>A new configuration plays this recording's ${recording.datagrams.toLocaleString()} datagrams
      (${formatDuration(recording.duration_ms)}) again instead of a network: its floor plan shows them, with a timeline to pause,
      seek and change the speed.</p>
    ${unstarted
      ? html`<${Notice} level=${1}>
          <p>Configuration ${unstarted.name} was created, but it did not start: ${unstarted.message}</p>
          <p><a href=${href("nets", unstarted.name)} onClick=${onClose}>Go to its overview</a></p>
        <//>
        <div class="buttons"><button type="button" onClick=${onClose}>Close</button></div>`
      : html`<form noValidate onSubmit=${form.submit(async (values) => {
          const name = String(values.name).trim();
          const instance = replayInstance(net, recording.name, { speed: Number(values.speed), loop: Boolean(values.loop) });
          await post("/nets", { name, instance }).catch((failure) => {
            if (failure instanceof ApiError) failure.problems = placeNameTaken(failure, "name");
            throw failure;
          });
          try {
            const answer = await post(path`/nets/${name}`, { action: "start" });
            say(answer.message || `Configuration ${name} started`, answer.level);
          } catch (failure) {
            setUnstarted({ name, message: describeFailure(failure).message });
            return;
          }
          onClose();
          navigate(href("nets", name, "floor"));
        })}>
          <${Field} form=${form} name="name" label="Name of the new configuration" required autofocus
            hint="1 to 64 of A-Z a-z 0-9 . _ -, not starting with a dot." />
          <div class="form-grid two">
            <${Field} form=${form} name="speed" label="Speed" kind="select"
              options=${SPEEDS.map((speed) => /** @type {[string, string]} */ ([String(speed), speedLabel(speed)]))} />
            <${Field} form=${form} name="loop" label="Loop" kind="checkbox" />
          </div>
          <${FormFooter} form=${form} submitLabel="Create and start" request=${["POST", "/nets"]}><button type="button" onClick=${onClose}>Cancel</button><//>
        </form>`}
  <//>`;
}
