// Copies the inspector page's static files (HTML, CSS) next to its compiled
// scripts in dist/inspector/page/: tsc compiles the .ts files, this the rest.
import { copyFileSync, mkdirSync, readdirSync } from "node:fs";

const from = new URL("../src/inspector/page/", import.meta.url);
const to = new URL("../dist/inspector/page/", import.meta.url);
mkdirSync(to, { recursive: true });
for (const name of readdirSync(from))
  if (/\.(html|css)$/.test(name)) copyFileSync(new URL(name, from), new URL(name, to));
