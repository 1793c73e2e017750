// openresponses-mock started programmatically with options the CLI does not take (for
// bench/decompose.mjs): `node ours-options.mjs '{"journalLimit":0,"storeLimit":0}'`. Prints the
// same "listening on URL" line as `serve`, and stops on SIGTERM.
import { startMockServer } from "../../dist/index.js";

const options = JSON.parse(process.argv[2] ?? "{}");
const server = await startMockServer({ port: 0, log: "off", ...options });
console.log(`listening on ${server.baseURL}`);
process.on("SIGTERM", () => void server.close().then(() => process.exit(0)));
