/**
 * Arguments for one function call, as a model writes them: every required
 * field, a few optional ones (none of those whose description says to leave
 * them out, nor a choice left at its stated default), values that fit each field's schema and name — a harmless shell
 * command that fits the request, integers for durations, counts and ids, the
 * places and files the user named. Pure: randomness from the rng only.
 */
import type { FunctionToolParam } from "../spec/index.js";
import { sampleWithin, SAFE_COMMANDS, type BoundedSample } from "./json-schema-sample.js";
import { CALL_BYTES } from "./budgets.js";
import type { Rng } from "./rng.js";
import { filesIn, requestPhrase, requestSentence } from "./tool-pick.js";
import { properNames } from "./words.js";

/** Optional fields that only go with another choice ("Only set if…", "omit otherwise", "Omit unless…"). */
const CONDITIONAL =
  /\bonly (set|use|with|when|if|for)\b|\bomit (otherwise|unless)\b|\bomit\b[^.]*\bunless\b|\bonly available\b/i;

/**
 * An optional choice whose description names its default among its values ("Defaults to
 * `use_default`"): a mode a model leaves alone unless asked. Codex CLI's `exec_command` has
 * `sandbox_permissions` (`use_default` or `require_escalated`): drawing the other value gets the
 * command refused under Codex's default approval policy.
 */
function isDefaultedChoice(schema: { description?: unknown; enum?: unknown }): boolean {
  const { description, enum: values } = schema;
  if (typeof description !== "string" || !Array.isArray(values)) return false;
  const m = /\bdefaults? (?:to|is)\s+[`"']?([\w.-]+)/i.exec(description);
  return m !== null && values.includes(m[1]);
}

/**
 * Chance of one optional field: about 0.3, less when there are many (about
 * 1.5 of them on average), none for conditional ones or a choice with a stated default.
 */
export function optionalChance(_key: string, schema: unknown, optionalCount: number): number {
  if (typeof schema === "object" && schema !== null) {
    const s = schema as { description?: unknown; enum?: unknown };
    if ((typeof s.description === "string" && CONDITIONAL.test(s.description)) || isDefaultedChoice(s)) return 0;
  }
  return Math.min(0.3, 1.5 / Math.max(1, optionalCount));
}

/** Shell metacharacters and commands that change things: a command that has any is not run as given. */
const UNSAFE =
  /[;&|><`$\\]|\b(rm|rmdir|mv|cp|dd|mkfs|sudo|su|chmod|chown|kill|pkill|killall|shutdown|reboot|curl|wget|ssh|scp|tee|truncate|install|uninstall|push|reset|clean|format)\b/i;
const SAFE_FILE = /^[\w@.\/-]+$/;

/** A harmless shell command that fits what the user asked (`ls -la` for "list the files"). */
export function shellCommandFor(text: string, rng: Rng): string {
  // A command the user quoted, when it is read-only.
  for (const m of text.matchAll(/`([^`\n]{1,120})`/g)) {
    const quoted = m[1].trim();
    if (quoted && !UNSAFE.test(quoted) && /^[a-z]/i.test(quoted)) return quoted;
  }
  const t = ` ${text.toLowerCase().replace(/[^\p{L}\p{N}.\/_-]+/gu, " ")} `;
  const has = (...words: string[]) => words.some((w) => t.includes(` ${w} `));
  const files = filesIn(text)
    .filter((f) => SAFE_FILE.test(f) && !f.startsWith("-"))
    .slice(0, 3);
  if (has("git", "commit", "commits", "branch", "diff", "changes", "changed")) {
    if (has("log", "history", "commit", "commits", "recent")) return "git log --oneline -5";
    if (has("diff", "changes", "changed")) return "git diff --stat";
    if (has("branch", "branches")) return "git branch";
    return "git status";
  }
  if (
    files.length > 0 &&
    has("show", "read", "cat", "open", "print", "view", "display", "contents", "content", "what's", "whats", "in")
  )
    return `cat ${files.join(" ")}`;
  if (has("readme")) return "cat README.md";
  if (has("pwd", "cwd") || /where am i|current (directory|folder)|working directory/.test(t)) return "pwd";
  if (has("disk", "space")) return "df -h";
  if (has("date", "time", "clock")) return "date";
  if (has("whoami") || /who am i/.test(t)) return "whoami";
  if (has("list", "ls", "files", "file", "directory", "folder", "dir", "contents", "here", "tree")) return "ls -la";
  return rng.pick(SAFE_COMMANDS);
}

/** The words of the user's message that make plausible free text (longer than two letters). */
const userWords = (text: string) => (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => w.length > 2);

/** A JSON object of arguments for `tool`, from the user's last message and the rng ({} when none fits CALL_BYTES). */
export function toolArguments(
  tool: FunctionToolParam,
  userText: string,
  rng: Rng,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  const sample = toolArgumentsWithin(tool, userText, rng, overrides);
  return sample.ok ? (sample.value as Record<string, unknown>) : {};
}

/** Arguments for `tool` whose JSON fits `maxBytes`, or why there are none (see sampleWithin). */
export function toolArgumentsWithin(
  tool: FunctionToolParam,
  userText: string,
  rng: Rng,
  overrides: Record<string, unknown> = {},
  maxBytes = CALL_BYTES,
): BoundedSample {
  const params = tool.parameters;
  // No schema, or one that does not say what it is: arguments are still an object.
  const schema =
    !params ||
    (params.type === undefined &&
      typeof params.$ref !== "string" &&
      !Array.isArray(params.anyOf) &&
      !Array.isArray(params.oneOf) &&
      !Array.isArray(params.allOf))
      ? { type: "object", properties: {}, ...(params ?? {}) }
      : params;
  const sample = sampleWithin(schema, rng, {
    words: userWords(userText),
    places: properNames(userText),
    phrase: requestPhrase(userText) || undefined,
    sentence: requestSentence(userText),
    command: shellCommandFor(userText, rng),
    optionalChance,
    overrides,
    maxBytes,
  });
  // Arguments are an object, whatever the schema says.
  if (sample.ok && (typeof sample.value !== "object" || sample.value === null || Array.isArray(sample.value)))
    return { ok: true, value: {}, json: "{}" };
  return sample;
}
