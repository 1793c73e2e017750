// The action's post step (it runs at the end of the job, whether the job failed or
// not): reads the journal through the admin routes, stops the server's process
// group, and writes the job summary. The server's log is the file named by the main
// step's output log-file (${RUNNER_TEMP}/openresponses-mock.log).
import { appendSummary, fail, getInput, getState, info, warning } from "./runner.mjs";
import { stopGroup } from "./server.mjs";
import { readExpectations, readJournal, summaryMarkdown } from "./summary.mjs";

async function post() {
  const pid = Number(getState("pid"));
  const url = getState("url");
  const logFile = getState("log-file");
  if (!pid) {
    info("openresponses-mock: no server was started (the main step failed or did not run); nothing to stop.");
    return;
  }
  const apiKey = getInput("api-key");
  let entries = [];
  let expectations = null;
  let journalError = null;
  try {
    entries = await readJournal(url, apiKey);
    expectations = await readExpectations(url, apiKey);
  } catch (error) {
    journalError = error instanceof Error ? error.message : String(error);
  }
  const stopped = await stopGroup(pid);
  info(`openresponses-mock: the server (pid ${pid}) ${stopped === "gone" ? "had already ended" : stopped}.`);
  if (logFile) info(`openresponses-mock: its log is ${logFile}`);
  const how = { stopped: "stopped", killed: "was killed (it did not stop on SIGTERM)", gone: "had already ended" };
  let markdown = summaryMarkdown({ url, entries, expectations, logFile, stopped: how[stopped] });
  if (journalError) {
    warning(`openresponses-mock: cannot read the journal: ${journalError}`);
    markdown = markdown.replace(
      /^### openresponses-mock\n\n/,
      `### openresponses-mock\n\nThe journal could not be read: ${journalError}.\n\n`,
    );
  }
  if (!appendSummary(markdown)) info(markdown);
}

post().catch((error) => fail(`openresponses-mock: ${error instanceof Error ? error.message : String(error)}`));
