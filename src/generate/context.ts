/** What a generator gets: the validated request, the whole conversation, the rng, the ids. */
import type { CreateResponseBody, ItemParam } from "../spec/index.js";
import type { IdSource } from "./ids.js";
import type { Rng } from "./rng.js";

export interface GenerateContext {
  request: CreateResponseBody;
  /** The conversation: earlier items (from previous_response_id) then the new input. */
  items: ItemParam[];
  /** Text, chunking and choices. */
  rng: Rng;
  /** Response, item and call ids (an rng of their own: see ids.ts). */
  ids: IdSource;
  /** Whether seeded generation may draw vendor items and events (a dialect that never sends them says no). */
  vendorExtensions: boolean;
  /**
   * How hosted-tool steps go out: as OpenAI's own items and events (`native`),
   * or as `openai:`-prefixed vendor items, the spec's extension form (`vendor`, the default).
   */
  hostedItems?: "native" | "vendor";
  /** Unix seconds: the response's `created_at`. */
  createdAt: number;
}
