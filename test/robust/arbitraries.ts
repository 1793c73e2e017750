/**
 * fast-check arbitraries for requests and scenario documents, written from the
 * shapes of the spec schemas (src/spec/request.ts, items.ts, content.ts,
 * tools.ts) and the scenario schema (src/scenario/schema.ts) — not from the
 * server's own generators. Sizes are kept small on purpose: JSON-schema
 * sampling is exponential in nesting and minItems (a known bug, see
 * fuzz-requests.test.ts), and the fuzz is about shapes, not volume.
 */
import fc from "fast-check";

// ---- strings ---------------------------------------------------------------------

/** Characters that break naive code: NUL, bidi controls, BOM, lone surrogates, emoji, combining marks, separators, `$` patterns. */
export const ODD_PIECES = [
  "\u0000",
  "\u0001",
  "\u007f",
  "\u202e",
  "\u202d",
  "\u200f",
  "\u200b",
  "\ufeff",
  "\ud800",
  "\udfff",
  "\udbff\udfff",
  "😀",
  "👨‍👩‍👧",
  "🏳️‍🌈",
  "e\u0301",
  "مرحبا",
  "שלום",
  "日本語",
  "𝕏",
  "\n",
  "\r\n",
  "\r",
  "\t",
  "\u2028",
  "\u2029",
  "\\",
  '"',
  "'",
  "`",
  "</script>",
  "\uffff",
  "\ufffd",
  "%00",
  "${x}",
  "$&",
  "$'",
  "$$",
  "{{input}}",
  "{{model}}",
  "data: x\n\n",
];

export const oddText = fc
  .array(fc.oneof(fc.constantFrom(...ODD_PIECES), fc.string({ maxLength: 6 })), { maxLength: 10 })
  .map((a) => a.join(""));

/** Any text: ASCII, full unicode (graphemes and raw code points), odd pieces. */
export const anyText = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: "grapheme", maxLength: 20 }) },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 20 }) },
  { weight: 3, arbitrary: oddText },
);

/** Text of at most `max` UTF-16 code units (the unit the schemas count in). */
export const textUpTo = (max: number) => anyText.map((s) => s.slice(0, max));
export const nonEmptyUpTo = (max: number) => textUpTo(max).filter((s) => s.length > 0);

/** Sentences that mention things the `auto` scenario reacts to (cities, tool names). */
export const promptText = fc.oneof(
  anyText,
  fc.constantFrom(
    "What's the weather in Paris?",
    "Call get_time for Tokyo and San Francisco.",
    "Think it through first.",
    "Write JSON.",
    "Hello there!",
    "",
  ),
);

export const functionName = fc.stringMatching(/^[a-zA-Z0-9_-]{1,64}$/);
export const vendorType = fc
  .tuple(
    fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,8}$/),
    fc.stringMatching(/^[A-Za-z0-9_][A-Za-z0-9_.:-]{0,12}$/),
  )
  .map(([a, b]) => `${a}:${b}`);

/** Optional keys: absent, or the value (or null where the schema says nullish). */
const opt = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
const nullish = <T>(arb: fc.Arbitrary<T>) => fc.oneof(fc.constant(undefined), fc.constant(null), arb);

/** Drops undefined values so the JSON has no such key. */
export function clean<T extends Record<string, unknown>>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/** A small JSON value (bounded depth and size). */
export const smallJson = fc.jsonValue({ maxDepth: 2, depthSize: "small" });

// ---- JSON Schema (tool parameters, text.format.schema) ------------------------------------

// ("__proto__" is left out: a known bug, see fuzz-requests.test.ts)
const PROP_NAMES = [
  "city",
  "location",
  "email",
  "url",
  "name",
  "color",
  "phone",
  "country",
  "full_name",
  "when",
  "count",
  "tags",
  "unit",
  "constructor",
  "toString",
  "a b",
  "ünïcode",
  "😀",
  "",
];
const propName = fc.oneof(fc.constantFrom(...PROP_NAMES), fc.string({ maxLength: 8 }));

