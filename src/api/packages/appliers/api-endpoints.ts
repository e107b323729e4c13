// An import's applier of api endpoints (import.ts runs one per asset type, in one transaction).
import {
  collectionNamed,
  endpointAt,
  insertImportedEndpoint,
  recipeNamed,
  updateImportedEndpoint,
} from '../import.store.ts';
import { isUniqueViolation } from '../../../db/dialect.ts';
import { type ImportRun } from './run.ts';
import { isObj } from './run.ts';

// API endpoints: their collection and recipe by reference (or, in the vendor's folder layout,
// the folder's api_collection.json and recipe_name); matched by method and path in the collection.
export async function applyApiEndpoints(run: ImportRun): Promise<void> {
  const { trx, env, now, fail, warn, byType, name, groupByZip, groupByDir, recipeByZip } = run;
  const recipeEntries = byType('recipe');
  const recipeByName = async (ref: { zip_name?: string; name?: string }): Promise<number | undefined> => {
    if (ref.zip_name !== undefined && recipeByZip.has(ref.zip_name)) return recipeByZip.get(ref.zip_name);
    if (ref.name === undefined) return undefined;
    const stemMatch = recipeEntries.find(
      (r) => r.path.slice(r.path.lastIndexOf('/') + 1) === `${ref.name}.recipe.json` || name(r) === ref.name,
    );
    if (stemMatch) return recipeByZip.get(stemMatch.path);
    const row = await recipeNamed(trx, env, ref.name);
    return row?.id;
  };
  for (const e of byType('api_endpoint')) {
    const groupRef = refName(e.body.api_group_id);
    let collectionId = groupRef?.zip_name !== undefined ? groupByZip.get(groupRef.zip_name) : undefined;
    if (collectionId === undefined && groupRef?.name !== undefined) {
      const row = await collectionNamed(trx, env, groupRef.name);
      collectionId = row?.id;
    }
    collectionId ??= groupByDir.get(e.dir);
    if (collectionId === undefined) {
      fail(e.path, 'names no API collection of the package or of the target');
      continue;
    }
    const recipeRef = refName(e.body.recipe_id) ?? refName(e.body.recipe_name);
    const flowId = recipeRef ? await recipeByName(recipeRef) : undefined;
    // Imported without its recipe, and disabled: it answers nothing until a recipe is set.
    if (recipeRef && flowId === undefined)
      warn(
        e.path,
        `names recipe "${recipeRef.name ?? recipeRef.zip_name}", which is neither in the package nor in the target: imported disabled, without a recipe`,
      );
    const method = String(e.body.method).toUpperCase();
    const path = String(e.body.path).trim().replace(/^\/+/, '');
    const description = typeof e.body.description === 'string' ? e.body.description : null;
    const validateRequest: 0 | 1 = e.body.validate_request === true && flowId !== undefined ? 1 : 0;
    const existing = await endpointAt(trx, collectionId, method, path);
    if (existing) {
      const same =
        existing.name === name(e) &&
        existing.description === description &&
        (existing.flow_id === null ? null : Number(existing.flow_id)) === (flowId ?? null) &&
        Number(existing.validate_request) === validateRequest &&
        (flowId !== undefined || Number(existing.active) === 0);
      if (!same)
        await updateImportedEndpoint(trx, existing.id, name(e), description, flowId ?? null, validateRequest, now);
      run.changes.set(e.path, same ? 'unchanged' : 'updated');
      continue;
    }
    try {
      await insertImportedEndpoint(
        trx,
        collectionId,
        flowId ?? null,
        name(e),
        method,
        path,
        description,
        validateRequest,
        now,
      );
      run.changes.set(e.path, 'created');
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      fail(e.path, `another endpoint of the collection answers ${method} ${path}`);
    }
  }
}

function refName(value: unknown): { zip_name?: string; name?: string } | undefined {
  if (isObj(value))
    return {
      ...(typeof value.zip_name === 'string' ? { zip_name: value.zip_name } : {}),
      ...(typeof value.name === 'string' ? { name: value.name } : {}),
    };
  if (typeof value === 'string' && value !== '') return { name: value };
  return undefined;
}
