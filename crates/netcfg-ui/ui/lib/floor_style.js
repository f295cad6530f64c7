// The floor plan's look and its fixed sizes: the colours of what it draws
// (the zones' layer and the floor view's legend use them too), when a tag
// counts as stale, the limits of its zoom, how near the pointer must come
// to hit something, and the limits on labels. Values only, no code.

/** A tag without a position for this long is drawn as stale. */
export const STALE_MS = 5000;

export const COLORS = {
  anchor: "#0b5cad",
  seeder: "#8a2b9e",
  tag: "#1a7f37",
  stale: "#8b96a1",
  limit: "#b36b00",
  grid: "#e6eaee",
  ink: "#1b1f24",
  selected: "#ffbf47",
  error: "rgba(26, 127, 55, .3)",
};

/** The ring of an anchor by the last survey's verdict. */
export const VERDICT_COLORS = {
  good: "#1a7f37",
  check: "#bf8700",
  bad: "#cf222e",
};

/** The smallest scale, px per mm: 10 px for 100 m. */
export const MIN_SCALE = 1e-4;
/** The largest scale: 2 px per mm. */
export const MAX_SCALE = 2;
/** How near (px) the pointer must be to an anchor or a tag to hit it. */
export const HIT_PX = 9;
/** A tag's error circle shows from this radius (px) up: smaller, it hides under the dot. */
export const MIN_ERROR_PX = 4;
/** The most tag labels a frame draws: beyond, the plan is too crowded to read them anyway, and each costs a fillText. */
export const MAX_TAG_LABELS = 200;
/** The height (px) a label takes. */
export const LABEL_HEIGHT = 13;
