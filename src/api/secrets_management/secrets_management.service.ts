// Secrets management: the cache of resolved secrets (contract 05 §5) and the built-in store
// behind `NAME` / `store:NAME` references. Values go in and are never read back out.
import type { ServiceContext } from '../../context.ts';
import { AppError, invalid } from '../../errors.ts';
import { toApiTimestamp, toStored } from '../../time.ts';
import { MAX_SECRET_BYTES, SECRET_NAME_PATTERN } from './secret-resolver.ts';
import {
  deleteSecret,
  listSecrets,
  upsertSecret,
  type SecretScope,
  type SecretSummary,
} from './secrets_management.store.ts';
import type { SecretRow } from '../../db/types.ts';

/** Empty the caller's workspace cache: the next use of each secret reads its source again. */
export function clearSecretsCache(ctx: ServiceContext, workspaceId: number): void {
  const dropped = ctx.secrets.clearCache(workspaceId);
  ctx.log.info({ workspace_id: workspaceId, dropped }, 'secrets cache cleared');
  ctx.notifier.publish('connections.changed', { workspaceId });
}

export async function listStoredSecrets(ctx: ServiceContext, scope: SecretScope): Promise<SecretSummary[]> {
  return (await listSecrets(ctx.db, scope)).map(secretToApi);
}

/**
 * Who changes a secret: a developer API client, or null for the command line. A built-in secret
 * serves every project of its environment, so a client limited to some projects may read the
 * names but not change a value that connections of other projects use.
 */
export type SecretsCaller = { allFolders: boolean } | null;

function assertMayChangeSecrets(caller: SecretsCaller): void {
  if (caller !== null && !caller.allFolders) throw new AppError('secrets_need_all_folders');
}

/** Create or replace a secret of the built-in store; the value is sealed before it reaches the database. */
export async function setStoredSecret(
  ctx: ServiceContext,
  caller: SecretsCaller,
  scope: SecretScope,
  name: string,
  value: string,
): Promise<SecretSummary> {
  assertMayChangeSecrets(caller);
  const errors: Record<string, string[]> = {};
  if (!SECRET_NAME_PATTERN.test(name))
    errors.name = ['must be 1 to 100 letters, digits, underscores, dots or hyphens, not starting with a dot or hyphen'];
  if (value === '') errors.value = ["can't be blank"];
  else if (Buffer.byteLength(value, 'utf8') > MAX_SECRET_BYTES)
    errors.value = [`is too long (maximum is ${MAX_SECRET_BYTES} bytes)`];
  if (Object.keys(errors).length > 0) throw invalid(errors);
  const row = await upsertSecret(ctx.db, scope, name, ctx.secretBox.seal(value), toStored(ctx.clock.now()));
  ctx.notifier.publish('connections.changed', { workspaceId: scope.workspaceId });
  return secretToApi(row);
}

export async function deleteStoredSecret(
  ctx: ServiceContext,
  caller: SecretsCaller,
  scope: SecretScope,
  name: string,
): Promise<void> {
  assertMayChangeSecrets(caller);
  if (!(await deleteSecret(ctx.db, scope, name)))
    throw new AppError('secret_not_found', { params: { name: JSON.stringify(name.slice(0, 100)) } });
  ctx.notifier.publish('connections.changed', { workspaceId: scope.workspaceId });
}

function secretToApi(row: SecretRow): SecretSummary {
  return { name: row.name, created_at: toApiTimestamp(row.created_at), updated_at: toApiTimestamp(row.updated_at) };
}
