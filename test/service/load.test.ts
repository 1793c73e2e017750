/**
 * loadService: the service a file (a path or an object) and the flags
 * describe, with the documented precedence, and each problem as
 * `FILE: $.json.path: message`.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { loadService } from "../../src/service/load.js";
import { ServiceError, UnknownProfileError, limitsSet } from "../../src/service/parse.js";
import { DEFAULT_PRICES, defaultService, modelOf } from "../../src/service/service.js";
import { startMockServer } from "../../src/server.js";

const EXAMPLE = fileURLToPath(new URL("../../examples/service.json", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "orm-service-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Writes a service file and returns its path. */
function file(name: string, text: string | object): string {
  const path = join(dir, name);
  writeFileSync(path, typeof text === "string" ? text : JSON.stringify(text, null, 2));
  return path;
}

/** The `FILE: $.path: message` lines loadService rejects with. */
async function problems(options: Parameters<typeof loadService>[0]): Promise<string[]> {
  try {
    await loadService(options);
  } catch (err) {
    if (!(err instanceof ServiceError)) throw err;
    return err.message.split("\n");
  }
  throw new Error("loaded");
}

const PROFILE = { ttftMs: { median: 100, p99: 400 }, itlMs: { median: 10, p99: 30 } };

describe("the shipped example", () => {
  it("loads: its models, prices (missing ones from defaults), limits, capacity, profiles and key", async () => {
    const service = await loadService({ service: EXAMPLE });
    expect(service.source).toBe(relative(process.cwd(), EXAMPLE));
    expect([...service.models.keys()]).toEqual(["mock-mini", "mock-large", "mock-reasoner", "mock-local"]);
    const mini = modelOf(service, "mock-mini");
    // reasoning is not given for mock-mini: it comes from defaults.prices.
    expect(mini.prices).toEqual({ input: 0.15, cachedInput: 0.075, output: 0.6, reasoning: 10 });
    expect(mini.limits).toEqual({ rpm: 1000, tpm: 1_000_000 });
    expect(mini.profile).toBeUndefined();
    const reasoner = modelOf(service, "mock-reasoner");
    expect(reasoner.capacity).toEqual({ maxConcurrent: 2, queue: 4, queueTimeoutMs: 60_000 });
    expect(reasoner.profile).toBe("slow-reasoning");
    expect([reasoner.ownedBy, reasoner.created]).toEqual(["example-lab", 1_767_225_600]);
    // A model the file does not list gets the defaults.
    const other = modelOf(service, "not-listed");
    expect(other.limits).toEqual({ rpm: 500, tpm: 200_000 });
    expect(other.capacity).toEqual({});
    expect(service.capacity).toEqual({ maxConcurrent: 64, queue: 64, queueTimeoutMs: 30_000 });
    expect(service.profile).toBe("fast");
    expect(service.keys.get("sk-test-small-budget")).toEqual({ budgetUsd: 0.05, rpm: 10 });
    expect([...service.profiles.keys()]).toEqual(["instant", "fast", "typical", "slow-reasoning", "local-gpu"]);
    expect(service.profiles.get("local-gpu")).toEqual({
      name: "local-gpu",
      description: "a model on one local GPU: quick to start, slows down fast when shared",
      ttft: { medianMs: 80, p99Ms: 300 },
      itl: { medianMs: 15, p99Ms: 45 },
      slowdown: { k: 2, capacity: 4 },
    });
  });
});

