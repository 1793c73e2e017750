/**
 * Which of OpenAI's hosted tools `auto` plays, and what it plays, the way a
 * model would: a hosted tool the request offers (and `tool_choice` allows) is
 * called when the user's words point at it — search, look up, latest or news
 * → `web_search`; run, compute, plot or a code block → `code_interpreter`;
 * draw, image or picture → `image_generation`; a file or document →
 * `file_search`; a tool an `mcp` server lists → `mcp` — or when `tool_choice`
 * names it. The calls are scenario steps (schema.ts) planned by hosted.ts, so
 * they stream exactly as scripted ones do; this file only decides them and
 * writes the message that follows. Pure: the rng is the only source of choice.
 */
import type { CreateResponseBody, FileCitation, ItemParam, OutputAnnotation, UrlCitation } from "../spec/index.js";
import { invalidRequest } from "../spec/index.js";
import type { HostedStep } from "../scenario/schema.js";
import { CALL_BYTES } from "./budgets.js";
import { contentWords, nameWords, requestPhrase, requestSentence } from "./tool-pick.js";
import { toolArgumentsWithin } from "./tool-args.js";
import { hashString } from "./hash.js";
import type { Rng } from "./rng.js";
import { properNames } from "./words.js";

export type HostedKind = "web_search" | "code_interpreter" | "image_generation" | "file_search" | "mcp";

/** A hosted tool the request offers, as sent. */
export interface OfferedHosted {
  kind: HostedKind;
  tool: Record<string, unknown>;
}

const KIND_OF: Record<string, HostedKind> = {
  web_search: "web_search",
  web_search_2025_08_26: "web_search",
  web_search_preview: "web_search",
  web_search_preview_2025_03_11: "web_search",
  code_interpreter: "code_interpreter",
  image_generation: "image_generation",
  file_search: "file_search",
  mcp: "mcp",
};

