/**
 * Items: the spec's input union `SpecItemParam` (what a request may carry;
 * `ItemParam` in openai-items.ts adds OpenAI's item types) and the output
 * union `OutputItem` (what a response's `output` holds), vendor items included.
 */
import { z } from "zod";
import {
  CallId,
  FunctionCallStatus,
  FunctionName,
  MAX_TEXT,
  MessagePhase,
  MessageRole,
  MessageStatus,
  VendorType,
} from "./common.js";
import {
  AssistantContentParam,
  FunctionOutputContent,
  FunctionOutputContentParam,
  InputTextContentParam,
  MessageContent,
  PartContent,
  ReasoningSummaryContentParam,
  UserContentParam,
} from "./content.js";
import { byKind, tagged } from "./tagged.js";

// ---- input items ------------------------------------------------------------

const itemId = z.string().nullish();
const inputStatus = z.string().nullish();

export const UserMessageItemParam = z.object({
  type: z.literal("message"),
  role: z.literal("user"),
  content: byKind(
    { string: z.string().max(MAX_TEXT), array: z.array(UserContentParam) },
    "a string or an array of content parts",
  ),
  id: itemId,
  status: inputStatus,
});
export const SystemMessageItemParam = z.object({
  type: z.literal("message"),
  role: z.literal("system"),
  content: byKind(
    { string: z.string().max(MAX_TEXT), array: z.array(InputTextContentParam) },
    "a string or an array of input_text parts",
  ),
  id: itemId,
  status: inputStatus,
});
export const DeveloperMessageItemParam = z.object({
  type: z.literal("message"),
  role: z.literal("developer"),
  content: byKind(
    { string: z.string().max(MAX_TEXT), array: z.array(InputTextContentParam) },
    "a string or an array of input_text parts",
  ),
  id: itemId,
  status: inputStatus,
});
export const AssistantMessageItemParam = z.object({
  type: z.literal("message"),
  role: z.literal("assistant"),
  content: byKind(
    { string: z.string().max(MAX_TEXT), array: z.array(AssistantContentParam) },
    "a string or an array of output_text/refusal parts",
  ),
  phase: MessagePhase.optional(),
  id: itemId,
  status: inputStatus,
});

export const MessageItemParam = tagged("role", {
  user: UserMessageItemParam,
  system: SystemMessageItemParam,
  developer: DeveloperMessageItemParam,
  assistant: AssistantMessageItemParam,
});

export const FunctionCallItemParam = z.object({
  type: z.literal("function_call"),
  call_id: CallId,
  name: FunctionName,
  arguments: z.string(),
  id: itemId,
  status: FunctionCallStatus.nullish(),
});

export const FunctionCallOutputItemParam = z.object({
  type: z.literal("function_call_output"),
  call_id: CallId,
  output: byKind(
    { string: z.string().max(MAX_TEXT), array: z.array(FunctionOutputContentParam) },
    "a string or an array of content parts",
  ),
  id: itemId,
  status: FunctionCallStatus.nullish(),
});

export const ReasoningItemParam = z.object({
  type: z.literal("reasoning"),
  summary: z.array(ReasoningSummaryContentParam),
  id: itemId,
  content: z.null().optional(),
  encrypted_content: z.string().nullish(),
});

export const CompactionSummaryItemParam = z.object({
  type: z.literal("compaction"),
  encrypted_content: z.string().max(MAX_TEXT),
  id: itemId,
});

export const ItemReferenceParam = z.object({
  type: z.literal("item_reference"),
  id: z.string(),
});

/** A vendor item replayed as input (`acme:search_call`): kept opaque. */
export const VendorItemParam = z.looseObject({ type: VendorType });

/** The spec's item types, by `type` (messages then dispatch on `role`). */
export const SpecItemParams = {
  message: MessageItemParam,
  function_call: FunctionCallItemParam,
  function_call_output: FunctionCallOutputItemParam,
  reasoning: ReasoningItemParam,
  compaction: CompactionSummaryItemParam,
  item_reference: ItemReferenceParam,
};

/**
 * Lenient where the spec's own examples are: an object with `role` and no
 * `type` is a message; an object with only an `id` (or `type: null`) is an
 * item reference.
 */
export function normalizeItem(v: Record<string, unknown>): Record<string, unknown> {
  if (v.type === undefined && "role" in v) return { ...v, type: "message" };
  if ((v.type === undefined || v.type === null) && typeof v.id === "string") return { ...v, type: "item_reference" };
  return v;
}

/** An input item as the spec has it (what `--strict` accepts): dispatch on `type`, then on `role` for messages. */
export const SpecItemParam = tagged("type", SpecItemParams, { vendor: VendorItemParam, normalize: normalizeItem });

export type UserMessageItemParam = z.infer<typeof UserMessageItemParam>;
export type AssistantMessageItemParam = z.infer<typeof AssistantMessageItemParam>;
export type FunctionCallItemParam = z.infer<typeof FunctionCallItemParam>;
export type FunctionCallOutputItemParam = z.infer<typeof FunctionCallOutputItemParam>;
export type SpecItemParam = z.infer<typeof SpecItemParam>;

// ---- output items -------------------------------------------------------

export const MessageItem = z.object({
  type: z.literal("message"),
  id: z.string(),
  status: MessageStatus,
  role: MessageRole,
  content: z.array(MessageContent),
  phase: MessagePhase.optional(),
});

export const FunctionCallItem = z.object({
  type: z.literal("function_call"),
  id: z.string(),
  call_id: z.string(),
  name: z.string(),
  arguments: z.string(),
  status: FunctionCallStatus,
});

export const FunctionCallOutputItem = z.object({
  type: z.literal("function_call_output"),
  id: z.string(),
  call_id: z.string(),
  output: z.union([z.string(), z.array(FunctionOutputContent)]),
  status: FunctionCallStatus,
});

export const ReasoningItem = z.object({
  type: z.literal("reasoning"),
  id: z.string(),
  summary: z.array(PartContent),
  content: z.array(PartContent).optional(),
  encrypted_content: z.string().optional(),
});

export const CompactionItem = z.object({
  type: z.literal("compaction"),
  id: z.string(),
  encrypted_content: z.string(),
  created_by: z.string().optional(),
});

/** Vendor items must carry `id`, `type` and `status` like every item. */
export const VendorItem = z.looseObject({
  type: VendorType,
  id: z.string(),
  status: z.string(),
});

export const OutputItem = tagged(
  "type",
  {
    message: MessageItem,
    function_call: FunctionCallItem,
    function_call_output: FunctionCallOutputItem,
    reasoning: ReasoningItem,
    compaction: CompactionItem,
  },
  { vendor: VendorItem },
);

export type MessageItem = z.infer<typeof MessageItem>;
export type FunctionCallItem = z.infer<typeof FunctionCallItem>;
export type FunctionCallOutputItem = z.infer<typeof FunctionCallOutputItem>;
export type ReasoningItem = z.infer<typeof ReasoningItem>;
export type CompactionItem = z.infer<typeof CompactionItem>;
export type VendorItem = z.infer<typeof VendorItem>;
export type OutputItem = z.infer<typeof OutputItem>;
