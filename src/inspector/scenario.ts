/**
 * "Save as scenario": a journaled answer as a scenario file that plays it
 * again, built as the proxy's `--record` builds one (src/record: an
 * `Exchange` → `recordInto`): the items, text, arguments and chunking as
 * sent, the timing as marked on the timeline. Pure: the caller gives the
 * conversation the request continued.
 */
import { recordInto, type Exchange, type RecordedAnswer, type RecordedEvent } from "../record/from-exchange.js";
import type { JournalEntry } from "../journal/journal.js";
import type { CreateResponseBody, ItemParam } from "../spec/index.js";
import type { AnswerView } from "./answer.js";

type Json = Record<string, unknown>;

/** Why an entry cannot be saved, with the HTTP status that says so. */
export class NotSavable extends Error {
  constructor(
    readonly status: 404 | 409,
    message: string,
  ) {
    super(message);
  }
}

/** Outcomes of an answer that was sent whole. */
const WHOLE: ReadonlySet<string> = new Set(["completed", "incomplete", "failed"]);

/** The answer of a view as the recorder reads it: events with their times, or a JSON response. */
export function recordedAnswer(entry: JournalEntry, view: AnswerView): RecordedAnswer {
  if (entry.outcome === null)
    throw new NotSavable(409, `Request ${entry.seq} is still in progress: save it once it has ended.`);
  if (view.kind === "error" || view.kind === "none") {
    throw new NotSavable(
      409,
      `Request ${entry.seq} has no response to save (${view.kind === "error" ? `it was answered with an error, ${entry.status}` : "it is not an answer of POST /v1/responses"}).`,
    );
  }
  if (!WHOLE.has(entry.outcome)) {
    throw new NotSavable(
      409,
      `Request ${entry.seq}'s answer did not end (${entry.outcome}): only a whole answer (completed, incomplete or failed) can be saved as a scenario.`,
    );
  }
  if (view.truncated) {
    throw new NotSavable(
      409,
      `Request ${entry.seq}'s timeline was truncated (${view.dropped} marks not kept, past the journal's bound): its events cannot all be saved. Raise --journal-bytes to keep longer answers.`,
    );
  }
  if (view.kind === "json") {
    const end = view.timeline.find((m) => m.kind === "end");
    if (!view.response) throw new NotSavable(409, `Request ${entry.seq} has no response body to save.`);
    return { kind: "json", response: view.response, at: end?.t ?? entry.durationMs ?? 0 };
  }
  const events: RecordedEvent[] = [];
  for (const mark of view.timeline) {
    if (mark.kind === "event" && mark.event) events.push({ at: mark.t, event: mark.event as Json & { type: string } });
  }
  return { kind: "stream", events };
}

export interface SavedScenario {
  name: string;
  /** The scenario file, as an object (the caller formats it). */
  scenario: Json;
  /** What the scenario format could not hold. */
  notes: string[];
}

/**
 * The scenario that plays an entry's answer. `request` is its validated body;
 * `items` the conversation it continued (previous_response_id chain, then its
 * input); `savedAt` an ISO date for the description.
 */
export function savedScenario(
  entry: JournalEntry,
  view: AnswerView,
  request: CreateResponseBody,
  items: readonly ItemParam[],
  savedAt: string,
): SavedScenario {
  const answer = recordedAnswer(entry, view);
  const source = entry.upstream ? `upstream ${entry.upstream.url}` : `scenario '${entry.scenario ?? "?"}'`;
  const exchange: Exchange = { request, items, answer, upstream: source, recordedAt: savedAt };
  const { scenario, name, notes } = recordInto(null, exchange);
  scenario.description = `Saved from the openresponses-mock inspector: request ${entry.seq} (${entry.method} ${entry.path}, answered by ${source}) on ${savedAt}.`;
  return { name, scenario, notes };
}
