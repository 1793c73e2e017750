/**
 * The seam between the proxy and a conformance checker: the proxy hands each
 * answer to a checker as it passes (SSE frames one by one, or a whole JSON
 * body) and keeps what the checker found on the journal entry. The client
 * gets the answer's bytes whatever the checker says. The proxy holds no
 * checking logic of its own; with no checker plugged in, nothing is checked
 * and the entry's `violations` stay null.
 */

/** One thing an answer got wrong, as a checker reports it. */
export interface LiveViolation {
  /** The index of the event at fault in the stream (null for a JSON body, or the stream as a whole). */
  index: number | null;
  /** The JSON path of the field at fault (e.g. `$.sequence_number`), or null. */
  path: string | null;
  /** What is wrong, in words. */
  message: string;
  /** Further fields a checker may add (a rule name, the event type, …). */
  [key: string]: unknown;
}

/** What a checker is told about the request that an answer answers. */
export interface LiveCheckRequest {
  /** The request body as the client sent it (parsed JSON). */
  body: unknown;
  /** The dialect the answer is judged by: the one the client was answered in. */
  dialect: string;
  /** Whether the client asked for a stream. */
  stream: boolean;
}

/** The check of one answer, fed as it passes. */
export interface LiveCheck {
  /** One SSE frame of a streamed answer, as received (`event:` line, if any, and the `data:` text). */
  event(frame: { event?: string; data: string }): void;
  /** A whole JSON answer (or error body) and its HTTP status. */
  json(status: number, body: string): void;
  /** The answer has ended (normally or not): what was found. */
  end(): LiveViolation[];
}

/** A conformance checker the proxy runs on every answer of `POST /v1/responses`. */
export interface LiveChecker {
  start(request: LiveCheckRequest): LiveCheck;
}

/**
 * Runs a checker without letting it break the exchange: a checker that
 * throws is reported as one violation, and the bytes still flow.
 */
export function guardedCheck(
  checker: LiveChecker | undefined,
  request: LiveCheckRequest,
): { event: LiveCheck["event"]; json: LiveCheck["json"]; end(): LiveViolation[] | null } {
  if (!checker) return { event: () => {}, json: () => {}, end: () => null };
  let failure: string | null = null;
  let check: LiveCheck | null = null;
  const guard = (fn: () => void) => {
    if (failure !== null) return;
    try {
      fn();
    } catch (err) {
      failure = err instanceof Error ? err.message : String(err);
    }
  };
  guard(() => void (check = checker.start(request)));
  return {
    event: (frame) => guard(() => check?.event(frame)),
    json: (status, body) => guard(() => check?.json(status, body)),
    end() {
      let found: LiveViolation[] = [];
      guard(() => void (found = check?.end() ?? []));
      return failure === null
        ? found
        : [...found, { index: null, path: null, message: `the checker failed: ${failure}` }];
    },
  };
}
