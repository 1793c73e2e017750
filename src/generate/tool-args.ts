/**
 * Arguments for one function call, as a model writes them: every required
 * field, a few optional ones (none of those whose description says to leave
 * them out), values that fit each field's schema and name — a harmless shell
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
const CONDITIONAL = /\bonly (set|use|with|when|if|for)\b|\bomit (otherwise|unless)\b|\bomit\b[^.]*\bunless\b|\bonly available\b/i;

/**
 * Chance of one optional field: about 0.3, less when there are many (about
 * 1.5 of them on average), none for conditional ones.
 */
export function optionalChance(_key: string, schema: unknown, optionalCount: number): number {
  const description = typeof schema === "object" && schema !== null ? (schema as { description?: unknown }).description : undefined;
  if (typeof description === "string" && CONDITIONAL.test(description)) return 0;
  return Math.min(0.3, 1.5 / Math.max(1, optionalCount));
}

/** Shell metacharacters and commands that change things: a command that has any is not run as given. */
const UNSAFE = /[;&|><`$\\]|\b(rm|rmdir|mv|cp|dd|mkfs|sudo|su|chmod|chown|kill|pkill|killall|shutdown|reboot|curl|wget|ssh|scp|tee|truncate|install|uninstall|push|reset|clean|format)\b/i;
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
  const files = filesIn(text).filter((f) => SAFE_FILE.test(f) && !f.startsWith("-")).slice(0, 3);
  if (has("git", "commit", "commits", "branch", "diff", "changes", "changed")) {
    if (has("log", "history", "commit", "commits", "recent")) return "git log --oneline -5";
    if (has("diff", "changes", "changed")) return "git diff --stat";
    if (has("branch", "branches")) return "git branch";
    return "git status";
  }
  if (files.length > 0 && has("show", "read", "cat", "open", "print", "view", "display", "contents", "content", "what's", "whats", "in")) return `cat ${files.join(" ")}`;
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
export function toolArguments(tool: FunctionToolParam, userText: string, rng: Rng, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const sample = toolArgumentsWithin(tool, userText, rng, overrides);
  return sample.ok ? (sample.value as Record<string, unknown>) : {};
}

/** Arguments for `tool` whose JSON fits `maxBytes`, or why there are none (see sampleWithin). */
export function toolArgumentsWithin(tool: FunctionToolParam, userText: string, rng: Rng, overrides: Record<string, unknown> = {}, maxBytes = CALL_BYTES): BoundedSample {
  const params = tool.parameters;
  // No schema, or one that does not say what it is: arguments are still an object.
  const schema =
    !params || (params.type === undefined && typeof params.$ref !== "string" && !Array.isArray(params.anyOf) && !Array.isArray(params.oneOf) && !Array.isArray(params.allOf))
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
  if (sample.ok && (typeof sample.value !== "object" || sample.value === null || Array.isArray(sample.value))) return { ok: true, value: {}, json: "{}" };
  return sample;
}
