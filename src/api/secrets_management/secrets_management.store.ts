// The built-in secret store: one sealed value per name and environment.
import type { Db, SecretRow } from '../../db/types.ts';
import { inByteOrder } from '../../db/dialect.ts';

export interface SecretScope {
  readonly workspaceId: number;
  readonly environmentId: number;
}

export interface SecretSummary {
  name: string;
  created_at: string;
  updated_at: string;
}

/** Insert or replace, decided by the (environment_id, name) unique constraint. */
export async function upsertSecret(
  db: Db,
  scope: SecretScope,
  name: string,
  valueSealed: string,
  now: string,
): Promise<SecretRow> {
  return db
    .insertInto('secrets')
    .values({
      workspace_id: scope.workspaceId,
      environment_id: scope.environmentId,
      name,
      value_sealed: valueSealed,
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) =>
      oc.columns(['environment_id', 'name']).doUpdateSet({ value_sealed: valueSealed, updated_at: now }),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function findSecret(db: Db, scope: SecretScope, name: string): Promise<SecretRow | undefined> {
  return db
    .selectFrom('secrets')
    .selectAll()
    .where('workspace_id', '=', scope.workspaceId)
    .where('environment_id', '=', scope.environmentId)
    .where('name', '=', name)
    .executeTakeFirst();
}

export async function listSecrets(db: Db, scope: SecretScope): Promise<SecretRow[]> {
  return db
    .selectFrom('secrets')
    .selectAll()
    .where('workspace_id', '=', scope.workspaceId)
    .where('environment_id', '=', scope.environmentId)
    .orderBy(inByteOrder(db, 'name'))
    .execute();
}

export async function deleteSecret(db: Db, scope: SecretScope, name: string): Promise<boolean> {
  const result = await db
    .deleteFrom('secrets')
    .where('workspace_id', '=', scope.workspaceId)
    .where('environment_id', '=', scope.environmentId)
    .where('name', '=', name)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
