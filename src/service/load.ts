/**
 * The service a server plays, from its options: the service file (a path or
 * an object, validated like service.schema.json says, plus the rules it
 * cannot state) and the flags that set its defaults (`--profile`, `--rpm`,
 * `--tpm`, `--max-concurrent`, `--queue`, `--queue-timeout-ms`). It reads a
 * file, so it sits with the state layer, above the pure core (parse.ts).
 */
import { readFile } from "node:fs/promises";
import { relative, resolve } from "node:path";
import { ServiceError, parseServiceText, serviceOf, validateServiceFile, type ServiceFlags } from "./parse.js";
import type { Service } from "./service.js";

/** The server options the service is built from (src/options.ts). */
export interface ServiceOptions extends ServiceFlags {
  service?: string | Record<string, unknown>;
}

/** What a service given as an object is called in its errors. */
export const INLINE_SERVICE_LABEL = "service";

/** A path as errors show it: relative to the working folder when under it. */
const display = (file: string) => {
  const rel = relative(process.cwd(), resolve(file));
  return rel && !rel.startsWith("..") ? rel : file;
};

/**
 * Loads the service: the file's (when given), with the flags over its
 * defaults (see serviceOf for the precedence). Throws a ServiceError naming
 * the file and the JSON path of each problem, or an UnknownProfileError for
 * a `profile` option that names no profile.
 */
export async function loadService(options: ServiceOptions): Promise<Service> {
  const { service: given } = options;
  if (given === undefined) return serviceOf({}, undefined, options);
  if (typeof given !== "string") return serviceOf(validateServiceFile(given, INLINE_SERVICE_LABEL), undefined, options);
  const name = display(given);
  let text: string;
  try {
    text = await readFile(resolve(given), "utf8");
  } catch (err) {
    throw new ServiceError([
      {
        file: name,
        path: "$",
        message: `cannot read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      },
    ]);
  }
  return serviceOf(parseServiceText(text, name), name, options);
}
