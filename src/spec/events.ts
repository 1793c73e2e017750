/** The 24 streaming events, the vendor event rule, and their union. */
import { z } from "zod";
import { VendorType } from "./common.js";
import { Annotation, LogProb, PartContent } from "./content.js";
import { OutputItem } from "./items.js";
import { ResponseResource } from "./response.js";
import { tagged } from "./tagged.js";

const seq = { sequence_number: z.number().int().min(0) };
const at = { item_id: z.string(), output_index: z.number().int().min(0) };
const content = { ...at, content_index: z.number().int().min(0) };
const summary = { ...at, summary_index: z.number().int().min(0) };

const lifecycle = <T extends string>(type: T) =>
  z.object({ type: z.literal(type), ...seq, response: ResponseResource });

export const ErrorPayload = z.object({
  type: z.string(),
  code: z.string().nullable(),
  message: z.string(),
  param: z.string().nullable(),
  headers: z.record(z.string(), z.string()).optional(),
});

export const StreamEventSchemas = {
  "response.created": lifecycle("response.created"),
  "response.queued": lifecycle("response.queued"),
  "response.in_progress": lifecycle("response.in_progress"),
  "response.completed": lifecycle("response.completed"),
  "response.failed": lifecycle("response.failed"),
  "response.incomplete": lifecycle("response.incomplete"),
  "response.output_item.added": z.object({
    type: z.literal("response.output_item.added"),
    ...seq,
    output_index: z.number().int().min(0),
    item: OutputItem.nullable(),
  }),
  "response.output_item.done": z.object({
    type: z.literal("response.output_item.done"),
    ...seq,
    output_index: z.number().int().min(0),
    item: OutputItem.nullable(),
  }),
  "response.content_part.added": z.object({
    type: z.literal("response.content_part.added"),
    ...seq,
    ...content,
    part: PartContent,
  }),
  "response.content_part.done": z.object({
    type: z.literal("response.content_part.done"),
    ...seq,
    ...content,
    part: PartContent,
  }),
  "response.output_text.delta": z.object({
    type: z.literal("response.output_text.delta"),
    ...seq,
    ...content,
    delta: z.string(),
    logprobs: z.array(LogProb).optional(),
    obfuscation: z.string().optional(),
  }),
  "response.output_text.done": z.object({
    type: z.literal("response.output_text.done"),
    ...seq,
    ...content,
    text: z.string(),
    logprobs: z.array(LogProb).optional(),
  }),
  "response.output_text.annotation.added": z.object({
    type: z.literal("response.output_text.annotation.added"),
    ...seq,
    ...content,
    annotation_index: z.number().int().min(0),
    annotation: Annotation.nullable(),
  }),
  "response.refusal.delta": z.object({
    type: z.literal("response.refusal.delta"),
    ...seq,
    ...content,
    delta: z.string(),
  }),
  "response.refusal.done": z.object({
    type: z.literal("response.refusal.done"),
    ...seq,
    ...content,
    refusal: z.string(),
  }),
  "response.reasoning.delta": z.object({
    type: z.literal("response.reasoning.delta"),
    ...seq,
    ...content,
    delta: z.string(),
    obfuscation: z.string().optional(),
  }),
  "response.reasoning.done": z.object({
    type: z.literal("response.reasoning.done"),
    ...seq,
    ...content,
    text: z.string(),
  }),
  "response.reasoning_summary_part.added": z.object({
    type: z.literal("response.reasoning_summary_part.added"),
    ...seq,
    ...summary,
    part: PartContent,
  }),
  "response.reasoning_summary_part.done": z.object({
    type: z.literal("response.reasoning_summary_part.done"),
    ...seq,
    ...summary,
    part: PartContent,
  }),
  "response.reasoning_summary_text.delta": z.object({
    type: z.literal("response.reasoning_summary_text.delta"),
    ...seq,
    ...summary,
    delta: z.string(),
    obfuscation: z.string().optional(),
  }),
  "response.reasoning_summary_text.done": z.object({
    type: z.literal("response.reasoning_summary_text.done"),
    ...seq,
    ...summary,
    text: z.string(),
  }),
  "response.function_call_arguments.delta": z.object({
    type: z.literal("response.function_call_arguments.delta"),
    ...seq,
    ...at,
    delta: z.string(),
    obfuscation: z.string().optional(),
  }),
  "response.function_call_arguments.done": z.object({
    type: z.literal("response.function_call_arguments.done"),
    ...seq,
    ...at,
    arguments: z.string(),
  }),
  error: z.object({ type: z.literal("error"), ...seq, error: ErrorPayload }),
} as const;

/** A vendor event (`acme:progress`): `type` and `sequence_number`, plus its own fields. */
export const VendorStreamEvent = z.looseObject({ type: VendorType, ...seq });

export const StreamEvent = tagged("type", StreamEventSchemas, { vendor: VendorStreamEvent });

type Schemas = typeof StreamEventSchemas;
export type StandardStreamEvent = { [K in keyof Schemas]: z.infer<Schemas[K]> }[keyof Schemas];
export type VendorStreamEvent = z.infer<typeof VendorStreamEvent>;
export type StreamEvent = StandardStreamEvent | VendorStreamEvent;
export type StreamEventType = keyof Schemas;
export type ErrorPayload = z.infer<typeof ErrorPayload>;

/** The events that end a stream (exactly one per stream). */
export const TERMINAL_EVENT_TYPES: ReadonlySet<string> = new Set([
  "response.completed",
  "response.incomplete",
  "response.failed",
]);
