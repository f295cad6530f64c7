// A table that stays fast with tens of thousands of rows: only the rows in
// view (and a few around them) are in the page; the rest are two spacer
// rows of the right height (virtual scrolling). Headers sort (the caller
// owns the order, so it can keep it in the URL); an optional first column
// of checkboxes selects rows.

import { html, useState, useRef, useEffect, useLayoutEffect, useMemo } from "./html.js";

/**
 * @template R
 * @typedef {object} Column
 * @property {string} key                       its sort key (also the URL's `sort`)
 * @property {string} label                     the header's text
 * @property {(row: R) => any} [value]          what it sorts by (a number or a string); none: not sortable
 * @property {(row: R) => any} [render]         the cell; default: `value(row)`
 * @property {string} [className]               class of its cells (e.g. "number")
 * @property {string} [width]                   CSS width of its column
 */

/**
 * A string's sort key, so that plain comparison orders as people expect:
 * case ignored, "A2" before "A10" (each run of digits padded). Plain
 * comparison of these keys is several times faster than Intl.Collator.
 * @param {string} text
 */
function naturalKey(text) {
  return text.toLowerCase().replace(/\d+/g, (digits) => digits.replace(/^0+(?=\d)/, "").padStart(12, "0"));
}

/**
 * The rows sorted by a column (stable; empty values last), without
 * changing `rows`. Each row's key is computed once, so sorting 10,000 rows
 * takes a few milliseconds.
 * @template R
 * @param {R[]} rows
 * @param {Column<R> | undefined} column
 * @param {boolean} descending
 * @returns {R[]}
 */
export function sortRows(rows, column, descending) {
  if (!column || !column.value) return rows;
  const get = column.value;
  const keyed = rows.map((row, index) => {
    const key = get(row);
    return { row, index, key: typeof key === "string" && key !== "" ? naturalKey(key) : key };
  });
  const direction = descending ? -1 : 1;
  keyed.sort((a, b) => {
    const emptyA = a.key === undefined || a.key === null || a.key === "";
    const emptyB = b.key === undefined || b.key === null || b.key === "";
    if (emptyA || emptyB) return emptyA === emptyB ? a.index - b.index : emptyA ? 1 : -1;
    let order;
    if (typeof a.key === "number" && typeof b.key === "number") order = a.key - b.key;
    else {
      const left = String(a.key);
      const right = String(b.key);
      order = left < right ? -1 : left > right ? 1 : 0;
    }
    return order !== 0 ? order * direction : a.index - b.index;
  });
  return keyed.map((entry) => entry.row);
}

/**
 * Parses a URL's `sort` value: `name` (ascending) or `-name` (descending).
 * @param {string | null} text
 * @param {string} fallback
 */
export function parseSort(text, fallback) {
  const value = text || fallback;
  return value.startsWith("-") ? { key: value.slice(1), descending: true } : { key: value, descending: false };
}

/**
 * The `sort` value after a click on a column's header: ascending first,
 * then descending.
 * @param {{key: string, descending: boolean}} current
 * @param {string} key
 */
export function nextSort(current, key) {
  if (current.key === key && !current.descending) return `-${key}`;
  return key;
}

/**
 * The rows a virtual table puts in the page: those in view, scrolled
 * `scrollTop` pixels down a viewport `viewport` pixels high, and `overscan`
 * more on each side; the rest are spacers.
 * @param {number} count       rows in all
 * @param {number} scrollTop
 * @param {number} viewport
 * @param {number} rowHeight
 * @param {number} overscan
 * @returns {{first: number, last: number}}  rows first (inclusive) to last (exclusive)
 */
export function visibleRows(count, scrollTop, viewport, rowHeight, overscan) {
  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - overscan);
  const last = Math.min(count, Math.ceil((scrollTop + viewport) / rowHeight) + overscan);
  return { first, last };
}

