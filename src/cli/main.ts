#!/usr/bin/env node
/**
 * The `openresponses-mock` command. `serve` (the default) starts the server
 * and prints one line with the base URL; SIGINT/SIGTERM stop it cleanly.
 */
import yargs from "yargs";
import { hideBin } from "yargs/helpers";
import { startMockServer } from "../server.js";

async function serve(argv: { port: number; host: string; seed: number; "api-key"?: string; "body-limit"?: number }) {
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
  console.log(`openresponses-mock listening on ${mock.baseURL}`);
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    await mock.close();
    process.exitCode = signal === "SIGINT" ? 130 : 0;
  };
  process.once("SIGINT", () => void stop("SIGINT"));
  process.once("SIGTERM", () => void stop("SIGTERM"));
}

await yargs(hideBin(process.argv))
  .scriptName("openresponses-mock")
  .command(
    ["serve", "$0"],
    "Start the mock server (the default command).",
    (y) =>
      y
        .option("port", { type: "number", default: 4010, describe: "Port to listen on (0 picks a free port)" })
        .option("host", { type: "string", default: "127.0.0.1", describe: "Interface to bind" })
        .option("seed", { type: "number", default: 0, describe: "Server seed: the same request and seed give the same bytes" })
        .option("api-key", { type: "string", describe: "Require 'Authorization: Bearer KEY' on /v1 routes" })
        .option("body-limit", { type: "number", describe: "Largest request body in bytes (default 32 MiB)" }),
    (argv) => serve(argv),
  )
  .strict()
  .help()
  .parseAsync();
