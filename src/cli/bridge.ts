/**
 * `openresponses-mock check URL --bridge --upstream-port N`: the shell of the
 * bridge bench (src/check/bridge.ts). It starts a mock on 127.0.0.1:N, where
 * the bridge sends its upstream calls, and runs the checks one at a time:
 * before each, the mock is reset and scripted (`use`) with the check's turn,
 * which answers every upstream request of that check (a bridge that retries
 * gets the same answer); after it, the mock's journal says what the bridge
 * sent upstream. The checks are told apart by running one at a time, so the
 * bridge need not pass any header or key upstream; each downstream request
 * still carries a key of its own (`Authorization: Bearer bridge-NONCE-CHECK`,
 * unless --api-key is given), which shows in the upstream's journal.
 */
import { randomBytes } from "node:crypto";
import { startServer, type MockServer } from "../server.js";
import {
  baseUrlHints,
  formatReport,
  needsPathProbe,
  jsonReport,
  runBridgeBench,
  type BatteryReport,
  type BatteryRequest,
  type CheckDialect,
  type PathProbe,
  type RawAnswer,
  type UpstreamApi,
  type UpstreamRequest,
} from "../check/index.js";

const NAME = "openresponses-mock";
/** Longest wait for the upstream's requests of a check to end after the bridge answered. */
const SETTLE_MS = 2_000;

export interface BridgeSettings {
  base: string;
  model: string;
  dialect: CheckDialect;
  only: string[];
  json: boolean;
  bridge: { port: number; api: UpstreamApi; slowUpstreamMs: number };
}

export interface BridgeShell {
  send(request: BatteryRequest, key: string): Promise<RawAnswer>;
  /** Probes the spec's own path (`ORIGIN/v1/responses`), for the base-URL hint. */
  probe?(): Promise<PathProbe>;
  write(stream: NodeJS.WriteStream, text: string): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The requests the upstream mock received since its last reset, once each has ended (or after SETTLE_MS). */
async function settledRequests(mock: MockServer): Promise<UpstreamRequest[]> {
  const until = performance.now() + SETTLE_MS;
  for (;;) {
    const entries = mock.requests;
    if (entries.every((e) => e.endedAt !== null) || performance.now() > until)
      return entries.map((e) => ({ method: e.method, path: e.path, body: e.body }));
    await sleep(10);
  }
}

/**
 * Starts the upstream on 127.0.0.1:PORT and runs the bench against the bridge
 * at `settings.base`; then, the upstream still up (a bridge may pass the
 * probe on), probes the spec's own path and adds the base-URL hints.
 */
export async function runBridgeChecks(settings: BridgeSettings, shell: Pick<BridgeShell, "send" | "probe">) {
  const mock = await startServer({ port: settings.bridge.port, host: "127.0.0.1" });
  try {
    const report = await runBridgeBench({
      model: settings.model,
      dialect: settings.dialect,
      only: settings.only,
      upstreamApi: settings.bridge.api,
      slowUpstreamMs: settings.bridge.slowUpstreamMs,
      keyPrefix: `bridge-${randomBytes(4).toString("hex")}`,
      io: {
        script(turn) {
          mock.reset();
          mock.use({ name: "bridge-check", turns: [turn] } as Parameters<MockServer["use"]>[0]);
        },
        send: (request, key) => shell.send(request, key),
        upstreamRequests: () => settledRequests(mock),
      },
    });
    if (!report.unreachable && shell.probe) {
      const probe = needsPathProbe(settings.base) ? await shell.probe() : undefined;
      const hints = baseUrlHints(settings.base, report, probe);
      if (hints.length > 0) report.baseUrl = hints;
    }
    return report;
  } finally {
    await mock.close();
  }
}

/** The command: runs the bench, prints the report, sets the exit code. */
export async function runBridgeCommand(settings: BridgeSettings, shell: BridgeShell): Promise<void> {
  let report: BatteryReport;
  try {
    report = await runBridgeChecks(settings, shell);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const why =
      e.code === "EADDRINUSE"
        ? `--upstream-port: port ${settings.bridge.port} is in use on 127.0.0.1; stop what holds it, or give the bridge and --upstream-port another port`
        : `cannot start the upstream on 127.0.0.1:${settings.bridge.port}: ${e.message}`;
    await shell.write(process.stderr, `${NAME} check: ${why}\n`);
    process.exitCode = 2;
    return;
  }
  if (settings.json) await shell.write(process.stdout, jsonReport(report, settings.base));
  else
    await shell.write(
      process.stdout,
      formatReport(report, { target: settings.base, color: process.stdout.isTTY === true && !process.env.NO_COLOR }),
    );
  if (report.unreachable) {
    await shell.write(process.stderr, `${NAME} check: cannot reach ${settings.base}: ${report.unreachable}\n`);
    process.exitCode = 2;
  } else process.exitCode = report.ok ? 0 : 1;
}
