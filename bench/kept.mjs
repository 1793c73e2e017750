// npm run bench:kept: what the journal and the store hold for each request they keep, in heap
// bytes and in objects, as `serve` keeps them by default (1,000 of each) and, beside it, with
// both keeping nothing (journalLimit 0, storeLimit 0). In process: a server started with
// startMockServer, 3,000 requests that never repeat (so 1,000 are kept), a GC, a heap snapshot,
// its objects counted; per kept request = (default − keeping nothing) / 1,000. Every kept
// object is copied by the young generation's GC, promoted and marked: fewer is cheaper for
// every request (docs/performance.md, "Keeping how to plan, not the plan").
//
//   npm run bench:kept                 (builds, then: node --expose-gc bench/kept.mjs)
//   node --expose-gc bench/kept.mjs [json|short]...
import { request, Agent } from "node:http";
import { writeHeapSnapshot } from "node:v8";
import { readFileSync, rmSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startMockServer } from "../dist/index.js";

if (typeof globalThis.gc !== "function") {
  console.error("bench:kept: run with node --expose-gc (npm run bench:kept does)");
  process.exit(2);
}
const KINDS = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ["json", "short"];
const KEPT = 1000;
const SENT = 3 * KEPT;
const scenarios = fileURLToPath(new URL("./scenarios", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "orm-kept-"));

/** The heap's objects and bytes, from a snapshot (after a GC). */
function heapCount() {
  globalThis.gc();
  globalThis.gc();
  const file = writeHeapSnapshot(join(dir, "kept.heapsnapshot"));
  const snap = JSON.parse(readFileSync(file, "utf8"));
  rmSync(file);
  const width = snap.snapshot.meta.node_fields.length;
  const size = snap.snapshot.meta.node_fields.indexOf("self_size");
  let bytes = 0;
  for (let i = size; i < snap.nodes.length; i += width) bytes += snap.nodes[i];
  return { objects: snap.nodes.length / width, bytes };
}

async function measure(kind, options) {
  const server = await startMockServer({ port: 0, log: "off", scenarios, ...options });
  const agent = new Agent({ keepAlive: true, maxSockets: 10 });
  let n = 0;
  const one = () =>
    new Promise((resolve, reject) => {
      const body = JSON.stringify({ model: "mock-model-1", input: `hello ${n++}`, stream: kind === "short" });
      const req = request(
        `${server.baseURL}/responses`,
        { method: "POST", agent, headers: { "content-type": "application/json" } },
        (res) => res.resume().on("end", resolve),
      );
      req.on("error", reject);
      req.end(body);
    });
  for (let i = 0; i < SENT; i += 10) await Promise.all(Array.from({ length: 10 }, one));
  const count = heapCount();
  agent.destroy();
  await server.close();
  return count;
}

console.log(
  `held per kept request (${SENT} requests sent, ${KEPT} kept by the journal and by the store), Node ${process.version}`,
);
console.log(`${"answer".padEnd(8)} ${"kB".padStart(6)} ${"objects".padStart(8)}`);
for (const kind of KINDS) {
  const kept = await measure(kind, {});
  const none = await measure(kind, { journalLimit: 0, storeLimit: 0 });
  const kB = (kept.bytes - none.bytes) / KEPT / 1024;
  const objects = (kept.objects - none.objects) / KEPT;
  console.log(`${kind.padEnd(8)} ${kB.toFixed(2).padStart(6)} ${objects.toFixed(1).padStart(8)}`);
}
rmSync(dir, { recursive: true, force: true });
