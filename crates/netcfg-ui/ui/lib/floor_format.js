// Lengths, positions and ages as the floor plan writes them for people:
// the scale bar's round lengths ("2 m"), coordinates in metres, how long ago
// a tag was seen. Pure functions (tests/js/format.test.mjs).

/**
 * A length of 1, 2 or 5 times a power of ten, near `target`.
 * @param {number} target
 */
export function niceLength(target) {
  const power = 10 ** Math.floor(Math.log10(target));
  const unit = target / power;
  return (unit < 1.5 ? 1 : unit < 3.5 ? 2 : unit < 7.5 ? 5 : 10) * power;
}

/**
 * A length in mm, for people: "500 mm", "2 m", "1.5 km".
 * @param {number} mm
 */
export function formatLength(mm) {
  if (Math.abs(mm) >= 1_000_000) return `${mm / 1_000_000} km`;
  if (Math.abs(mm) >= 1000) return `${mm / 1000} m`;
  return `${mm} mm`;
}

/** @param {number} mm */
export function metres(mm) {
  return `${(mm / 1000).toFixed(2)} m`;
}

/** @param {number} ms */
export function formatAge(ms) {
  if (ms < 1000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 60_000) return `${Math.round(ms / 1000)} s`;
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min`;
  return `${Math.round(ms / 3_600_000)} h`;
}
