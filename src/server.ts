/**
 * `startMockServer`: the programmatic shell. It validates options, builds the
 * app, listens, and returns a handle whose `close()` is idempotent and frees
 * every socket.
 */
import { createServer, STATUS_CODES, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { createApp, createRequestListener, type AppDeps } from "./http/app.js";
import { Runs } from "./turn/runs.js";
import type { TurnStep } from "./turn/turn.js";
import { attachWebSocket } from "./http/websocket.js";
import type { z } from "zod";
import { isSessionId, sessionOf } from "./session/session.js";
import { Journal, type JournalEntry } from "./journal/journal.js";
import type { ExpectRules, ScenarioInput, Turn } from "./scenario/schema.js";
import { unmetMessage, type ExpectationReport } from "./scenario/expect.js";
import { validateExpect } from "./scenario/parse.js";
import { SessionControls } from "./session/controls.js";
import { MemoryResponseStore } from "./store/response-store.js";
import { OptionsError, resolveOptions, type ServerOptionsInput } from "./options.js";
import { connectShared, type Shared } from "./shared-state.js";
import { LIBRARY_DIR, loadScenarios, type LoadedScenario } from "./scenario/load.js";
import { createRegistry, scenarioToUse, type ScenarioRegistry } from "./scenario/registry.js";
import type { ResolvedServerOptions } from "./options.js";
import { systemClock } from "./timing/clock.js";
import { loadService } from "./service/load.js";
import { limitsView, parseLimitsPatch, type LimitsPatch, type LimitsView, type UsageReport } from "./service/limits.js";
import { MemoryLimits } from "./store/limits-memory.js";
import { limitsStep } from "./turn/limits.js";
import { ActiveStreams } from "./turn/load.js";
import { apiKeyOf, defaultService, type Service } from "./service/service.js";
import { hasCapacity, LocalSlots } from "./service/slots.js";
import { capacityStep } from "./turn/capacity.js";
import { Expectations } from "./turn/expect.js";
import { DIALECTS } from "./dialect/index.js";
import { RepeatCounter } from "./session/repeats.js";
import { resolve as resolvePath, sep } from "node:path";
import { attachRequestLog, type RequestLog } from "./log/logger.js";
import type { ScenarioCounts, StartSummary } from "./log/format.js";
import { conformanceChecker } from "./proxy/conformance.js";
import { createProxy } from "./proxy/proxy.js";
import { displayUpstream } from "./proxy/upstream.js";
import { refuseUpgrades } from "./proxy/upgrade.js";

/**
 * Loads the shipped library (unless turned off) and the given scenarios. A
 * given scenario replaces a library one of the same name; two given ones with
 * the same name are an error. Given scenarios are tried first for match rules.
 */
export async function loadRegistry(
  options: Pick<ResolvedServerOptions, "scenarios" | "scenario" | "library">,
): Promise<ScenarioRegistry> {
  return (await loadServerScenarios(options)).registry;
}

/** The registry, and how many scenarios came from where (for the start summary). */
async function loadServerScenarios(
  options: Pick<ResolvedServerOptions, "scenarios" | "scenario" | "library">,
): Promise<{ registry: ScenarioRegistry; counts: ScenarioCounts }> {
  const own = await loadScenarios(options.scenarios);
  const names = new Set(own.map((l) => l.scenario.name));
  const library = options.library
    ? (await loadScenarios([LIBRARY_DIR])).filter((l) => !names.has(l.scenario.name))
    : [];
  const registry = createRegistry(
    [...own, ...library].map((l) => l.scenario),
    options.scenario,
  );
  return { registry, counts: scenarioCounts(options, own, library.length, registry) };
}

/** Counts the loaded scenarios by where they came from: each given path (a file, or a folder and what is under it), inline objects, the library. */
function scenarioCounts(
  options: Pick<ResolvedServerOptions, "scenarios" | "library">,
  own: readonly LoadedScenario[],
  library: number,
  registry: ScenarioRegistry,
): ScenarioCounts {
  const paths = options.scenarios
    .filter((s): s is string => typeof s === "string")
    .map((path) => ({ path, root: resolvePath(path), count: 0 }));
  for (const { source } of own) {
    const file = resolvePath(source);
    const from = paths.find((p) => file === p.root || file.startsWith(p.root.endsWith(sep) ? p.root : p.root + sep));
    if (from) from.count++;
  }
  const inline = options.scenarios.length - paths.length;
  return {
    total: registry.byName.size,
    library: options.library ? library : null,
    paths: paths.map(({ path, count }) => ({ path, count })),
    inline,
    builtIn: Math.max(0, registry.byName.size - own.length - library),
  };
}

/** A turn as `enqueue()` takes it: the scenario file's turn format (`{steps, end?, timing?, fault?}`). */
export type TurnInput = z.input<typeof Turn>;

/** The rules `expect()` takes: a scenario turn's `expect`. */
export type ExpectRulesInput = z.input<typeof ExpectRules>;

/** What a test controls: the journal, and the answers its requests get. */
export interface MockControls {
  /**
   * The request journal, oldest first: method, path, headers (authorization
   * masked), raw and parsed body, the scenario chosen and why, the response
   * id, the status, whether it streamed, and once it ended how (`outcome`,
   * `errorCode`, `events`, `endedAt`, `durationMs`; null while in progress).
   * A fresh array on every read. Bounded
   * by `journalLimit` and `journalBytes`; a big body is kept truncated
   * (`truncated`, `bodyBytes`, `bodySha256`).
   */
  readonly requests: JournalEntry[];
  /**
   * Answers the next requests with `scenario`: a scenario object (validated
   * like a scenario file; throws a ScenarioError naming what is wrong) or the
   * name of a loaded one (an unknown name throws, listing the known ones):
   * all of them, or only the next `times`. An `x-mock-scenario` header still wins.
   */
  use(scenario: ScenarioInput | string, options?: { times?: number }): void;
  /** Lines up one-shot answers, in order: each request takes the next turn (before `use` and the selection rules). */
  enqueue(...turns: TurnInput[]): void;
  /**
   * Forgets the journal entries and the `use`/`enqueue` controls, and the
   * limiter's state: buckets (full again), spend (the budget is whole again),
   * usage totals and the limits set with `limits()`, and the expectations.
   */
  reset(): void;
  /**
   * Expects the next request (or the next `times`) to show `rules`: a
   * scenario turn's `expect` (validated the same way; a bad rule throws a
   * ScenarioError naming it). Rules about an answer (`tool_outputs`,
   * `continues`, `reasoning_returned`, `waits_ms`, `no_retry_ms`) refer to the
   * last answer sent before that request; `match` to the request itself. The
   * server's acts on requests sent without a session.
   */
  expect(rules: ExpectRulesInput, options?: { times?: number }): void;
  /**
   * Every expectation (a scenario turn's `expect`, `expect()`) and its status
   * now, one entry per rule: the server's lists every session's.
   */
  readonly expectations: ExpectationReport[];
  /** Throws one Error listing every unmet expectation (the server's: of every session); does nothing when none is unmet. */
  verify(): void;
  /**
   * Sets limits of its own (`rpm`, `tpm`, `budgetUsd`; null clears one, a
   * field left out stays as it is), over the server's, the model's and the
   * key's. A bad value throws a LimitsError at once, listing each problem;
   * resolves with the limits it now has. Sessions never share buckets.
   */
  limits(limits: LimitsPatch): Promise<LimitsView>;
  /**
   * Usage totals: requests answered, their tokens and cost, and refusals by
   * reason, per session, key (masked) and model. The server's: every
   * session's; a session's: its own.
   */
  usage(): Promise<UsageReport>;
}

/**
 * One test's slice of a shared server: requests that carry its
 * `x-mock-session` header get its controls, and only they are in its journal
 * and see its stored responses.
 */
export interface MockSession extends MockControls {
  /** The session id. */
  readonly id: string;
  /** The header to send on every request of the session, e.g. as an SDK's `defaultHeaders`. */
  readonly headers: { "x-mock-session": string };
}

/**
 * A running mock server. Its controls act on requests without a session;
 * `requests` lists every request of every session, and `reset()` forgets
 * every session's requests and controls.
 */
export interface MockServer extends MockControls {
  /** Origin of the server, e.g. `http://127.0.0.1:4010`. */
  readonly url: string;
  /** Base URL of the API, e.g. `http://127.0.0.1:4010/v1` — give it to any OpenAI-style SDK. */
  readonly baseURL: string;
  /** The port the server listens on. */
  readonly port: number;
  /** The underlying Node HTTP server. */
  readonly server: Server;
  /** A session of this server (a fresh id unless one is given). */
  session(id?: string): MockSession;
  /** Stops listening and closes every open connection, stream and WebSocket. Safe to call more than once. */
  close(): Promise<void>;
  /** `await using mock = await startMockServer()` closes it at the end of the scope. */
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * The shared state and settings of one server (what the app, the direct path
 * and WebSocket mode use): in memory, or in Redis when `shared` is given.
 */
export function createDeps(
  options: ResolvedServerOptions,
  registry: ScenarioRegistry,
  shared?: Shared,
  steps?: readonly TurnStep[],
  service: Service = defaultService(),
): AppDeps {
  const clock = options.timers ?? systemClock;
  const wallClock = options.clock ?? systemClock;
  const store = shared?.store ?? new MemoryResponseStore(options.storeLimit, options.storeBytes);
  const limits = shared?.limits ?? new MemoryLimits(clock);
  // The service's steps, in order: the limiter's first (it checks a request in `begin` and charges it in `planned`),
  // then the shell's, then the capacity step (a request the limiter refuses never takes a slot). The capacity step
  // exists only when something caps concurrency.
  const serviceSteps: TurnStep[] = [];
  if (hasCapacity(service))
    serviceSteps.push(
      capacityStep(service, clock, shared?.capacity(() => wallClock.now()) ?? new LocalSlots(() => clock.now())),
    );
  // The expectations step right after the limiter (a request it refuses is not judged: its begin throws first).
  const expectations = new Expectations(clock, registry);
  const allSteps = [limitsStep(service, limits), expectations.step(), ...(steps ?? []), ...serviceSteps];
  const deps: AppDeps = {
    registry,
    store,
    runs: new Runs(store, clock),
    journal: new Journal(options.journalLimit, options.journalBytes),
    controls: shared?.controls ?? new SessionControls(),
    sharedJournal: shared?.journal,
    admin: options.admin,
    seed: options.seed,
    apiKey: options.apiKey,
    bodyLimit: options.bodyLimit,
    strict: options.strict,
    wallClock,
    clock,
    // Only the options given: a key left undefined lets a recorded pace stand (resolveTiming).
    timing: {
      latencyMs: options.latencyMs,
      chunkMs: options.chunkMs,
      jitterMs: options.jitterMs,
      tokensPerSecond: options.tokensPerSecond,
      heartbeatMs: options.heartbeatMs,
    },
    dialect: DIALECTS.get(options.dialect)!,
    repeats: new RepeatCounter(),
    service,
    limits,
    expectations,
    active: new ActiveStreams(),
    steps: allSteps,
    onError: (err) => console.error("openresponses-mock: internal error:", err),
  };
  if (options.upstream !== undefined) {
    deps.proxy = createProxy(
      deps,
      {
        upstream: new URL(options.upstream),
        api: options.upstreamApi,
        upstreamKey: options.upstreamKey,
        timeoutMs: options.upstreamTimeoutMs,
        record: options.record,
        checker: options.checker ?? conformanceChecker(),
      },
      options.storeLimit,
    );
  }
  return deps;
}

let sessionCounter = 0;

/** What the start summary says of a server's settings: never the API key, only whether one is required. */
function startSummary(baseURL: string, options: ResolvedServerOptions, scenarios: ScenarioCounts): StartSummary {
  const upstream =
    options.upstream === undefined
      ? null
      : { api: options.upstreamApi, url: displayUpstream(new URL(options.upstream)), record: options.record ?? null };
  return {
    baseURL,
    scenarios,
    defaultScenario: options.scenario,
    dialect: options.dialect,
    seed: options.seed,
    apiKey: options.apiKey !== undefined,
    admin: options.admin,
    upstream,
  };
}

/** Resolves once the journal has no request in progress, or after `ms` at most. */
async function settledWithin(journal: Journal, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([journal.settled(), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms).unref()))]);
  clearTimeout(timer);
}

