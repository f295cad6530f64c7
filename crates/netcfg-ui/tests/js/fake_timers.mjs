// Timers the unit tests run by hand, for the front end's modules that take
// their setTimeout and clearTimeout from outside (lib/event_hub.js,
// lib/outputs.js, lib/replay.js): each timer is kept with its callback and
// delay, marked when cleared, and marked when a test fires it. Not a test
// file itself (no `.test.` in its name): the tests import it.

/** @typedef {{callback: () => void, ms: number, cleared: boolean, fired: boolean}} Timer */

/** A fresh set of fake timers. */
export function fakeTimers() {
  /** @type {Timer[]} every timer set, in order */
  const timers = [];
  /** The timers neither cleared nor fired. */
  const pending = () => timers.filter((timer) => !timer.cleared && !timer.fired);
  return {
    timers,
    pending,
    /** @param {() => void} callback @param {number} ms */
    setTimeout: (callback, ms) => {
      const timer = { callback, ms, cleared: false, fired: false };
      timers.push(timer);
      return timer;
    },
    /** @param {unknown} timer */
    clearTimeout: (timer) => {
      if (timer) /** @type {Timer} */ (timer).cleared = true;
    },
    /**
     * Runs a timer's callback, marking it fired.
     * @param {Timer} timer
     */
    fire: (timer) => {
      timer.fired = true;
      timer.callback();
    },
  };
}
