/** The CLI's words for errors of listen and of yargs. */
import { createServer } from "node:net";
import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { listenErrorMessage, yargsMessage } from "../../src/cli/errors.js";

const errno = (code: string, fields: Record<string, unknown>) => Object.assign(new Error(code), { code, ...fields });

describe("listenErrorMessage", () => {
  it("a port in use says to pick another or --port 0", () => {
    expect(listenErrorMessage(errno("EADDRINUSE", { syscall: "listen", address: "127.0.0.1", port: 4010 }))).toBe(
      "port 4010 is already in use on 127.0.0.1: pick another with --port N, or --port 0 for a free one",
    );
  });

  it("no permission on a low port says why", () => {
    expect(listenErrorMessage(errno("EACCES", { syscall: "listen", address: "127.0.0.1", port: 80 }))).toBe(
      "no permission to listen on port 80 of 127.0.0.1: ports below 1024 need administrator rights; pick another with --port N (e.g. 4010), or --port 0 for a free one",
    );
    expect(listenErrorMessage(errno("EACCES", { syscall: "listen", address: "127.0.0.1", port: 5000 }))).toBe(
      "no permission to listen on port 5000 of 127.0.0.1; pick another with --port N (e.g. 4010), or --port 0 for a free one",
    );
  });

  it("an address this machine does not have, or a name that does not resolve, is a --host problem", () => {
    expect(listenErrorMessage(errno("EADDRNOTAVAIL", { syscall: "listen", address: "10.9.9.9", port: 4010 }))).toBe(
      "--host: this machine has no network interface with the address 10.9.9.9; use 127.0.0.1 (the default), 0.0.0.0 for every interface, or one of this machine's addresses",
    );
    for (const code of ["ENOTFOUND", "EAI_AGAIN"]) {
      expect(listenErrorMessage(errno(code, { syscall: "getaddrinfo", hostname: "nosuchhost.invalid" }))).toBe(
        "--host: cannot find the address of 'nosuchhost.invalid'; give an IP address (127.0.0.1, the default, or 0.0.0.0 for every interface) or a host name of this machine",
      );
    }
  });

  it("leaves other errors alone", () => {
    expect(listenErrorMessage(new Error("boom"))).toBeUndefined();
    expect(listenErrorMessage(errno("ECONNRESET", { syscall: "read" }))).toBeUndefined();
    expect(listenErrorMessage(errno("EADDRINUSE", { syscall: "connect" }))).toBeUndefined();
    expect(listenErrorMessage("text")).toBeUndefined();
    expect(listenErrorMessage(null)).toBeUndefined();
  });

  it("reads the error Node really gives for a port in use", async () => {
    const taken = createServer().listen(0, "127.0.0.1");
    await once(taken, "listening");
    const port = (taken.address() as { port: number }).port;
    const second = createServer();
    second.listen(port, "127.0.0.1");
    const [err] = await once(second, "error");
    taken.close();
    expect(listenErrorMessage(err)).toBe(
      `port ${port} is already in use on 127.0.0.1: pick another with --port N, or --port 0 for a free one`,
    );
  });
});

describe("yargsMessage", () => {
  it("a missing positional says what to give, per command", () => {
    expect(yargsMessage("Not enough non-option arguments: got 0, need at least 1", "orm", "validate")).toBe(
      "validate: give one or more scenario files or folders, e.g. 'orm validate scenarios/'",
    );
    expect(yargsMessage("Missing required argument: name", "orm", "play")).toMatch(
      /^play: give the scenario NAME first, e\.g\. 'orm play text'.*'play NAME --scenarios DIR'$/,
    );
  });

  it("a flag with no value names it", () => {
    expect(yargsMessage("Not enough arguments following: seed", "orm", "play")).toBe("--seed: needs a value");
  });

  it("anything else keeps yargs' words and points to the command's help", () => {
    expect(yargsMessage("Something odd", "orm", "list")).toBe("Something odd (see 'orm list --help')");
    expect(yargsMessage("Something odd", "orm")).toBe("Something odd (see 'orm --help')");
  });
});
