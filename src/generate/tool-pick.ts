/**
 * Which function calls `auto` makes, the way a model would: the tool the
 * user's words point at (by name, or by the words of its name and
 * description), once per thing the user names ("Paris and Tokyo" → two
 * calls), several tools only when the user's words name several. Pure: the
 * rng is the only source of choice.
 */
import type { FunctionToolParam } from "../spec/index.js";
import { MAX_CALLS } from "./budgets.js";
import type { Rng } from "./rng.js";
import { properNames } from "./words.js";

/** One call to make: the tool and the top-level argument values it must carry. */
export interface PlannedCall {
  tool: FunctionToolParam;
  overrides: Record<string, unknown>;
}

export interface PickOptions {
  /** The user's last message. */
  text: string;
  /** `parallel_tool_calls` (default true). */
  parallel: boolean;
  /** `max_tool_calls`, when given. */
  maxCalls?: number | null;
}

const STOPWORDS = new Set(
  (
    "a an the and or but of in on at to for from with by about into over as is are was were be been being am it its this that these those " +
    "what whats which who whom whose when where why how do does did done can could would should will shall may might must have has had " +
    "i me my mine we us our you your he him his she her they them their there here now today please thanks thank just also then than so " +
    "if not no yes up out some any all each every one two like tell give let want need get set use using used call tool tools function " +
    "returns return returning only otherwise default defaults s t ll re ve d m"
  ).split(" "),
);

/** A few words that mean the same to a tool picker, folded on both sides. */
const SYNONYMS: Record<string, string> = {
  execute: "exec",
  run: "exec",
  runs: "exec",
  running: "exec",
  executes: "exec",
  picture: "image",
  photo: "image",
  screenshot: "image",
  img: "image",
  png: "image",
  jpg: "image",
  folder: "dir",
  directory: "dir",
  directories: "dir",
  folders: "dir",
  find: "search",
  lookup: "search",
  look: "search",
  searching: "search",
  forecast: "weather",
  temperature: "weather",
  mail: "email",
  emails: "email",
};

/** Words that ask for something a shell does: running, listing, showing files. */
const SHELL_INTENT = new Set(
  (
    "exec command shell terminal bash list ls show print display file files dir cat git status diff log build test tests install compile " +
    "lint grep search pwd cwd repo repository project code package npm make script output contents content check"
  )
    .split(" ")
    .map(stem),
);
/** Tool name words of a shell/exec tool. */
const SHELL_TOOL = new Set(["exec", "shell", "bash", "command", "terminal", "cmd", "sh", "powershell", "zsh"]);
const READ_ONLY = new Set([
  "get",
  "list",
  "search",
  "read",
  "view",
  "fetch",
  "lookup",
  "query",
  "show",
  "describe",
  "find",
  "check",
]);
const MUTATING = new Set([
  "delete",
  "remove",
  "close",
  "kill",
  "cancel",
  "stop",
  "pause",
  "update",
  "create",
  "write",
  "send",
  "resume",
  "drop",
  "reset",
  "spawn",
]);
/** Descriptions of tools a model only calls when told to. */
const RESERVED =
  /\bonly available\b|\bonly when (explicitly|the user)\b|\bdo not infer\b|\bonly (if|when) (explicitly )?requested\b/i;

/** Light stemming so "files" meets "file" and "listing" meets "list". */
function stem(word: string): string {
  let w = word.toLowerCase();
  if (Object.hasOwn(SYNONYMS, w)) return SYNONYMS[w];
  if (w.length > 5 && w.endsWith("ing")) w = w.slice(0, -3);
  else if (w.length > 4 && w.endsWith("ies")) w = w.slice(0, -3) + "y";
  else if (w.length > 4 && w.endsWith("ed")) w = w.slice(0, -2);
  else if (w.length > 3 && w.endsWith("s") && !w.endsWith("ss")) w = w.slice(0, -1);
  return Object.hasOwn(SYNONYMS, w) ? SYNONYMS[w] : w;
}

const rawWords = (text: string): string[] => text.match(/[\p{L}\p{N}]+/gu) ?? [];

/** The meaningful words of a text, stemmed. */
export function contentWords(text: string): string[] {
  return rawWords(text)
    .map((w) => w.toLowerCase())
    .filter((w) => !STOPWORDS.has(w))
    .map(stem);
}

/** `get_weather`, `getWeather`, `get-weather` → ["get", "weather"]. */
export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Za-z])([0-9])/g, "$1 $2")
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
}

