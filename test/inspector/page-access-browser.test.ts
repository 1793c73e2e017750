/**
 * Who may see the inspector, in a real browser, served by the built CLI (the
 * installed layout: the page's files from dist/ alone): behind `--api-key` the
 * page asks for the key and shows no data before it, refuses a wrong one and
 * shows the list with the right one; `--no-admin` turns the page off.
 */
import type { Page, Request } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, screenshot, serveCli, visibleSeqs, type Browser, type CliServer } from "./browser-harness.js";

const KEY = "inspector-test-key-1234";

/** The tab's storage, as a function run in the browser sees it (the tests compile without the DOM lib). */
declare const sessionStorage: { length: number };

let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

describe("behind --api-key", () => {
  let server: CliServer;
  let page: Page;
  /** Every data request the page made, with the answer's status. */
  const data: { url: string; status: number; authorization: string | null }[] = [];

  beforeAll(async () => {
    server = await serveCli(["--api-key", KEY]);
    // A request in the journal before the page opens: it must not show until the key is given.
    const res = await fetch(`${server.origin}/v1/responses`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${KEY}`,
        "x-mock-session": "secret-session",
      },
      body: JSON.stringify({ model: "mock-model-1", input: "Only for key holders." }),
    });
    expect(res.status).toBe(200);
    await res.text();
    page = await browser.context.newPage();
    page.on("requestfinished", async (req: Request) => {
      if (!new URL(req.url()).pathname.startsWith("/__mock/requests")) return;
      const answer = await req.response();
      data.push({
        url: req.url(),
        status: answer?.status() ?? 0,
        authorization: (await req.allHeaders()).authorization ?? null,
      });
    });
  }, 60_000);

  afterAll(async () => {
    await page?.close();
    await server?.stop();
  });

  it("asks for the key and shows no data before it", async () => {
    const res = await page.goto(`${server.origin}/__mock/`);
    expect(res?.status()).toBe(200);
    await page.locator("#key-form").waitFor();
    expect(await page.isVisible("#main")).toBe(false);
    expect(await page.textContent("body")).not.toContain("secret-session");
    expect(await page.textContent("#conn")).toBe("API key needed");
    // The page asked, and was refused: nothing came back but 401s.
    expect(data.length).toBeGreaterThan(0);
    expect(data.every((d) => d.status === 401)).toBe(true);
    await screenshot(page, "key-prompt");
  });

  it("refuses a wrong key and says so", async () => {
    await page.fill("#key-input", "not-the-key");
    await page.click("#key-form button[type=submit]");
    await page.locator("#key-error").filter({ hasText: "refused (401)" }).waitFor();
    expect(await page.isVisible("#main")).toBe(false);
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    expect(data.every((d) => d.status === 401)).toBe(true);
  });

  it("shows the list with the right key, sends it with every data request, and keeps it for the tab", async () => {
    await page.fill("#key-input", KEY);
    await page.click("#key-form button[type=submit]");
    await page.locator("#rows tr").first().waitFor();
    expect(await page.isVisible("#key-form")).toBe(false);
    expect(await page.textContent("#rows")).toContain("secret-session");
    // The recorder's handler awaits the answer and headers: the rows can show before it has pushed.
    await expect.poll(() => data.filter((d) => d.status === 200).length).toBeGreaterThan(0);
    const authorized = data.filter((d) => d.status === 200);
    for (const d of authorized) expect(d.authorization).toBe(`Bearer ${KEY}`);

    // A reload in the same tab does not ask again.
    await page.reload();
    await page.locator("#rows tr").first().waitFor();
    expect(await page.isVisible("#key-form")).toBe(false);
    expect(await visibleSeqs(page)).toEqual([0]);
    await screenshot(page, "key-accepted");
  });

  it("serves the page's files from dist/ without the key (they hold no data)", async () => {
    for (const path of ["/__mock/", "/__mock/assets/app.js", "/__mock/assets/app.css"]) {
      const res = await fetch(`${server.origin}${path}`);
      expect(res.status, path).toBe(200);
      expect(res.headers.get("content-security-policy"), path).toContain("default-src 'none'");
    }
    expect((await fetch(`${server.origin}/__mock/requests`)).status).toBe(401);
  });
});

describe("--no-admin", () => {
  it("turns the page off: 404 like every admin route", async () => {
    const server = await serveCli(["--no-admin"]);
    const page = await browser.context.newPage();
    try {
      for (const path of ["/__mock/", "/__mock", "/__mock/assets/app.js"]) {
        const res = await page.goto(`${server.origin}${path}`);
        expect(res?.status(), path).toBe(404);
        expect(await res?.text(), path).toContain("--no-admin");
      }
    } finally {
      await page.close();
      await server.stop();
    }
  });
});