const PATTERNS = [
  "^[a-z]{3}$",
  "^\\d{4}-\\d{2}$",
  "^(foo|bar)+$",
  "[A-Z][a-z]*",
  "^\\w+@\\w+\\.com$",
  "(a+)+$",
  "^[^x]$",
  "\\bword\\b",
  "(?=x)x",
  "([",
  "^.{2,5}$",
  "^$",
];
const FORMATS = ["date", "time", "date-time", "duration", "email", "uri", "hostname", "uuid", "ipv4", "ipv6", "bogus"];

const leafSchema: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  fc.constant({ type: "string" }),
  fc.constant({}),
  fc.constant({ type: "boolean" }),
  fc.constant({ type: "null" }),
  fc.constant({ type: ["string", "null"] }),
  fc.record({
    type: fc.constant("string"),
    enum: fc.uniqueArray(fc.string({ maxLength: 8 }), { minLength: 1, maxLength: 4 }),
  }),
  fc.record({ type: fc.constant("string"), format: fc.constantFrom(...FORMATS) }),
  fc.record({ type: fc.constant("string"), pattern: fc.constantFrom(...PATTERNS) }),
  fc.record({ type: fc.constant("string"), minLength: fc.nat(12), maxLength: fc.nat(30) }, { requiredKeys: ["type"] }),
  fc.record(
    {
      type: fc.constantFrom("integer", "number"),
      minimum: fc.integer({ min: -1000, max: 1000 }),
      maximum: fc.integer({ min: -1000, max: 1000 }),
      exclusiveMinimum: fc.oneof(fc.boolean(), fc.integer({ min: -10, max: 10 })),
      multipleOf: fc.constantFrom(1, 2, 0.5, 0.01, 3, 1e-7),
    },
    { requiredKeys: ["type"] },
  ),
  fc.record({ const: smallJson }),
  fc.record(
    { enum: fc.array(smallJson, { minLength: 1, maxLength: 3 }), nullable: fc.boolean() },
    { requiredKeys: ["enum"] },
  ),
);

function schemaAt(depth: number): fc.Arbitrary<Record<string, unknown>> {
  if (depth === 0) return leafSchema;
  const inner = schemaAt(depth - 1);
  const object = fc
    .record(
      {
        type: fc.constant("object"),
        properties: fc.dictionary(propName, inner, { maxKeys: 3 }),
        additionalProperties: fc.oneof(fc.boolean(), leafSchema),
        minProperties: fc.nat(2),
      },
      { requiredKeys: ["type", "properties"] },
    )
    .chain((o) =>
      fc.subarray(Object.keys(o.properties as object).concat(["unlisted"])).map((required) => ({ ...o, required })),
    );
  const array = fc.record(
    { type: fc.constant("array"), items: inner, minItems: fc.nat(2), maxItems: fc.nat(3), uniqueItems: fc.boolean() },
    { requiredKeys: ["type", "items"] },
  );
  const tuple = fc.record({
    type: fc.constant("array"),
    prefixItems: fc.array(inner, { maxLength: 2 }),
    items: fc.oneof(fc.constant(false), inner),
  });
  const combo = fc.oneof(
    fc.record({ anyOf: fc.array(inner, { minLength: 1, maxLength: 3 }) }),
    fc.record({ oneOf: fc.array(inner, { minLength: 1, maxLength: 3 }) }),
    fc.record({ allOf: fc.array(inner, { minLength: 1, maxLength: 2 }) }),
  );
  return fc.oneof(
    { weight: 2, arbitrary: leafSchema },
    { weight: 3, arbitrary: object },
    { weight: 2, arbitrary: array },
    { weight: 1, arbitrary: tuple },
    { weight: 1, arbitrary: combo },
  );
}

/** A JSON Schema for tool parameters or json_schema output: an object, maybe with $defs and (non-recursive) $refs. */
export const jsonSchema: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  { weight: 4, arbitrary: schemaAt(3) },
  {
    weight: 1,
    arbitrary: fc.constant({
      type: "object",
      properties: { city: { type: "string" }, unit: { type: "string", enum: ["c", "f"] } },
      required: ["city"],
      additionalProperties: false,
    }),
  },
  {
    weight: 1,
    arbitrary: fc
      .record({
        def: leafSchema,
        extra: fc.constantFrom(
          "#/$defs/thing",
          "#/definitions/none",
          "#/properties",
          "http://example.com/x",
          "#/$defs/a~1b",
        ),
      })
      .map(({ def, extra }) => ({
        type: "object",
        $defs: { thing: def, "a/b": { type: "integer" } },
        properties: { first: { $ref: "#/$defs/thing" }, second: { $ref: extra } },
        required: ["first", "second"],
      })),
  },
);

