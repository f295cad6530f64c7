// The one place the vendored libraries are imported: views import Preact,
// its hooks and the `html` template tag from here.
import { h, render, Fragment, createContext } from "../vendor/preact.mjs";
import htm from "../vendor/htm.mjs";

export { h, render, Fragment, createContext };
export {
  useState,
  useEffect,
  useLayoutEffect,
  useMemo,
  useCallback,
  useRef,
  useContext,
  useReducer,
  useId,
} from "../vendor/hooks.mjs";

/** JSX-like templates without a build step: html`<p>${text}</p>`. */
export const html = htm.bind(h);
