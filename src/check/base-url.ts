/**
 * Where the server is served from, against where the spec puts it:
 * `POST /v1/responses` at the server's root. A bridge documented at
 * `http://host/api` may answer there and not at `/v1/responses`; someone may
 * pass `http://host:4010` where the server wants `http://host:4010/v1`. Pure:
 * the shell probes the spec's path (a body that is not JSON: a served path
 * answers 400, an unserved one 404) and this says what it means.
 */
import type { BatteryReport } from "./battery.js";

/** What one probe of the spec's path got. */
export interface PathProbe {
  status?: number;
  failure?: string;
}

/** The spec's own endpoint on the server of a base URL: `ORIGIN/v1/responses`. */
export function specEndpoint(base: string): string {
  return `${new URL(base).origin}/v1/responses`;
}

/** The endpoint the battery posts to for a base URL, as the SDKs build it: `BASE/responses`. */
export function givenEndpoint(base: string): string {
  return `${base.replace(/\/+$/, "")}/responses`;
}

/** Whether the spec's path is another URL than the one checked, so worth a probe. */
export function needsPathProbe(base: string): boolean {
  return givenEndpoint(base) !== specEndpoint(base);
}

const NOT_SERVED = 404;

/** The battery's requests to `BASE/responses` (not /responses/compact, not WebSocket upgrades). */
const responsesRequests = (report: BatteryReport) =>
  report.results.flatMap((r) => r.requests).filter((q) => q.transport === undefined && q.endpoint === undefined);

/** Whether any request of the battery to `BASE/responses` got an answer other than 404 (the path is served). */
export function servedByBattery(report: BatteryReport): boolean {
  return responsesRequests(report).some((q) => q.status !== undefined && q.status !== NOT_SERVED);
}

const describeProbe = (probe: PathProbe) =>
  probe.status !== undefined ? `status ${probe.status}` : `no answer: ${probe.failure ?? "the connection failed"}`;

/**
 * What to say about the base URL, in words (nothing when all is as the spec
 * has it). `probe` is the answer of the spec's path, when it differs from
 * the path checked.
 */
export function baseUrlHints(base: string, report: BatteryReport, probe?: PathProbe): string[] {
  // Only requests to BASE/responses say whether it is served (compact and WebSocket mode are optional).
  if (report.unreachable || responsesRequests(report).length === 0) return [];
  const given = givenEndpoint(base);
  const spec = specEndpoint(base);
  const served = servedByBattery(report);
  if (!needsPathProbe(base))
    return served ? [] : [`${spec}, the spec's own path, answered 404 to every request: it is not served here`];
  if (!probe) return [];
  const specServed = probe.status !== undefined && probe.status !== NOT_SERVED;
  if (served && !specServed)
    return [
      `the server answers at ${given}, but not at the spec's own path ${spec} (${describeProbe(probe)}): clients that take the spec's path (an SDK given ${new URL(base).origin}/v1) will not find it`,
    ];
  if (!served && specServed)
    return [
      `${given} answered 404 to every request, but the spec's own path ${spec} answers (${describeProbe(probe)}): did you mean ${new URL(base).origin}/v1?`,
    ];
  if (!served && !specServed)
    return [
      `${given} answered 404 to every request, and so does the spec's own path ${spec} (${describeProbe(probe)})`,
    ];
  return [];
}
