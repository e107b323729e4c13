// API endpoints: list (by collection), enable, disable (contract 03 §3).
import { findRecipe } from '../recipes/recipes.store.ts';
import type { ServiceContext } from '../../context.ts';
import { AppError, assertFound } from '../../errors.ts';
import { toStored } from '../../time.ts';
import { scopeOf, type AuthContext } from '../../auth/credentials.ts';
import { projectAssetInScope } from '../projects/project-scope.ts';
import { apiPrefixOf } from '../api_collections/api_collections.store.ts';
import { publicUrls } from '../api_collections/api_collections.service.ts';
import {
  endpointToApi,
  findEndpoint,
  listEndpoints as listEndpointRows,
  setEndpointActive,
  type EndpointApi,
} from './api_endpoints.store.ts';

export async function listEndpoints(
  ctx: ServiceContext,
  auth: AuthContext,
  collectionId: number | undefined,
  page: { offset: number; perPage: number },
): Promise<EndpointApi[]> {
  const rows = await listEndpointRows(
    ctx.db,
    auth.environmentId,
    { ...(collectionId !== undefined ? { collectionId } : {}), scope: scopeOf(auth) },
    page,
  );
  const prefix = await apiPrefixOf(ctx.db, auth.environmentId);
  return rows.map((row) => endpointToApi(row, row, prefix, publicUrls(ctx)));
}

export async function setEndpointState(
  ctx: ServiceContext,
  auth: AuthContext,
  id: number,
  active: boolean,
): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const endpoint = assertFound(await findEndpoint(trx, auth.environmentId, id));
    if (!(await projectAssetInScope(trx, auth, endpoint.project_id))) throw new AppError('not_found');
    // A recipe-backed endpoint needs its recipe running (03 §3.3).
    if (active && endpoint.proxy_connection_id === null) {
      const recipe =
        endpoint.flow_id === null ? undefined : await findRecipe(trx, auth.environmentId, endpoint.flow_id);
      if (!recipe || recipe.running !== 1) throw new AppError('recipe_not_running');
    }
    await setEndpointActive(trx, id, active, toStored(ctx.clock.now()));
  });
  ctx.notifier.publish('api_routes.changed', { environmentId: auth.environmentId });
}
