/**
 * Ids are unique per answer of a server (the k-th identical request gets the
 * ids of "request + k"), so two answers to the same request differ in their
 * ids, and in what derives from them (obfuscation padding, encrypted
 * content). `withoutIds` replaces each id by a placeholder numbered in order
 * of first appearance, so answers that are otherwise the same compare equal.
 */
const ID = /^[a-z]+_[A-Za-z0-9]{16,}$/;
const DERIVED = new Set(["obfuscation", "encrypted_content"]);

export function withoutIds<T>(value: T): T {
  const names = new Map<string, string>();
  const walk = (v: unknown, key?: string): unknown => {
    if (typeof v === "string") {
      if (key !== undefined && DERIVED.has(key)) return `<${key}>`;
      if (!ID.test(v)) return v;
      if (!names.has(v)) names.set(v, `<${v.slice(0, v.indexOf("_"))}#${names.size}>`);
      return names.get(v);
    }
    if (Array.isArray(v)) return v.map((x) => walk(x));
    if (v !== null && typeof v === "object")
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, k)]));
    return v;
  };
  return walk(value) as T;
}
