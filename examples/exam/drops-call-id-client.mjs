// Broken on purpose: sends each function output back under the call item's `id` (fc_…)
// instead of its `call_id` (call_…), so the model cannot tie the output to its call.
import { main } from "./client.mjs";

process.exitCode = await main({ dropCallId: true });
