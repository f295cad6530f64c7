// What the change history offers for each entry: plain functions with no
// DOM and no Preact, so node's test runner loads this module as it is
// (tests/js/history.test.mjs).

/**
 * The summaries of a network's start, stop, restart and reload (whoever
 * asked: a person or a schedule). They change no content, and a restore
 * skips them: restoring to one is restoring to the change before it, so
 * they offer no restore of their own.
 */
const RUN_STEPS = new Set(["Started", "Stopped", "Restarted", "Reloaded"]);

/**
 * Whether the entry is a start, stop, restart or reload.
 * @param {{summary: string}} entry
 */
export function isRunStep(entry) {
  return RUN_STEPS.has(entry.summary);
}

/**
 * What each entry's Action cell offers, in the list's order (newest
 * first): "step" for a start, stop, restart or reload (nothing to
 * restore); "current" for the newest change of content on the newest page
 * (restoring to it would change nothing); else "restore".
 * @param {{summary: string}[]} entries
 * @param {boolean} newestPage  whether the list starts at the newest change
 * @returns {("step" | "current" | "restore")[]}
 */
export function restoreOffers(entries, newestPage) {
  let currentFound = !newestPage;
  return entries.map((entry) => {
    if (isRunStep(entry)) return "step";
    if (currentFound) return "restore";
    currentFound = true;
    return "current";
  });
}