// ---- content parts -----------------------------------------------------------------

const url = fc.oneof(
  fc.webUrl(),
  fc.constantFrom("data:image/png;base64,iVBORw0KGgo=", "", "not a url", "javascript:alert(1)"),
);
const detail = nullish(fc.constantFrom("low", "high", "auto"));

export const inputTextPart = fc.record({ type: fc.constant("input_text"), text: anyText });
const inputImagePart = fc.record({ type: fc.constant("input_image"), image_url: nullish(url), detail }).map(clean);
const inputFilePart = fc
  .record({
    type: fc.constant("input_file"),
    filename: nullish(anyText),
    file_data: nullish(fc.base64String({ maxLength: 40 })),
    file_url: nullish(url),
  })
  .map(clean);
const inputVideoPart = fc.record({ type: fc.constant("input_video"), video_url: url });
const annotation = fc.record({
  type: fc.constant("url_citation"),
  start_index: fc.nat(50),
  end_index: fc.nat(50),
  url: fc.webUrl(),
  title: anyText,
});
const outputTextPart = fc
  .record({ type: fc.constant("output_text"), text: anyText, annotations: opt(fc.array(annotation, { maxLength: 2 })) })
  .map(clean);
const refusalPart = fc.record({ type: fc.constant("refusal"), refusal: anyText });

const userPart = fc.oneof(inputTextPart, inputImagePart, inputFilePart);
const assistantPart = fc.oneof(outputTextPart, refusalPart);
const toolOutputPart = fc.oneof(inputTextPart, inputImagePart, inputFilePart, inputVideoPart);

// ---- items ---------------------------------------------------------------------------

const itemId = nullish(fc.oneof(fc.stringMatching(/^[a-z]{2,4}_[A-Za-z0-9]{4,24}$/), anyText));
const callStatus = nullish(fc.constantFrom("in_progress", "completed", "incomplete"));
/** `type: "message"`, or left out (a message is known by its role). */
const messageType = fc.constantFrom<"message" | undefined>("message", "message", undefined);

const userMessage = fc
  .record({
    type: messageType,
    role: fc.constant("user"),
    content: fc.oneof(promptText, fc.array(userPart, { maxLength: 3 })),
    id: itemId,
    status: nullish(fc.constantFrom("completed", "whatever")),
  })
  .map(clean);
const systemMessage = fc
  .record({
    type: messageType,
    role: fc.constantFrom("system", "developer"),
    content: fc.oneof(anyText, fc.array(inputTextPart, { maxLength: 2 })),
    id: itemId,
  })
  .map(clean);
const assistantMessage = fc
  .record({
    type: messageType,
    role: fc.constant("assistant"),
    content: fc.oneof(anyText, fc.array(assistantPart, { maxLength: 2 })),
    phase: opt(fc.constantFrom("commentary", "final_answer")),
    id: itemId,
    status: nullish(fc.constantFrom("completed", "incomplete")),
  })
  .map(clean);

const callIdArb = nonEmptyUpTo(64);
const argumentsText = fc.oneof(
  smallJson.map((v) => JSON.stringify(v)),
  anyText,
);
const functionCall = (callId: string) =>
  fc
    .record({
      type: fc.constant("function_call"),
      call_id: fc.constant(callId),
      name: functionName,
      arguments: argumentsText,
      id: itemId,
      status: callStatus,
    })
    .map(clean);
const functionOutput = (callId: string) =>
  fc
    .record({
      type: fc.constant("function_call_output"),
      call_id: fc.constant(callId),
      output: fc.oneof(anyText, fc.array(toolOutputPart, { maxLength: 2 })),
      id: itemId,
      status: callStatus,
    })
    .map(clean);
