// Projects: the record beside each project folder (created with it by insertProject in the
// folders store). The project id and its folder id are different numbers.
import type { Db, ProjectRow } from '../../db/types.ts';

export interface ProjectApi {
  id: number;
  description: string;
  folder_id: number;
  name: string;
  color: string | null;
  icon: string | null;
}

export function projectToApi(row: ProjectRow): ProjectApi {
  return {
    id: row.id,
    description: row.description,
    folder_id: row.folder_id,
    name: row.name,
    color: row.color ?? null,
    icon: row.icon ?? null,
  };
}

export async function findProject(db: Db, environmentId: number, id: number): Promise<ProjectRow | undefined> {
  return db
    .selectFrom('projects')
    .selectAll()
    .where('environment_id', '=', environmentId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Projects of an environment by ascending id; `folderIds` (project folder ids) narrows them, null: all. */
export async function listProjects(
  db: Db,
  environmentId: number,
  folderIds: readonly number[] | null,
  page: { offset: number; perPage: number },
): Promise<ProjectRow[]> {
  if (folderIds !== null && folderIds.length === 0) return [];
  let query = db.selectFrom('projects').selectAll().where('environment_id', '=', environmentId);
  if (folderIds !== null) query = query.where('folder_id', 'in', folderIds);
  return query.orderBy('id').limit(page.perPage).offset(page.offset).execute();
}

export async function updateProject(
  db: Db,
  id: number,
  values: { name?: string; description?: string; color?: string | null; icon?: string | null; updated_at: string },
): Promise<void> {
  await db.updateTable('projects').set(values).where('id', '=', id).execute();
}

/** The project rooted at this folder, if any. */
export async function findProjectByFolder(
  db: Db,
  environmentId: number,
  folderId: number,
): Promise<ProjectRow | undefined> {
  return db
    .selectFrom('projects')
    .selectAll()
    .where('environment_id', '=', environmentId)
    .where('folder_id', '=', folderId)
    .executeTakeFirst();
}

/** The ids of the projects rooted at these folders. */
export async function projectIdsOfFolders(
  db: Db,
  environmentId: number,
  folderIds: readonly number[],
): Promise<number[]> {
  const rows = await db
    .selectFrom('projects')
    .select('id')
    .where('environment_id', '=', environmentId)
    .where('folder_id', 'in', folderIds.length > 0 ? folderIds : [-1])
    .execute();
  return rows.map((r) => r.id);
}

/** A project's folder, in any environment. */
export async function projectFolderId(db: Db, projectId: number): Promise<number | undefined> {
  const row = await db.selectFrom('projects').select('folder_id').where('id', '=', projectId).executeTakeFirst();
  return row?.folder_id;
}

/** The project whose own folder this is: its description, colour and icon (a package's project.json). */
export async function projectLookOfFolder(db: Db, environmentId: number, folderId: number) {
  return db
    .selectFrom('projects')
    .select(['id', 'description', 'color', 'icon'])
    .where('environment_id', '=', environmentId)
    .where('folder_id', '=', folderId)
    .executeTakeFirst();
}

export async function setProjectLook(
  db: Db,
  id: number,
  values: { description: string; color: string | null; icon: string | null; updated_at: string },
): Promise<void> {
  await db.updateTable('projects').set(values).where('id', '=', id).execute();
}
