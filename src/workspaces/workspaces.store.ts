// Workspaces, their owner user and their environments.
import type { Db, EnvironmentRow, EnvironmentType, WorkspaceRow } from '../db/types.ts';

export const ENVIRONMENTS: ReadonlyArray<{ type: EnvironmentType; name: string }> = [
  { type: 'dev', name: 'Development' },
  { type: 'test', name: 'Test' },
  { type: 'prod', name: 'Production' },
];

export async function insertWorkspace(
  db: Db,
  input: { name: string; companyName: string | null; ownerEmail: string; planId: string; now: string },
): Promise<WorkspaceRow> {
  return db
    .insertInto('workspaces')
    .values({
      name: input.name,
      company_name: input.companyName,
      owner_email: input.ownerEmail,
      plan_id: input.planId,
      created_at: input.now,
      updated_at: input.now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function insertOwner(
  db: Db,
  input: { workspaceId: number; name: string; email: string; now: string },
): Promise<void> {
  await db
    .insertInto('users')
    .values({
      workspace_id: input.workspaceId,
      name: input.name,
      email: input.email,
      role: 'owner',
      created_at: input.now,
      updated_at: input.now,
    })
    .execute();
}

export async function insertEnvironment(
  db: Db,
  input: { workspaceId: number; type: EnvironmentType; name: string; now: string },
): Promise<EnvironmentRow> {
  return db
    .insertInto('environments')
    .values({ workspace_id: input.workspaceId, type: input.type, name: input.name, created_at: input.now })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function findWorkspace(db: Db, id: number): Promise<WorkspaceRow | undefined> {
  return db.selectFrom('workspaces').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The workspace's first user (its owner when it was set up). */
export async function findFirstUser(db: Db, workspaceId: number): Promise<{ name: string; email: string } | undefined> {
  return db
    .selectFrom('users')
    .select(['name', 'email'])
    .where('workspace_id', '=', workspaceId)
    .orderBy('id')
    .executeTakeFirst();
}

/** The workspace created first: the one that SWITCHBOARD_ADMIN_TOKEN and the CLI act on by default. */
export async function findFirstWorkspace(db: Db): Promise<WorkspaceRow | undefined> {
  return db.selectFrom('workspaces').selectAll().orderBy('id').limit(1).executeTakeFirst();
}

export async function listWorkspaces(db: Db): Promise<WorkspaceRow[]> {
  return db.selectFrom('workspaces').selectAll().orderBy('id').execute();
}

export async function findEnvironment(db: Db, id: number): Promise<EnvironmentRow | undefined> {
  return db.selectFrom('environments').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listEnvironments(db: Db, workspaceId: number): Promise<EnvironmentRow[]> {
  return db.selectFrom('environments').selectAll().where('workspace_id', '=', workspaceId).orderBy('id').execute();
}

export async function findEnvironmentByType(
  db: Db,
  workspaceId: number,
  type: EnvironmentType,
): Promise<EnvironmentRow | undefined> {
  return db
    .selectFrom('environments')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('type', '=', type)
    .executeTakeFirst();
}