/** A call, its output (usually), and maybe both twice in parallel. */
const toolExchange = callIdArb.chain((id) =>
  fc.oneof(fc.tuple(functionCall(id), functionOutput(id)), fc.tuple(functionCall(id))),
);

const reasoningItem = fc
  .record({
    type: fc.constant("reasoning"),
    summary: fc.array(fc.record({ type: fc.constant("summary_text"), text: anyText }), { maxLength: 2 }),
    id: itemId,
    content: fc.constantFrom(undefined, null),
    encrypted_content: nullish(anyText),
  })
  .map(clean);
/** Compaction items from elsewhere (not made by this server: kept opaque). */
const compactionItem = fc
  .record({
    type: fc.constant("compaction"),
    encrypted_content: anyText.filter((s) => !s.startsWith("orm.")),
    id: itemId,
  })
  .map(clean);
const itemReference = fc.oneof(
  fc.record({ type: fc.constant("item_reference"), id: anyText }),
  fc.record({ id: fc.stringMatching(/^msg_[a-z0-9]{4,10}$/) }),
);
/** OpenAI's item types (hosted-tool calls, custom tool calls and their outputs): accepted by default and kept whole. */
const openaiItems = callIdArb.chain((id) =>
  fc.constantFrom<Record<string, unknown>[]>(
    [{ type: "web_search_call", id: `ws_${id}`, status: "completed", action: { type: "search", query: "q" } }],
    [{ type: "mcp_call", id: `mcp_${id}`, server_label: "docs", name: "search", arguments: "{}", output: "found" }],
    [
      { type: "custom_tool_call", call_id: id, name: "apply_patch", input: "*** Begin Patch" },
      { type: "custom_tool_call_output", call_id: id, output: "done" },
    ],
    [
      { type: "shell_call", call_id: id, action: { commands: ["ls"] } },
      {
        type: "shell_call_output",
        call_id: id,
        output: [{ stdout: "a", stderr: "", outcome: { type: "exit", exit_code: 0 } }],
      },
    ],
  ),
);
/** Vendor items carry their own fields; kept small and shallow. */
const vendorItem = fc
  .tuple(
    vendorType,
    fc.dictionary(
      fc.string({ maxLength: 6 }).filter((k) => k !== "type"),
      smallJson,
      { maxKeys: 3 },
    ),
  )
  .map(([type, extra]) => ({ ...extra, type }));

export const inputItems = fc
  .array(
    fc.oneof(
      { weight: 4, arbitrary: userMessage.map((m) => [m]) },
      { weight: 1, arbitrary: systemMessage.map((m) => [m]) },
      { weight: 2, arbitrary: assistantMessage.map((m) => [m]) },
      { weight: 3, arbitrary: toolExchange },
      { weight: 1, arbitrary: reasoningItem.map((m) => [m]) },
      { weight: 1, arbitrary: compactionItem.map((m) => [m]) },
      { weight: 1, arbitrary: itemReference.map((m) => [m]) },
      { weight: 1, arbitrary: vendorItem.map((m) => [m]) },
      { weight: 1, arbitrary: openaiItems },
    ),
    { maxLength: 6 },
  )
  .map((groups) => groups.flat() as Record<string, unknown>[]);

// ---- tools -----------------------------------------------------------------------------

const functionTool = fc
  .record({
    type: fc.constant("function"),
    name: functionName,
    description: nullish(anyText),
    parameters: nullish(jsonSchema),
    strict: nullish(fc.boolean()),
  })
  .map(clean);
const vendorTool = fc
  .tuple(
    vendorType,
    fc.dictionary(
      fc.string({ maxLength: 6 }).filter((k) => k !== "type"),
      smallJson,
      { maxKeys: 2 },
    ),
  )
  .map(([type, extra]) => ({ ...extra, type }));
