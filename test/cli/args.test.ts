/** The command line's words: where the command is, unknown flags, flags with no value. */
import { describe, expect, it } from "vitest";
import { findCommand, flagsMissingValues, isFlag, unknownFlags } from "../../src/cli/args.js";

const KINDS = {
  commands: ["serve", "validate", "list", "play"],
  arrays: ["scenarios"],
  switches: ["help", "h", "version", "v", "admin", "library", "strict"],
};
const find = (line: string) => findCommand(line.split(" ").filter(Boolean), KINDS);

describe("findCommand", () => {
  it("moves a command typed among --scenarios values first", () => {
    expect(find("--scenarios feat serve")).toEqual({ args: ["serve", "--scenarios", "feat"], command: "serve" });
    expect(find("--scenarios a b list --no-library")).toEqual({
      args: ["list", "--no-library", "--scenarios", "a", "b"],
      command: "list",
    });
    // The words after the command keep their place behind it: hello is play's NAME, not a path.
    expect(find("--port 0 --scenarios feat play hello")).toEqual({
      args: ["play", "hello", "--port", "0", "--scenarios", "feat"],
      command: "play",
    });
    expect(find("--scenarios feat play hello -- x")).toEqual({
      args: ["play", "hello", "--scenarios", "feat", "--", "x"],
      command: "play",
    });
    expect(find("--scenarios a serve --scenarios b")).toEqual({
      args: ["serve", "--scenarios", "b", "--scenarios", "a"],
      command: "serve",
    });
  });

  it("leaves every other line as typed", () => {
    expect(find("serve --scenarios a b")).toEqual({ args: ["serve", "--scenarios", "a", "b"], command: "serve" });
    expect(find("--port 0 serve")).toEqual({ args: ["--port", "0", "serve"], command: "serve" });
    expect(find("--scenarios a b")).toEqual({ args: ["--scenarios", "a", "b"] });
    expect(find("")).toEqual({ args: [] });
    expect(find("frobnicate")).toEqual({ args: ["frobnicate"], command: undefined });
  });

  it("after the command, a command name is a path like any other", () => {
    expect(find("list --scenarios a serve")).toEqual({ args: ["list", "--scenarios", "a", "serve"], command: "list" });
  });

  it("a one-value flag's value is never the command; switches take none", () => {
    // A scenario named 'list' as the default, then the command.
    expect(find("--scenario list serve")).toEqual({ args: ["--scenario", "list", "serve"], command: "serve" });
    expect(find("--no-admin list")).toEqual({ args: ["--no-admin", "list"], command: "list" });
    expect(find("--strict --scenarios x play hi")).toEqual({
      args: ["play", "hi", "--strict", "--scenarios", "x"],
      command: "play",
    });
    expect(find("-h list")).toEqual({ args: ["-h", "list"], command: "list" });
    expect(find("--scenarios=x play hi")).toEqual({ args: ["--scenarios=x", "play", "hi"], command: "play" });
  });

  it("the values of --scenarios end at the next flag, and nothing after -- counts", () => {
    expect(find("--scenarios a --port 1 serve")).toEqual({
      args: ["--scenarios", "a", "--port", "1", "serve"],
      command: "serve",
    });
    expect(find("--scenarios a -- serve")).toEqual({ args: ["--scenarios", "a", "--", "serve"] });
    expect(find("--seed -1 serve")).toEqual({ args: ["--seed", "-1", "serve"], command: "serve" });
  });
});

describe("isFlag", () => {
  it("is a dash word, but not - nor a negative number", () => {
    expect(["--port", "-h", "--no-admin", "--x=1"].map(isFlag)).toEqual([true, true, true, true]);
    expect(["-", "-1", "-2.5", "port", ""].map(isFlag)).toEqual([false, false, false, false, false]);
  });
});

describe("unknownFlags", () => {
  const known = {
    keys: ["version", "help", "port", "body-limit", "admin", "scenarios", "name"],
    aliases: { version: ["v"], help: ["h"] },
  };

  it("names each unknown flag as typed, with the nearest known one when close", () => {
    expect(unknownFlags(["--prot", "3", "--no-admn", "-x", "--bogus-option=1"], known)).toEqual([
      { typed: "--prot", suggestion: "--port" },
      { typed: "--no-admn", suggestion: "--no-admin" },
      { typed: "-x" },
      { typed: "--bogus-option", suggestion: undefined },
    ]);
    expect(unknownFlags(["--bodylimit", "5"], known)).toEqual([{ typed: "--bodylimit", suggestion: "--body-limit" }]);
  });

  it("knows options, aliases, camelCase spellings, --no- forms and = values", () => {
    expect(
      unknownFlags(
        [
          "--port",
          "1",
          "--bodyLimit",
          "2",
          "--body-limit=3",
          "-h",
          "-v",
          "-hv",
          "--no-admin",
          "--help",
          "--no-scenarios",
        ],
        known,
      ),
    ).toEqual([]);
  });

  it("ignores values, positionals, negative numbers and everything after --", () => {
    expect(unknownFlags(["serve", "--port", "-1", "a", "--", "--prot", "-x"], known)).toEqual([]);
  });

  it("checks each letter of grouped short flags", () => {
    expect(unknownFlags(["-hq"], known)).toEqual([{ typed: "-q" }]);
  });
});

describe("flagsMissingValues", () => {
  it("finds value flags typed last or before another flag", () => {
    expect(flagsMissingValues(["--port"], ["port"])).toEqual(["--port"]);
    expect(flagsMissingValues(["--port", "--seed", "1", "--dialect", "--"], ["port", "seed", "dialect"])).toEqual([
      "--port",
      "--dialect",
    ]);
    expect(flagsMissingValues(["--bodyLimit"], ["body-limit"])).toEqual(["--bodyLimit"]);
  });

  it("accepts a value, a negative number, an = value, and flags that take none", () => {
    expect(
      flagsMissingValues(["--port", "0", "--seed", "-1", "--dialect=", "--admin"], ["port", "seed", "dialect"]),
    ).toEqual([]);
  });
});
