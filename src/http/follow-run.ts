/** Following a background run over HTTP: its events as SSE as the run produces them. */
import type { ServerResponse } from "node:http";
import type { Dialect } from "../dialect/index.js";
import type { StreamEvent } from "../spec/index.js";
import type { Run } from "../turn/runs.js";
import { doneFrame, headerList, sseFrame, sseHeaders, writeFrame } from "./sse.js";

/** Streams a background run as SSE in a dialect: what it produced so far, then live, then the end ([DONE] where the dialect sends it). */
export async function followRun(
  res: ServerResponse,
  run: Run,
  startingAfter: number,
  dialect: Dialect,
  headers: Record<string, string> = {},
): Promise<void> {
  res.writeHead(200, headerList(sseHeaders(dialect), headers));
  const done = doneFrame(dialect);
  await new Promise<void>((resolve) => {
    const queue: (StreamEvent | null)[] = [];
    let writing = false;
    const pump = async () => {
      if (writing) return;
      writing = true;
      while (queue.length) {
        const e = queue.shift()!;
        if (e === null) {
          if (run.state === "ended" && done !== "") await writeFrame(res, done);
          res.end();
          unsubscribe();
          return resolve();
        }
        if (!(await writeFrame(res, sseFrame(e, dialect, run.plan)))) {
          unsubscribe();
          return resolve();
        }
      }
      writing = false;
    };
    const unsubscribe = run.subscribe((e) => {
      queue.push(e);
      void pump();
    }, startingAfter);
    res.once("close", () => {
      unsubscribe();
      resolve();
    });
  });
}
