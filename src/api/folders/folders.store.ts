// Folders and projects: the part the foundation needs (each environment's Home folder, and the
// project folders that scope developer API clients). The folders API builds on these.
import type { Db, FolderRow, NewFolder } from '../../db/types.ts';

export const HOME_FOLDER_NAME = 'Home';

export async function insertFolder(db: Db, folder: NewFolder): Promise<FolderRow> {
  return db.insertInto('folders').values(folder).returningAll().executeTakeFirstOrThrow();
}

export async function findHomeFolder(db: Db, environmentId: number): Promise<FolderRow | undefined> {
  return db.selectFrom('folders').selectAll().where('environment_id', '=', environmentId).where('parent_id', 'is', null).executeTakeFirst();
}

/** Which of these ids are project folders of the environment. */
export async function findProjectFolderIds(db: Db, environmentId: number, ids: readonly number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('folders')
    .select('id')
    .where('environment_id', '=', environmentId)
    .where('is_project', '=', 1)
    .where('id', 'in', ids)
    .execute();
  return rows.map((r) => r.id);
}

/** Create a project: a top-level folder under Home plus its project record (ids differ). */
export async function insertProject(db: Db, input: { workspaceId: number; environmentId: number; homeFolderId: number; name: string; description?: string; now: string }): Promise<{ folder: FolderRow; projectId: number }> {
  const folder = await insertFolder(db, {
    workspace_id: input.workspaceId,
    environment_id: input.environmentId,
    parent_id: input.homeFolderId,
    name: input.name,
    is_project: 1,
    project_id: null,
    created_at: input.now,
    updated_at: input.now,
  });
  const project = await db
    .insertInto('projects')
    .values({ workspace_id: input.workspaceId, environment_id: input.environmentId, folder_id: folder.id, name: input.name, description: input.description ?? '', created_at: input.now, updated_at: input.now })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db.updateTable('folders').set({ project_id: project.id }).where('id', '=', folder.id).execute();
  return { folder: { ...folder, project_id: project.id }, projectId: project.id };
}

/** A project of the environment, with the folder that scopes it (contract 02 §3). */
export async function findProject(db: Db, environmentId: number, projectId: number): Promise<{ id: number; folder_id: number } | undefined> {
  return db.selectFrom('projects').select(['id', 'folder_id']).where('environment_id', '=', environmentId).where('id', '=', projectId).executeTakeFirst();
}
