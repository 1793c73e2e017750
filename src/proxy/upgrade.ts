/**
 * WebSocket mode in proxy mode: a proxy passes on HTTP requests only, so an
 * upgrade is refused with a spec error object that says so, rather than
 * answered by the mock's own scenarios as if it were the upstream.
 */
import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import { answerDialect } from "../turn/control-headers.js";
import type { AppDeps } from "../http/deps.js";
import { refuseUpgrade } from "../http/websocket.js";
import { ApiError } from "../spec/index.js";

export function refuseUpgrades(server: Server, deps: AppDeps): { close(): void } {
  const onUpgrade = (req: IncomingMessage, socket: Duplex) => {
    socket.on("error", () => socket.destroy());
    refuseUpgrade(
      socket,
      new ApiError({
        status: 501,
        type: "server_error",
        code: "not_implemented",
        message:
          "WebSocket mode is not proxied: this server is a proxy (openresponses-mock proxy), which passes on HTTP requests only. Use POST /v1/responses.",
      }),
      answerDialect(req.headers, deps.dialect),
    );
  };
  server.on("upgrade", onUpgrade);
  return { close: () => void server.off("upgrade", onUpgrade) };
}
