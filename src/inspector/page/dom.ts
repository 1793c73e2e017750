/**
 * Small DOM helpers: an element builder (text is always set as text, never as
 * HTML, so nothing from a request can inject markup) and the collapsible JSON view.
 */

type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | null | undefined | ((e: Event) => void)>;

/** Creates an element: `h("button", { type: "button", onclick }, "Clear")`. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

const SVG_NS = "http://www.w3.org/2000/svg";

/** Creates an SVG element. */
export function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG_NS, tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

function setAttrs(el: Element, attrs: Attrs): void {
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (typeof v === "function") el.addEventListener(k.replace(/^on/, ""), v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
}

function append(el: Element, children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.append(typeof c === "number" ? String(c) : c);
  }
}

/** The element with this id, which the page's HTML holds. */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`The inspector's page has no #${id}`);
  return el as T;
}

/** Objects and arrays with more entries than this start collapsed (below the first level). */
const OPEN_UP_TO = 12;

/**
 * JSON, pretty and collapsible: each object and array is a `<details>` (keyboard
 * and screen-reader friendly as it is), strings and numbers coloured by type.
 */
export function jsonView(value: unknown, depth = 0, key?: string): HTMLElement {
  const label = key === undefined ? null : h("span", { class: "j-key" }, JSON.stringify(key), ": ");
  if (value === null || typeof value !== "object") {
    return h("div", { class: "j-line" }, label, scalar(value));
  }
  const isArray = Array.isArray(value);
  const entries = isArray
    ? value.map((v, i) => [String(i), v] as const)
    : Object.entries(value as Record<string, unknown>);
  const [open, close] = isArray ? ["[", "]"] : ["{", "}"];
  if (entries.length === 0)
    return h("div", { class: "j-line" }, label, h("span", { class: "j-punct" }, `${open}${close}`));
  const summary = h(
    "summary",
    {},
    label,
    h("span", { class: "j-punct" }, open),
    h(
      "span",
      { class: "j-count" },
      ` ${entries.length} ${isArray ? (entries.length === 1 ? "item" : "items") : entries.length === 1 ? "key" : "keys"} `,
    ),
    h("span", { class: "j-punct j-closed" }, close),
  );
  const details = h("details", { class: "j-node", open: depth === 0 || entries.length <= OPEN_UP_TO }, summary);
  const body = h("div", { class: "j-body" });
  for (const [k, v] of entries) body.append(jsonView(v, depth + 1, isArray ? undefined : k));
  details.append(body, h("div", { class: "j-punct j-end" }, close));
  return details;
}

function scalar(value: unknown): HTMLElement {
  if (typeof value === "string") return h("span", { class: "j-str" }, JSON.stringify(value));
  if (typeof value === "number") return h("span", { class: "j-num" }, String(value));
  if (typeof value === "boolean") return h("span", { class: "j-bool" }, String(value));
  return h("span", { class: "j-null" }, "null");
}

/** Copies text to the clipboard; false when the browser refuses (no permission, not a secure context). */
export async function copyText(text: string): Promise<boolean> {
  try {
    if (!navigator.clipboard) return false;
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

/** Saves a blob as a file download. */
export function download(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const a = h("a", { href: url, download: filename, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