const KNOWN_TOOLS = [
  {
    type: "function",
    name: "get_weather",
    parameters: {
      type: "object",
      properties: { city: { type: "string" }, unit: { type: "string", enum: ["c", "f"] } },
      required: ["city"],
    },
  },
  {
    type: "function",
    name: "get_time",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
];
/** OpenAI's tools as clients send them (accepted by default, echoed, never called). */
const OPENAI_TOOLS = [
  { type: "web_search", search_context_size: "medium" },
  { type: "web_search_preview", user_location: { type: "approximate", city: "Paris" } },
  { type: "file_search", vector_store_ids: ["vs_1"] },
  { type: "code_interpreter", container: { type: "auto" } },
  { type: "image_generation", output_format: "png" },
  { type: "mcp", server_label: "docs", server_url: "https://example.com/mcp", require_approval: "never" },
  { type: "shell" },
  { type: "apply_patch" },
  { type: "custom", name: "apply_patch", format: { type: "grammar", syntax: "lark", definition: "start: /.+/" } },
  {
    type: "namespace",
    name: "mcp__docs__",
    description: "Docs tools",
    tools: [{ type: "function", name: "lookup", parameters: { type: "object", properties: {} } }],
  },
  {
    type: "tool_search",
    execution: "client",
    parameters: { type: "object", properties: { query: { type: "string" } } },
  },
];
export const tools = fc.array(
  fc.oneof(
    { weight: 4, arbitrary: functionTool },
    { weight: 1, arbitrary: vendorTool },
    { weight: 2, arbitrary: fc.constantFrom(...KNOWN_TOOLS) },
    { weight: 1, arbitrary: fc.constantFrom(...OPENAI_TOOLS) },
  ),
  { maxLength: 3 },
);

/** A tool_choice consistent with the tools (a named tool is always among them). */
export function toolChoiceFor(list: readonly Record<string, unknown>[]): fc.Arbitrary<unknown> {
  const names = list.filter((t) => t.type === "function").map((t) => t.name as string);
  const options: fc.Arbitrary<unknown>[] = [fc.constant(undefined), fc.constant(null), fc.constantFrom("none", "auto")];
  const hosted = list.filter((t) =>
    [
      "web_search",
      "web_search_preview",
      "file_search",
      "code_interpreter",
      "image_generation",
      "shell",
      "apply_patch",
    ].includes(t.type as string),
  );
  if (hosted.length > 0) options.push(fc.constantFrom(...hosted).map((t) => ({ type: t.type })));
  const custom = list.find((t) => t.type === "custom");
  if (custom) options.push(fc.constant({ type: "custom", name: custom.name }));
  if (names.length > 0) {
    options.push(
      fc.constant("required"),
      fc.constantFrom(...names).map((name) => ({ type: "function", name })),
      fc
        .record({
          type: fc.constant("allowed_tools"),
          tools: fc.subarray(names, { minLength: 1 }).map((ns) => ns.map((name) => ({ type: "function", name }))),
          mode: opt(fc.constantFrom("none", "auto", "required")),
        })
        .map(clean),
    );
  }
  return fc.oneof(...options);
}

// ---- the request body ----------------------------------------------------------------

const finite = fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 });

const textParam = fc
  .record({
    format: nullish(
      fc.oneof(
        fc.constant({ type: "text" }),
        fc.constant({ type: "json_object" }),
        fc
          .record({
            type: fc.constant("json_schema"),
            name: opt(fc.stringMatching(/^[a-zA-Z0-9_-]{1,20}$/)),
            description: nullish(anyText),
            schema: opt(jsonSchema),
            strict: nullish(fc.boolean()),
          })
          .map(clean),
      ),
    ),
    verbosity: opt(fc.constantFrom("low", "medium", "high")),
  })
  .map(clean);

const metadata = fc.dictionary(textUpTo(64), textUpTo(512), { maxKeys: 16 });