/** The words that point at each hosted tool (lowercased text). */
const TRIGGERS: Record<Exclude<HostedKind, "mcp">, RegExp> = {
  web_search:
    /\b(search(es|ing)?|look(s|ing)? ?up|lookup|latest|news|headlines?|google|browse|on the web|online|current events)\b/,
  code_interpreter: /```|\b(run|compute|calculate|calculation|plot|chart|graph|execute|python|script|evaluate)\b/,
  image_generation: /\b(draw|drawing|image|images|picture|pictures|illustrat\w*|sketch|paint|painting|logo)\b/,
  file_search: /\b(files?|documents?|docs|pdfs?|uploaded|attachments?|knowledge base|vector stores?)\b/,
};

const sameTool = (a: Record<string, unknown>, b: { type: string; server_label?: unknown }) =>
  KIND_OF[a.type as string] === KIND_OF[b.type] && (b.type !== "mcp" || b.server_label === a.server_label);

/**
 * The hosted tools the request lets the model call, and the one `tool_choice`
 * forces, if any. `none` allows none; `allowed_tools` keeps only the listed
 * hosted tools (an mcp entry by `server_label`); a hosted or mcp choice forces
 * that tool; `required` with no function tools forces a hosted one.
 */
export function callableHosted(request: CreateResponseBody): {
  offered: OfferedHosted[];
  forced: OfferedHosted | null;
} {
  const all = (request.tools ?? []).flatMap((t): OfferedHosted[] => {
    const kind = KIND_OF[t.type];
    return kind ? [{ kind, tool: t as Record<string, unknown> }] : [];
  });
  const choice = request.tool_choice ?? "auto";
  if (choice === "none") return { offered: [], forced: null };
  if (choice === "auto") return { offered: all, forced: null };
  const hasFunctions = (request.tools ?? []).some((t) => t.type === "function");
  if (choice === "required") return { offered: all, forced: !hasFunctions && all.length > 0 ? all[0] : null };
  if (choice.type === "allowed_tools") {
    const listed = choice.tools as Array<{ type: string; server_label?: unknown }>;
    const offered = all.filter((o) => listed.some((t) => sameTool(o.tool, t)));
    const required = (choice.mode ?? "auto") === "required" && !listed.some((t) => t.type === "function");
    return {
      offered: choice.mode === "none" ? [] : offered,
      forced: required && offered.length > 0 ? offered[0] : null,
    };
  }
  const named = choice as { type: string; server_label?: unknown };
  if (!KIND_OF[named.type]) return { offered: all, forced: null };
  const forced = all.find((o) => sameTool(o.tool, named)) ?? null;
  if (!forced) {
    const what =
      named.type === "mcp" ? `the mcp server '${String(named.server_label)}'` : `the hosted tool '${named.type}'`;
    throw invalidRequest(
      "tool_choice",
      `tool_choice names ${what}, which is not in tools. Add it to tools or choose another.`,
      "tool_not_found",
    );
  }
  return { offered: [forced], forced };
}

// ---- MCP servers ---------------------------------------------------------------------------

export interface McpToolInfo {
  name: string;
  description?: string;
  input_schema: Record<string, unknown>;
}

const str = (description: string) => ({ type: "string", description });

/** The tools a seeded MCP server may list (a few of them, by the seed). */
const MCP_POOL: McpToolInfo[] = [
  {
    name: "search_docs",
    description: "Search the documentation and return matching pages.",
    input_schema: { type: "object", properties: { query: str("What to search for.") }, required: ["query"] },
  },
  {
    name: "fetch_page",
    description: "Fetch a page by URL and return its text.",
    input_schema: { type: "object", properties: { url: str("The page's URL.") }, required: ["url"] },
  },
  {
    name: "get_current_time",
    description: "The current time in a city or timezone.",
    input_schema: { type: "object", properties: { city: str("A city name.") }, required: ["city"] },
  },
  {
    name: "list_issues",
    description: "List the open issues of a repository.",
    input_schema: {
      type: "object",
      properties: { repository: str("owner/name"), state: { type: "string", enum: ["open", "closed"] } },
      required: ["repository"],
    },
  },
  {
    name: "roll_dice",
    description: "Roll dice and return the total.",
    input_schema: {
      type: "object",
      properties: {
        sides: { type: "integer", minimum: 2, maximum: 100 },
        count: { type: "integer", minimum: 1, maximum: 10 },
      },
      required: ["sides"],
    },
  },
  {
    name: "translate_text",
    description: "Translate text into another language.",
    input_schema: {
      type: "object",
      properties: { text: str("The text."), language: str("The target language.") },
      required: ["text", "language"],
    },
  },
];

/** The tool names an mcp tool's `allowed_tools` lets through, or null for all. */
function allowedNames(tool: Record<string, unknown>): string[] | null {
  const allowed = tool.allowed_tools;
  if (Array.isArray(allowed)) return allowed.filter((n): n is string => typeof n === "string");
  if (allowed && typeof allowed === "object" && Array.isArray((allowed as { tool_names?: unknown }).tool_names))
    return (allowed as { tool_names: string[] }).tool_names;
  return null;
}

/** The tools an `mcp_list_tools` item for this server already lists in the conversation, or null when it has none. */
export function listedMcpTools(items: readonly ItemParam[], label: string): McpToolInfo[] | null {
  for (const item of items as Array<{ type: string; server_label?: unknown; tools?: unknown }>) {
    if (
      (item.type === "mcp_list_tools" || item.type === "openai:mcp_list_tools") &&
      item.server_label === label &&
      Array.isArray(item.tools)
    ) {
      return (item.tools as Array<Record<string, unknown>>)
        .filter((t) => typeof t.name === "string")
        .map((t) => ({
          name: t.name as string,
          description: typeof t.description === "string" ? t.description : undefined,
          input_schema:
            t.input_schema && typeof t.input_schema === "object"
              ? (t.input_schema as Record<string, unknown>)
              : { type: "object", properties: {} },
        }));
    }
  }
  return null;
}

/** A new server's tools: the names `allowed_tools` gives (with a one-string-argument schema), else three from the pool by the seed. */
export function seededMcpTools(tool: Record<string, unknown>, rng: Rng): McpToolInfo[] {
  const names = allowedNames(tool);
  if (names && names.length > 0) {
    return names.slice(0, 32).map(
      (name) =>
        MCP_POOL.find((t) => t.name === name) ?? {
          name,
          description: `${nameWords(name).join(" ")}.`,
          input_schema: { type: "object", properties: { input: str("What to do.") }, required: ["input"] },
        },
    );
  }
  const start = rng.int(0, MCP_POOL.length - 1);
  return [0, 1, 2].map((i) => MCP_POOL[(start + i * 2) % MCP_POOL.length]);
}

/** Whether an MCP tool needs the user's approval before it runs (OpenAI's default is 'always'). */
export function needsApproval(tool: Record<string, unknown>, name: string): boolean {
  const rule = tool.require_approval;
  if (rule === "never") return false;
  if (rule == null || rule === "always" || typeof rule !== "object") return true;
  const names = (key: string) =>
    ((rule as Record<string, { tool_names?: unknown } | undefined>)[key]?.tool_names as unknown[] | undefined) ?? [];
  if (names("never").includes(name)) return false;
  if (names("always").includes(name)) return true;
  return true;
}

/** The listed tool the user's words point at (by name or description words), or null. */
export function pointedMcpTool(tools: McpToolInfo[], text: string, label: string): McpToolInfo | null {
  const user = new Set(contentWords(text));
  let best: { tool: McpToolInfo; score: number } | null = null;
  for (const tool of tools) {
    const byName = contentWords(nameWords(tool.name).join(" ")).filter((w) => user.has(w)).length;
    const byDesc = new Set(contentWords(tool.description ?? "").filter((w) => user.has(w))).size;
    const mention = text.toLowerCase().includes(tool.name.toLowerCase()) ? 100 : 0;
    const score = mention + 3 * byName + Math.min(byDesc, 2);
    if (score > 0 && (!best || score > best.score)) best = { tool, score };
  }
  if (best) return best.tool;
  return label && text.toLowerCase().includes(label.toLowerCase()) && tools.length > 0 ? tools[0] : null;
}

/** A plausible output of an MCP tool, from its name and arguments. */
export function mcpOutput(tool: McpToolInfo, args: string, rng: Rng): string {
  let parsed: Record<string, unknown> = {};
  try {
    parsed = JSON.parse(args) as Record<string, unknown>;
  } catch {
    // Arguments are always JSON here; an unreadable one just yields a generic output.
  }
  const first = Object.values(parsed).find((v) => typeof v === "string") as string | undefined;
  switch (tool.name) {
    case "roll_dice": {
      const sides = typeof parsed.sides === "number" ? parsed.sides : 6;
      const count = typeof parsed.count === "number" ? parsed.count : 1;
      return JSON.stringify({ rolls: Array.from({ length: count }, () => rng.int(1, sides)) });
    }
    case "get_current_time":
      return JSON.stringify({
        city: first ?? "UTC",
        time: `${String(rng.int(0, 23)).padStart(2, "0")}:${String(rng.int(0, 59)).padStart(2, "0")}`,
      });
    default:
      return JSON.stringify({
        result: `${nameWords(tool.name).join(" ")}${first ? ` for '${first.slice(0, 80)}'` : ""}: ${rng.int(1, 9)} matching entries`,
        ok: true,
      });
  }
}

/** Arguments for an MCP tool, valid for its input schema. */
export function mcpArguments(tool: McpToolInfo, text: string, rng: Rng): string {
  const sample = toolArgumentsWithin(
    { type: "function", name: tool.name, parameters: tool.input_schema, strict: false } as never,
    text,
    rng,
    {},
    CALL_BYTES,
  );
  return sample.ok ? sample.json : "{}";
}

// ---- what the user's words point at ---------------------------------------------------------

/** The hosted tools the user's words point at, in the order of OFFER (one of each kind). */
export function pointedHosted(
  offered: OfferedHosted[],
  text: string,
  mcpTools: (o: OfferedHosted) => McpToolInfo[],
): OfferedHosted[] {
  const lower = text.toLowerCase();
  const out: OfferedHosted[] = [];
  for (const o of offered) {
    if (out.some((p) => p.kind === o.kind && o.kind !== "mcp")) continue;
    if (
      o.kind === "mcp"
        ? pointedMcpTool(mcpTools(o), text, String(o.tool.server_label)) !== null
        : TRIGGERS[o.kind].test(lower)
    )
      out.push(o);
  }
  return out;
}

// ---- the steps and the answer ---------------------------------------------------------------

const DOMAINS = [
  "example.com",
  "example.org",
  "example.net",
  "news.example.com",
  "docs.example.org",
  "blog.example.net",
];
const slug = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "")
    .slice(0, 40) || "page";

/** One source: a URL on an example domain and its title. */
export interface Source {
  url: string;
  title: string;
  domain: string;
}

/** The queries a search runs: one per place the user names (up to 3), else one for the request. */
export function searchQueries(text: string): string[] {
  // The verbs that ask for a search are not searched for ("Search the news about Berlin" → "news Berlin").
  const asked = text.replace(
    /\b(search(es|ing)?|look(s|ing)?\s*up|lookup|google|browse|find|tell me|on the web|online)\b/gi,
    " ",
  );
  return queriesFor(asked.trim() ? asked : text);
}

function queriesFor(text: string): string[] {
  const phrase = requestPhrase(text, 8) || "latest news";
  const places = properNames(text).slice(0, 3);
  if (places.length < 2) return [phrase];
  const others = (p: string) => new Set(places.filter((q) => q !== p).flatMap((q) => q.split(/\s+/)));
  return places.map((p) => {
    const drop = others(p);
    return (
      requestPhrase(text, 12)
        .split(" ")
        .filter((w) => !drop.has(w))
        .slice(0, 8)
        .join(" ") || p
    );
  });
}

/** Two or three sources for a query, on example domains, by the seed. */
export function searchSources(query: string, rng: Rng): Source[] {
  const n = rng.int(2, 3);
  const start = rng.int(0, DOMAINS.length - 1);
  return Array.from({ length: n }, (_, i) => {
    const domain = DOMAINS[(start + i) % DOMAINS.length];
    return {
      domain,
      url: `https://${domain}/${slug(query)}-${rng.chars(4).toLowerCase()}`,
      title: `${requestSentence(query, 60) ?? "Result"} – ${domain}`,
    };
  });
}