/**
 * One page of a list paged on the client: the page the URL's `page` asks
 * for (1 when absent or not a number, a fraction's whole part; the last
 * when past it), the number
 * of pages (at least 1), and the page's items.
 * @template T
 * @param {T[]} items
 * @param {string | null} pageText
 * @param {number} size
 * @returns {{page: number, pages: number, shown: T[]}}
 */
export function pageOf(items, pageText, size) {
  const pages = Math.max(1, Math.ceil(items.length / size));
  const page = Math.min(pages, Math.max(1, Math.trunc(Number(pageText)) || 1));
  return { page, pages, shown: items.slice((page - 1) * size, page * size) };
}

/**
 * @template R
 * @typedef {{
 *   rows: R[],
 *   columns: Column<R>[],
 *   rowKey: (row: R) => string,
 *   sort?: {key: string, descending: boolean},
 *   onSort?: (key: string) => void,
 *   selected?: Set<string>,
 *   onSelect?: (next: Set<string>) => void,
 *   selectLabel?: (row: R) => string,
 *   label: string,
 *   rowHeight?: number,
 *   maxHeight?: string,
 *   empty?: any,
 * }} TableProps
 */

/**
 * The rows in view of a scrolling element of rows, `count` of them: the
 * viewport's height follows the element's, and the row height is measured
 * on a real row (`tr[data-row]`) after each render, so the spacers match
 * whatever the styles make. Scrolling re-renders at most once a frame.
 * @param {{current: HTMLDivElement | null}} scroller
 * @param {number} count
 * @param {number} initialRowHeight
 */
