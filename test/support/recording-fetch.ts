/**
 * A `fetch` for SDK clients that keeps each raw answer (status, headers, the
 * body as text) before the SDK sees it, so a test can validate the very bytes
 * a client parsed. The body is read whole and handed on as a new Response:
 * the mock streams without pauses unless told to, so the SDK sees the same
 * events, only at once.
 */
export interface Exchange {
  url: string;
  status: number;
  headers: Headers;
  text: string;
}

export function recordingFetch(log: Exchange[]): typeof fetch {
  return async (input, init) => {
    const res = await fetch(input, init);
    const text = await res.text();
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    log.push({ url, status: res.status, headers: res.headers, text });
    const headers = new Headers(res.headers);
    headers.delete("content-length");
    headers.delete("content-encoding");
    return new Response(text, { status: res.status, statusText: res.statusText, headers });
  };
}
