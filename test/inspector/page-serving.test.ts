/**
 * Serving the inspector's page: where its files are found when the server
 * runs from src/ (vitest) and from dist/ (installed), the headers, the
 * redirect, names that are not assets, and an unbuilt package's clear error.
 * (The browser tests serve it from dist/ through the built CLI.)
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { ASSET_NAME, assetCandidates, pageFiles } from "../../src/http/inspector-page.js";
import { useServer } from "../support/server.js";

const server = useServer();
const get = (path: string, init?: RequestInit) => fetch(`${server().url}${path}`, { redirect: "manual", ...init });

describe("where the page's files are found", () => {
  it("beside the compiled server in dist/, else in the repository's dist/ (from src/)", () => {
    expect(assetCandidates("file:///pkg/dist/http/inspector-page.js", "app.js").map(String)).toEqual([
      "file:///pkg/dist/inspector/page/app.js",
      "file:///pkg/dist/inspector/page/app.js",
    ]);
    expect(assetCandidates("file:///repo/src/http/inspector-page.ts", "app.css").map(String)).toEqual([
      "file:///repo/src/inspector/page/app.css",
      "file:///repo/dist/inspector/page/app.css",
    ]);
  });

  const dir = mkdtempSync(join(tmpdir(), "openresponses-mock-page-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("reads the first that exists, and forgets a missing one (a build may bring it)", async () => {
    mkdirSync(join(dir, "src/http"), { recursive: true });
    mkdirSync(join(dir, "src/inspector/page"), { recursive: true });
    mkdirSync(join(dir, "dist/inspector/page"), { recursive: true });
    writeFileSync(join(dir, "src/inspector/page/app.css"), "from src");
    writeFileSync(join(dir, "dist/inspector/page/app.css"), "from dist");
    const read = pageFiles(pathToFileURL(join(dir, "src/http/inspector-page.ts")).href);
    expect(String(await read("app.css"))).toBe("from src");
    expect(await read("app.js")).toBeUndefined();
    writeFileSync(join(dir, "dist/inspector/page/app.js"), "built");
    expect(String(await read("app.js"))).toBe("built");
  });
});

describe("GET /__mock/", () => {
  it("serves the page (run from src/: HTML and CSS from src/, scripts from dist/) with a strict content policy", async () => {
    const page = await get("/__mock/");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(page.headers.get("x-content-type-options")).toBe("nosniff");
    const html = await page.text();
    expect(html).toContain('<script type="module" src="assets/app.js"></script>');
    for (const [name, type] of [
      ["app.js", "text/javascript; charset=utf-8"],
      ["app.css", "text/css; charset=utf-8"],
      ["timeline.js", "text/javascript; charset=utf-8"],
    ]) {
      const res = await get(`/__mock/assets/${name}`);
      expect(res.status, name).toBe(200);
      expect(res.headers.get("content-type"), name).toBe(type);
    }
  });

  it("redirects /__mock to /__mock/ (the page's links are relative) and journals neither", async () => {
    const res = await get("/__mock");
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/__mock/");
    expect(server().requests.filter((r) => r.path.startsWith("/__mock"))).toEqual([]);
  });

  it("answers a name that is not an asset with a 404 error object naming it", async () => {
    expect(ASSET_NAME.test("index.html")).toBe(false);
    for (const name of ["index.html", "..%2Fpackage.json", "nope.js", "APP.JS"]) {
      const res = await get(`/__mock/assets/${name}`);
      expect(res.status, name).toBe(404);
      const body = (await res.json()) as { error: { type: string; code: string; param: string; message: string } };
      expect(body.error).toMatchObject({ type: "not_found", code: "not_found", param: "name" });
    }
  });
});
