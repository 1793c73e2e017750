// The well-behaved client: see client.mjs.
//   node examples/exam/good-client.mjs "What is the weather in Paris?"
import { main } from "./client.mjs";

process.exitCode = await main();
