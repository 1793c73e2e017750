// Broken on purpose: aborts (exit 1) on a stream event type it does not know, such as a
// vendor event (`acme:progress`) or an event added to the API after it was written.
import { main } from "./client.mjs";

process.exitCode = await main({ strictEvents: true });
