/**
 * The inspector's page: `GET /__mock/` (the HTML shell) and
 * `GET /__mock/assets/NAME` (its scripts and style sheet). They hold no data,
 * so they are served without the API key: every data request the page makes
 * carries it. Off with `--no-admin`, like the other admin routes.
 *
 * The files ship in the package under `dist/inspector/page/`. Run from the
 * sources (vitest), this module sits in `src/http/`: the HTML and CSS are read
 * from `src/inspector/page/` and the compiled scripts from `dist/` (so the
 * page needs `npm run build` there, as the CLI does).
 */
import { readFile } from "node:fs/promises";
import type { Router } from "@koa/router";
import type { Context } from "koa";
import { ApiError } from "../spec/index.js";

/** The names an asset may have: flat, lower-case, a script or a style sheet (nothing else is ever read). */
export const ASSET_NAME = /^[a-z][a-z0-9-]{0,63}\.(js|css)$/;

/** The page's HTML file. */
export const PAGE_FILE = "index.html";

const CONTENT_TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
};

/**
 * The page loads only its own files and talks only to this server; no inline
 * script, no frames. (Styles set from script through the CSSOM are allowed by CSP.)
 */
export const PAGE_SECURITY_HEADERS: Record<string, string> = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  // Revalidated each time, so a new version of the package is never hidden by a cache.
  "cache-control": "no-cache",
};

/**
 * Where a page file may be, in order: beside the compiled server
 * (`dist/http/` → `dist/inspector/page/`), then the repository's `dist/`
 * (when the server runs from `src/http/`). Pure: the caller reads them.
 */
export function assetCandidates(moduleUrl: string, name: string): URL[] {
  return [new URL(`../inspector/page/${name}`, moduleUrl), new URL(`../../dist/inspector/page/${name}`, moduleUrl)];
}

/** The first candidate that can be read, or undefined. */
async function readFirst(candidates: readonly URL[]): Promise<Buffer | undefined> {
  for (const url of candidates) {
    try {
      return await readFile(url);
    } catch {
      // Not there: try the next place.
    }
  }
  return undefined;
}

/** Reads page files once each and keeps them (they never change under a running server). */
export function pageFiles(moduleUrl: string = import.meta.url): (name: string) => Promise<Buffer | undefined> {
  const cache = new Map<string, Promise<Buffer | undefined>>();
  return (name) => {
    let file = cache.get(name);
    if (!file) {
      file = readFirst(assetCandidates(moduleUrl, name));
      // A missing file is not remembered: a build may bring it.
      void file.then((b) => b === undefined && cache.delete(name));
      cache.set(name, file);
    }
    return file;
  };
}

const missing = (name: string) =>
  new ApiError({
    status: 503,
    type: "server_error",
    code: "inspector_unavailable",
    message: `The inspector's file ${name} is missing from dist/inspector/page/: the package was not built. Run \`npm run build\` in the repository.`,
  });

/** Adds `GET /__mock` (a redirect), `GET /__mock/` and `GET /__mock/assets/{name}`. */
export function addInspectorPage(router: Router, read = pageFiles()): void {
  const send = async (ctx: Context, name: string) => {
    const body = await read(name);
    if (!body) throw missing(name);
    ctx.status = 200;
    ctx.set(PAGE_SECURITY_HEADERS);
    ctx.type = CONTENT_TYPES[name.slice(name.lastIndexOf(".") + 1)];
    ctx.body = body;
  };
  router.get("/__mock/", (ctx) => send(ctx, PAGE_FILE));
  // The page's relative links need the slash. (Registered second: this pattern matches "/__mock/" too.)
  router.get("/__mock", (ctx) => {
    ctx.status = 302;
    ctx.redirect("/__mock/");
  });
  router.get("/__mock/assets/:name", async (ctx) => {
    const name = ctx.params.name as string;
    if (!ASSET_NAME.test(name)) {
      throw new ApiError({
        status: 404,
        type: "not_found",
        code: "not_found",
        param: "name",
        message: `The inspector has no asset '${name.slice(0, 80)}'.`,
      });
    }
    const body = await read(name);
    if (!body) {
      // app.js missing means an unbuilt package; any other unknown name is just not there.
      if (name === "app.js" || name === "app.css") throw missing(name);
      throw new ApiError({
        status: 404,
        type: "not_found",
        code: "not_found",
        param: "name",
        message: `The inspector has no asset '${name}'.`,
      });
    }
    await send(ctx, name);
  });
}
