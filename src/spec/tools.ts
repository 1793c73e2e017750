/** Function tools and `tool_choice` as the spec has them, request and response forms. */
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

/** The spec's tools: functions and vendor tools (what `--strict` accepts). */
export const SpecToolParam = tagged("type", { function: FunctionToolParam }, { vendor: VendorToolParam });

export const SpecificFunctionParam = z.object({
  type: z.literal("function"),
  name: FunctionName,
});

export const AllowedToolsParam = z.object({
  type: z.literal("allowed_tools"),
  tools: z.array(SpecificFunctionParam).min(1).max(128),
  mode: ToolChoiceValue.optional(),
});

/**
 * A `tool_choice`: a string value, or an object dispatched on its `type` by
 * `objects`. `forms` names the object forms in the message for a bad string.
 */
export function toolChoiceParam<T>(objects: z.ZodType<T, unknown>, forms: string) {
  return z.unknown().transform((value, ctx): z.infer<typeof ToolChoiceValue> | T => {
    const schema = typeof value === "string" ? ToolChoiceValue : objects;
    const result = (schema as z.ZodType).safeParse(value, { reportInput: true });
    if (!result.success) {
      for (const issue of result.error.issues) {
        ctx.addIssue({
          ...issue,
          message:
            typeof value === "string" ? `must be 'none', 'auto', 'required', ${forms}; got '${value}'` : issue.message,
        } as never);
      }
      return z.NEVER;
    }
    return result.data as z.infer<typeof ToolChoiceValue> | T;
  });
}

/** The spec's tool_choice: a string choice, a named function, or an `allowed_tools` set. */
export const SpecToolChoiceParam = toolChoiceParam(
  tagged("type", { function: SpecificFunctionParam, allowed_tools: AllowedToolsParam }),
  `{"type":"function","name":…} or {"type":"allowed_tools",…}`,
);

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
export const SpecToolChoice = z.union([ToolChoiceValue, FunctionToolChoice, AllowedToolChoice]);

export type FunctionToolParam = z.infer<typeof FunctionToolParam>;
export type SpecToolParam = z.infer<typeof SpecToolParam>;
export type SpecToolChoiceParam = z.infer<typeof SpecToolChoiceParam>;
export type FunctionTool = z.infer<typeof FunctionTool>;
export type SpecToolChoice = z.infer<typeof SpecToolChoice>;