describe("flags and the file: the precedence", () => {
  it("without a file, nothing is limited and nothing is slow: the default service", async () => {
    const service = await loadService({});
    const plain = defaultService();
    expect({
      ...service,
      models: [...service.models],
      keys: [...service.keys],
      profiles: [...service.profiles],
    }).toEqual({
      ...plain,
      models: [...plain.models],
      keys: [...plain.keys],
      profiles: [...plain.profiles],
    });
    expect(limitsSet(service)).toEqual([]);
    expect(modelOf(service, "m").prices).toEqual(DEFAULT_PRICES);
  });

  it("flags without a file set the defaults and the server's capacity", async () => {
    const service = await loadService({
      rpm: 3,
      tpm: 100,
      profile: "typical",
      maxConcurrent: 2,
      queue: 1,
      queueTimeoutMs: 50,
    });
    expect(modelOf(service, "m").limits).toEqual({ rpm: 3, tpm: 100 });
    expect(service.profile).toBe("typical");
    expect(service.capacity).toEqual({ maxConcurrent: 2, queue: 1, queueTimeoutMs: 50 });
    expect(limitsSet(service).sort()).toEqual(["maxConcurrent", "queue", "queueTimeoutMs", "rpm", "tpm"]);
  });

  it("a model's own values win over the flags; the flags win over the file's defaults and top-level capacity", async () => {
    const service = await loadService({
      service: {
        defaults: { limits: { rpm: 100, tpm: 1000, budgetUsd: 5 }, profile: "fast" },
        maxConcurrent: 10,
        queue: 5,
        models: { own: { limits: { rpm: 7 }, maxConcurrent: 1, profile: "slow-reasoning" }, bare: {} },
      },
      rpm: 3,
      profile: "typical",
      maxConcurrent: 4,
    });
    expect(modelOf(service, "own").limits).toEqual({ rpm: 7, tpm: 1000, budgetUsd: 5 });
    expect(modelOf(service, "own").capacity).toEqual({ maxConcurrent: 1 });
    expect(modelOf(service, "own").profile).toBe("slow-reasoning");
    expect(modelOf(service, "bare").limits).toEqual({ rpm: 3, tpm: 1000, budgetUsd: 5 });
    expect(modelOf(service, "unlisted").limits).toEqual({ rpm: 3, tpm: 1000, budgetUsd: 5 });
    expect(service.profile).toBe("typical");
    expect(service.capacity).toEqual({ maxConcurrent: 4, queue: 5 });
    expect(service.source).toBeUndefined();
  });

  it("a profile of the file without slowdown has none (k 0)", async () => {
    const service = await loadService({ service: { profiles: { mine: PROFILE } }, profile: "mine" });
    expect(service.profiles.get("mine")!.slowdown).toEqual({ k: 0, capacity: 1 });
    expect(service.profile).toBe("mine");
  });

  it("an unknown --profile names the known profiles, the file's included, and the nearest", async () => {
    await expect(loadService({ profile: "typicl" })).rejects.toThrow(
      "Unknown profile 'typicl' (option profile). Did you mean 'typical'? Known profiles: fast, instant, slow-reasoning, typical.",
    );
    const err = await loadService({ service: { profiles: { "local-gpu": PROFILE } }, profile: "local" }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(UnknownProfileError);
    expect((err as Error).message).toContain("Known profiles: fast, instant, local-gpu, slow-reasoning, typical.");
  });
});

describe("a bad service file: every problem with the file and the JSON path", () => {
  it("a file that cannot be read", async () => {
    expect(await problems({ service: join(dir, "nope.json") })).toEqual([
      `${join(dir, "nope.json")}: $: cannot read: ENOENT`,
    ]);
  });

  it("invalid JSON, with the line and column", async () => {
    const path = file("syntax.json", '{\n  "models": {}\n  "keys": {}\n}\n');
    expect(await problems({ service: path })).toEqual([
      `${path}: $: invalid JSON at line 3, column 3: Expected ',' or '}' after property value`,
    ]);
  });

  it("several problems at once, each at its path, an unknown key with the nearest known one", async () => {
    const path = file("bad.json", {
      models: {
        "gpt-x": { prices: { input: -1, outptu: 2 } },
        "gpt-y": { limits: { rpm: 0 }, maxConcurrent: 1.5 },
      },
      profile: "fast",
    });
    expect(await problems({ service: path })).toEqual([
      `${path}: $.models["gpt-x"].prices.input: must be >= 0`,
      `${path}: $.models["gpt-x"].prices.outptu: unknown key; did you mean 'output'? (known here: input, cachedInput, output, reasoning); see service.schema.json`,
      `${path}: $.models["gpt-y"].limits.rpm: must be >= 1`,
      `${path}: $.models["gpt-y"].maxConcurrent: expected a whole number`,
      `${path}: $.profile: unknown key at the top level: 'profile' goes in 'defaults' (for every model) or in a model of 'models'; see service.schema.json`,
    ]);
  });

  it("a profile reference to no profile names the known ones; a p99 below its median", async () => {
    const path = file("semantic.json", {
      defaults: { profile: "slow" },
      models: { m: { profile: "local-gpo" } },
      profiles: { "local-gpu": { ...PROFILE, ttftMs: { median: 500, p99: 100 } } },
    });
    expect(await problems({ service: path })).toEqual([
      `${path}: $.defaults.profile: unknown profile 'slow'. Known profiles: fast, instant, local-gpu, slow-reasoning, typical.`,
      `${path}: $.models.m.profile: unknown profile 'local-gpo'. Did you mean 'local-gpu'? Known profiles: fast, instant, local-gpu, slow-reasoning, typical.`,
      `${path}: $.profiles["local-gpu"].ttftMs.p99: must be at least the median (500), got 100`,
    ]);
  });

  it("a built-in profile redefined is refused", async () => {
    expect(await problems({ service: { profiles: { instant: PROFILE } } })).toEqual([
      "service: $.profiles.instant: bad name: 'instant' is a built-in profile and cannot be redefined; give yours another name (built-in: instant, fast, typical, slow-reasoning)",
    ]);
  });

  it("startMockServer rejects with the ServiceError, and listens on nothing", async () => {
    const err = await startMockServer({ port: 0, service: { maxConcurrent: 0 } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect((err as ServiceError).issues).toEqual([
      { file: "service", path: "$.maxConcurrent", message: "must be >= 1" },
    ]);
  });
});