/** The user's request in a few words, stopwords dropped, case kept: "weather Paris Tokyo". */
export function requestPhrase(text: string, max = 6): string {
  return rawWords(text)
    .filter((w) => w.length <= 40 && !STOPWORDS.has(w.toLowerCase()))
    .slice(0, max)
    .join(" ");
}

/** The user's request as one short line of prose (for `objective`, `prompt`, `task`...), or undefined. */
export function requestSentence(text: string, max = 120): string | undefined {
  const flat = text
    .replace(/\s+/g, " ")
    .trim()
    .replace(/[.?!]+$/, "");
  if (!flat) return undefined;
  const cut = flat.length > max ? flat.slice(0, max).replace(/\s+\S*$/, "") : flat;
  return cut.charAt(0).toUpperCase() + cut.slice(1);
}

/** ASCII letters lowercased, nothing else changed (positions stay the same). */
const asciiLower = (s: string) => s.replace(/[A-Z]+/g, (m) => m.toLowerCase());

const LETTER_OR_DIGIT = /^[\p{L}\p{N}]$/u;
const SPACE = /^\s$/u;
const isAsciiAlnum = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);

/** The code point that ends just before `i` (its start and text), or undefined at the start. */
function before(text: string, i: number): { at: number; ch: string } | undefined {
  if (i <= 0) return undefined;
  const at =
    i >= 2 && (text.charCodeAt(i - 1) & 0xfc00) === 0xdc00 && (text.charCodeAt(i - 2) & 0xfc00) === 0xd800
      ? i - 2
      : i - 1;
  return { at, ch: text.slice(at, i) };
}

/** Whether a code point is a letter or digit (or `_`, when it counts). */
function isWordChar(ch: string | undefined, underscore: boolean): boolean {
  if (ch === undefined || ch === "") return false;
  const c = ch.charCodeAt(0);
  if (c < 128) return isAsciiAlnum(c) || (underscore && c === 95);
  return LETTER_OR_DIGIT.test(ch);
}

const codePointAt = (text: string, i: number): string | undefined =>
  i < text.length ? String.fromCodePoint(text.codePointAt(i)!) : undefined;

/**
 * Where the user's text names a tool — its identifier between non-word
 * characters, or its words in a row joined by spaces, `_` or `-` — or -1 (the
 * index of the character before the name, as a regex with a leading
 * `(^|[^\p{L}\p{N}_])` gives it). Case-insensitive for ASCII. Plain scans: a
 * Unicode regex per tool costs about a millisecond to compile.
 */
function mentionAt(tool: FunctionToolParam, text: string, lower: string): number {
  const name = asciiLower(tool.name);
  for (let at = lower.indexOf(name); at >= 0 && name.length > 0; at = lower.indexOf(name, at + 1)) {
    const prev = before(text, at);
    if (isWordChar(prev?.ch, true) || isWordChar(codePointAt(text, at + name.length), true)) continue;
    return prev ? prev.at : 0;
  }
  const parts = nameWords(tool.name);
  if (parts.length < 2) return -1;
  for (let at = lower.indexOf(parts[0]); at >= 0; at = lower.indexOf(parts[0], at + 1)) {
    const prev = before(text, at);
    if (isWordChar(prev?.ch, false)) continue;
    let pos = at + parts[0].length;
    let ok = true;
    for (const part of parts.slice(1)) {
      const from = pos;
      for (
        let ch = codePointAt(text, pos);
        ch !== undefined && (ch === "_" || ch === "-" || SPACE.test(ch));
        ch = codePointAt(text, pos)
      )
        pos += ch.length;
      if (pos === from || !lower.startsWith(part, pos)) {
        ok = false;
        break;
      }
      pos += part.length;
    }
    if (ok && !isWordChar(codePointAt(text, pos), false)) return prev ? prev.at : 0;
  }
  return -1;
}

interface Scored {
  tool: FunctionToolParam;
  score: number;
  /** User words that the tool's name matches. */
  nameHits: Set<string>;
  mention: number;
  weight: number;
}

