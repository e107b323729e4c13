// Admission control: the pending jobs (queued or running) of each recipe and each workspace,
// counted in memory and rebuilt from the jobs table when the engine starts. A webhook or an API
// call takes its place here, synchronously, before its job is stored; beyond a limit it is
// refused (429) and nothing is stored. Jobs from other sources (schedules, topic messages,
// recipe function calls) are counted without being refused.
import type { RecipeRow } from '../db/types.ts';

export interface BacklogLimits {
  /** Pending jobs one recipe may hold. */
  perRecipe: number;
  /** Pending jobs the recipes of one workspace may hold together. */
  perWorkspace: number;
}

/** What a refused event's client is told to wait, in seconds: a place frees as soon as a job ends. */
export const BACKLOG_RETRY_AFTER_SECONDS = 1;

type Owner = Pick<RecipeRow, 'id' | 'workspace_id'>;

export class Backlog {
  readonly limits: BacklogLimits;
  readonly #byRecipe = new Map<number, number>();
  readonly #byWorkspace = new Map<number, number>();
  readonly #workspaceOf = new Map<number, number>();
  #changes = 0;

  constructor(limits: BacklogLimits) {
    this.limits = limits;
  }

  /**
   * Take a place for one more job of the recipe when both the recipe and its workspace have room.
   * Synchronous: between the test and the count no other caller runs, so two requests racing for
   * the last place cannot both take it.
   */
  tryAdd(recipe: Owner): boolean {
    if (!this.hasRoom(recipe)) return false;
    this.add(recipe);
    return true;
  }

  /**
   * Whether tryAdd would take a place now, without taking it: a webhook is refused on this before
   * its body is read, and tryAdd still decides when its job is stored.
   */
  hasRoom(recipe: Owner): boolean {
    return (
      (this.#byRecipe.get(recipe.id) ?? 0) < this.limits.perRecipe &&
      (this.#byWorkspace.get(recipe.workspace_id) ?? 0) < this.limits.perWorkspace
    );
  }

  /** Count one more pending job of the recipe, whatever the limits. */
  add(recipe: Owner, n = 1): void {
    if (n <= 0) return;
    this.#changes++;
    this.#workspaceOf.set(recipe.id, recipe.workspace_id);
    this.#byRecipe.set(recipe.id, (this.#byRecipe.get(recipe.id) ?? 0) + n);
    this.#byWorkspace.set(recipe.workspace_id, (this.#byWorkspace.get(recipe.workspace_id) ?? 0) + n);
  }

  /** A job of the recipe ended (or its place was not used). */
  remove(recipeId: number): void {
    const workspaceId = this.#workspaceOf.get(recipeId);
    if (workspaceId === undefined) return;
    this.#changes++;
    const left = (this.#byRecipe.get(recipeId) ?? 1) - 1;
    if (left <= 0) {
      this.#byRecipe.delete(recipeId);
      this.#workspaceOf.delete(recipeId);
    } else this.#byRecipe.set(recipeId, left);
    this.#decrementWorkspace(workspaceId, 1);
  }

  /** A deleted recipe's jobs went with it. */
  forget(recipeId: number): void {
    const workspaceId = this.#workspaceOf.get(recipeId);
    if (workspaceId === undefined) return;
    this.#changes++;
    this.#decrementWorkspace(workspaceId, this.#byRecipe.get(recipeId) ?? 0);
    this.#byRecipe.delete(recipeId);
    this.#workspaceOf.delete(recipeId);
  }

  /** Start over from the pending jobs found in the database. */
  reset(pending: ReadonlyArray<{ recipe_id: number; workspace_id: number; n: number }>): void {
    this.#byRecipe.clear();
    this.#byWorkspace.clear();
    this.#workspaceOf.clear();
    for (const { recipe_id: id, workspace_id, n } of pending) this.add({ id, workspace_id }, n);
  }

  /** Grows with every count taken or given back: a re-read that overlapped one is stale. */
  get changes(): number {
    return this.#changes;
  }

  pendingOfRecipe(recipeId: number): number {
    return this.#byRecipe.get(recipeId) ?? 0;
  }

  pendingOfWorkspace(workspaceId: number): number {
    return this.#byWorkspace.get(workspaceId) ?? 0;
  }

  #decrementWorkspace(workspaceId: number, n: number): void {
    const left = (this.#byWorkspace.get(workspaceId) ?? 0) - n;
    if (left <= 0) this.#byWorkspace.delete(workspaceId);
    else this.#byWorkspace.set(workspaceId, left);
  }
}
