/** Bad options are named, with what they take and what they got (the API's words; the CLI passes its flag names). */
import { describe, expect, it } from "vitest";
import { OptionsError, quoteValue, resolveOptions } from "../src/options.js";
import { startMockServer } from "../src/server.js";

const problems = (input: object, names = {}) => {
  try {
    resolveOptions(input as never, names);
  } catch (err) {
    expect(err).toBeInstanceOf(OptionsError);
    expect(err).toBeInstanceOf(TypeError);
    return (err as OptionsError).problems;
  }
  throw new Error("accepted");
};

describe("resolveOptions' messages", () => {
  it.each([
    [{ port: "abc" }, "port: expected a port number (0-65535), got 'abc'"],
    [{ port: 70_000 }, "port: expected a port number (0-65535), got 70000"],
    [{ seed: 1.5 }, "seed: expected a whole number from 0 to 9007199254740991, got 1.5"],
    [{ bodyLimit: "1MB" }, "bodyLimit: expected a number of bytes (a whole number, 1 or more), got '1MB'"],
    [{ latencyMs: -1 }, "latencyMs: expected a number of milliseconds from 0 to 3600000, got -1"],
    [
      { tokensPerSecond: 0 },
      "tokensPerSecond: expected a number of tokens per second, above 0 and at most 1000000, got 0",
    ],
    [{ journalBytes: NaN }, "journalBytes: expected a whole number of bytes, 0 or more (0 keeps no bodies), got NaN"],
    [{ storeBytes: -1 }, "storeBytes: expected a whole number of bytes, 0 or more (0 keeps no inputs), got -1"],
    [{ storeBytes: 1.5 }, "storeBytes: expected a whole number of bytes, 0 or more (0 keeps no inputs), got 1.5"],
    [{ host: "" }, "host: expected a host name or IP address, got nothing"],
    [{ admin: "no" }, "admin: expected true or false, got 'no'"],
    [{ scenarios: 5 }, "scenarios: expected a path, or a list of paths and scenario objects, got 5"],
    [
      { dialect: "opnai" },
      "dialect: unknown dialect 'opnai'; did you mean 'openai'? known dialects: open-responses, openai",
    ],
  ])("%j", (input, message) => {
    expect(problems(input)).toEqual([message]);
  });

  it("names options as the caller spells them, one problem per line", () => {
    expect(problems({ port: -1, chunkMs: "fast" }, { port: "--port", chunkMs: "--chunk-ms" })).toEqual([
      "--port: expected a port number (0-65535), got -1",
      "--chunk-ms: expected a number of milliseconds from 0 to 3600000, got 'fast'",
    ]);
    expect(() => resolveOptions({ port: -1 })).toThrow(
      "Invalid openresponses-mock options:\n  port: expected a port number (0-65535), got -1",
    );
  });

  it("keeps the schema's own words for checks of its own", () => {
    expect(problems({ clock: {} })).toEqual(["clock: clock must have a now() method"]);
  });

  it("startMockServer rejects with the same message", async () => {
    await expect(startMockServer({ port: "4010" as never })).rejects.toThrow(
      "port: expected a port number (0-65535), got '4010'",
    );
  });
});

describe("quoteValue", () => {
  it("quotes text, cuts it, says nothing for '' and writes other values as they are", () => {
    expect(quoteValue("1MB")).toBe("'1MB'");
    expect(quoteValue("")).toBe("nothing");
    expect(quoteValue("x".repeat(100))).toBe(`'${"x".repeat(80)}…'`);
    expect(quoteValue(-1)).toBe("-1");
    expect(quoteValue(false)).toBe("false");
    expect(quoteValue(null)).toBe("null");
    expect(quoteValue({ a: [1] })).toBe('{"a":[1]}');
  });
});
