// A later step of the job, as test/action/action.test.ts runs it: a default openai
// client (it reads OPENAI_BASE_URL and OPENAI_API_KEY, which the action exported), one
// answer, then one request that fails (the error-500 scenario) so the summary lists it.
import OpenAI from "openai";

const client = new OpenAI({ maxRetries: 0 });
const res = await client.responses.create({ model: "mock-model", input: "Hello from a later step" });
console.log(`answer: ${res.output_text}`);
try {
  await client.responses.create({ model: "m", input: "fail" }, { headers: { "x-mock-scenario": "error-500" } });
  console.log("error-500: no error");
} catch (error) {
  console.log(`error-500: ${error.status}`);
}