function score(tool: FunctionToolParam, user: Set<string>, text: string, lower: string, named: NamedThings): Scored {
  const names = nameWords(tool.name)
    .filter((w) => !STOPWORDS.has(w))
    .map(stem);
  const desc = new Set(contentWords(tool.description ?? ""));
  const nameHits = new Set(names.filter((w) => user.has(w)));
  const descHits = [...desc].filter((w) => user.has(w) && !nameHits.has(w)).length;
  const shellTool = names.some((w) => SHELL_TOOL.has(w));
  const shellAsked = [...user].some((w) => SHELL_INTENT.has(w));
  const reserved = RESERVED.test(tool.description ?? "");
  const mention = mentionAt(tool, text, lower);
  let s = 3 * nameHits.size + Math.min(descHits, 3) + (shellTool && shellAsked ? 2 : 0) - (reserved ? 2 : 0);
  if (mention >= 0) s += 100;
  // With no signal at all: prefer a shell tool, then read-only tools; rarely reserved or mutating ones,
  // ones that need the id of something earlier calls made (write_stdin's session_id), or a file or
  // URL the user did not give (view_image's path).
  const all = nameWords(tool.name);
  const kind = reserved
    ? 0.1
    : shellTool
      ? 6
      : all.some((w) => READ_ONLY.has(w))
        ? 1.5
        : all.some((w) => MUTATING.has(w))
          ? 0.4
          : 1;
  const weight =
    kind * (requiresId(tool) ? 0.2 : 1) * (requiresTarget(tool) && !namedTargets(tool, text, named) ? 0.2 : 1);
  return { tool, score: s, nameHits, mention, weight };
}

function requiresId(tool: FunctionToolParam): boolean {
  const required = isObj(tool.parameters) && Array.isArray(tool.parameters.required) ? tool.parameters.required : [];
  return required.some((k) => typeof k === "string" && /(^|_)ids?$|Ids?$/.test(k));
}

function requiresTarget(tool: FunctionToolParam): boolean {
  const required = isObj(tool.parameters) && Array.isArray(tool.parameters.required) ? tool.parameters.required : [];
  return required.some((k) => typeof k === "string" && (FILE_KEY.test(snake(k)) || URL_KEY.test(snake(k))));
}

function weightedPick<T extends { weight: number }>(list: T[], rng: Rng): T {
  const total = list.reduce((a, b) => a + b.weight, 0);
  let x = rng.next() * total;
  for (const item of list) {
    x -= item.weight;
    if (x < 0) return item;
  }
  return list[list.length - 1];
}

/** The tools to call: the best match (ties by the seed), plus others the user's words name separately. */
export function pickTools(tools: FunctionToolParam[], text: string, rng: Rng): FunctionToolParam[] {
  if (tools.length === 0) return [];
  const user = new Set(contentWords(text));
  const lower = asciiLower(text);
  const named = namedThings(text);
  const scored = tools.map((t) => score(t, user, text, lower, named));
  const best = Math.max(...scored.map((s) => s.score));
  const first = best > 0 ? rng.pick(scored.filter((s) => s.score === best)) : weightedPick(scored, rng);
  const chosen = [first];
  const claimed = new Set(first.nameHits);
  // Other tools the user names: by identifier, or by a name word no chosen tool has claimed yet
  // ("weather and time" → get_weather and get_time; "update the goal" → update_goal only).
  const rest = scored
    .filter((s) => s !== first)
    .sort((a, b) => (b.mention >= 0 ? 1 : 0) - (a.mention >= 0 ? 1 : 0) || b.score - a.score);
  for (const s of rest) {
    const fresh = [...s.nameHits].filter((w) => !claimed.has(w));
    if (s.mention >= 0 || (fresh.length > 0 && s.score >= 3)) {
      chosen.push(s);
      for (const w of s.nameHits) claimed.add(w);
    }
  }
  // In the order the user's words name them (by identifier or by a word of the name).
  const at = (s: Scored) => {
    if (s.mention >= 0) return s.mention;
    for (const m of text.matchAll(/[\p{L}\p{N}]+/gu))
      if (!STOPWORDS.has(m[0].toLowerCase()) && s.nameHits.has(stem(m[0]))) return m.index;
    return text.length + chosen.indexOf(s);
  };
  return chosen.sort((a, b) => at(a) - at(b)).map((s) => s.tool);
}

/**
 * The tools the user's words name (by identifier or a word of the name), with
 * no fallback: what else to call when a hosted tool already answers the turn.
 */
export function pointedTools(tools: FunctionToolParam[], text: string): FunctionToolParam[] {
  const user = new Set(contentWords(text));
  const lower = asciiLower(text);
  const named = namedThings(text);
  return tools.filter((t) => {
    const s = score(t, user, text, lower, named);
    return s.nameHits.size > 0 || s.mention >= 0;
  });
}