/** A request body valid for CreateResponseBody, OpenAI's forms included (and for the rules the server adds: tool_choice names offered tools, outputs follow their calls). */
export const validBody: fc.Arbitrary<Record<string, unknown>> = fc
  .record(
    {
      model: fc.oneof(fc.constant("mock-model-1"), anyText),
      input: fc.oneof({ weight: 1, arbitrary: promptText }, { weight: 2, arbitrary: inputItems }),
      instructions: nullish(anyText),
      include: opt(
        fc.subarray([
          "reasoning.encrypted_content",
          "message.output_text.logprobs",
          "web_search_call.action.sources",
          "code_interpreter_call.outputs",
        ]),
      ),
      tools: nullish(tools),
      parallel_tool_calls: nullish(fc.boolean()),
      max_output_tokens: nullish(fc.integer({ min: 16, max: 2048 })),
      max_tool_calls: nullish(fc.integer({ min: 1, max: 5 })),
      temperature: nullish(fc.double({ noNaN: true, min: 0, max: 2 })),
      top_p: nullish(fc.double({ noNaN: true, min: 0, max: 1 })),
      presence_penalty: nullish(finite),
      frequency_penalty: nullish(finite),
      top_logprobs: nullish(fc.integer({ min: 0, max: 20 })),
      text: nullish(textParam),
      reasoning: nullish(
        fc
          .record({
            effort: nullish(fc.constantFrom("none", "minimal", "low", "medium", "high", "xhigh", "max")),
            summary: nullish(fc.constantFrom("concise", "detailed", "auto")),
          })
          .map(clean),
      ),
      truncation: opt(fc.constantFrom("auto", "disabled")),
      store: opt(fc.boolean()),
      stream: opt(fc.boolean()),
      stream_options: nullish(fc.record({ include_obfuscation: opt(fc.boolean()) }).map(clean)),
      service_tier: opt(fc.constantFrom("auto", "default", "flex", "priority", "scale")),
      user: opt(textUpTo(64)),
      prompt_cache_retention: opt(fc.constantFrom("in_memory", "24h")),
      metadata: nullish(metadata),
      safety_identifier: nullish(textUpTo(64)),
      prompt_cache_key: nullish(textUpTo(64)),
      // Unknown keys pass (and are dropped).
      x_unknown: opt(smallJson),
    },
    { requiredKeys: ["model", "input"] },
  )
  .chain((body) =>
    toolChoiceFor((body.tools ?? []) as Record<string, unknown>[]).map((tool_choice) =>
      clean({ ...body, tool_choice }),
    ),
  );

// ---- scenario documents ---------------------------------------------------------------

const delayMs = opt(fc.integer({ min: 0, max: 5 }));
const chunking = opt(
  fc.oneof(
    fc.record({ tokens: fc.integer({ min: 1, max: 6 }) }),
    fc.record({ chars: fc.integer({ min: 1, max: 12 }) }),
  ),
);
const scenarioText = fc.oneof(
  anyText,
  fc.constantFrom(
    "You said {{input}}.",
    "Tool: {{tool_output}}; all: {{tool_outputs}}; model {{model}}",
    "{{unknown}} {{input",
  ),
);

const messageStep = fc
  .record({
    type: fc.constant("message"),
    delayMs,
    text: opt(scenarioText),
    refusal: opt(anyText),
    annotations: opt(
      fc.array(
        fc
          .record({
            url: fc.webUrl(),
            title: anyText,
            start_index: fc.nat(40),
            end_index: fc.nat(40),
            type: opt(fc.constant("url_citation")),
          })
          .map(clean),
        { maxLength: 2 },
      ),
    ),
    phase: opt(fc.constantFrom("commentary", "final_answer")),
    chunk: chunking,
  })
  .map(clean)
  .map((m) => (m.text === undefined && m.refusal === undefined ? { ...m, text: "fallback text" } : m));
const reasoningStep = fc
  .record({
    type: fc.constant("reasoning"),
    delayMs,
    summary: opt(fc.array(scenarioText, { maxLength: 3 })),
    text: opt(scenarioText),
    encrypted_content: opt(anyText),
    chunk: chunking,
  })
  .map(clean);
const functionCallStep = fc
  .record({
    type: fc.constant("function_call"),
    delayMs,
    name: fc.oneof(functionName, fc.constantFrom("get_weather", "get_time")),
    arguments: opt(fc.oneof(fc.dictionary(fc.string({ maxLength: 6 }), smallJson, { maxKeys: 3 }), anyText)),
    call_id: opt(nonEmptyUpTo(64)),
    chunk: chunking,
  })
  .map(clean);
const extraFields = (forbidden: string[]) =>
  fc.dictionary(
    fc.string({ maxLength: 8 }).filter((k) => !forbidden.includes(k)),
    smallJson,
    { maxKeys: 3 },
  );
