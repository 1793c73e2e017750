/**
 * The state a server shares with other processes when `store` names Redis:
 * the response store, the session controls, background runs' cancels and
 * the journal's shared view, the limiter's state, over one connection. Nothing here (nor the
 * `redis` package) is loaded for the default in-memory store. It sits
 * beside server.ts, above the layers it wires together (store, journal,
 * session and the runs engine).
 */
import type { SharedJournal } from "./journal/shared.js";
import type { ResolvedServerOptions } from "./options.js";
import type { LimitsStore } from "./service/limits.js";
import type { Controls } from "./session/controls.js";
import type { ResponseStore } from "./store/response-store.js";
import type { LocalRuns, RunBus } from "./store/redis-runs.js";
import type { SlotLedger } from "./service/slots.js";
import { parseStoreUrl } from "./store/store-url.js";

export interface Shared {
  store: ResponseStore;
  controls: Controls;
  journal: SharedJournal;
  /** The limiter's buckets, spend, session limits and usage totals. */
  limits: LimitsStore;
  /** Starts listening for cancels of this process's runs (once the runs exist). */
  startRuns(runs: LocalRuns): Promise<RunBus>;
  /** The capacity pools' counts, shared (made on first use: a server without a capacity leases nothing). `now`: wall-clock ms. */
  capacity(now: () => number): SlotLedger;
  close(): Promise<void>;
}

/** Connects to the store the options name; undefined for the memory store. A StoreConnectError when Redis cannot be reached. */
export async function connectShared(
  options: Pick<ResolvedServerOptions, "store" | "storeLimit" | "storeBytes" | "journalLimit" | "journalBytes">,
  report: (line: string) => void,
): Promise<Shared | undefined> {
  const location = parseStoreUrl(options.store);
  if (typeof location === "string" || location.kind === "memory") return undefined;
  const [{ RedisLink }, { RedisResponseStore }, { RedisControls }, { RunBus }, { SharedJournal }, { RedisLimits }] =
    await Promise.all([
      import("./store/redis-client.js"),
      import("./store/redis-store.js"),
      import("./store/redis-controls.js"),
      import("./store/redis-runs.js"),
      import("./journal/shared.js"),
      import("./store/redis-limits.js"),
    ]);
  const link = await RedisLink.connect(location.url, location.display, report);
  const { RedisSlots } = await import("./store/redis-capacity.js");
  let slots: InstanceType<typeof RedisSlots> | undefined;
  return {
    store: new RedisResponseStore(link, options.storeLimit, options.storeBytes),
    controls: new RedisControls(link),
    journal: new SharedJournal(link, options.journalLimit, options.journalBytes),
    limits: new RedisLimits(link),
    startRuns: (runs) => RunBus.start(link, runs),
    capacity: (now) => (slots ??= new RedisSlots(link, now)),
    close: async () => {
      await slots?.close();
      await link.close();
    },
  };
}
