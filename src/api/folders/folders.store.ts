// Folders: each environment's Home folder (parent_id null), projects (a top-level folder under
// Home plus a `projects` row with its own id) and the folders nested in them.
import type { Db, FolderRow, FolderUpdate, NewFolder } from '../../db/types.ts';
import { toApiTimestamp } from '../../time.ts';
import { inByteOrder } from '../../db/dialect.ts';

export const HOME_FOLDER_NAME = 'Home';

/** A folder with the folder id of the project it belongs to (its own id for a project folder; null for Home). */
export type ScopedFolderRow = FolderRow & { project_folder_id: number | null };

export interface FolderApi {
  id: number;
  name: string;
  parent_id: number | null;
  is_project: boolean;
  project_id: number | null;
  created_at: string;
  updated_at: string;
}

/** What decides sibling-name uniqueness: `Invoices` and ` invoices` are the same name. */
export function folderNameKey(name: string): string {
  return name.trim().normalize('NFC').toLowerCase();
}

export function folderToApi(row: FolderRow): FolderApi {
  return {
    id: row.id,
    name: row.name,
    parent_id: row.parent_id,
    is_project: row.is_project === 1,
    project_id: row.project_id,
    created_at: toApiTimestamp(row.created_at),
    updated_at: toApiTimestamp(row.updated_at),
  };
}

export async function insertFolder(db: Db, folder: Omit<NewFolder, 'name_key'>): Promise<FolderRow> {
  return db
    .insertInto('folders')
    .values({ ...folder, name_key: folderNameKey(folder.name) })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function findHomeFolder(db: Db, environmentId: number): Promise<FolderRow | undefined> {
  return db
    .selectFrom('folders')
    .selectAll()
    .where('environment_id', '=', environmentId)
    .where('parent_id', 'is', null)
    .executeTakeFirst();
}

/** The project a folder belongs to (null outside projects). */
export async function findProjectOfFolder(db: Db, id: number): Promise<number | null | undefined> {
  const folder = await db.selectFrom('folders').select('project_id').where('id', '=', id).executeTakeFirst();
  return folder?.project_id;
}

/** The names and projects of these folders, by id. */
export async function findFolderNames(
  db: Db,
  ids: readonly number[],
): Promise<Array<Pick<FolderRow, 'id' | 'name' | 'project_id'>>> {
  if (ids.length === 0) return [];
  return db.selectFrom('folders').select(['id', 'name', 'project_id']).where('id', 'in', ids).execute();
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
export async function insertProject(
  db: Db,
  input: {
    workspaceId: number;
    environmentId: number;
    homeFolderId: number;
    name: string;
    description?: string;
    now: string;
  },
): Promise<{ folder: FolderRow; projectId: number }> {
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
    .values({
      workspace_id: input.workspaceId,
      environment_id: input.environmentId,
      folder_id: folder.id,
      name: input.name,
      description: input.description ?? '',
      created_at: input.now,
      updated_at: input.now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db.updateTable('folders').set({ project_id: project.id }).where('id', '=', folder.id).execute();
  return { folder: { ...folder, project_id: project.id }, projectId: project.id };
}

function selectScoped(db: Db) {
  return db
    .selectFrom('folders as f')
    .leftJoin('projects as p', 'p.id', 'f.project_id')
    .selectAll('f')
    .select('p.folder_id as project_folder_id');
}

export async function findFolder(db: Db, environmentId: number, id: number): Promise<ScopedFolderRow | undefined> {
  return selectScoped(db).where('f.environment_id', '=', environmentId).where('f.id', '=', id).executeTakeFirst();
}

export interface FolderListQuery {
  environmentId: number;
  parentId: number;
  /** true: every descendant of the parent, not only its children. */
  nested: boolean;
  /** Project folder ids the caller may see; null: every project. */
  projectFolderIds: readonly number[] | null;
  page: { offset: number; perPage: number };
}

/** Children (or all descendants) of a folder, ordered by name (case-insensitive), then id. */
export async function listFolders(db: Db, query: FolderListQuery): Promise<FolderRow[]> {
  if (query.projectFolderIds !== null && query.projectFolderIds.length === 0) return [];
  const base = query.nested
    ? db
        .withRecursive('tree(id)', (qc) =>
          qc
            .selectFrom('folders')
            .select('id')
            .where('parent_id', '=', query.parentId)
            .unionAll(
              qc.selectFrom('folders as child').innerJoin('tree', 'tree.id', 'child.parent_id').select('child.id'),
            ),
        )
        .selectFrom('folders as f')
        .innerJoin('tree', 'tree.id', 'f.id')
    : db.selectFrom('folders as f').where('f.parent_id', '=', query.parentId);
  let select = base.selectAll('f').where('f.environment_id', '=', query.environmentId);
  const scope = query.projectFolderIds;
  if (scope !== null) {
    select = select.where('f.project_id', 'in', (eb) =>
      eb.selectFrom('projects').select('projects.id').where('projects.folder_id', 'in', scope),
    );
  }
  return select
    .orderBy(inByteOrder(db, 'f.name_key'))
    .orderBy('f.id')
    .limit(query.page.perPage)
    .offset(query.page.offset)
    .execute();
}

/** The ids of a folder and of every folder below it: a query to run, or to use as a subquery. */
export function folderTreeIds(db: Db, rootId: number) {
  return db
    .withRecursive('tree(id)', (qc) =>
      qc
        .selectFrom('folders')
        .select('id')
        .where('id', '=', rootId)
        .unionAll(qc.selectFrom('folders as child').innerJoin('tree', 'tree.id', 'child.parent_id').select('child.id')),
    )
    .selectFrom('tree')
    .select('tree.id');
}

/** Whether `candidateId` is `ancestorId` itself or lies anywhere below it. */
export async function isWithin(db: Db, ancestorId: number, candidateId: number): Promise<boolean> {
  const row = await folderTreeIds(db, ancestorId).where('tree.id', '=', candidateId).executeTakeFirst();
  return row !== undefined;
}

export async function updateFolder(db: Db, id: number, values: FolderUpdate): Promise<void> {
  await db.updateTable('folders').set(values).where('id', '=', id).execute();
}

/** Point a folder and everything below it at another project (after a move between projects). */
export async function setProjectOfTree(db: Db, rootId: number, projectId: number | null): Promise<void> {
  await db.updateTable('folders').set({ project_id: projectId }).where('id', 'in', folderTreeIds(db, rootId)).execute();
}

/** Delete a folder; its sub-folders (and, for a project folder, the project row) follow by cascade. */
export async function deleteFolder(db: Db, id: number): Promise<boolean> {
  const result = await db.deleteFrom('folders').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
