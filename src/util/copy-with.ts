/**
 * `{ ...source, ...extra }` — the same keys, order and values — built so that
 * V8 gives every copy of one shape the same hidden class: in V8 11 a spread
 * copy that gains a key gets a map of its own once the code is optimised
 * (docs/decisions.md). An own `"__proto__"` key of `source` (JSON data) stays
 * data, as the spread keeps it; `Object.assign` would make it the copy's
 * prototype, so such a source is spread.
 */
export function copyWith<T extends object, E extends object>(source: T, extra: E): T & E {
  return Object.hasOwn(source, "__proto__") ? { ...source, ...extra } : Object.assign({}, source, extra);
}
