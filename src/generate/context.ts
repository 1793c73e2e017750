/** What a generator gets: the validated request, the whole conversation, the rng. */
import type { CreateResponseBody, ItemParam } from "../spec/index.js";
import type { Rng } from "./rng.js";

export interface GenerateContext {
  request: CreateResponseBody;
  /** The conversation: earlier items (from previous_response_id) then the new input. */
  items: ItemParam[];
  rng: Rng;
  /** Unix seconds: the response's `created_at`. */
  createdAt: number;
}

/** Ids in the OpenAI style, drawn from the request's rng. */
export const newId = (rng: Rng, prefix: string, length = 24) => `${prefix}_${rng.chars(length)}`;
