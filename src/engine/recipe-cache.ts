// What the engine keeps of recipes between jobs: each recipe's compiled version, the rows and
// webhook keys of running recipes, and properties by folder.
import type { ServiceContext } from '../context.ts';
import type { RecipeRow } from '../db/types.ts';
import { findProjectOfFolder } from '../api/folders/folders.store.ts';
import { listProperties } from '../api/properties/properties.store.ts';
import { findRecipeById, findRecipeByWebhookKey } from '../api/recipes/recipes.store.ts';
import { compileRecipe, type CompiledRecipe, type CompiledStep } from './compile.ts';
import { findConnector } from './catalog.ts';
import { CustomConnectors } from './custom-connectors.ts';
import type { TriggerDef } from './connectors/types.ts';
import { type StepErrors } from '../recipe/document.ts';
import { DocumentError, normaliseConfig, parseJsonField, unwrapCode, type ConfigEntry } from '../recipe/document.ts';

/**
 * Compiled recipes kept (the most recently used): a compiled recipe of a few steps holds tens of
 * kilobytes (its steps, compiled inputs and formulas); one compiles in well under a millisecond.
 */
export const MAX_COMPILED_RECIPES = 1000;

export class RecipeCache {
  readonly #ctx: ServiceContext;
  readonly #compiled = new Map<number, { key: string; recipe: CompiledRecipe }>();
  // Running recipes cannot be changed, moved or deleted, so their rows are kept while they run
  // (dropped when they stop); webhook keys of running recipes too.
  readonly #runningRows = new Map<number, RecipeRow>();
  readonly #webhookKeys = new Map<string, number>();
  // Properties by environment and project, dropped on every change (values freeze at job start).
  readonly #properties = new Map<string, Promise<Map<string, string>>>();

  /** The custom connectors recipes name (loaded by `prepare` before they compile). */
  readonly custom: CustomConnectors;

