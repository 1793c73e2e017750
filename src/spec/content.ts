/**
 * Content parts: the request-side forms (`…Param`) and the output-side forms
 * used in messages, reasoning items and the `part` of streaming events.
 */
import { z } from "zod";
import { ImageDetail, MAX_TEXT } from "./common.js";
import { tagged } from "./tagged.js";

// ---- request side -------------------------------------------------------

export const UrlCitationParam = z.object({
  type: z.literal("url_citation"),
  start_index: z.number().int().min(0),
  end_index: z.number().int().min(0),
  url: z.string(),
  title: z.string(),
});

/** OpenAI's citation of a file a file_search found; not a spec type (the spec's only annotation is url_citation). */
export const FileCitationParam = z.object({
  type: z.literal("file_citation"),
  file_id: z.string(),
  filename: z.string(),
  index: z.number().int().min(0),
});

export const InputTextContentParam = z.object({
  type: z.literal("input_text"),
  text: z.string().max(MAX_TEXT),
});

export const InputImageContentParam = z.object({
  type: z.literal("input_image"),
  image_url: z.string().max(20_971_520).nullish(),
  detail: ImageDetail.nullish(),
});

export const InputFileContentParam = z.object({
  type: z.literal("input_file"),
  filename: z.string().nullish(),
  file_data: z.string().max(33_554_432).nullish(),
  file_url: z.string().nullish(),
});

export const InputVideoContent = z.object({
  type: z.literal("input_video"),
  video_url: z.string(),
});

export const OutputTextContentParam = z.object({
  type: z.literal("output_text"),
  text: z.string().max(MAX_TEXT),
  annotations: z.array(UrlCitationParam).optional(),
});

export const RefusalContentParam = z.object({
  type: z.literal("refusal"),
  refusal: z.string(),
});

export const ReasoningSummaryContentParam = z.object({
  type: z.literal("summary_text"),
  text: z.string(),
});

export const UserContentParam = tagged("type", {
  input_text: InputTextContentParam,
  input_image: InputImageContentParam,
  input_file: InputFileContentParam,
});
export const AssistantContentParam = tagged("type", {
  output_text: OutputTextContentParam,
  refusal: RefusalContentParam,
});
export const FunctionOutputContentParam = tagged("type", {
  input_text: InputTextContentParam,
  input_image: InputImageContentParam,
  input_file: InputFileContentParam,
  input_video: InputVideoContent,
});

// ---- output side ----------------------------------------------------------

export const UrlCitation = z.object({
  type: z.literal("url_citation"),
  url: z.string(),
  start_index: z.number().int(),
  end_index: z.number().int(),
  title: z.string(),
});
/** `Annotation` has a single member in this release. */
export const Annotation = UrlCitation;
/**
 * OpenAI's file citation: the file a file_search found, cited at `index`
 * (OpenAI puts it at the end of the cited sentence). Sent only in the openai
 * dialect; the spec's `Annotation` does not have it.
 */
export const FileCitation = z.object({
  type: z.literal("file_citation"),
  file_id: z.string(),
  filename: z.string(),
  index: z.number().int(),
});

export const TopLogProb = z.object({
  token: z.string(),
  logprob: z.number(),
  bytes: z.array(z.number().int()),
});
export const LogProb = z.object({
  token: z.string(),
  logprob: z.number(),
  bytes: z.array(z.number().int()),
  top_logprobs: z.array(TopLogProb),
});

export const OutputTextContent = z.object({
  type: z.literal("output_text"),
  text: z.string(),
  annotations: z.array(Annotation),
  logprobs: z.array(LogProb).optional(),
});
export const RefusalContent = z.object({ type: z.literal("refusal"), refusal: z.string() });
export const SummaryTextContent = z.object({ type: z.literal("summary_text"), text: z.string() });
export const ReasoningTextContent = z.object({ type: z.literal("reasoning_text"), text: z.string() });
export const TextContent = z.object({ type: z.literal("text"), text: z.string() });
export const InputTextContent = z.object({ type: z.literal("input_text"), text: z.string() });
export const InputImageContent = z.object({
  type: z.literal("input_image"),
  image_url: z.string().nullable(),
  detail: ImageDetail,
});
export const InputFileContent = z.object({
  type: z.literal("input_file"),
  filename: z.string().optional(),
  file_url: z.string().optional(),
});

/** The union allowed as the `part` of content-part and summary-part events. */
export const PartContent = z.discriminatedUnion("type", [
  InputTextContent,
  OutputTextContent,
  TextContent,
  SummaryTextContent,
  ReasoningTextContent,
  RefusalContent,
  InputImageContent,
  InputFileContent,
]);

/** `Message.content` also admits video. */
export const MessageContent = z.discriminatedUnion("type", [
  InputTextContent,
  OutputTextContent,
  TextContent,
  SummaryTextContent,
  ReasoningTextContent,
  RefusalContent,
  InputImageContent,
  InputFileContent,
  InputVideoContent,
]);

export const FunctionOutputContent = z.discriminatedUnion("type", [
  InputTextContent,
  InputImageContent,
  InputFileContent,
]);

export type UrlCitation = z.infer<typeof UrlCitation>;
export type FileCitation = z.infer<typeof FileCitation>;
/** An annotation the mock may send: the spec's url_citation, or OpenAI's file_citation (openai dialect only). */
export type OutputAnnotation = UrlCitation | FileCitation;
export type LogProb = z.infer<typeof LogProb>;
export type OutputTextContent = z.infer<typeof OutputTextContent>;
export type RefusalContent = z.infer<typeof RefusalContent>;
export type PartContent = z.infer<typeof PartContent>;
export type MessageContent = z.infer<typeof MessageContent>;
