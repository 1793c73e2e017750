// Broken on purpose: never retries (no SDK retries on 429/5xx, no new try of a cut stream).
import { main } from "./client.mjs";

process.exitCode = await main({ retry: false });
