// The file store: a row per file (path, size, times) and its bytes in chunks, deleted with it.
import type { Db, FileRow } from '../../db/types.ts';

export async function findFile(db: Db, environmentId: number, path: string): Promise<FileRow | undefined> {
  return db
    .selectFrom('files')
    .selectAll()
    .where('environment_id', '=', environmentId)
    .where('path', '=', path)
    .executeTakeFirst();
}

/** Files of a directory (or of the whole tree under it), by path. */
export async function listFilesIn(
  db: Db,
  environmentId: number,
  directory: string,
  recursive: boolean,
  page: { offset: number; limit: number },
): Promise<FileRow[]> {
  let query = db.selectFrom('files').selectAll().where('environment_id', '=', environmentId);
  if (recursive) {
    // The directory itself, or one under it: a range on the text ('0' follows '/'), no LIKE pattern.
    if (directory !== '/')
      query = query.where((eb) =>
        eb.or([
          eb('directory', '=', directory),
          eb.and([eb('directory', '>=', `${directory}/`), eb('directory', '<', `${directory}0`)]),
        ]),
      );
  } else {
    query = query.where('directory', '=', directory);
  }
  return query.orderBy('path').limit(page.limit).offset(page.offset).execute();
}

/** Files of a directory (or the tree under it) added after the file `afterId`, older than `before`, by id. */
export async function filesAfter(
  db: Db,
  environmentId: number,
  directory: string,
  recursive: boolean,
  afterId: number,
  before: string,
  limit: number,
): Promise<FileRow[]> {
  let query = db
    .selectFrom('files')
    .selectAll()
    .where('environment_id', '=', environmentId)
    .where('id', '>', afterId)
    .where('created_at', '<', before);
  if (!recursive) query = query.where('directory', '=', directory);
  else if (directory !== '/')
    query = query.where((eb) =>
      eb.or([
        eb('directory', '=', directory),
        eb.and([eb('directory', '>=', `${directory}/`), eb('directory', '<', `${directory}0`)]),
      ]),
    );
  return query.orderBy('id').limit(limit).execute();
}

/** The highest id of an environment's files created before a time (0 when none): where a polling cursor starts. */
export async function maxFileIdBefore(db: Db, environmentId: number, before: string): Promise<number> {
  const row = await db
    .selectFrom('files')
    .select((eb) => eb.fn.max('id').as('max'))
    .where('environment_id', '=', environmentId)
    .where('created_at', '<', before)
    .executeTakeFirst();
  return Number(row?.max ?? 0);
}

/** Create a directory and the ones above it (those that exist stay as they are). */
export async function insertDirectories(
  db: Db,
  scope: { workspaceId: number; environmentId: number },
  paths: readonly string[],
  now: string,
): Promise<void> {
  if (paths.length === 0) return;
  await db
    .insertInto('file_directories')
    .values(
      paths.map((path) => ({
        workspace_id: scope.workspaceId,
        environment_id: scope.environmentId,
        path,
        created_at: now,
      })),
    )
    .onConflict((oc) => oc.columns(['environment_id', 'path']).doNothing())
    .execute();
}

/** Whether a directory exists: created, or holding a file in it or below it. */
export async function directoryExists(db: Db, environmentId: number, path: string): Promise<boolean> {
  if (path === '/') return true;
  const made = await db
    .selectFrom('file_directories')
    .select('id')
    .where('environment_id', '=', environmentId)
    .where('path', '=', path)
    .executeTakeFirst();
  if (made) return true;
  const file = await listFilesIn(db, environmentId, path, true, { offset: 0, limit: 1 });
  return file.length > 0;
}

/** Delete a directory, the ones below it and every file in them; the number of files deleted. */
export async function deleteDirectoryTree(db: Db, environmentId: number, path: string): Promise<number> {
  const under = (column: 'directory' | 'path') =>
    db
      .deleteFrom(column === 'directory' ? 'files' : 'file_directories')
      .where('environment_id', '=', environmentId)
      .where((eb) =>
        eb.or([eb(column, '=', path), eb.and([eb(column, '>=', `${path}/`), eb(column, '<', `${path}0`)])]),
      );
  const files = await under('directory').executeTakeFirst();
  await under('path').execute();
  return Number(files.numDeletedRows);
}

export async function insertFile(
  db: Db,
  values: {
    workspace_id: number;
    environment_id: number;
    path: string;
    directory: string;
    name: string;
    size: number;
    now: string;
  },
): Promise<number> {
  const row = await db
    .insertInto('files')
    .values({
      workspace_id: values.workspace_id,
      environment_id: values.environment_id,
      path: values.path,
      directory: values.directory,
      name: values.name,
      size: values.size,
      created_at: values.now,
      updated_at: values.now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function updateFileSize(db: Db, id: number, size: number, now: string): Promise<void> {
  await db.updateTable('files').set({ size, updated_at: now }).where('id', '=', id).execute();
}

export async function moveFileRow(
  db: Db,
  id: number,
  values: { path: string; directory: string; name: string; now: string },
): Promise<void> {
  await db
    .updateTable('files')
    .set({ path: values.path, directory: values.directory, name: values.name, updated_at: values.now })
    .where('id', '=', id)
    .execute();
}

export async function deleteFileRow(db: Db, id: number): Promise<void> {
  await db.deleteFrom('files').where('id', '=', id).execute();
}

export async function deleteChunks(db: Db, fileId: number): Promise<void> {
  await db.deleteFrom('file_chunks').where('file_id', '=', fileId).execute();
}

export async function lastChunkSeq(db: Db, fileId: number): Promise<number> {
  const row = await db
    .selectFrom('file_chunks')
    .select((eb) => eb.fn.max('seq').as('seq'))
    .where('file_id', '=', fileId)
    .executeTakeFirst();
  return row?.seq === null || row?.seq === undefined ? -1 : Number(row.seq);
}

export async function insertChunk(db: Db, fileId: number, seq: number, data: Uint8Array): Promise<void> {
  await db.insertInto('file_chunks').values({ file_id: fileId, seq, data }).execute();
}

export async function readChunks(db: Db, fileId: number): Promise<Buffer> {
  const rows = await db.selectFrom('file_chunks').select('data').where('file_id', '=', fileId).orderBy('seq').execute();
  return Buffer.concat(rows.map((r) => Buffer.from(r.data)));
}
