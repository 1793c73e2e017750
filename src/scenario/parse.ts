/**
 * Parsing scenario files into scenarios, with errors a person can act on:
 * each names the file, the JSON path (`$.turns[0].steps[1].type`) and what is
 * wrong. Pure: the loader reads the files, this only sees their text.
 */
import { parseJsonText } from "../util/json-text.js";
import type { z } from "zod";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../spec/common.js";
import { END_TYPES, ExpectRules, STEP_TYPES, STRATEGIES, Scenario } from "./schema.js";

/** One problem in one scenario file. */
export interface ScenarioIssue {
  file: string;
  /** JSON path of the offending value, `$` for the whole document. */
  path: string;
  message: string;
}

export class ScenarioError extends Error {
  constructor(readonly issues: ScenarioIssue[]) {
    super(issues.map(formatIssue).join("\n"));
    this.name = "ScenarioError";
  }
}

export const formatIssue = (i: ScenarioIssue) => `${i.file}: ${i.path}: ${i.message}`;

/** `["turns", 0, "end"]` → `$.turns[0].end`. */
export function jsonPath(path: readonly PropertyKey[]): string {
  let out = "$";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else if (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(String(key))) out += `.${String(key)}`;
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out;
}

function describeIssue(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case "unrecognized_keys":
      return `unknown key${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((k) => `'${k}'`).join(", ")} (check the spelling; see scenario.schema.json)`;
    case "invalid_union": {
      const note = (issue as { note?: string }).note;
      if (note === "No matching discriminator") {
        const got = (issue as { input?: unknown }).input;
        const value =
          got && typeof got === "object"
            ? (got as Record<string, unknown>)[(issue as { discriminator?: string }).discriminator ?? "type"]
            : undefined;
        const known = issue.path.includes("end")
          ? END_TYPES
          : issue.path.includes("generate")
            ? STRATEGIES
            : STEP_TYPES;
        return `${value === undefined ? "is required" : `unknown value ${JSON.stringify(value)}`}: expected one of ${known.map((k) => `'${k}'`).join(", ")}`;
      }
      return issue.message;
    }
    case "invalid_type":
      return (issue as { input?: unknown }).input === undefined
        ? `is required (expected ${issue.expected})`
        : `expected ${issue.expected}`;
    case "invalid_value":
      return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`;
    case "too_small":
    case "too_big": {
      if (!/^Too (small|big)/.test(issue.message)) return issue.message;
      const i = issue as { origin?: string; minimum?: unknown; maximum?: unknown; inclusive?: boolean };
      const unit = i.origin === "string" ? " characters" : i.origin === "array" ? " items" : "";
      return issue.code === "too_small"
        ? `must be ${i.inclusive === false ? ">" : ">="} ${String(i.minimum)}${unit}`
        : `must be ${i.inclusive === false ? "<" : "<="} ${String(i.maximum)}${unit}`;
    }
    case "invalid_key": {
      const inner = (issue as { issues?: z.core.$ZodIssue[] }).issues?.[0];
      return `bad key: ${inner?.message ?? issue.message}`;
    }
    default:
      return issue.message;
  }
}

/** Validates an already-parsed JSON value as a scenario. */
export function validateScenario(value: unknown, file: string): Scenario {
  if (nestsDeeperThan(value))
    throw new ScenarioError([
      { file, path: "$", message: `nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep` },
    ]);
  const result = Scenario.safeParse(value, { reportInput: true });
  if (result.success) return result.data;
  throw new ScenarioError(
    result.error.issues.map((issue) => {
      return { file, path: jsonPath(issue.path), message: describeIssue(issue) };
    }),
  );
}

/** Parses the text of a scenario file. */
export function parseScenarioText(text: string, file: string): Scenario {
  const parsed = parseJsonText(text);
  if ("error" in parsed) throw new ScenarioError([{ file, path: "$", message: parsed.error }]);
  return validateScenario(parsed.value, file);
}

/** Validates `mock.expect()`'s rules as a scenario turn's `expect` is validated (a ScenarioError names each problem, `label` as its file). */
export function validateExpect(value: unknown, label: string): ExpectRules {
  const result = ExpectRules.safeParse(value, { reportInput: true });
  if (result.success) return result.data;
  throw new ScenarioError(
    result.error.issues.map((issue) => ({ file: label, path: jsonPath(issue.path), message: describeIssue(issue) })),
  );
}
