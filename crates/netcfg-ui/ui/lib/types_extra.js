// The API's JSDoc types that are not schemas of the OpenAPI document, so
// that types.js and types_events.js (generated from it by `cargo xtask
// codegen`) cannot hold them: the envelope every JSON answer comes in (docs/api.md, "The
// envelope", "Errors clients can act on") and the `data` of each live event
// type ("Live events"). Written by hand, from the types of those two; for the
// type checker only: this module exports no value and nothing imports it at
// run time.

/** @typedef {import("./types.js").Level} Level */
/** @typedef {import("./types.js").FieldProblem} FieldProblem */

// ---- the envelope ---------------------------------------------------------

/**
 * Every JSON answer: a sentence, its level (5.1), and for an error its
 * stable `code`, the `problems` of a 400 or 409 `inputs_conflict`, and the
 * `incident` of a 5xx. A success payload sits under one more key (see
 * `Envelope`).
 * @typedef {object} EnvelopeBase
 * @property {string} message
 * @property {Level} [Classification]
 * @property {string} [code]
 * @property {FieldProblem[]} [problems]
 * @property {string} [incident]
 */

/**
 * An answer whose payload is `T` under the key `K`: `Envelope<"devices",
 * Device[]>` is `{message, Classification, devices: Device[]}`.
 * @template {string} K
 * @template T
 * @typedef {EnvelopeBase & {[key in K]: T}} Envelope
 */

// ---- live events (GET /events, GET /nets/{net_name}/events) ---------------

/**
 * The `data` of each event type.
 * @typedef {object} EventData
 * @property {import("./types_events.js").NotificationEvent} notification
 * @property {import("./types_events.js").StateEvent} state
 * @property {import("./types_events.js").DeviceEvent} device
 * @property {import("./types_events.js").PositionEvent} position
 * @property {import("./types_events.js").ChangeEvent} change
 * @property {import("./types_events.js").ResyncEvent} resync
 * @property {import("./types_events.js").ZoneEvent} zone
 */

export {};
