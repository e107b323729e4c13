// An import's applier of connections (import.ts runs one per asset type, in one transaction).
import { type ImportRun } from './run.ts';

// Connections: matched by name in their folder; created as shells without credentials.
export async function applyConnections(run: ImportRun): Promise<void> {
  const { trx, pkg, options, env, now, fail, placeOf, byType, name, connectionByZip } = run;
  for (const e of byType('connection')) {
    const provider = String(e.body.provider);
    if (options.connectionsMustExist) {
      const match = await trx
        .selectFrom('connections')
        .select('id')
        .where('environment_id', '=', env)
        .where('name', '=', name(e))
        .where('provider', '=', provider)
        .orderBy('id')
        .executeTakeFirst();
      if (match) connectionByZip.set(e.path, match.id);
      else
        fail(
          e.path,
          `no connection named "${name(e)}" (${provider}) in the target environment: create it there, with that environment's credentials, and deploy again`,
        );
      continue;
    }
    const folderId = await placeOf(e);
    const existing = await trx
      .selectFrom('connections')
      .select(['id', 'provider'])
      .where('environment_id', '=', env)
      .where('folder_id', '=', folderId)
      .where('name', '=', name(e))
      .orderBy('id')
      .executeTakeFirst();
    if (existing) {
      if (existing.provider !== provider)
        fail(
          e.path,
          `a connection named "${name(e)}" exists in the target with provider ${existing.provider}, not ${provider}`,
        );
      connectionByZip.set(e.path, existing.id);
      continue;
    }
    const row = await trx
      .insertInto('connections')
      .values({
        workspace_id: pkg.workspace_id,
        environment_id: env,
        folder_id: folderId,
        parent_id: null,
        custom_oauth_profile_id: null,
        name: name(e),
        provider,
        description: null,
        external_id: null,
        input_sealed: null,
        input_fields: '[]',
        authorization_status: null,
        authorization_error: null,
        authorized_at: null,
        connection_lost_at: null,
        connection_lost_reason: null,
        created_at: now,
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    connectionByZip.set(e.path, Number(row.id));
  }
}