/**
 * `sessionFromKey`: a request that carries no `x-mock-session` gets its API
 * key as one, before anything reads its headers; a key that is no valid
 * session id is left alone (the request has no session).
 */
function sessionFromKey(req: IncomingMessage): void {
  if (req.headers["x-mock-session"]) return;
  const key = apiKeyOf(req.headers.authorization);
  if (key !== null && isSessionId(key)) req.headers["x-mock-session"] = key;
}

/** How the CLI runs a server in a worker process (not options a user gives). */
export interface ShellSettings {
  /** Write the start summary and the stop line (a worker leaves them to the primary, which writes them once). */
  announce?: boolean;
  /** This worker's number: every answer carries it as `x-mock-worker`. */
  worker?: number;
  /** Called once the server listens, with what the start summary says (a worker sends it to the primary). */
  onListening?: (summary: StartSummary, at: number) => void;
  /** Called once the server has closed, with the number of requests it received. */
  onClosed?: (requests: number) => void;
  /** What runs in every turn besides the answer (src/turn/turn.ts, TurnStep): none for users yet. */
  steps?: readonly TurnStep[];
}

/** A result that may be a shared store's write in flight: its failure is reported, never thrown at a caller that did not wait. */
const settle = (result: unknown, onError: (error: unknown) => void): void => {
  if (result instanceof Promise) result.catch(onError);
};

