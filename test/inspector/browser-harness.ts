/**
 * Driving the inspector in a real browser: Debian's Chromium through
 * playwright-core (no browser download), headless, with an empty profile;
 * the built CLI as a child process where a test needs the installed layout;
 * screenshots kept under test-artifacts/inspector/ (git-ignored, CI artifacts).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { CLI } from "../support/run.js";

export const CHROMIUM = "/usr/bin/chromium";
export const ARTIFACTS = fileURLToPath(new URL("../../test-artifacts/inspector/", import.meta.url));

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Starts headless Chromium with a fresh profile; fails, saying what to install, when it is missing. */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `The inspector's browser tests need Chromium at ${CHROMIUM}: install it with \`sudo apt-get install -y chromium\` (npm test does when it can).`,
    );
  }
  const profile = mkdtempSync(join(tmpdir(), "openresponses-mock-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
    viewport: { width: 1360, height: 900 },
    acceptDownloads: true,
    colorScheme: "light",
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Saves a screenshot of the page under test-artifacts/inspector/NAME.png. */
export async function screenshot(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<string> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path, fullPage: options.fullPage ?? false });
  return path;
}

export interface CliServer {
  /** `http://127.0.0.1:PORT` (no /v1). */
  origin: string;
  output: () => string;
  stop(): Promise<void>;
}

/** Serves with the built CLI (the installed layout: dist/ alone) until stopped. */
export async function serveCli(args: readonly string[]): Promise<CliServer> {
  if (!existsSync(CLI)) throw new Error("dist/ is missing: run `npm run build` first (`npm test` does).");
  const child: ChildProcess = spawn(process.execPath, [CLI, "serve", "--port", "0", "--log", "off", ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const origin = await new Promise<string>((resolve, reject) => {
    const onData = (d: Buffer) => {
      output += d;
      const m = /listening on (http:\/\/[^\s/]+)\/v1/.exec(output);
      if (m) resolve(m[1]);
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.on("exit", (code) => reject(new Error(`serve exited with ${code}: ${output}`)));
  });
  return {
    origin,
    output: () => output,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

/** The timeline's marks as the page drew them. */
export interface DrawnMark {
  kind: string;
  t: number;
  x: number;
  index: number | null;
}

export const drawnMarks = (page: Page): Promise<DrawnMark[]> =>
  page.$$eval("svg.timeline g.mark", (gs) =>
    gs.map((g) => ({
      kind: g.getAttribute("data-kind")!,
      t: Number(g.getAttribute("data-t")),
      x: Number(g.getAttribute("data-x")),
      index: g.hasAttribute("data-index") ? Number(g.getAttribute("data-index")) : null,
    })),
  );

/** The seqs of the visible rows, top to bottom. */
export const visibleSeqs = (page: Page): Promise<number[]> =>
  page.$$eval("#rows tr:not([hidden])", (trs) => trs.map((tr) => Number(tr.getAttribute("data-seq"))));
