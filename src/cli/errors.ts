/**
 * What the command says when something goes wrong outside the options'
 * schema: a socket it cannot listen on, yargs' own complaints. Each message
 * says what happened and what to do, in words, with no stack. Pure.
 */

/** A Node error from `listen` (or the name lookup before it). */
type ListenError = NodeJS.ErrnoException & { address?: string; port?: number; hostname?: string };

/**
 * The message for an error of `server.listen`: port in use, no permission,
 * an address this machine does not have, a host name that does not resolve.
 * Undefined for any other error.
 */
export function listenErrorMessage(err: unknown): string | undefined {
  if (typeof err !== "object" || err === null) return undefined;
  const e = err as ListenError;
  if (e.syscall === "listen") {
    if (e.code === "EADDRINUSE")
      return `port ${e.port} is already in use on ${e.address}: pick another with --port N, or --port 0 for a free one`;
    if (e.code === "EACCES") {
      const low =
        typeof e.port === "number" && e.port > 0 && e.port < 1024 ? ": ports below 1024 need administrator rights" : "";
      return `no permission to listen on port ${e.port} of ${e.address}${low}; pick another with --port N (e.g. 4010), or --port 0 for a free one`;
    }
    if (e.code === "EADDRNOTAVAIL") {
      return `--host: this machine has no network interface with the address ${e.address}; use 127.0.0.1 (the default), 0.0.0.0 for every interface, or one of this machine's addresses`;
    }
  }
  if (e.syscall === "getaddrinfo" && (e.code === "ENOTFOUND" || e.code === "EAI_AGAIN" || e.code === "EAI_NONAME")) {
    return `--host: cannot find the address of '${e.hostname}'; give an IP address (127.0.0.1, the default, or 0.0.0.0 for every interface) or a host name of this machine`;
  }
  return undefined;
}

/** How to name a command in a hint: `openresponses-mock play --help`. */
const helpFor = (name: string, command?: string) => `'${name}${command ? ` ${command}` : ""} --help'`;

/**
 * yargs' own complaints (English; the CLI pins yargs' locale), in the words
 * of this command: a missing positional, a flag with no value. Anything else
 * keeps yargs' words, with a pointer to the help.
 */
export function yargsMessage(message: string, name: string, command?: string): string {
  if (/^Not enough non-option arguments|^Missing required argument/.test(message)) {
    if (command === "validate")
      return `validate: give one or more scenario files or folders, e.g. '${name} validate scenarios/'`;
    if (command === "check")
      return `check: give the server's base URL, as the SDKs take it, e.g. '${name} check http://127.0.0.1:4010/v1'`;
    if (command === "play") {
      return `play: give the scenario NAME first, e.g. '${name} play text' ('${name} list' shows the names); --scenarios takes every path after it, so write 'play NAME --scenarios DIR'`;
    }
  }
  const following = /^Not enough arguments following: (.+)$/.exec(message);
  if (following) return `--${following[1]}: needs a value`;
  return `${message} (see ${helpFor(name, command)})`;
}
