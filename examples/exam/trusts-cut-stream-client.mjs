// Broken on purpose: when a stream ends without its terminal event (the connection was
// cut), prints the text it got so far and exits 0, as if the answer were complete.
import { main } from "./client.mjs";

process.exitCode = await main({ trustCutStream: true });
