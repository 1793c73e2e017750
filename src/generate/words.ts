/** Word banks for generated text: plain, neutral and stable. */

export const OPENERS = [
  "Here is a reply to",
  "Thanks for asking about",
  "A short answer to",
  "Happy to help with",
  "Let me respond to",
];

const SUBJECTS = [
  "This answer",
  "The short version",
  "A simple approach",
  "The main point",
  "Each step",
  "The result",
  "This reply",
  "The summary",
];
const VERBS = ["covers", "keeps to", "explains", "follows", "sums up", "highlights", "walks through", "points to"];
const OBJECTS = [
  "the key details",
  "what you asked for",
  "the important parts",
  "a clear next step",
  "the context you gave",
  "the main idea",
  "the details that matter",
  "the usual trade-offs",
];
const TAILS = [
  "",
  " in a few words",
  " without extra noise",
  " as briefly as it can",
  " for a quick read",
  ", step by step",
  " with an example",
  " and nothing more",
];

/** One plausible, neutral sentence drawn from the banks above. */
export function sentenceFrom(pick: <T>(list: readonly T[]) => T): string {
  return `${pick(SUBJECTS)} ${pick(VERBS)} ${pick(OBJECTS)}${pick(TAILS)}.`;
}

/**
 * Capitalised phrases that do not start a sentence ("San Francisco" in
 * "What's the weather like in San Francisco?"): used for place-like arguments.
 */
export function properNames(text: string): string[] {
  const out: string[] = [];
  for (const sentence of text.split(/[.!?\n]+/)) {
    const words = sentence.match(/[\p{L}\p{N}'’-]+/gu) ?? [];
    let run: string[] = [];
    const flush = () => {
      if (run.length > 0 && !out.includes(run.join(" "))) out.push(run.join(" "));
      run = [];
    };
    words.forEach((word, i) => {
      if (i > 0 && /^\p{Lu}[\p{Ll}\p{M}'’-]+$/u.test(word)) run.push(word);
      else flush();
    });
    flush();
  }
  return out;
}
