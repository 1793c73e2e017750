#!/usr/bin/env node
/**
 * The `openresponses-mock` command. `serve` (the default) starts the server
 * and prints one line with the base URL; SIGINT/SIGTERM stop it cleanly.
 */
import yargs from "yargs";
import { hideBin } from "yargs/helpers";
import { startMockServer } from "../server.js";

interface ServeArgs {
  port: number;
  host?: string;
  seed?: number;
  "api-key"?: string;
  "body-limit"?: number;
}

async function serve(argv: ServeArgs) {
  let mock;
  try {
    mock = await startMockServer({
      port: argv.port,
      host: argv.host,
      seed: argv.seed,
      apiKey: argv["api-key"],
      bodyLimit: argv["body-limit"],
    });
  } catch (err) {
    console.error(`openresponses-mock: ${(err as Error).message}`);
    process.exit(1);
  }
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    await mock.close();
    process.exitCode = signal === "SIGINT" ? 130 : 0;
  };
  process.once("SIGINT", () => void stop("SIGINT"));
  process.once("SIGTERM", () => void stop("SIGTERM"));
  // Printed last, so that a supervisor that reads this line can signal us at once.
  console.log(`openresponses-mock listening on ${mock.baseURL}`);
}

await yargs(hideBin(process.argv))
  .scriptName("openresponses-mock")
  .command(
    ["serve", "$0"],
    "Start the mock server (the default command).",
    (y) =>
      y
        .option("port", { type: "number", default: 4010, describe: "Port to listen on (0 picks a free port)" })
        .option("host", { type: "string", describe: "Interface to bind (default 127.0.0.1)" })
        .option("seed", { type: "number", describe: "Server seed: the same request and seed give the same bytes (default 0)" })
        .option("api-key", { type: "string", describe: "Require 'Authorization: Bearer KEY' on /v1 routes" })
        .option("body-limit", { type: "number", describe: "Largest request body in bytes (default 32 MiB)" }),
    (argv) => serve(argv),
  )
  .strict()
  .help()
  .parseAsync();
