/** Function tools and `tool_choice`, request and response forms. */
import { z } from "zod";
import { FunctionName, JsonSchemaObject, ToolChoiceValue, VendorType } from "./common.js";
import { tagged } from "./tagged.js";

export const FunctionToolParam = z.object({
  type: z.literal("function"),
  name: FunctionName,
  description: z.string().nullish(),
  parameters: JsonSchemaObject.nullish(),
  strict: z.boolean().nullish(),
});

/** A vendor hosted tool (`acme:doc_search`): accepted and echoed as sent. */
export const VendorToolParam = z.looseObject({ type: VendorType });

export const ToolParam = tagged("type", { function: FunctionToolParam }, { vendor: VendorToolParam });

export const SpecificFunctionParam = z.object({
  type: z.literal("function"),
  name: FunctionName,
});

export const AllowedToolsParam = z.object({
  type: z.literal("allowed_tools"),
  tools: z.array(SpecificFunctionParam).min(1).max(128),
  mode: ToolChoiceValue.optional(),
});

const ToolChoiceObject = tagged("type", { function: SpecificFunctionParam, allowed_tools: AllowedToolsParam });

type ToolChoiceParamValue =
  | z.infer<typeof ToolChoiceValue>
  | z.infer<typeof SpecificFunctionParam>
  | z.infer<typeof AllowedToolsParam>;

/** A string choice, a named function, or an `allowed_tools` set. */
export const ToolChoiceParam = z.unknown().transform((value, ctx): ToolChoiceParamValue => {
  const schema = typeof value === "string" ? ToolChoiceValue : ToolChoiceObject;
  const result = (schema as z.ZodType).safeParse(value, { reportInput: true });
  if (!result.success) {
    for (const issue of result.error.issues) {
      ctx.addIssue({
        ...issue,
        message:
          typeof value === "string"
            ? `must be 'none', 'auto', 'required', {"type":"function","name":…} or {"type":"allowed_tools",…}; got '${value}'`
            : issue.message,
      } as never);
    }
    return z.NEVER;
  }
  return result.data as ToolChoiceParamValue;
});

// ---- response side ------------------------------------------------------

export const FunctionTool = z.object({
  type: z.literal("function"),
  name: z.string(),
  description: z.string().nullable(),
  parameters: z.record(z.string(), z.unknown()).nullable(),
  strict: z.boolean().nullable(),
});

export const FunctionToolChoice = z.object({ type: z.literal("function"), name: z.string().optional() });
export const AllowedToolChoice = z.object({
  type: z.literal("allowed_tools"),
  tools: z.array(FunctionToolChoice),
  mode: ToolChoiceValue,
});
export const ToolChoice = z.union([ToolChoiceValue, FunctionToolChoice, AllowedToolChoice]);

export type FunctionToolParam = z.infer<typeof FunctionToolParam>;
export type ToolParam = z.infer<typeof ToolParam>;
export type ToolChoiceParam = z.infer<typeof ToolChoiceParam>;
export type FunctionTool = z.infer<typeof FunctionTool>;
export type ToolChoice = z.infer<typeof ToolChoice>;