// ---- things the user names: one call each ---------------------------------------------------

const URL_RE = /https?:\/\/[^\s)'"<>\]]+/g;
const FILE_RE = /(?:\.{1,2}\/)?(?:[\w@-]+\/)*[\w@-]+\.[A-Za-z][A-Za-z0-9]{0,5}\b/g;

/** Longer URLs and file names are not taken from the user's text. */
const MAX_TARGET = 2_048;

/** URLs in a text, without trailing punctuation. */
export function urlsIn(text: string): string[] {
  return unique(
    (text.match(URL_RE) ?? []).map((u) => u.replace(/[.,;:!?]+$/, "")).filter((u) => u.length <= MAX_TARGET),
  );
}

/** File names and relative paths in a text (`README.md`, `src/index.ts`), URLs left out. */
export function filesIn(text: string): string[] {
  // "e.g" and "i.e" are not files; a one-letter name is one only inside a folder ("docs/a.png").
  return unique(
    (text.replace(URL_RE, " ").match(FILE_RE) ?? []).filter((f) => /\/|^[^.]{2,}\./.test(f) && f.length <= MAX_TARGET),
  );
}

function unique(list: string[]): string[] {
  return [...new Set(list)];
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** A property any plain string fits (no enum, format or pattern), so a named thing can go in it. */
function plainString(schema: unknown): boolean {
  if (!isObj(schema)) return false;
  if (
    schema.type !== undefined &&
    schema.type !== "string" &&
    !(Array.isArray(schema.type) && schema.type.includes("string"))
  )
    return false;
  if (schema.type === undefined && (isObj(schema.properties) || "items" in schema)) return false;
  return (
    !["enum", "const", "format", "pattern", "$ref", "anyOf", "oneOf", "allOf"].some((k) => k in schema) &&
    typeof schema.maxLength !== "number"
  );
}

const snake = (key: string) =>
  key
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/[-\s.]+/g, "_")
    .toLowerCase();
const PLACE_KEY = /(^|_)(cit(y|ies)|location|place|town|destination|region)$/;
const FILE_KEY = /(^|_)(path|file|filename|file_name|filepath|file_path)$/;
const URL_KEY = /(^|_)(url|uri|link)$/;

/** The places, files and URLs a text names, each found once (on first use) however many tools ask. */
interface NamedThings {
  places(): string[];
  files(): string[];
  urls(): string[];
}

function namedThings(text: string): NamedThings {
  const once = <T>(f: () => T) => {
    let value: T | undefined;
    return () => (value ??= f());
  };
  return { places: once(() => properNames(text)), files: once(() => filesIn(text)), urls: once(() => urlsIn(text)) };
}

/** The top-level property that takes the things the user names, and those things (places, files, URLs). */
export function namedTargets(
  tool: FunctionToolParam,
  text: string,
  named = namedThings(text),
): { key: string; values: string[] } | undefined {
  const params = tool.parameters;
  const props = isObj(params) && isObj(params.properties) ? params.properties : {};
  const required = new Set(isObj(params) && Array.isArray(params.required) ? params.required : []);
  const keys = Object.keys(props).sort((a, b) => Number(required.has(b)) - Number(required.has(a)));
  for (const key of keys) {
    if (!plainString(props[key])) continue;
    const k = snake(key);
    const values = PLACE_KEY.test(k)
      ? named.places()
      : FILE_KEY.test(k)
        ? named.files()
        : URL_KEY.test(k)
          ? named.urls()
          : [];
    if (values.length > 0) return { key, values };
  }
  return undefined;
}

/**
 * The calls to make: each chosen tool once per thing the user names for it,
 * capped by `max_tool_calls` and MAX_CALLS; a single call when parallel calls are off.
 */
export function planToolCalls(tools: FunctionToolParam[], options: PickOptions, rng: Rng): PlannedCall[] {
  const calls: PlannedCall[] = [];
  const named = namedThings(options.text);
  for (const tool of pickTools(tools, options.text, rng)) {
    const targets = namedTargets(tool, options.text, named);
    if (!targets) calls.push({ tool, overrides: {} });
    else for (const value of targets.values) calls.push({ tool, overrides: { [targets.key]: value } });
  }
  const cap = options.parallel
    ? Math.min(MAX_CALLS, options.maxCalls && options.maxCalls > 0 ? options.maxCalls : Infinity)
    : 1;
  return calls.slice(0, cap);
}
