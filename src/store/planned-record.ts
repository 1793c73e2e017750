/**
 * A stored response that keeps only what it was answered from — its plan,
 * the request's input as it came, its session — and builds its response and
 * its input items with ids from them when they are first read (the engine is
 * deterministic: the same plan gives the same final response, key for key).
 *
 * Why: the store keeps a thousand responses by default, and each kept object
 * is copied by the young-generation GC, then promoted, then marked. A short
 * answer's response and input items with ids are about 1.7 kB of objects
 * beside the plan; most stored responses are never read (a test suite's, a
 * load test's), and `GET`, `input_items` and a `previous_response_id` chain
 * read them rarely and build them once. The plan itself is kept as its
 * recipe (src/emit/recipe.ts): once the turn lets go of it, reading `plan`
 * plans again.
 */
import { finalResponse } from "../emit/final.js";
import { PlanRecipe } from "../emit/recipe.js";
import type { Plan } from "../generate/plan.js";
import { inputItems } from "../scenario/conversation.js";
import type { CreateResponseBody, ItemParam, ResponseResource, StreamEvent } from "../spec/index.js";
import { withItemIds } from "./conversation.js";
import { inputStandIn, plannedCost, type InputOmitted } from "./record-cost.js";
import type { StoredResponse } from "./response-store.js";

export class PlannedRecord implements StoredResponse {
  private built: ResponseResource | undefined;
  private items: ItemParam[] | undefined;
  private cost: number;
  /** The events a cancelled background run delivered (set by the run; replayed instead of the plan's). */
  events: StreamEvent[] | undefined = undefined;
  /** Set when the record was too big to keep its input: `input` is then a stand-in (see omitInput). */
  inputOmitted: InputOmitted | undefined = undefined;

  /** Its plan, held or as its recipe. */
  readonly recipe: PlanRecipe;

  constructor(
    plan: Plan | PlanRecipe,
    /** The request's `input` as validated (a string or a list of items), not copied. */
    private requestInput: CreateResponseBody["input"] | undefined,
    readonly session: string | null,
  ) {
    this.recipe = plan instanceof PlanRecipe ? plan : PlanRecipe.held(plan);
    // Measured now, while the plan is held: once the turn lets go of it, measuring would plan it again.
    this.cost = plannedCost(this.recipe.plan, requestInput);
  }

  /** The plan it was answered from (planned again from its recipe once the turn has let go of it). */
  get plan(): Plan {
    return this.recipe.plan;
  }

  /** What keeping it costs, estimated (its plan, its input as it came, the overhead), measured when it was made. */
  get keptBytes(): number {
    return this.cost;
  }

  /**
   * Lets go of the request's input, keeping a stand-in of it (its first text,
   * fresh copies) that a continuation reads; `input_items` answers that it is
   * unavailable. The cost recorded is the stand-in's.
   */
  omitInput(budget: number, standInBytes?: number): void {
    if (this.inputOmitted) return;
    const bytes = this.keptBytes;
    const standIn = inputStandIn(this.requestInput == null ? [] : inputItems(this.requestInput), standInBytes);
    this.items = withItemIds(standIn, this.recipe.id);
    this.requestInput = undefined;
    this.inputOmitted = { bytes, budget };
    this.cost = plannedCost(this.plan, this.items);
  }

  /** The response's id, read from the plan (the store keys records by it without building the response). */
  get id(): string {
    return this.recipe.id;
  }

  /** The final response, built from the plan when first read. */
  get response(): ResponseResource {
    return (this.built ??= finalResponse(this.plan));
  }

  set response(response: ResponseResource) {
    this.built = response;
  }

  /** The request's own input items, each with an id, built when first read. */
  get input(): ItemParam[] {
    return (this.items ??= withItemIds(this.requestInput == null ? [] : inputItems(this.requestInput), this.recipe.id));
  }

  set input(items: ItemParam[]) {
    this.items = items;
  }

  /** As a plain record: what a shared store (Redis) writes. */
  toJSON(): StoredResponse {
    const plain: StoredResponse = {
      response: this.response,
      input: this.input,
      plan: this.plan,
      session: this.session,
    };
    if (this.events !== undefined) plain.events = this.events;
    if (this.inputOmitted !== undefined) plain.inputOmitted = this.inputOmitted;
    return plain;
  }
}
