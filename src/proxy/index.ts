/**
 * Proxy mode, between a client and a real server: forwarding (a Responses
 * upstream as it is, a Chat Completions one translated), the live check seam,
 * and the pieces they are made of. The translation (chat-request.ts,
 * chat-stream.ts), the SSE reader and the stream watch are pure; the
 * upstream client and the forwarders are the I/O shell.
 */
export { createProxy, type ProxySettings, type UpstreamApi } from "./proxy.js";
export type { ProxyHandler } from "./context.js";
export {
  guardedCheck,
  type LiveCheck,
  type LiveChecker,
  type LiveCheckRequest,
  type LiveViolation,
} from "./live-check.js";
export { buildChatRequest, chatMessages, type ChatRequest, type ChatMessage } from "./chat-request.js";
export { ChatTranslator, completionAsChunks, finishOf } from "./chat-stream.js";
export { SseReader, type SseFrame } from "./sse-reader.js";
export { parseUpstream, displayUpstream, routeUrl } from "./upstream.js";
