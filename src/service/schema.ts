/**
 * The service file format (`serve --service FILE`), as one zod schema: models
 * with prices, limits, capacity and a latency profile; limits per API key;
 * named latency profiles. Objects are strict, so a typo is an error with its
 * JSON path. The published JSON Schema (service.schema.json) is generated
 * from this (json-schema.ts); the rules JSON Schema cannot state are checked
 * by parse.ts and listed in SERVICE_SEMANTIC_RULES. Pure.
 */
import { z } from "zod";

/** The names of the built-in profiles (service.ts, BUILTIN_PROFILES); a file may not redefine them. */
export const BUILTIN_PROFILE_NAMES = ["instant", "fast", "typical", "slow-reasoning"] as const;

/**
 * Rules of service files that JSON Schema cannot state: the parser checks
 * them, service.schema.json only lists them (in its description), so an
 * editor may accept a file that `validate` refuses for one of these.
 */
export const SERVICE_SEMANTIC_RULES = [
  "a profile named by defaults.profile or a model's profile must be a built-in profile or one of the file's profiles",
  "a distribution's p99 must be at least its median",
] as const;

/** A profile's name: what `x-mock-profile` and `--profile` carry. */
export const PROFILE_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

const usdPerMillion = z.number().min(0).max(1_000_000);

/** Prices in USD per 1M tokens; each one left out comes from `defaults.prices`, else the built-in default prices. */
export const ServicePrices = z
  .strictObject({
    input: usdPerMillion.optional().describe("Uncached input tokens, USD per 1M."),
    cachedInput: usdPerMillion.optional().describe("Cached input tokens, USD per 1M."),
    output: usdPerMillion.optional().describe("Output tokens other than reasoning, USD per 1M."),
    reasoning: usdPerMillion.optional().describe("Reasoning tokens (part of the output), USD per 1M."),
  })
  .describe("Prices in USD per 1M tokens. Each one left out comes from defaults.prices, else the built-in defaults.");

/** What one key, or a model, may spend: each left out is unlimited (or, for a model, from defaults.limits). */
export const ServiceLimits = z
  .strictObject({
    rpm: z.number().int().min(1).max(1_000_000_000).optional().describe("Requests per minute (a token bucket)."),
    tpm: z
      .number()
      .int()
      .min(1)
      .max(1_000_000_000_000)
      .optional()
      .describe("Tokens per minute: input plus output tokens of each answer."),
    budgetUsd: z
      .number()
      .min(0)
      .max(1_000_000_000)
      .optional()
      .describe("Once the cost of what was answered reaches this, requests get a 429 insufficient_quota."),
  })
  .describe("Rate limits and a budget. Each left out is unlimited (for a model: taken from defaults.limits).");

const profileRef = z
  .string()
  .regex(PROFILE_NAME_PATTERN, "must be a profile name: letters, digits, '.', '_' and '-', at most 64")
  .describe("A latency profile: a built-in one (instant, fast, typical, slow-reasoning) or one of 'profiles'.");

/** maxConcurrent, queue and queueTimeoutMs: a model's own, or (`scope` "server") the server-wide ones for models without their own. */
const capacityFields = (scope: "model" | "server") => ({
  maxConcurrent: z
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .optional()
    .describe(
      scope === "model"
        ? "Answers of this model playing at once; more wait in its queue."
        : "Answers playing at once, server-wide, for models without their own maxConcurrent; more wait in the queue. --max-concurrent overrides it.",
    ),
  queue: z
    .number()
    .int()
    .min(0)
    .max(1_000_000)
    .optional()
    .describe("Answers that may wait for a slot beyond maxConcurrent (default 0)."),
  queueTimeoutMs: z
    .number()
    .int()
    .min(1)
    .max(3_600_000)
    .optional()
    .describe(
      `The longest an answer waits in the queue before a 503, in ms (default: no limit).${scope === "server" ? " --queue-timeout-ms overrides it." : ""}`,
    ),
});

/** One model the service answers as. */
export const ServiceModel = z
  .strictObject({
    prices: ServicePrices.optional(),
    limits: ServiceLimits.optional(),
    ...capacityFields("model"),
    profile: profileRef.optional(),
    ownedBy: z.string().min(1).max(256).optional().describe("owned_by in /v1/models (default openresponses-mock)."),
    created: z
      .number()
      .int()
      .min(0)
      .max(Number.MAX_SAFE_INTEGER)
      .optional()
      .describe("created in /v1/models, Unix seconds (default 0)."),
  })
  .describe("A model: its prices, limits, capacity and latency profile. Everything left out comes from defaults.");

const milliseconds = z.number().min(0).max(3_600_000);

/** A log-normal latency distribution, by its median and 99th percentile. */
export const ServiceDistribution = z
  .strictObject({
    median: milliseconds.describe("Median, in ms."),
    p99: milliseconds.describe("99th percentile, in ms (at least the median)."),
  })
  .describe("A log-normal latency distribution: its median and 99th percentile, in ms.");

/** A named latency profile, in the shape `GET /__mock/profiles` shows (name aside). */
export const ServiceProfile = z
  .strictObject({
    description: z.string().max(1000).optional(),
    ttftMs: ServiceDistribution.describe("Time to the first token."),
    itlMs: ServiceDistribution.describe("Time between tokens (inter-token latency)."),
    slowdown: z
      .strictObject({
        k: z.number().min(0).max(1000).describe("How much inter-token latency grows with load."),
        capacity: z.number().int().min(1).max(1_000_000).describe("The load the growth is measured against."),
      })
      .optional()
      .describe(
        "itl × (1 + k × (active − 1) / capacity), active being the model's answers playing at once. Default: none (k 0).",
      ),
  })
  .describe(
    "A latency profile: TTFT and inter-token latency drawn from the request's seed, and its slowdown under load.",
  );

const profileName = z
  .string()
  .regex(PROFILE_NAME_PATTERN, "must be a profile name: letters, digits, '.', '_' and '-', at most 64")
  .refine((name) => !(BUILTIN_PROFILE_NAMES as readonly string[]).includes(name), {
    error: (issue) =>
      `'${String(issue.input)}' is a built-in profile and cannot be redefined; give yours another name (built-in: ${BUILTIN_PROFILE_NAMES.join(", ")})`,
  })
  .meta({ not: { enum: [...BUILTIN_PROFILE_NAMES] } });

/** The service file. */
export const ServiceFile = z.strictObject({
  $schema: z.string().optional().describe("The JSON Schema this file follows (service.schema.json)."),
  description: z.string().min(1).max(10_000).optional(),
  defaults: z
    .strictObject({
      prices: ServicePrices.optional(),
      limits: ServiceLimits.optional(),
      profile: profileRef.optional(),
    })
    .optional()
    .describe(
      "What every model gets unless it says otherwise, including models the file does not list. --rpm, --tpm and --profile override these.",
    ),
  ...capacityFields("server"),
  models: z
    .record(z.string().min(1).max(256), ServiceModel)
    .optional()
    .describe("The models, by id (the request's 'model'). They are what GET /v1/models lists."),
  keys: z
    .record(
      z.string().regex(/^\S{1,1024}$/, "must be an API key as sent in 'Authorization: Bearer KEY' (no spaces)"),
      ServiceLimits,
    )
    .optional()
    .describe("Limits per API key (the bearer token), on top of the model's."),
  profiles: z
    .record(profileName, ServiceProfile)
    .optional()
    .describe("Latency profiles of this file, by name, beside the built-in ones."),
});

export type ServiceFile = z.output<typeof ServiceFile>;
export type ServiceFileInput = z.input<typeof ServiceFile>;
