// The GitHub Actions runner's protocol, for a JavaScript action with no dependencies:
// inputs from INPUT_* variables, outputs, environment and state appended to the files
// the runner names (GITHUB_OUTPUT, GITHUB_ENV, GITHUB_STATE), state read back from
// STATE_* in the post step, the job summary appended to GITHUB_STEP_SUMMARY, and the
// workflow commands (::add-mask::, ::error::) on stdout.
// https://docs.github.com/actions/reference/workflows-and-actions/workflow-commands
import { randomUUID } from "node:crypto";
import { appendFileSync } from "node:fs";
import { EOL } from "node:os";

/** An input as the runner passes it (INPUT_NAME, spaces as underscores), trimmed; `fallback` when empty. */
export function getInput(name, fallback = "") {
  const value = (process.env[`INPUT_${name.replace(/ /g, "_").toUpperCase()}`] ?? "").trim();
  return value === "" ? fallback : value;
}

/** A boolean input (YAML 1.2's true/True/TRUE, false/False/FALSE); a bad one throws, naming it. */
export function getBooleanInput(name, fallback) {
  const value = getInput(name, String(fallback));
  if (["true", "True", "TRUE"].includes(value)) return true;
  if (["false", "False", "FALSE"].includes(value)) return false;
  throw new Error(`Input ${name}: expected true or false, got '${value}'.`);
}

/** Appends `name=value` to the file the runner named in `variable`; a multi-line value as a heredoc. */
function fileCommand(variable, name, value) {
  const file = process.env[variable];
  if (!file) throw new Error(`${variable} is not set: run this as a step of a GitHub Actions job.`);
  const text = String(value);
  if (!text.includes("\n") && !text.includes("\r")) {
    appendFileSync(file, `${name}=${text}${EOL}`);
    return;
  }
  const delimiter = `ghadelimiter_${randomUUID()}`;
  if (name.includes(delimiter) || text.includes(delimiter))
    throw new Error(`${name}: the value holds the delimiter ${delimiter}`);
  appendFileSync(file, `${name}<<${delimiter}${EOL}${text}${EOL}${delimiter}${EOL}`);
}

export const setOutput = (name, value) => fileCommand("GITHUB_OUTPUT", name, value);
export const exportVariable = (name, value) => fileCommand("GITHUB_ENV", name, value);
export const saveState = (name, value) => fileCommand("GITHUB_STATE", name, value);
/** State saved by the main step, in the post step ("" when none). */
export const getState = (name) => process.env[`STATE_${name}`] ?? "";

/** Appends markdown to the job summary; false when the runner gives no summary file. */
export function appendSummary(markdown) {
  const file = process.env.GITHUB_STEP_SUMMARY;
  if (!file) return false;
  appendFileSync(file, markdown.endsWith("\n") ? markdown : `${markdown}\n`);
  return true;
}

/** Escapes a workflow command's data. */
const escapeData = (s) => String(s).replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");

/** Asks the runner to mask `secret` in the log. */
export const setSecret = (secret) => process.stdout.write(`::add-mask::${escapeData(secret)}${EOL}`);
export const info = (message) => process.stdout.write(`${message}${EOL}`);
export const warning = (message) => process.stdout.write(`::warning::${escapeData(message)}${EOL}`);
/** Reports an error and makes the step fail. */
export function fail(message) {
  process.stdout.write(`::error::${escapeData(message)}${EOL}`);
  process.exitCode = 1;
}
