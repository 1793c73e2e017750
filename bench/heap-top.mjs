// What a heap snapshot holds, biggest first: `node bench/heap-top.mjs FILE.heapsnapshot [n]`.
// Prints the total, the self size by node type, and the n largest nodes (strings with their length
// and first characters), so that a retained big input (a 1 MB string, a sliced string's parent)
// shows at the top.
import { readFileSync } from "node:fs";

const [file, n = "12"] = process.argv.slice(2);
const snapshot = JSON.parse(readFileSync(file, "utf8"));
const { node_fields: fields, node_types: types } = snapshot.snapshot.meta;
const width = fields.length;
const typeNames = types[0];
const [TYPE, NAME, SIZE] = ["type", "name", "self_size"].map((f) => fields.indexOf(f));
const { nodes, strings } = snapshot;
const byType = new Map();
const top = [];
let total = 0;
for (let i = 0; i < nodes.length; i += width) {
  const type = typeNames[nodes[i + TYPE]];
  const size = nodes[i + SIZE];
  total += size;
  byType.set(type, (byType.get(type) ?? 0) + size);
  if (top.length < Number(n) || size > top.at(-1).size) {
    top.push({ type, size, name: strings[nodes[i + NAME]] });
    top.sort((a, b) => b.size - a.size);
    if (top.length > Number(n)) top.pop();
  }
}
const mb = (b) => `${(b / 2 ** 20).toFixed(1)} MB`;
console.log(`${file}: ${mb(total)} in ${nodes.length / width} nodes`);
for (const [type, size] of [...byType].sort((a, b) => b[1] - a[1]).slice(0, 8))
  console.log(`  ${type.padEnd(16)} ${mb(size)}`);
console.log("largest nodes:");
for (const t of top)
  console.log(`  ${String(t.size).padStart(9)} B  ${t.type.padEnd(14)} ${JSON.stringify(t.name.slice(0, 60))}`);