const vendorItemStep = fc
  // Only the statuses the conformance rules allow on a finished item: any other string is a known bug (fuzz-scenarios.test.ts).
  .record({
    type: fc.constant("vendor_item"),
    delayMs,
    item: fc
      .tuple(vendorType, opt(anyText), opt(fc.constant("completed")), extraFields(["type", "id", "status"]))
      .map(([type, id, status, extra]) => clean({ ...extra, type, id, status })),
  })
  .map(clean);
const vendorEventStep = fc
  .record({
    type: fc.constant("vendor_event"),
    delayMs,
    event: fc.tuple(vendorType, extraFields(["type", "sequence_number"])).map(([type, extra]) => ({ ...extra, type })),
  })
  .map(clean);
const hostedId = opt(fc.stringMatching(/^[a-z]{2,4}_[0-9a-f]{1,12}$/));
const mcpArguments = opt(fc.oneof(fc.dictionary(fc.string({ maxLength: 6 }), smallJson, { maxKeys: 3 }), anyText));
const serverLabel = fc.constantFrom("deepwiki", "s", "acme-tools");
export const hostedStep = fc.oneof(
  fc
    .record({
      type: fc.constant("web_search_call"),
      delayMs,
      id: hostedId,
      query: fc.oneof(nonEmptyUpTo(40), fc.constant("{{input}}")),
      sources: opt(fc.array(fc.webUrl(), { maxLength: 3 })),
    })
    .map(clean),
  fc
    .record({
      type: fc.constant("code_interpreter_call"),
      delayMs,
      id: hostedId,
      code: anyText,
      container_id: opt(nonEmptyUpTo(20)),
      outputs: opt(
        fc.array(
          fc.oneof(
            fc.record({ type: fc.constant("logs"), logs: anyText }),
            fc.record({ type: fc.constant("image"), url: fc.webUrl() }),
          ),
          { maxLength: 2 },
        ),
      ),
      chunk: chunking,
    })
    .map(clean),
  fc
    .record({
      type: fc.constant("image_generation_call"),
      delayMs,
      id: hostedId,
      result: opt(fc.base64String({ maxLength: 40 })),
      partial_images: opt(fc.integer({ min: 0, max: 3 })),
      revised_prompt: opt(anyText),
    })
    .map(clean),
  fc
    .record({
      type: fc.constant("file_search_call"),
      delayMs,
      id: hostedId,
      queries: fc.array(nonEmptyUpTo(30), { minLength: 1, maxLength: 3 }),
      results: opt(
        fc.array(
          fc.record({
            file_id: nonEmptyUpTo(12),
            filename: nonEmptyUpTo(12),
            score: fc.double({ min: 0, max: 1, noNaN: true }),
            text: anyText,
          }),
          { maxLength: 2 },
        ),
      ),
    })
    .map(clean),
  fc
    .record({
      type: fc.constant("mcp_list_tools"),
      delayMs,
      id: hostedId,
      server_label: serverLabel,
      tools: fc.array(fc.record({ name: nonEmptyUpTo(20), description: opt(anyText) }).map(clean), { maxLength: 3 }),
    })
    .map(clean),
  fc
    .record({
      type: fc.constant("mcp_call"),
      delayMs,
      id: hostedId,
      server_label: serverLabel,
      name: nonEmptyUpTo(20),
      arguments: mcpArguments,
      result: opt(fc.oneof(fc.record({ output: anyText }), fc.record({ error: nonEmptyUpTo(30) }))),
      chunk: chunking,
    })
    .map(({ result, ...rest }) => clean({ ...rest, ...(result ?? {}) })),
  fc
    .record({
      type: fc.constant("mcp_approval_request"),
      delayMs,
      id: hostedId,
      server_label: serverLabel,
      name: nonEmptyUpTo(20),
      arguments: mcpArguments,
    })
    .map(clean),
);
export const scenarioStep = fc.oneof(
  messageStep,
  reasoningStep,
  functionCallStep,
  vendorItemStep,
  vendorEventStep,
  hostedStep,
);

const errorFields = fc
  .record({
    type: opt(
      fc.oneof(
        fc.constantFrom("invalid_request", "not_found", "too_many_requests", "server_error", "model_error"),
        nonEmptyUpTo(20),
      ),
    ),
    code: nullish(anyText),
    message: opt(nonEmptyUpTo(80)),
    param: nullish(anyText),
  })
  .map(clean);
