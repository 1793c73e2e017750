/**
 * A small JSON Schema check for tests: the keywords the sampler supports
 * (types, enum/const, anyOf/oneOf/allOf, $ref, bounds, lengths, patterns,
 * formats, items, required, additionalProperties). Returns error messages.
 */
export type S = Record<string, unknown>;
export const isObj = (v: unknown): v is S => typeof v === "object" && v !== null && !Array.isArray(v);
export const canon = (v: unknown): string =>
  JSON.stringify(v, (_k, x: unknown) =>
    isObj(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => a.localeCompare(b))) : x,
  );

const FORMATS: Record<string, RegExp> = {
  date: /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/,
  "date-time": /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/,
  time: /^([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/,
  email: /^[^\s@]+@[^\s@]+\.[a-z]{2,}$/i,
  uri: /^[a-z][a-z0-9+.-]*:\/\/[^\s]+$/i,
  url: /^https?:\/\/[^\s]+$/i,
  uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[1-5][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i,
  ipv4: /^((25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(25[0-5]|2[0-4]\d|1?\d?\d)$/,
  hostname: /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i,
};

function typeOk(t: string, v: unknown): boolean {
  switch (t) {
    case "null":
      return v === null;
    case "boolean":
      return typeof v === "boolean";
    case "integer":
      return Number.isInteger(v);
    case "number":
      return typeof v === "number" && Number.isFinite(v);
    case "string":
      return typeof v === "string";
    case "array":
      return Array.isArray(v);
    case "object":
      return isObj(v);
    default:
      return false;
  }
}

/** Small validator for the keywords the sampler supports; returns error messages. */
export function validate(schema: unknown, v: unknown, root: unknown = schema, path = "$"): string[] {
  if (schema === true || schema === undefined) return [];
  if (schema === false) return [`${path}: false schema`];
  if (!isObj(schema)) return [];
  const s = schema;
  const errs: string[] = [];
  const err = (m: string) => errs.push(`${path}: ${m} (${JSON.stringify(v)})`);
  if (typeof s.$ref === "string") {
    let node: unknown = root;
    for (const seg of s.$ref.slice(1).split("/").slice(1)) node = (node as S)[seg];
    errs.push(...validate(node, v, root, path));
  }
  if (v === null && s.nullable === true) return errs;
  if (s.type !== undefined) {
    const types = Array.isArray(s.type) ? s.type : [s.type];
    if (!types.some((t) => typeOk(t as string, v))) err(`type ${JSON.stringify(s.type)}`);
  }
  if ("const" in s && canon(s.const) !== canon(v)) err("const");
  if (Array.isArray(s.enum) && !s.enum.some((e) => canon(e) === canon(v))) err("enum");
  for (const kw of ["anyOf", "oneOf"]) {
    const branches = s[kw];
    if (Array.isArray(branches) && !branches.some((b) => validate(b, v, root, path).length === 0)) err(kw);
  }
  if (Array.isArray(s.allOf)) for (const b of s.allOf) errs.push(...validate(b, v, root, path));

  if (typeof v === "number") {
    const n = (k: string) => (typeof s[k] === "number" ? (s[k] as number) : undefined);
    const min = n("minimum"),
      max = n("maximum"),
      xmin = n("exclusiveMinimum"),
      xmax = n("exclusiveMaximum"),
      mult = n("multipleOf");
    if (min !== undefined && (s.exclusiveMinimum === true ? v <= min : v < min)) err("minimum");
    if (max !== undefined && (s.exclusiveMaximum === true ? v >= max : v > max)) err("maximum");
    if (xmin !== undefined && v <= xmin) err("exclusiveMinimum");
    if (xmax !== undefined && v >= xmax) err("exclusiveMaximum");
    if (mult !== undefined && Math.abs(v / mult - Math.round(v / mult)) > 1e-9) err("multipleOf");
  }
  if (typeof v === "string") {
    const len = Array.from(v).length;
    if (typeof s.minLength === "number" && len < s.minLength) err("minLength");
    if (typeof s.maxLength === "number" && len > s.maxLength) err("maxLength");
    if (typeof s.pattern === "string" && !new RegExp(s.pattern, "u").test(v)) err(`pattern ${s.pattern}`);
    if (typeof s.format === "string" && FORMATS[s.format] && !FORMATS[s.format].test(v)) err(`format ${s.format}`);
  }
  if (Array.isArray(v)) {
    if (typeof s.minItems === "number" && v.length < s.minItems) err("minItems");
    if (typeof s.maxItems === "number" && v.length > s.maxItems) err("maxItems");
    if (s.uniqueItems === true && new Set(v.map(canon)).size !== v.length) err("uniqueItems");
    const prefix = Array.isArray(s.prefixItems) ? s.prefixItems : [];
    v.forEach((x, i) => {
      const item = i < prefix.length ? prefix[i] : s.items;
      errs.push(...validate(item, x, root, `${path}[${i}]`));
    });
  }
  if (isObj(v)) {
    const props = isObj(s.properties) ? s.properties : {};
    for (const r of Array.isArray(s.required) ? s.required : [])
      if (!Object.hasOwn(v, r as string)) err(`required ${String(r)}`);
    for (const [k, x] of Object.entries(v)) {
      if (Object.hasOwn(props, k)) errs.push(...validate(props[k], x, root, `${path}.${k}`));
      else if (s.additionalProperties === false) err(`additional property ${k}`);
    }
  }
  return errs;
}
