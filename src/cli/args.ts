/**
 * The command line's words, read before and beside yargs: where the command
 * is, which flags a command does not know, what is left over. Pure (the
 * words and the known names are passed in).
 *
 * The rule for array flags (`--scenarios PATH...`): an array flag takes
 * every word after it up to the next flag or `--`. Typed before the command,
 * it also stops at a command name: `--scenarios feat serve` is
 * `serve --scenarios feat`, and `--scenarios feat play hello` plays `hello`.
 * (After the command, every word is a path.)
 */
import { nearestName } from "../util/nearest-name.js";

/** What the scan of the words needs to know about the flags. */
export interface FlagKinds {
  /** Command names (`serve`, `validate`, …). */
  commands: readonly string[];
  /** Flags that take every word after them (without dashes): `scenarios`. */
  arrays: readonly string[];
  /** Flags that take no value (without dashes, short ones too): `help`, `h`, `admin`, … (their `no-` forms follow). */
  switches: readonly string[];
}

/** A word that is a flag (not `-`, not a negative number, which yargs reads as a value). */
export const isFlag = (word: string): boolean => word.startsWith("-") && word !== "-" && !/^-\d+(\.\d+)?$/.test(word);

/** A long flag's name without dashes, `=value` or a `no-` that negates a switch: `--no-admin` → `admin`, `--port=1` → `port`. */
function longName(word: string, switches: ReadonlySet<string>): string {
  const name = word.slice(2).split("=", 1)[0];
  return name.startsWith("no-") && switches.has(name.slice(3)) ? name.slice(3) : name;
}

export interface CommandLine {
  /** The words to give yargs: the command moved first when an array flag stood before it. */
  args: string[];
  /** The command typed (one of `kinds.commands`), if any. */
  command?: string;
}

/**
 * The words with the command at `at` moved first, followed by the words
 * typed after it (its positionals stay right behind it), then those typed
 * before it (flags, in order), ahead of any `--`.
 */
function commandFirst(words: readonly string[], at: number): string[] {
  const after = words.slice(at + 1);
  const end = after.includes("--") ? after.indexOf("--") : after.length;
  return [words[at], ...after.slice(0, end), ...words.slice(0, at), ...after.slice(end)];
}

/**
 * Finds the command among the words, and moves it first when it was typed
 * among the values of an array flag that came before it (see the module
 * comment), so that the array ends there and the words after the command
 * keep their meaning. Any other line is left as typed.
 */
export function findCommand(words: readonly string[], kinds: FlagKinds): CommandLine {
  const switches = new Set(kinds.switches);
  const arrays = new Set(kinds.arrays);
  const commands = new Set(kinds.commands);
  for (let i = 0; i < words.length; i++) {
    const word = words[i];
    if (word === "--") break;
    if (!isFlag(word)) {
      // The first word that is no flag's value: the command, if it is one.
      return { args: [...words], command: commands.has(word) ? word : undefined };
    }
    if (!word.startsWith("--") || word.includes("=")) continue; // short switches, and values given with =
    const name = longName(word, switches);
    if (switches.has(name) || word.startsWith("--no-")) continue;
    if (arrays.has(name)) {
      let j = i + 1;
      for (; j < words.length && !isFlag(words[j]); j++) {
        if (commands.has(words[j])) return { args: commandFirst(words, j), command: words[j] };
      }
      i = j - 1;
      continue;
    }
    if (i + 1 < words.length && !isFlag(words[i + 1])) i++; // a flag's one value
  }
  return { args: [...words] };
}

/** The options a command knows, as yargs lists them. */
export interface KnownOptions {
  /** Option names (without dashes), positionals included. */
  keys: readonly string[];
  /** Other names of an option: `{ help: ["h"] }`. */
  aliases?: Readonly<Record<string, readonly string[]>>;
}

/** A flag typed that the command does not know, and the nearest one it does, if close. */
export interface UnknownFlag {
  typed: string;
  suggestion?: string;
}

const camelCase = (name: string) => name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/**
 * The flags among `words` that a command does not know, as typed (`--prot`,
 * `-x`, `--no-prot`), each with the nearest known flag if one is close.
 * Known: every option, its aliases, its camelCase spelling, and `--no-NAME`.
 * Words after `--` are not flags; words that are not flags are values or
 * positionals and are not looked at.
 */
export function unknownFlags(words: readonly string[], known: KnownOptions): UnknownFlag[] {
  const names = new Set<string>();
  for (const key of known.keys) {
    names.add(key);
    names.add(camelCase(key));
    for (const alias of known.aliases?.[key] ?? []) names.add(alias);
  }
  for (const aliases of Object.values(known.aliases ?? {})) for (const alias of aliases) names.add(alias);
  const long = known.keys.filter((k) => k.length > 1);
  const out: UnknownFlag[] = [];
  for (const word of words) {
    if (word === "--") break;
    if (!isFlag(word)) continue;
    if (word.startsWith("--")) {
      const name = word.slice(2).split("=", 1)[0];
      if (names.has(name) || (name.startsWith("no-") && names.has(name.slice(3)))) continue;
      const negated = name.startsWith("no-");
      const near = nearestName(negated ? name.slice(3) : name, long);
      out.push({
        typed: word.split("=", 1)[0],
        suggestion: near === undefined ? undefined : `--${negated ? "no-" : ""}${near}`,
      });
      continue;
    }
    // -abc is -a -b -c; a letter that is no alias is unknown.
    for (const letter of word.slice(1).split("=", 1)[0]) if (!names.has(letter)) out.push({ typed: `-${letter}` });
  }
  return out;
}

/**
 * Flags typed with no value (`--port` last, or followed by another flag),
 * among `takesValue` (option names without dashes; their camelCase spelling
 * counts too). yargs would quietly use the default or an empty string.
 */
export function flagsMissingValues(words: readonly string[], takesValue: readonly string[]): string[] {
  const names = new Set(takesValue.flatMap((k) => [k, camelCase(k)]));
  const out: string[] = [];
  for (let i = 0; i < words.length && words[i] !== "--"; i++) {
    const word = words[i];
    if (!word.startsWith("--") || word.includes("=") || !names.has(word.slice(2))) continue;
    const next = words[i + 1];
    if (next === undefined || next === "--" || isFlag(next)) out.push(word);
  }
  return out;
}