  constructor(ctx: ServiceContext) {
    this.#ctx = ctx;
    this.custom = new CustomConnectors(ctx);
    ctx.notifier.subscribe('properties.changed', () => this.#properties.clear());
    ctx.notifier.subscribe('everything.changed', () => {
      this.#properties.clear();
      this.#runningRows.clear();
      this.#webhookKeys.clear();
    });
  }

  /** The recipe compiled from its current version (kept per version), or its code errors. */
  compiledFor(row: RecipeRow): { recipe: CompiledRecipe | null; codeErrors: StepErrors } {
    const key = this.#keyOf(row);
    const cached = this.#compiled.get(row.id);
    if (cached && cached.key === key) {
      // Most recently used last: the first entries are the ones dropped.
      this.#compiled.delete(row.id);
      this.#compiled.set(row.id, cached);
      return { recipe: cached.recipe, codeErrors: [] };
    }
    const result = this.#compile(row, false);
    if (result.recipe) {
      this.#compiled.delete(row.id);
      if (this.#compiled.size >= MAX_COMPILED_RECIPES) this.#compiled.delete(this.#compiled.keys().next().value!);
      this.#compiled.set(row.id, { key, recipe: result.recipe });
    }
    return result;
  }

  /**
   * The compiled trigger of a recipe, for arming it: the trigger alone is compiled (and not kept)
   * unless the whole recipe is compiled already, so arming thousands of recipes at start (and
   * their polls) neither compiles nor holds their steps. With the recipe's connection slots.
   * Null when the trigger does not compile.
   */
  triggerOf(row: RecipeRow): { trigger: CompiledStep; config: ConfigEntry[] } | null {
    const cached = this.#compiled.get(row.id);
    if (cached && cached.key === this.#keyOf(row)) return cached.recipe;
    return this.#compile(row, true).recipe;
  }

  #keyOf(row: RecipeRow): string {
    return `${row.version_no}:${row.updated_at}:${this.custom.stamp(row.environment_id)}`;
  }

  #compile(row: RecipeRow, triggerOnly: boolean): { recipe: CompiledRecipe | null; codeErrors: StepErrors } {
    let code: unknown;
    let config: ConfigEntry[];
    try {
      code = unwrapCode(parseJsonField(row.code, 'code')).code;
      config = normaliseConfig(row.config, code);
    } catch (error) {
      if (error instanceof DocumentError)
        return { recipe: null, codeErrors: [[0, [[error.field, null, error.message]]]] };
      throw error;
    }
    const env = row.environment_id;
    const source = triggerOnly && isObject(code) ? { ...code, block: [] } : code;
    return compileRecipe(source, config, (p) => findConnector(p) ?? this.custom.find(env, p));
  }

  /** Loads the released custom connectors the recipe names, so that it compiles against them. */
  async prepare(row: RecipeRow): Promise<void> {
    await this.custom.load(row.environment_id, row.workspace_id, row.code);
  }

  async runningRow(id: number): Promise<RecipeRow | undefined> {
    const cached = this.#runningRows.get(id);
    if (cached) return cached;
    const row = await findRecipeById(this.#ctx.db, id);
    if (row) await this.prepare(row);
    if (row?.running === 1) this.#runningRows.set(id, row);
    return row;
  }

  /** The running webhook recipe of a key when this node already knows it, without a query. */
  knownWebhookRecipe(key: string): RecipeRow | undefined {
    const id = this.#webhookKeys.get(key);
    const row = id === undefined ? undefined : this.#runningRows.get(id);
    return row?.running === 1 ? row : undefined;
  }

  /** The running webhook recipe of a key. */
  async webhookRecipe(key: string): Promise<RecipeRow | undefined> {
    const knownId = this.#webhookKeys.get(key);
    const row =
      knownId !== undefined ? await this.runningRow(knownId) : await findRecipeByWebhookKey(this.#ctx.db, key);
    if (!row || row.running !== 1 || row.trigger_application !== 'workato_webhooks') return undefined;
    if (knownId === undefined) {
      // The first call of this key on this node (after a restart, or on another node than the one
      // that started the recipe): the custom connectors it names are loaded before it compiles.
      await this.prepare(row);
      this.#webhookKeys.set(key, row.id);
      this.#runningRows.set(row.id, row);
    }
    return row;
  }

  /** The running recipe of a webhook key whose trigger is a connector's webhook trigger. */
  async connectorWebhookRecipe(key: string): Promise<{ row: RecipeRow; trigger: TriggerDef } | undefined> {
    const found = await findRecipeByWebhookKey(this.#ctx.db, key);
    if (!found || found.running !== 1) return undefined;
    const row = await this.runningRow(found.id);
    if (!row || row.running !== 1) return undefined;
    const trigger = this.compiledFor(row).recipe?.trigger.trigger;
    return trigger?.webhook ? { row, trigger } : undefined;
  }

  /** The recipe started or stopped: drop its row and webhook key. */
  forget(recipeId: number): void {
    this.#runningRows.delete(recipeId);
    for (const [key, id] of this.#webhookKeys) if (id === recipeId) this.#webhookKeys.delete(key);
  }

  /** The environment's properties, overridden by those of the recipe's project. */
  propertiesOf(row: RecipeRow): Promise<Map<string, string>> {
    const key = `${row.environment_id}:${row.folder_id}`;
    let cached = this.#properties.get(key);
    if (!cached) {
      cached = this.#readProperties(row);
      this.#properties.set(key, cached);
      cached.catch(() => this.#properties.delete(key));
    }
    return cached;
  }

  async #readProperties(row: RecipeRow): Promise<Map<string, string>> {
    const db = this.#ctx.db;
    const out = new Map<string, string>();
    for (const p of await listProperties(db, {
      workspaceId: row.workspace_id,
      environmentId: row.environment_id,
      projectId: null,
    }))
      out.set(p.name, p.value);
    const projectId = await findProjectOfFolder(db, row.folder_id);
    if (projectId) {
      for (const p of await listProperties(db, {
        workspaceId: row.workspace_id,
        environmentId: row.environment_id,
        projectId,
      }))
        out.set(p.name, p.value);
    }
    return out;
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