/** Header values a server can actually send (visible ASCII). */
const headerValue = fc.stringMatching(/^[\x21-\x7e]([\x20-\x7e]{0,20}[\x21-\x7e])?$/);
export const HTTP_ERROR_STATUSES = [400, 401, 403, 404, 409, 413, 422, 429, 500, 502, 503];
export const scenarioEnd = fc.oneof(
  fc.constant({ type: "completed" }),
  fc.record({ type: fc.constant("incomplete"), reason: opt(nonEmptyUpTo(30)) }).map(clean),
  fc.record({ type: fc.constant("failed"), afterEvents: opt(fc.nat(30)), error: opt(errorFields) }).map(clean),
  fc
    .record({
      type: fc.constant("http_error"),
      status: fc.constantFrom(...HTTP_ERROR_STATUSES),
      error: opt(errorFields),
      headers: opt(fc.dictionary(fc.stringMatching(/^x-[a-z0-9-]{1,12}$/), headerValue, { maxKeys: 2 })),
    })
    .map(clean),
);

const ms = fc.integer({ min: 0, max: 5 });
const timing = fc.record(
  { latencyMs: ms, chunkMs: ms, jitterMs: ms, tokensPerSecond: fc.integer({ min: 1, max: 1000 }), heartbeatMs: ms },
  { requiredKeys: [] },
);
const fault = fc.record(
  {
    dropAfterEvents: fc.nat(20),
    dropAfterMs: ms,
    stall: fc.record({ afterEvents: fc.nat(10), ms }),
    hangAfterEvents: fc.nat(20),
  },
  { requiredKeys: [] },
);
const turn = fc
  .record({
    steps: opt(fc.array(scenarioStep, { maxLength: 4 })),
    end: opt(scenarioEnd),
    timing: opt(timing),
    fault: opt(fault),
  })
  .map(clean);
const range = (max: number) => fc.tuple(fc.nat(max), fc.nat(max)).map(([a, b]) => (a <= b ? [a, b] : [b, a]));
const KINDS = ["text", "tool_calls", "reasoning_text", "refusal", "incomplete", "failure", "vendor_item"];
const weights = fc
  .tuple(fc.constantFrom(...KINDS), fc.dictionary(fc.constantFrom(...KINDS), fc.integer({ min: 0, max: 5 })))
  .map(([must, w]) => ({ ...w, [must]: (w[must] ?? 0) + 1 }));
const generate = fc.oneof(
  fc.constant({ strategy: "auto" }),
  fc
    .record({
      strategy: fc.constant("random"),
      weights: opt(weights),
      sentences: opt(range(4)),
      toolCalls: opt(range(3)),
      chunkTokens: opt(range(4)),
      failAfterEvents: opt(range(20)),
    })
    .map(clean),
);
const match = fc.record(
  {
    contains: nonEmptyUpTo(20),
    matches: fc.constantFrom("^hello", "weather|time", "\\d+", "[\\p{L}]+"),
    model: nonEmptyUpTo(20),
    tool: nonEmptyUpTo(20),
    afterToolOutput: fc.boolean(),
    metadata: fc.dictionary(fc.string({ maxLength: 6 }), fc.string({ maxLength: 6 }), { maxKeys: 2 }),
  },
  { requiredKeys: [] },
);

/** A scenario document the schema accepts. */
export const validScenarioDoc: fc.Arbitrary<Record<string, unknown>> = fc
  .record({
    $schema: opt(fc.constant("../scenario.schema.json")),
    name: fc.stringMatching(/^[a-z0-9][a-z0-9._-]{0,63}$/),
    description: nonEmptyUpTo(120),
    model: opt(nonEmptyUpTo(30)),
    match: opt(match),
    timing: opt(timing),
    fault: opt(fault),
    body: fc.oneof(
      fc.array(turn, { minLength: 1, maxLength: 3 }).map((turns) => ({ turns })),
      generate.map((g) => ({ generate: g })),
    ),
  })
  .map(({ body, ...rest }) => clean({ ...rest, ...body }));