/** Starts a mock server; resolves once it listens. */
export async function startMockServer(input: ServerOptionsInput = {}): Promise<MockServer> {
  if (typeof input.workers === "number" && input.workers > 1) {
    throw new OptionsError([
      `workers: startMockServer serves from this process; run worker processes with the command line (openresponses-mock serve --workers ${input.workers})`,
    ]);
  }
  return startServer(input);
}

/** startMockServer, with the settings of the shell that runs it (the CLI's workers). */
export async function startServer(input: ServerOptionsInput = {}, shell: ShellSettings = {}): Promise<MockServer> {
  const options = resolveOptions(input);
  if (["0.0.0.0", "::", "[::]", "*"].includes(options.host) && !options.apiKey) {
    console.warn(
      `openresponses-mock: warning: listening on all interfaces (${options.host}) with no API key — anyone who can reach this machine can use the mock and read its request journal. Set --api-key KEY, or bind to 127.0.0.1.`,
    );
  }
  const { registry, counts } = await loadServerScenarios(options);
  const service = await loadService(options);
  // Redis is reached before anything listens: a store that cannot be reached is a startup error.
  const shared = await connectShared(options, (line) => console.error(line));
  const deps = createDeps(options, registry, shared, shell.steps, service);
  if (shared)
    await shared.startRuns(deps.runs).then(
      (bus) => (deps.runBus = bus),
      async (err: unknown) => {
        await shared.close();
        throw err;
      },
    );
  const detachJournal = shared?.journal.attach(deps.journal);
  const { runs } = deps;
  const app = createApp(deps);
  const listener = createRequestListener(deps, app);
  const worker = shell.worker === undefined ? undefined : String(shell.worker);
  const answer: typeof listener =
    worker === undefined
      ? listener
      : (req, res) => {
          // Which worker answered (documented): a test can tell that a conversation's turns went to different processes.
          res.setHeader("x-mock-worker", worker);
          listener(req, res);
        };
  const server = createServer(
    // A slowloris client that trickles its headers is cut off within ~20 s (the check runs every second).
    { keepAliveTimeout: 5_000, requestTimeout: 60_000, headersTimeout: 20_000, connectionsCheckingInterval: 1_000 },
    // Without sessionFromKey the listener is the answer itself: the option costs nothing when it is off.
    options.sessionFromKey
      ? (req, res) => {
          sessionFromKey(req);
          answer(req, res);
        }
      : answer,
  );
  // Requests Node's parser refuses (bad header bytes, too large headers, timeouts) still get a spec error body.
  server.on("clientError", (err: NodeJS.ErrnoException, socket) => {
    if (!socket.writable || (err as { code?: string }).code === "ECONNRESET") return socket.destroy();
    const [status, code, message] =
      err.code === "HPE_HEADER_OVERFLOW"
        ? [431, "headers_too_large", "The request headers are too large."]
        : err.code === "ERR_HTTP_REQUEST_TIMEOUT"
          ? [408, "request_timeout", "The request was not received in time."]
          : [400, "bad_request", `The request could not be parsed as HTTP (${err.code ?? err.message}).`];
    const body = JSON.stringify({ error: { type: "invalid_request", code, param: null, message } });
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  });
  // WebSocket mode on /v1/responses, sharing the app's store, registry and clocks (a proxy passes on HTTP only).
  const webSockets = deps.proxy ? refuseUpgrades(server, deps) : attachWebSocket(server, deps);
  // Before the WebSocket handler reads the upgrade request's headers.
  if (options.sessionFromKey) server.prependListener("upgrade", sessionFromKey);
  const sockets = new Set<Socket>();
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    server.once("error", onError);
    server.listen(options.port, options.host, () => {
      server.off("error", onError);
      resolve();
    });
  }).catch(async (err: unknown) => {
    webSockets.close();
    detachJournal?.();
    await shared?.close();
    throw err;
  });

  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;
  const startedAt = deps.clock.now();
  // The request log: nothing unless asked (the journal has no listener, so its requests cost nothing more).
  const log: RequestLog | undefined =
    options.log === "off" ? undefined : attachRequestLog(deps.journal, options.log, options.logTo ?? process.stdout);
  const summary = startSummary(`${url}/v1`, options, counts);
  if (shell.announce !== false) log?.start(summary, deps.wallClock.now());
  shell.onListening?.(summary, deps.wallClock.now());

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      runs.stopAll();
      webSockets.close();
      deps.proxy?.close();
      // A proxy's recordings still being written are finished first.
      const closed = new Promise<void>((resolve) =>
        server.close(() => void (deps.proxy?.flush() ?? Promise.resolve()).finally(resolve)),
      );
      for (const socket of sockets) socket.destroy();
      server.closeAllConnections();
      await closed;
      // The requests cut by the close end on the next ticks: their lines (and shared entries) come before the stop line.
      if (log || shared) await settledWithin(deps.journal, 1_000);
      detachJournal?.();
      await shared?.close();
      shell.onClosed?.(deps.journal.received);
      if (!log || shell.announce === false) return;
      log.stop({ at: deps.wallClock.now(), requests: deps.journal.received, uptimeMs: deps.clock.now() - startedAt });
    })());

  const { journal, controls } = deps;
  const report = deps.onError!;
  // A bad value throws at once (as use() does); the write is awaited (Redis).
  const setLimits = (id: string | null, patch: LimitsPatch, label: string): Promise<LimitsView> => {
    const valid = parseLimitsPatch(patch, label);
    return Promise.resolve(deps.limits.setSessionLimits(id, valid)).then((own) => limitsView(id, own, deps.service));
  };
  const { expectations } = deps;
  const addExpect = (id: string | null, rules: ExpectRulesInput, times: number | undefined, label: string) => {
    if (times !== undefined && (!Number.isSafeInteger(times) || times < 1))
      throw new RangeError(`${label}: times must be a whole number of 1 or more, got ${String(times)}`);
    expectations.expect(id, validateExpect(rules, label), times);
  };
  const verify = (reports: ExpectationReport[]) => {
    const message = unmetMessage(reports);
    if (message !== undefined) throw new Error(message);
  };
  const session = (id = `session-${process.pid}-${++sessionCounter}`): MockSession => {
    sessionOf(id); // the same rule as the header
    return {
      id,
      headers: { "x-mock-session": id },
      get requests() {
        return journal.list(id);
      },
      use: (scenario, opts) =>
        settle(
          controls.use(id, scenarioToUse(deps.registry, scenario, "session.use()"), opts?.times, "session.use()"),
          report,
        ),
      enqueue: (...turns) => settle(controls.enqueue(id, turns), report),
      reset: () => {
        journal.clear(id);
        settle(deps.sharedJournal?.clear(id), report);
        settle(controls.reset(id), report);
        settle(deps.limits.reset(id), report);
        expectations.reset(id);
      },
      expect: (rules, opts) => addExpect(id, rules, opts?.times, "session.expect()"),
      get expectations() {
        return expectations.reports(id);
      },
      verify: () => verify(expectations.reports(id)),
      limits: (patch) => setLimits(id, patch, "session.limits()"),
      usage: async () => deps.limits.usage(id),
    };
  };

  return {
    url,
    baseURL: `${url}/v1`,
    port: address.port,
    server,
    get requests() {
      return journal.list();
    },
    use: (scenario, opts) =>
      settle(controls.use(null, scenarioToUse(deps.registry, scenario, "use()"), opts?.times, "use()"), report),
    enqueue: (...turns) => settle(controls.enqueue(null, turns), report),
    reset: () => {
      journal.clear();
      settle(deps.sharedJournal?.clear(), report);
      settle(controls.reset(), report);
      settle(deps.limits.reset(undefined), report);
      expectations.reset();
    },
    expect: (rules, opts) => addExpect(null, rules, opts?.times, "mock.expect()"),
    get expectations() {
      return expectations.reports();
    },
    verify: () => verify(expectations.reports()),
    limits: (patch) => setLimits(null, patch, "mock.limits()"),
    usage: async () => deps.limits.usage(undefined),
    session,
    close,
    [Symbol.asyncDispose]: close,
  };
}
