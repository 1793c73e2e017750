/** Token accounting of a conversation, for usage.input_tokens. */
import { contentText } from "../scenario/conversation.js";
import type { CreateResponseBody, ItemParam } from "../spec/index.js";
import { countTokens } from "./tokens.js";

/** Tokens of the whole context: instructions, every item's text, the tool definitions. */
export function countInputTokens(
  request: Pick<CreateResponseBody, "instructions" | "tools">,
  items: readonly ItemParam[],
): number {
  let n = countTokens(request.instructions ?? "");
  for (const item of items) {
    const it = item as Record<string, unknown>;
    switch (it.type) {
      case "message":
        n += countTokens(contentText(it.content)) + 3;
        break;
      case "function_call":
        n += countTokens(String(it.name)) + countTokens(String(it.arguments)) + 3;
        break;
      case "function_call_output":
        n += countTokens(contentText(it.output)) + 3;
        break;
      case "reasoning":
        n += countTokens(contentText(it.summary));
        break;
      default:
        n += 1;
    }
  }
  if (request.tools?.length) n += countTokens(JSON.stringify(request.tools));
  return n;
}
