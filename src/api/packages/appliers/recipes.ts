// An import's applier of recipes (import.ts runs one per asset type, in one transaction).
import { connectionNamed, recipeInFolder } from '../import.store.ts';
import type { RecipeRow } from '../../../db/types.ts';
import { AppError } from '../../../errors.ts';
import { authorOf, newRecipeState, versionOf } from '../../recipes/recipes.service.ts';
import { checkFields } from '../../recipes/recipes.input.ts';
import {
  insertRecipe,
  insertVersion,
  markRecipeStopped,
  RELEASE_STOP_CAUSE,
  updateRecipe,
} from '../../recipes/recipes.store.ts';
import { type ImportRun } from './run.ts';
import type { Db } from '../../../db/types.ts';
import { replaceTestCases } from '../../test_cases/test_cases.store.ts';
import { type Entry, isObj } from './run.ts';

// Recipes: matched by name in their folder; a change makes a version; running ones need restart_recipes.
export async function applyRecipes(run: ImportRun): Promise<void> {
  const {
    trx,
    pkg,
    options,
    env,
    now,
    fail,
    placeOf,
    byType,
    name,
    connectionByZip,
    recipeByZip,
    recipeStatus,
    restart,
  } = run;
  const author = await authorOf(trx, pkg.workspace_id);
  const recipeEntries = byType('recipe');
  for (const e of recipeEntries) {
    const folderId = await placeOf(e);
    const code = typeof e.body.code === 'string' ? e.body.code : JSON.stringify(e.body.code);
    const config = Array.isArray(e.body.config)
      ? await resolveConfig(trx, env, e.body.config, connectionByZip)
      : undefined;
    let checked;
    try {
      checked = checkFields(
        {
          name: name(e),
          description: typeof e.body.description === 'string' ? e.body.description : '',
          code,
          ...(config !== undefined ? { config } : {}),
          ...(typeof e.body.concurrency === 'number'
            ? { concurrency: Math.min(Math.max(Math.trunc(e.body.concurrency), 1), 10) }
            : {}),
        },
        true,
      );
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      fail(
        e.path,
        Object.entries(error.errors ?? {})
          .map(([k, v]) => `${k} ${v.join(', ')}`)
          .join('; ') || error.message,
      );
      continue;
    }
    const existing = await recipeInFolder(trx, env, folderId, name(e));
    if (!existing) {
      const row: Omit<RecipeRow, 'id'> = {
        workspace_id: pkg.workspace_id,
        environment_id: env,
        folder_id: folderId,
        name: checked.name ?? name(e),
        description: checked.description ?? '',
        code: checked.code as string,
        config: checked.config ?? '[]',
        trigger_application: checked.trigger_application ?? null,
        action_applications: checked.action_applications ?? '[]',
        webhook_event: checked.webhook_event ?? null,
        concurrency: checked.concurrency ?? 1,
        ...newRecipeState(author, now),
      };
      const id = await insertRecipe(trx, row);
      await insertVersion(trx, versionOf(id, row, author, now));
      recipeByZip.set(e.path, id);
      await importTestCases(trx, e, id, now);
      recipeStatus.push({ id, import_result: 'no_update_or_updated_without_restart' });
      run.changes.set(e.path, 'created');
      continue;
    }
    recipeByZip.set(e.path, existing.id);
    await importTestCases(trx, e, existing.id, now);
    const next = {
      name: checked.name ?? existing.name,
      description: checked.description ?? existing.description,
      code: checked.code ?? existing.code,
      config: checked.config ?? existing.config,
    };
    const changed =
      next.code !== existing.code ||
      next.config !== existing.config ||
      next.description !== existing.description ||
      (checked.concurrency ?? existing.concurrency) !== existing.concurrency;
    // A recipe that a previous release could not start is started by this one (a rollback).
    const releaseStopped =
      options.restartRecipes && existing.running !== 1 && existing.stop_cause === RELEASE_STOP_CAUSE;
    if (releaseStopped) restart.push(existing.id);
    run.changes.set(e.path, changed ? 'updated' : 'unchanged');
    if (!changed) {
      if (!releaseStopped)
        recipeStatus.push({ id: existing.id, import_result: 'no_update_or_updated_without_restart' });
      continue;
    }
    if (existing.running === 1) {
      if (!options.restartRecipes) {
        fail(
          e.path,
          `recipe ${existing.id} ("${existing.name}") is running; import with restart_recipes=true to update it`,
        );
        continue;
      }
      await markRecipeStopped(trx, existing.id, now);
      restart.push(existing.id);
    }
    const values = { ...next, version_no: existing.version_no + 1, updated_at: now };
    await updateRecipe(trx, existing.id, {
      ...values,
      concurrency: checked.concurrency ?? existing.concurrency,
      trigger_application: checked.trigger_application ?? null,
      action_applications: checked.action_applications ?? '[]',
      webhook_event: checked.webhook_event ?? null,
    });
    await insertVersion(trx, versionOf(existing.id, values, author, now));
    if (existing.running !== 1 && !releaseStopped)
      recipeStatus.push({ id: existing.id, import_result: 'no_update_or_updated_without_restart' });
  }
}

/**
 * A recipe file's test cases replace the recipe's (by name); absent: untouched. They were checked
 * against the recipe's steps when the file was read (reader-worker.ts).
 */
async function importTestCases(db: Db, e: Entry, recipeId: number, now: string): Promise<void> {
  if (e.testCases) await replaceTestCases(db, recipeId, e.testCases, now);
}

/** A config array with connection references turned into the target's connection ids where they resolve. */
async function resolveConfig(
  db: Db,
  environmentId: number,
  config: unknown[],
  byZip: ReadonlyMap<string, number>,
): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const entry of config) {
    if (!isObj(entry) || !isObj(entry.account_id)) {
      out.push(entry);
      continue;
    }
    const ref = entry.account_id;
    const provider = typeof entry.provider === 'string' ? entry.provider : '';
    let id = typeof ref.zip_name === 'string' ? byZip.get(ref.zip_name) : undefined;
    if (id === undefined && typeof ref.name === 'string') {
      const row = await connectionNamed(db, environmentId, ref.name, provider);
      id = row?.id;
    }
    out.push(id === undefined ? entry : { ...entry, account_id: id });
  }
  return out;
}
