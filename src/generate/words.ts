/** Word banks for generated text: plain, neutral and stable. */

export const FILLER_WORDS = [
  "the", "a", "this", "that", "each", "every", "simple", "clear", "short", "useful", "result", "answer",
  "request", "detail", "step", "value", "question", "context", "point", "idea", "example", "response",
  "data", "list", "item", "part", "change", "plan", "note", "case", "reason", "check", "option", "model",
  "is", "are", "can", "will", "should", "might", "shows", "gives", "keeps", "makes", "follows", "covers",
  "here", "now", "then", "also", "still", "only", "first", "next", "last", "well", "quickly", "carefully",
  "with", "for", "from", "about", "into", "over", "under", "between", "through", "after", "before",
];

export const OPENERS = [
  "Here is a reply to",
  "Thanks for asking about",
  "A short answer to",
  "Happy to help with",
  "Let me respond to",
];
