// A connector's pick list read through a connection (contract 04 §1.8): `pick_lists.<name>` of
// the environment's released custom connector, run with the connection's values (its secrets
// resolved, its tokens refreshed as a job's would be) and `pick_list_params` as its arguments.
import type { ServiceContext } from '../../context.ts';
import { AppError } from '../../errors.ts';
import { SecretResolutionError } from '../secrets_management/secret-resolver.ts';
import { openInput, resolveInput } from './connection-input.ts';
import { findVisible, type ConnectionCaller } from './connections.service.ts';
import { isRestProvider } from './providers.ts';
import { loadCustomConnector } from '../../connectors/custom.ts';
import { customPickList } from '../../connectors/custom-connection.ts';
import { authStoreFor, oauthClientFor, openAuthState } from '../../connectors/connections.ts';
import type { FieldValues } from '../../connectors/definition.ts';

/** Entries `[label, value]`, possibly with more positions (the vendor's sub-lists and flags). */
export type PickListEntry = [unknown, unknown, ...unknown[]];

/** At most this many entries are answered (a connector that lists a whole table is cut here). */
export const MAX_PICK_LIST_ENTRIES = 10_000;

export async function connectionPickList(
  ctx: ServiceContext,
  caller: ConnectionCaller,
  id: number,
  name: string,
  params: Record<string, unknown>,
): Promise<PickListEntry[]> {
  const row = await findVisible(ctx.db, caller, id);
  const unknown = () => new AppError('pick_list_unknown', { params: { name, provider: row.provider } });
  const loaded = isRestProvider(row.provider)
    ? undefined
    : await loadCustomConnector(ctx, caller.environmentId, caller.workspaceId, row.provider);
  if (!loaded || !loaded.pickLists.includes(name)) throw unknown();
  const failed = (reason: string) => new AppError('pick_list_failed', { params: { name, reason } });
  let values: Record<string, unknown>;
  try {
    values = await resolveInput(ctx.db, ctx.secrets, caller, openInput(ctx.secretBox, row.input_sealed));
  } catch (error) {
    if (error instanceof SecretResolutionError) throw failed(error.message);
    throw error;
  }
  const stored = openAuthState(ctx.secretBox, row.auth_sealed);
  const app = await oauthClientFor(ctx, caller, row.provider, row.custom_oauth_profile_id, values as FieldValues);
  const outcome = await customPickList(
    ctx,
    loaded,
    {
      connection: { id: row.id, name: row.name, provider: row.provider },
      values,
      auth: stored,
      app,
      shared: { workspaceId: caller.workspaceId, environmentId: caller.environmentId },
    },
    caller.workspaceId,
    name,
    params,
  );
  // What a refresh or `acquire` left is the connection's, as after a job.
  if (JSON.stringify(outcome.auth) !== JSON.stringify(stored))
    await authStoreFor(ctx, caller, row.id).save(outcome.auth);
  if (!outcome.ok) throw failed(outcome.error);
  const entries = outcome.value;
  if (!Array.isArray(entries) || !entries.every((e) => Array.isArray(e) && e.length >= 2))
    throw failed('the connector answered something that is not a list of [label, value] entries');
  return (entries as PickListEntry[]).slice(0, MAX_PICK_LIST_ENTRIES);
}
