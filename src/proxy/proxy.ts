/**
 * Proxy mode: the server listens like `serve` (journal, admin routes,
 * options), but `POST /v1/responses` goes to a real server — a Responses
 * upstream as it is, or a Chat Completions upstream translated — checked on
 * the way by a conformance checker when one is plugged in, and recorded into
 * scenario files when asked.
 */
import type { AppDeps } from "../http/deps.js";
import { Recorder } from "../record/writer.js";
import { AnswerMemory, type ProxyContext, type ProxyHandler } from "./context.js";
import { forwardChatCreate } from "./forward-chat.js";
import { forwardResponsesCreate, forwardResponsesRoute } from "./forward-responses.js";
import type { LiveChecker } from "./live-check.js";
import { Upstream } from "./upstream.js";

export type UpstreamApi = "responses" | "chat";

export interface ProxySettings {
  /** The upstream's base URL, as the SDKs take it (`http://127.0.0.1:11434/v1`). */
  upstream: URL;
  api: UpstreamApi;
  /** The upstream's key; without it the client's own Authorization is passed on. */
  upstreamKey?: string;
  /** Longest silence from the upstream, in ms, before the answer fails (504, or `error` + `response.failed` mid-stream). */
  timeoutMs: number;
  /** Write each exchange into a scenario file in this folder. */
  record?: string;
  /** Checks every answer as it passes; its violations go on the journal entry. */
  checker?: LiveChecker;
  /** Where problems that are not a client's go (a recording that failed). */
  warn?: (message: string) => void;
}

/** The proxy of a server, over its shared state. */
export function createProxy(deps: AppDeps, settings: ProxySettings, storeLimit: number): ProxyHandler {
  const upstream = new Upstream({ base: settings.upstream, timeoutMs: settings.timeoutMs });
  const p: ProxyContext = {
    deps,
    upstream,
    api: settings.api,
    upstreamKey: settings.upstreamKey,
    checker: settings.checker,
    recorder: settings.record !== undefined ? new Recorder(settings.record) : undefined,
    memory: new AnswerMemory(storeLimit),
    warn: settings.warn ?? ((message) => console.error(`openresponses-mock: proxy: ${message}`)),
  };
  return {
    create:
      settings.api === "chat"
        ? (req, res, entry) => forwardChatCreate(p, req, res, entry)
        : (req, res, entry) => forwardResponsesCreate(p, req, res, entry),
    forward: settings.api === "responses" ? (req, res, entry) => forwardResponsesRoute(p, req, res, entry) : null,
    describe: `${settings.api} ${upstream.display}`,
    flush: () => p.recorder?.flush() ?? Promise.resolve(),
    close: () => upstream.close(),
  };
}
