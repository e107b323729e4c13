// Project scope over the folder tree (contract 02 §3): a developer API client limited to some
// projects sees the assets of those project folders and of every folder below them, nothing else.
import type { Db, FolderRow } from '../../db/types.ts';

export interface FolderScope {
  readonly allFolders: boolean;
  /** Project folder ids in scope when allFolders is false. */
  readonly folderIds: readonly number[];
}

/** Deeper than any real tree; stops a corrupted parent chain from looping. */
const MAX_DEPTH = 1000;

export async function findFolder(db: Db, environmentId: number, id: number): Promise<FolderRow | undefined> {
  return db
    .selectFrom('folders')
    .selectAll()
    .where('environment_id', '=', environmentId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The project folder a folder is or lies in; null for Home and anything not under a project. */
export async function projectFolderIdOf(db: Db, folder: FolderRow): Promise<number | null> {
  let current: FolderRow | undefined = folder;
  for (let depth = 0; current !== undefined && depth < MAX_DEPTH; depth++) {
    if (current.is_project === 1) return current.id;
    if (current.parent_id === null) return null;
    current = await findFolder(db, folder.environment_id, current.parent_id);
  }
  return null;
}

/** The folder when it belongs to the environment and lies in the caller's scope; undefined otherwise. */
export async function findFolderInScope(
  db: Db,
  environmentId: number,
  scope: FolderScope,
  id: number,
): Promise<FolderRow | undefined> {
  const folder = await findFolder(db, environmentId, id);
  if (folder === undefined || scope.allFolders) return folder;
  const project = await projectFolderIdOf(db, folder);
  return project !== null && scope.folderIds.includes(project) ? folder : undefined;
}

/** Ids of the project folders given and of every folder below them, in one environment. */
export async function folderIdsUnderProjects(
  db: Db,
  environmentId: number,
  projectFolderIds: readonly number[],
): Promise<number[]> {
  if (projectFolderIds.length === 0) return [];
  const rows = await db
    .withRecursive('tree(id)', (qb) =>
      qb
        .selectFrom('folders')
        .select('folders.id')
        .where('folders.environment_id', '=', environmentId)
        .where('folders.id', 'in', projectFolderIds)
        .unionAll((u) => u.selectFrom('folders as f').innerJoin('tree', 'tree.id', 'f.parent_id').select('f.id')),
    )
    .selectFrom('tree')
    .select('tree.id')
    .execute();
  return rows.map((r) => r.id);
}
