/**
 * What an answer is planned from, kept in place of its plan once the answer
 * has been played: the request, the scenario chosen, the seed string, the
 * dialect, the session, the repeat count and `created_at`. Its `plan` is the
 * plan itself while the turn holds it (`release` lets go of it), and planned
 * again from those when it is read later: the engine is deterministic, so
 * the same arguments give the same plan, key for key.
 *
 * Why: the store and the journal keep a thousand answers each by default,
 * and a plan is some forty objects (its base response, its items, each
 * delta's string). Kept, every one of them is copied by the young
 * generation's GC, promoted and marked; measured, keeping the plans was the
 * largest part of what a request that never repeats pays for the journal
 * and the store (docs/performance.md, "Keeping how to plan, not the plan").
 * A recipe is one object; the request it keeps is the validated copy of the
 * entry's body, whose strings are the body's own. Stored responses are read rarely (`GET`,
 * `previous_response_id`, `input_items`, the inspector) and each read plans
 * once more, about what the first plan cost.
 *
 * Only an answer whose conversation is its own input can be planned again
 * so: one that continues a `previous_response_id` read the chain's stored
 * records, which may be gone later, so it keeps its plan (`held`). So does
 * the answer to a big request (a body over RECIPE_MAX_BODY_BYTES, or of a
 * size not known): its recipe would keep the whole request, input and all,
 * where the store keeps a big record without its input and the journal a big
 * body truncated (a plan keeps only what it echoes). So does a background
 * run's: the run replaces its record's response as it goes. Pure.
 */
import type { Dialect } from "../dialect/render.js";
import type { Plan } from "../generate/plan.js";
import type { Scenario } from "../scenario/schema.js";
import type { CreateResponseBody } from "../spec/index.js";
import { expandCompactions } from "../generate/index.js";
import { inputItems } from "../scenario/conversation.js";
import { planWith } from "./answer.js";

/** The largest request body (UTF-8 bytes) whose answer keeps a recipe rather than its plan: about what a short plan holds. */
export const RECIPE_MAX_BODY_BYTES = 16 * 1024;

/** The conversation of a request with no previous_response_id: its input, compactions expanded (what the store's `conversationOf` gives it). */
const ownItems = (request: CreateResponseBody) =>
  expandCompactions(request.input == null ? [] : inputItems(request.input));

export class PlanRecipe {
  /** The plan, while it is held (the turn is in flight, or it cannot be planned again). */
  private kept: Plan | undefined;

  private constructor(
    /** The response's id (the store keys its record by it without planning). */
    readonly id: string,
    plan: Plan,
    private readonly request: CreateResponseBody | undefined,
    private readonly scenario: Scenario | undefined,
    private readonly seed: string,
    private readonly dialect: Dialect | undefined,
    private readonly session: string | null,
    private readonly repeat: number,
    private readonly createdAt: number,
  ) {
    this.kept = plan;
  }

  /** A plan that is only held, never planned again (a proxied answer, a test's hand-made plan). */
  static held(plan: Plan): PlanRecipe {
    return new PlanRecipe(plan.base.id, plan, undefined, undefined, "", undefined, null, 0, 0);
  }

  /**
   * The recipe of a plan made by `planWith(scenario, request, own items, seed,
   * dialect, session, repeat, createdAt)`; `bodyBytes` is the request body's
   * size (null: not known). One that continues a previous response holds its
   * plan (its conversation came from the store), and so do a background
   * run's and one of a big request (see above).
   */
  static of(
    plan: Plan,
    request: CreateResponseBody,
    bodyBytes: number | null,
    scenario: Scenario,
    seed: string,
    dialect: Dialect,
    session: string | null,
    repeat: number,
    createdAt: number,
  ): PlanRecipe {
    if (request.previous_response_id || request.background || bodyBytes === null || bodyBytes > RECIPE_MAX_BODY_BYTES)
      return PlanRecipe.held(plan);
    return new PlanRecipe(plan.base.id, plan, request, scenario, seed, dialect, session, repeat, createdAt);
  }

  /** Whether the plan is held now (not planned again when read). */
  get holds(): boolean {
    return this.kept !== undefined;
  }

  /** The plan: the one held, or planned again (each read plans afresh: nothing more is kept). */
  get plan(): Plan {
    if (this.kept !== undefined) return this.kept;
    const request = this.request!;
    return planWith(
      this.scenario!,
      request,
      ownItems(request),
      this.seed,
      this.dialect!,
      this.session,
      this.repeat,
      this.createdAt,
    );
  }

  /** Lets go of the plan if it can be planned again; held plans stay. */
  release(): void {
    if (this.scenario !== undefined) this.kept = undefined;
  }
}
