/**
 * The service a server plays, from its options: the service file (a path or
 * an object, validated against service.schema.json) and the flags that set
 * its defaults (`--profile`, `--rpm`, `--tpm`, `--max-concurrent`, `--queue`).
 * It reads a file, so it sits with the state layer, above the pure core.
 */
import { defaultService, type Service } from "./service.js";

/** The server options the service is built from (src/options.ts). */
export interface ServiceOptions {
  service?: string | Record<string, unknown>;
  profile?: string;
  rpm?: number;
  tpm?: number;
  maxConcurrent?: number;
  queue?: number;
  queueTimeoutMs?: number;
}

/**
 * Loads the service: the file's (TODO: the service file is read by the
 * service-file work of issue 26), with the flags over its defaults.
 */
export async function loadService(options: ServiceOptions): Promise<Service> {
  const service = defaultService();
  return withFlags(service, options);
}

/** The flags over a service's defaults: `--rpm`/`--tpm` are the default limits, `--profile` the default profile, `--max-concurrent`/`--queue` the server's capacity. */
export function withFlags(service: Service, options: ServiceOptions): Service {
  const limits = { ...service.defaults.limits };
  if (options.rpm !== undefined) limits.rpm = options.rpm;
  if (options.tpm !== undefined) limits.tpm = options.tpm;
  const capacity = { ...service.capacity };
  if (options.maxConcurrent !== undefined) capacity.maxConcurrent = options.maxConcurrent;
  if (options.queue !== undefined) capacity.queue = options.queue;
  if (options.queueTimeoutMs !== undefined) capacity.queueTimeoutMs = options.queueTimeoutMs;
  return {
    ...service,
    defaults: { ...service.defaults, limits },
    capacity,
    profile: options.profile ?? service.profile,
  };
}
