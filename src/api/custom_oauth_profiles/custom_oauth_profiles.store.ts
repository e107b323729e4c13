// Custom OAuth profiles: a customer's own OAuth app for one provider. The client secret and the
// optional token are stored sealed; only client_id is ever read back into a reply.
import type { CustomOauthProfileRow, Db } from '../../db/types.ts';
import { toApiTimestamp } from '../../time.ts';

export interface ProfileScope {
  readonly workspaceId: number;
  readonly environmentId: number;
}

export type ProfileWithUsage = CustomOauthProfileRow & { shared_accounts_count: number };

export interface CustomOauthProfileApi {
  id: number;
  user_id: number;
  name: string;
  provider: string;
  data: { client_id: string };
  shared_accounts_count: number;
  oem_customers_count: number;
  created_at: string;
  updated_at: string;
}

export function profileToApi(row: ProfileWithUsage): CustomOauthProfileApi {
  return {
    id: row.id,
    user_id: row.workspace_id,
    name: row.name,
    provider: row.provider,
    data: { client_id: row.client_id },
    shared_accounts_count: Number(row.shared_accounts_count),
    // Embedded (OEM) customer workspaces do not exist on a self-hosted server.
    oem_customers_count: 0,
    created_at: toApiTimestamp(row.created_at),
    updated_at: toApiTimestamp(row.updated_at),
  };
}

function selectWithUsage(db: Db, scope: ProfileScope) {
  return db
    .selectFrom('custom_oauth_profiles as p')
    .selectAll('p')
    .select((eb) =>
      eb
        .selectFrom('connections as c')
        .select((e) => e.fn.countAll<number>().as('n'))
        .whereRef('c.custom_oauth_profile_id', '=', 'p.id')
        .as('shared_accounts_count'),
    )
    .where('p.workspace_id', '=', scope.workspaceId)
    .where('p.environment_id', '=', scope.environmentId);
}

export async function findProfile(db: Db, scope: ProfileScope, id: number): Promise<ProfileWithUsage | undefined> {
  const row = await selectWithUsage(db, scope).where('p.id', '=', id).executeTakeFirst();
  return row && { ...row, shared_accounts_count: Number(row.shared_accounts_count ?? 0) };
}

export async function listProfiles(
  db: Db,
  scope: ProfileScope,
  page: { offset: number; perPage: number },
): Promise<ProfileWithUsage[]> {
  const rows = await selectWithUsage(db, scope).orderBy('p.id').limit(page.perPage).offset(page.offset).execute();
  return rows.map((row) => ({ ...row, shared_accounts_count: Number(row.shared_accounts_count ?? 0) }));
}

export async function insertProfile(db: Db, values: Omit<CustomOauthProfileRow, 'id'>): Promise<number> {
  const row = await db.insertInto('custom_oauth_profiles').values(values).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

export async function updateProfile(
  db: Db,
  scope: ProfileScope,
  id: number,
  values: Partial<Omit<CustomOauthProfileRow, 'id' | 'workspace_id' | 'environment_id' | 'created_at'>>,
): Promise<void> {
  await db
    .updateTable('custom_oauth_profiles')
    .set(values)
    .where('workspace_id', '=', scope.workspaceId)
    .where('environment_id', '=', scope.environmentId)
    .where('id', '=', id)
    .execute();
}

export async function deleteProfile(db: Db, scope: ProfileScope, id: number): Promise<void> {
  await db
    .deleteFrom('custom_oauth_profiles')
    .where('workspace_id', '=', scope.workspaceId)
    .where('environment_id', '=', scope.environmentId)
    .where('id', '=', id)
    .execute();
}

/** The sealed secrets of a profile, for the OAuth handshake of its connections (never for a reply). */
export async function findProfileSecrets(
  db: Db,
  scope: ProfileScope,
  id: number,
): Promise<
  Pick<CustomOauthProfileRow, 'client_id' | 'client_secret_sealed' | 'token_sealed' | 'provider'> | undefined
> {
  return db
    .selectFrom('custom_oauth_profiles')
    .select(['client_id', 'client_secret_sealed', 'token_sealed', 'provider'])
    .where('workspace_id', '=', scope.workspaceId)
    .where('environment_id', '=', scope.environmentId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The sealed secrets of the environment's first profile for a provider (a connection names none). */
export async function findProfileSecretsForProvider(
  db: Db,
  scope: ProfileScope,
  provider: string,
): Promise<Pick<CustomOauthProfileRow, 'id' | 'client_id' | 'client_secret_sealed'> | undefined> {
  return db
    .selectFrom('custom_oauth_profiles')
    .select(['id', 'client_id', 'client_secret_sealed'])
    .where('workspace_id', '=', scope.workspaceId)
    .where('environment_id', '=', scope.environmentId)
    .where('provider', '=', provider)
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
}
