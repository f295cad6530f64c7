// Types of the vendored libraries under ui/vendor/ (preact 11.2.0 and its
// hooks, htm 3.1.1), as far as the front end uses them. The vendored files
// are minified copies and are not type-checked themselves: jsconfig.json
// sets `noResolve`, so an import of `../vendor/preact.mjs` meets these
// declarations (patterns match the relative paths) instead of the file.
// Simplified from the packages' own declarations.

declare module "*/vendor/preact.mjs" {
  /** What `h` (and so every `html` template) makes. */
  export interface VNode<P = any> {
    type: any;
    props: P & { children?: ComponentChildren };
    key: any;
  }
  export type ComponentChild =
    | VNode<any>
    | object
    | string
    | number
    | bigint
    | boolean
    | null
    | undefined;
  export type ComponentChildren = ComponentChild[] | ComponentChild;
  export type FunctionComponent<P = {}> = (props: P) => ComponentChildren;
  export interface Context<T> {
    Provider: FunctionComponent<{ value: T; children?: ComponentChildren }>;
    Consumer: FunctionComponent<{ children: (value: T) => ComponentChildren }>;
    displayName?: string;
  }
  export function h(
    type: any,
    props: Record<string, any> | null,
    ...children: ComponentChildren[]
  ): VNode<any>;
  export function render(vnode: ComponentChild, parent: Element | DocumentFragment): void;
  export const Fragment: FunctionComponent<{ children?: ComponentChildren }>;
  export function createContext<T>(defaultValue: T): Context<T>;
  export const options: Record<string, any>;
}

declare module "*/vendor/hooks.mjs" {
  import type { Context } from "netcfg-ui/vendor/preact.mjs";

  export type StateUpdater<S> = (value: S | ((previous: S) => S)) => void;
  export type Inputs = ReadonlyArray<unknown>;
  export type EffectCallback = () => void | (() => void);

  export function useState<S>(initial: S | (() => S)): [S, StateUpdater<S>];
  export function useState<S = undefined>(): [S | undefined, StateUpdater<S | undefined>];
  export function useReducer<S, A>(
    reducer: (state: S, action: A) => S,
    initial: S,
  ): [S, (action: A) => void];
  export function useReducer<S, A, I>(
    reducer: (state: S, action: A) => S,
    initial: I,
    init: (initial: I) => S,
  ): [S, (action: A) => void];
  export function useEffect(effect: EffectCallback, inputs?: Inputs): void;
  export function useLayoutEffect(effect: EffectCallback, inputs?: Inputs): void;
  export function useRef<T>(initial: T): { current: T };
  export function useRef<T>(initial: T | null): { current: T | null };
  export function useRef<T = undefined>(): { current: T | undefined };
  export function useMemo<T>(factory: () => T, inputs: Inputs | undefined): T;
  export function useCallback<T extends Function>(callback: T, inputs: Inputs): T;
  export function useContext<T>(context: Context<T>): T;
  export function useId(): string;
  export function useErrorBoundary(
    callback?: (error: any, errorInfo: any) => void | Promise<void>,
  ): [any, () => void];
}

declare module "*/vendor/htm.mjs" {
  /** `htm.bind(h)`: a template tag that calls `h` for each element. */
  const htm: {
    bind<Result>(
      h: (type: any, props: Record<string, any> | null, ...children: any[]) => Result,
    ): (strings: TemplateStringsArray, ...values: any[]) => Result | Result[];
  };
  export default htm;
}