function useVirtualRows(scroller, count, initialRowHeight) {
  const overscan = 8;
  const [scrollTop, setScrollTop] = useState(0);
  const [viewport, setViewport] = useState(600);
  const [rowHeight, setRowHeight] = useState(initialRowHeight);
  const frame = useRef(0);

  useEffect(() => {
    const element = scroller.current;
    if (!element) return undefined;
    const observer = new ResizeObserver(() => setViewport(element.clientHeight || 600));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);

  // Measures a real row, so the spacers match whatever the styles make.
  useLayoutEffect(() => {
    const row = scroller.current?.querySelector("tbody tr[data-row]");
    if (row) {
      const height = /** @type {HTMLElement} */ (row).getBoundingClientRect().height;
      if (height > 0 && Math.abs(height - rowHeight) > 0.5) setRowHeight(height);
    }
  });

  const onScroll = () => {
    if (frame.current) return;
    frame.current = requestAnimationFrame(() => {
      frame.current = 0;
      setScrollTop(scroller.current?.scrollTop || 0);
    });
  };
  useEffect(() => () => cancelAnimationFrame(frame.current), []);

  const { first, last } = visibleRows(count, scrollTop, viewport, rowHeight, overscan);
  return { first, last, rowHeight, onScroll };
}

/**
 * The header row's cells: the select-all box (when rows can be selected),
 * then each column's label, a button that sorts when the column sorts.
 * @template R
 * @param {TableProps<R>} props
 * @param {{allChecked: boolean, someChecked: boolean, toggleAll: (event: Event) => void}} selection
 */
function headerCells({ columns, sort, onSort, selected }, { allChecked, someChecked, toggleAll }) {
  return html`${selected && html`<th style=${{ width: "4.5rem" }}>
            <label style=${{ display: "flex", gap: ".3rem", alignItems: "center", fontWeight: 600 }}>
              <input type="checkbox" checked=${allChecked}
                ref=${(/** @type {HTMLInputElement | null} */ element) => {
                  if (element) element.indeterminate = someChecked;
                }}
                onChange=${toggleAll} />
              All
            </label>
          </th>`}
          ${columns.map((column) => {
            const active = sort && sort.key === column.key;
            const ariaSort = active ? (sort.descending ? "descending" : "ascending") : column.value && onSort ? "none" : undefined;
            return html`<th class=${column.className || ""} aria-sort=${ariaSort} style=${column.width ? { width: column.width } : undefined}>
              ${column.value && onSort
                ? html`<button type="button" class="sort" onClick=${() => onSort(column.key)}>
                    ${column.label}<span aria-hidden="true">${active ? (sort.descending ? " ▼" : " ▲") : ""}</span>
                  </button>`
                : column.label}
            </th>`;
          })}`;
}

/**
 * One body row: its checkbox (when rows can be selected), then its cells.
 * @template R
 * @param {TableProps<R>} props
 * @param {R} row
 * @param {number} index  its index among all rows
 * @param {(key: string, on: boolean) => void} toggle
 */
function bodyRow({ columns, rowKey, selected, selectLabel }, row, index, toggle) {
  const key = rowKey(row);
  const isSelected = selected?.has(key);
  return html`<tr key=${key} data-row=${key} aria-rowindex=${index + 2} class=${isSelected ? "selected" : ""}>
            ${selected && html`<td>
              <input type="checkbox" checked=${isSelected} aria-label=${selectLabel ? selectLabel(row) : `Select ${key}`}
                onChange=${(/** @type {Event} */ event) => toggle(key, /** @type {HTMLInputElement} */ (event.target).checked)} />
            </td>`}
            ${columns.map((column) => html`<td class=${column.className || ""} style=${{ whiteSpace: "nowrap" }}>
              ${column.render ? column.render(row) : column.value ? column.value(row) : ""}
            </td>`)}
          </tr>`;
}

/**
 * @template R
 * @param {TableProps<R>} props
 */
export function DataTable(props) {
  const { rows, columns, rowKey, selected, onSelect, label } = props;
  const scroller = useRef(/** @type {HTMLDivElement | null} */ (null));
  const { first, last, rowHeight, onScroll } = useVirtualRows(scroller, rows.length, props.rowHeight || 37);
  const shown = rows.slice(first, last);
  const columnCount = columns.length + (selected ? 1 : 0);

  const allKeys = useMemo(() => (selected ? rows.map(rowKey) : []), [rows, Boolean(selected)]);
  const selectedShown = selected ? allKeys.reduce((count, key) => count + (selected.has(key) ? 1 : 0), 0) : 0;
  const allChecked = rows.length > 0 && selectedShown === rows.length;

  /** @param {Event} event */
  const toggleAll = (event) => {
    if (!selected || !onSelect) return;
    const next = new Set(selected);
    if (/** @type {HTMLInputElement} */ (event.target).checked) for (const key of allKeys) next.add(key);
    else for (const key of allKeys) next.delete(key);
    onSelect(next);
  };
  /** @param {string} key @param {boolean} on */
  const toggle = (key, on) => {
    if (!selected || !onSelect) return;
    const next = new Set(selected);
    if (on) next.add(key);
    else next.delete(key);
    onSelect(next);
  };

  const spacer = (/** @type {number} */ height) =>
    height > 0 && html`<tr aria-hidden="true" class="spacer"><td colspan=${columnCount} style=${{ height: `${height}px`, padding: 0, border: 0 }}></td></tr>`;

  return html`<div class="table-wrap" ref=${scroller} onScroll=${onScroll} tabindex="0" role="region" aria-label=${label}
      style=${{ maxHeight: props.maxHeight || "65vh", overflowY: "auto" }}>
    <table aria-rowcount=${rows.length + 1}>
      <thead>
        <tr aria-rowindex="1">
          ${headerCells(props, { allChecked, someChecked: selectedShown > 0 && !allChecked, toggleAll })}
        </tr>
      </thead>
      <tbody>
        ${spacer(first * rowHeight)}
        ${shown.map((row, offset) => bodyRow(props, row, first + offset, toggle))}
        ${spacer((rows.length - last) * rowHeight)}
        ${rows.length === 0 && html`<tr><td colspan=${columnCount} class="muted">${props.empty || "Nothing to show."}</td></tr>`}
      </tbody>
    </table>
  </div>`;
}
