// The connection in a recipe's config slot for a provider: checked when the recipe starts,
// resolved with its credentials when a job's step first needs it.
import type { ServiceContext } from '../context.ts';
import type { ConnectionRow, Db, RecipeRow } from '../db/types.ts';
import { findConnection, findConnectionByName } from '../api/connections/connections.store.ts';
import { credentialsOfRow } from '../api/connections/connections.service.ts';
import { StepError, type ConnectionValues } from './connectors/types.ts';
import type { ConfigEntry } from '../recipe/document.ts';

/** The connection id of the provider's slot; null when the slot is empty; 'missing' when it names no authorized connection. */
export async function connectionSlot(
  db: Db,
  row: RecipeRow,
  config: ConfigEntry[],
  provider: string,
): Promise<number | null | 'missing'> {
  const found = await slotConnection(db, row, config, provider);
  return found === null || found === 'missing' ? found : found.id;
}

/** The authorized connection row of the provider's slot (null: an empty slot; 'missing': none usable). */
async function slotConnection(
  db: Db,
  row: RecipeRow,
  config: ConfigEntry[],
  provider: string,
): Promise<ConnectionRow | null | 'missing'> {
  const slot = config.find((c) => c.provider === provider);
  if (!slot || slot.account_id === null) return null;
  const scope = { workspaceId: row.workspace_id, environmentId: row.environment_id };
  if (typeof slot.account_id === 'number') {
    const found = await findConnection(db, scope, slot.account_id);
    return found && found.authorization_status === 'success' ? found : 'missing';
  }
  // A reference from an export: the connection of that name and provider in this environment.
  const name = typeof slot.account_id.name === 'string' ? slot.account_id.name : null;
  if (name === null) return 'missing';
  const match = await findConnectionByName(db, scope, name, provider);
  if (!match || match.authorization_status !== 'success') return 'missing';
  return (await findConnection(db, scope, match.id)) ?? 'missing';
}

/** The slot's connection with its credentials, for a step; a step error when it cannot be used. */
export async function resolveSlot(
  ctx: ServiceContext,
  row: RecipeRow,
  config: ConfigEntry[],
  provider: string,
  scope: { workspaceId: number; environmentId: number },
): Promise<ConnectionValues | null> {
  const found = await slotConnection(ctx.db, row, config, provider);
  if (found === null) return null;
  if (found === 'missing')
    throw new StepError('Connection error', `the ${provider} connection of this recipe is missing or not authorized`);
  const id = found.id;
  try {
    // The row the slot was resolved from, not read again.
    const credentials = await credentialsOfRow(ctx, scope, found);
    return {
      id,
      provider: credentials.provider,
      name: credentials.name,
      auth: credentials.auth,
      oauthProfileId: credentials.oauthProfileId,
      values: credentials.values,
      ...(credentials.rest ? { rest: credentials.rest } : {}),
    };
  } catch (error) {
    throw new StepError(
      'Connection error',
      `the ${provider} connection cannot be used: ${(error as Error).name === 'AppError' ? 'not found' : (error as Error).message}`,
    );
  }
}
