/** Server state: the response store and conversations rebuilt from it. */
export * from "./response-store.js";
export * from "./conversation.js";
