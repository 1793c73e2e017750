/**
 * `openresponses-mock proxy --upstream URL`: the flags a proxy adds to
 * `serve`'s, and the server options they give. The upstream key is read
 * from the environment variable `--upstream-key-env` names, never from the
 * command line (where `ps` and shell history would show it), and never printed.
 */
import type { Argv } from "yargs";
import type { ServerOptionsInput } from "../options.js";

export interface ProxyArgs {
  upstream: string;
  "upstream-api"?: string;
  "upstream-key-env"?: string;
  "upstream-timeout-ms"?: number;
  record?: string;
}

/** The proxy's flags, by option name (a bad value is reported as the flag it was typed as). */
export const PROXY_FLAGS: Partial<Record<keyof ServerOptionsInput, string>> = {
  upstream: "--upstream",
  upstreamApi: "--upstream-api",
  upstreamKey: "--upstream-key-env",
  upstreamTimeoutMs: "--upstream-timeout-ms",
  record: "--record",
};

/** Adds the proxy's flags to a command that has serve's; `numberFlag` reads a number flag as serve's are read (named as typed when it is not one). */
export function proxyFlags<T>(
  y: Argv<T>,
  numberFlag: (option: keyof ServerOptionsInput) => (value: unknown) => number,
) {
  return y
    .option("upstream", {
      type: "string",
      demandOption: "give the base URL of the real server, e.g. --upstream http://127.0.0.1:11434/v1",
      describe:
        "Base URL of the real server, as the SDKs take it (e.g. http://127.0.0.1:11434/v1); /responses or /chat/completions is appended",
    })
    .option("upstream-api", {
      type: "string",
      describe:
        "What the upstream speaks: responses (passed on as it is) or chat (Chat Completions, translated) (default responses)",
    })
    .option("upstream-key-env", {
      type: "string",
      describe:
        "Environment variable holding the upstream's API key (sent as Authorization: Bearer); without it the client's Authorization is passed on",
    })
    .option("upstream-timeout-ms", {
      requiresArg: true,
      coerce: numberFlag("upstreamTimeoutMs"),
      describe:
        "Longest silence from the upstream before the answer fails: 504, or error + response.failed mid-stream (default 600000)",
    })
    .option("record", {
      type: "string",
      describe:
        "Write each exchange as a scenario file in this folder (one file per conversation; replay with serve --scenarios DIR)",
    });
}

/** A problem with the proxy's flags, worded for the user. */
export class ProxyFlagError extends Error {}

/** The server options of a proxy's flags; `env` holds the environment the key is read from. */
export function proxyOptions(
  argv: ProxyArgs,
  env: NodeJS.ProcessEnv,
): Pick<ServerOptionsInput, "upstream" | "upstreamApi" | "upstreamKey" | "upstreamTimeoutMs" | "record"> {
  let upstreamKey: string | undefined;
  const variable = argv["upstream-key-env"];
  if (variable !== undefined) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(variable))
      throw new ProxyFlagError(
        `--upstream-key-env takes the name of an environment variable (e.g. OPENAI_API_KEY), not a key; got '${variable.length > 12 ? `${variable.slice(0, 4)}…` : variable}'`,
      );
    upstreamKey = env[variable];
    if (upstreamKey === undefined || upstreamKey === "")
      throw new ProxyFlagError(
        `--upstream-key-env ${variable}: the environment variable ${variable} is not set (or empty)`,
      );
  }
  return {
    upstream: argv.upstream,
    upstreamApi: argv["upstream-api"] as ServerOptionsInput["upstreamApi"],
    upstreamKey,
    upstreamTimeoutMs: argv["upstream-timeout-ms"],
    record: argv.record,
  };
}