/** A message citing sources as OpenAI cites them: `… ([domain](url)).` with a url_citation over the link. */
export function citedAnswer(
  intro: string,
  claims: string[],
  sources: Source[],
): { text: string; annotations: UrlCitation[] } {
  let text = intro;
  const annotations: UrlCitation[] = [];
  claims.forEach((claim, i) => {
    const source = sources[i % sources.length];
    text += ` ${claim.replace(/[.!?]$/, "")} `;
    const link = `([${source.domain}](${source.url}))`;
    annotations.push({
      type: "url_citation",
      url: source.url,
      title: source.title,
      start_index: text.length,
      end_index: text.length + link.length,
    });
    text += `${link}.`;
  });
  return { text, annotations };
}

/** Code the code interpreter runs for the user's words: their code block, else a small computation. */
export function interpreterCode(text: string): { code: string; logs: string } {
  const block = /```(?:python|py)?\s*\n([\s\S]*?)```/i.exec(text);
  if (block && block[1].trim()) return { code: block[1].replace(/\s+$/, ""), logs: "" };
  const numbers = (text.match(/-?\d+(?:\.\d+)?/g) ?? []).slice(0, 20).map(Number);
  if (/\b(plot|chart|graph)\b/i.test(text)) {
    return {
      code: 'import matplotlib.pyplot as plt\n\nxs = list(range(10))\nys = [x * x for x in xs]\nplt.plot(xs, ys)\nplt.title("y = x^2")\nplt.savefig("plot.png")\nprint("saved plot.png")',
      logs: "saved plot.png\n",
    };
  }
  const values = numbers.length > 0 ? numbers : [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
  const total = values.reduce((a, b) => a + b, 0);
  const shown = Number.isInteger(total) ? String(total) : String(Math.round(total * 1e6) / 1e6);
  return { code: `values = [${values.join(", ")}]\ntotal = sum(values)\nprint(total)`, logs: `${shown}\n` };
}

/** Results a file search finds in the tool's vector stores, by the seed. */
export function fileResults(
  text: string,
  storeIds: string[],
  rng: Rng,
): Array<{ file_id: string; filename: string; score: number; text: string; attributes: Record<string, string> }> {
  const named = text.match(/[\w-]+\.(?:pdf|md|txt|docx?|csv|json)\b/gi) ?? [];
  const names =
    named.length > 0 ? named.slice(0, 3) : [rng.pick(["handbook.pdf", "notes.md", "report.pdf", "faq.txt"])];
  return names.map((filename, i) => ({
    file_id: `file-${hashString(`${storeIds.join(",")}:${filename}`, 22)}`,
    filename,
    score: Math.round((0.92 - i * 0.1 - rng.next() * 0.05) * 100) / 100,
    text: `Section ${rng.int(1, 9)} of ${filename} covers ${requestPhrase(text, 8).toLowerCase() || "this"}.`,
    attributes: { vector_store_id: storeIds[0] ?? "" },
  }));
}

/** The step a hosted tool of this kind plays for the user's words (mcp excepted: see planHostedAuto). */
export function hostedStep(o: OfferedHosted, text: string, query: string, sources: Source[], rng: Rng): HostedStep {
  switch (o.kind) {
    case "web_search":
      return { type: "web_search_call", query, sources: sources.map((s) => s.url) } as HostedStep;
    case "code_interpreter": {
      const { code, logs } = interpreterCode(text);
      const container = typeof o.tool.container === "string" ? o.tool.container : undefined;
      return {
        type: "code_interpreter_call",
        code,
        container_id: container,
        outputs: [{ type: "logs", logs }],
      } as HostedStep;
    }
    case "image_generation": {
      const partial = typeof o.tool.partial_images === "number" ? o.tool.partial_images : 0;
      // The prompt without the asking words: "Draw me a picture of a cat" → "A picture of a cat".
      const prompt = text.replace(
        /^\s*(please\s+)?(can you\s+|could you\s+)?(draw|make|create|generate|paint|sketch|design|render)\s+(me\s+)?/i,
        "",
      );
      return {
        type: "image_generation_call",
        partial_images: partial,
        revised_prompt: requestSentence(prompt) ?? requestSentence(text) ?? "An image",
      } as HostedStep;
    }
    case "file_search": {
      const stores = Array.isArray(o.tool.vector_store_ids) ? (o.tool.vector_store_ids as string[]) : [];
      return { type: "file_search_call", queries: [query], results: fileResults(text, stores, rng) } as HostedStep;
    }
    case "mcp":
      throw new Error("mcp steps are planned by planHostedAuto");
  }
}

// ---- the plan ------------------------------------------------------------------------------

/** What the hosted tools add to an `auto` answer. */
export interface HostedAuto {
  /** The hosted steps, in order. */
  steps: HostedStep[];
  /** The message that follows them (url_citation for web searches, file_citation for file searches), or null. */
  answer: { text: string; annotations: OutputAnnotation[] } | null;
  /** An approval request ends the response: no function calls, no message. */
  awaiting: boolean;
  /** Whether the turn answered an `mcp_approval_response` (then no function call either). */
  approvalAnswered: boolean;
  /** The hosted tools called, for the reasoning summary ("web_search and mcp"). */
  called: string[];
}

const quoteShort = (text: string) => {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 80 ? flat.slice(0, 77) + "…" : flat;
};

interface Sentence {
  (rng: Rng): string;
}

/** Answers the `mcp_approval_response` items at the end of the conversation: the approved calls run, the declined do not. */
function answerApprovals(
  items: readonly ItemParam[],
  ownStart: number,
  sentence: Sentence,
  rng: Rng,
): HostedAuto | null {
  const trailing: Array<{ item: Record<string, unknown>; index: number }> = [];
  for (let i = items.length - 1; i >= 0 && (items[i] as { type: string }).type === "mcp_approval_response"; i--)
    trailing.unshift({ item: items[i] as Record<string, unknown>, index: i });
  if (trailing.length === 0) return null;
  const steps: HostedStep[] = [];
  const lines: string[] = [];
  for (const { item, index } of trailing) {
    const id = item.approval_request_id;
    const request = items.find(
      (x) => (x as { type: string }).type === "mcp_approval_request" && (x as { id?: unknown }).id === id,
    ) as Record<string, unknown> | undefined;
    if (!request) {
      const where = index >= ownStart ? `input[${index - ownStart}].approval_request_id` : "previous_response_id";
      throw invalidRequest(
        where,
        `No mcp_approval_request with id '${String(id)}' was found in the conversation. Send the request item before its response, or continue with previous_response_id.`,
        "approval_request_not_found",
      );
    }
    const label = String(request.server_label);
    const name = String(request.name);
    const args = typeof request.arguments === "string" ? request.arguments : "{}";
    if (item.approve === true) {
      const listed = listedMcpTools(items, label)?.find((t) => t.name === name) ?? {
        name,
        input_schema: { type: "object" },
      };
      const output = mcpOutput(listed, args, rng);
      steps.push({
        type: "mcp_call",
        server_label: label,
        name,
        arguments: args,
        output,
        approval_request_id: String(id),
      } as HostedStep);
      lines.push(`${name} on ${label} returned ${quoteShort(output)}.`);
    } else {
      lines.push(`You declined ${name} on ${label}, so I did not run it.`);
    }
  }
  return {
    steps,
    answer: { text: `${lines.join(" ")} ${sentence(rng)}`, annotations: [] },
    awaiting: false,
    approvalAnswered: true,
    called: steps.length > 0 ? ["mcp"] : [],
  };
}

/**
 * The hosted calls `auto` makes for a request (only in a dialect that speaks
 * OpenAI's types): the approved MCP calls when the conversation ends in
 * approval responses; else every new MCP server's tool list, then each hosted
 * tool the user's words point at (or `tool_choice` forces), then the message
 * about what they found.
 */
export function planHostedAuto(
  request: CreateResponseBody,
  items: readonly ItemParam[],
  ownStart: number,
  text: string,
  rng: Rng,
  sentence: Sentence,
): HostedAuto {
  const none: HostedAuto = { steps: [], answer: null, awaiting: false, approvalAnswered: false, called: [] };
  const approvals = answerApprovals(items, ownStart, sentence, rng);
  if (approvals) return approvals;
  const { offered, forced } = callableHosted(request);
  if (offered.length === 0) return none;

  const steps: HostedStep[] = [];
  const tools = new Map<OfferedHosted, McpToolInfo[]>();
  for (const o of offered) {
    if (o.kind !== "mcp") continue;
    const label = String(o.tool.server_label);
    const listed =
      listedMcpTools(items, label) ?? [...tools.entries()].find(([k]) => k.tool.server_label === label)?.[1];
    if (listed) {
      tools.set(o, listed);
      continue;
    }
    const fresh = seededMcpTools(o.tool, rng);
    tools.set(o, fresh);
    steps.push({
      type: "mcp_list_tools",
      server_label: label,
      tools: fresh.map((t) => ({ name: t.name, description: t.description, input_schema: t.input_schema })),
    } as HostedStep);
  }

  let pointed = pointedHosted(offered, text, (o) => tools.get(o) ?? []);
  if (forced && !pointed.includes(forced)) pointed = [forced, ...pointed];
  if (
    forced &&
    typeof request.tool_choice === "object" &&
    request.tool_choice !== null &&
    request.tool_choice.type !== "allowed_tools"
  )
    pointed = [forced];

  const sources: Source[] = [];
  /** Sentences after the web citations, each with the file citations it carries (`index` within the sentence). */
  const after: Array<{ text: string; cites?: FileCitation[] }> = [];
  const called: string[] = [];
  let awaiting = false;
  for (const o of pointed) {
    called.push(o.kind);
    if (o.kind === "web_search") {
      for (const query of searchQueries(text)) {
        const found = searchSources(query, rng);
        sources.push(...found);
        steps.push(hostedStep(o, text, query, found, rng));
      }
    } else if (o.kind === "mcp") {
      const label = String(o.tool.server_label);
      const listed = tools.get(o) ?? [];
      const choice = request.tool_choice as { type?: string; name?: unknown } | undefined;
      const byChoice =
        choice && typeof choice === "object" && choice.type === "mcp" && typeof choice.name === "string"
          ? listed.find((t) => t.name === choice.name)
          : undefined;
      const tool = byChoice ?? pointedMcpTool(listed, text, label) ?? listed[0];
      if (!tool) continue;
      const args = mcpArguments(tool, text, rng);
      if (needsApproval(o.tool, tool.name)) {
        steps.push({
          type: "mcp_approval_request",
          server_label: label,
          name: tool.name,
          arguments: args,
        } as HostedStep);
        awaiting = true;
      } else {
        const output = mcpOutput(tool, args, rng);
        steps.push({ type: "mcp_call", server_label: label, name: tool.name, arguments: args, output } as HostedStep);
        after.push({ text: `${tool.name} on ${label} returned ${quoteShort(output)}.` });
      }
    } else {
      const step = hostedStep(o, text, requestPhrase(text, 8) || "documents", [], rng);
      steps.push(step);
      if (step.type === "code_interpreter_call") {
        const logs = (step.outputs ?? [])
          .map((x) => (x.type === "logs" ? x.logs : ""))
          .join("")
          .trim();
        after.push({
          text: logs
            ? `I ran the code and it printed ${quoteShort(logs)}.`
            : "I ran your code; it finished without printing anything.",
        });
      } else if (step.type === "image_generation_call") {
        after.push({ text: `Here is the image: ${step.revised_prompt ?? "as asked"}.` });
      } else if (step.type === "file_search_call") {
        const files = (step.results ?? []).map((r) => r.filename);
        const top = (step.results ?? [])[0];
        if (top) {
          // OpenAI cites a file at the end of the sentence drawn from it: `index` is where that sentence ends.
          const found = `I searched your files and found ${files.join(", ")}. ${top.text}`;
          after.push({
            text: found,
            cites: [{ type: "file_citation", file_id: top.file_id, filename: top.filename, index: found.length }],
          });
        } else {
          after.push({ text: "I searched your files but nothing matched." });
        }
      }
    }
  }
  if (steps.length === 0) return none;
  if (awaiting || pointed.length === 0) return { steps, answer: null, awaiting, approvalAnswered: false, called };

  const searched = steps.flatMap((s) => (s.type === "web_search_call" ? [s.query] : []));
  const cited =
    sources.length > 0
      ? citedAnswer(
          `Here is what I found about "${quoteShort(searched.join(" and "))}":`,
          Array.from({ length: Math.min(sources.length, 3) }, () => sentence(rng)),
          sources,
        )
      : { text: "", annotations: [] };
  let body = cited.text;
  const annotations: OutputAnnotation[] = [...cited.annotations];
  for (const said of after) {
    if (body) body += " ";
    for (const cite of said.cites ?? []) annotations.push({ ...cite, index: body.length + cite.index });
    body += said.text;
  }
  return { steps, answer: { text: body, annotations }, awaiting, approvalAnswered: false, called };
}
