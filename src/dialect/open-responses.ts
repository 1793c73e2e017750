/** The default dialect: exactly the spec (openapi.json); the renderers change nothing. */
import type { DialectDescription } from "./dialect.js";

export const openResponses: DialectDescription = {
  name: "open-responses",
  summary: "exactly the Open Responses spec (the default)",
  ids: "open-responses",
  vendorExtensions: true,
  hostedItems: "vendor",
  annotationsInline: false,
  sse: { contentType: "text/event-stream", done: true },
  eventNames: {},
  encryptedContentOnAdded: false,
  response: {
    reasoningDefault: null,
    reasoningEffortDefault: null,
    reasoningSummaryEcho: {},
    outputTextLogprobs: false,
    echoFields: {},
    echoJsonSchema: false,
    floatFields: [],
  },
  errors: { types: {}, codes: {} },
};
