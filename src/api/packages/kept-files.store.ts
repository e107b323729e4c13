// Files of imported packages kept as they came (migration 0061): written by an import, read back
// by the exports of their folders.
import type { Db } from '../../db/types.ts';

/** A kept file of this name in this folder is replaced; otherwise added. */
export async function keepFile(
  db: Db,
  file: {
    workspaceId: number;
    environmentId: number;
    folderId: number;
    name: string;
    content: Uint8Array;
    now: string;
  },
): Promise<'created' | 'updated' | 'unchanged'> {
  const existing = await db
    .selectFrom('package_kept_files')
    .select(['id', 'content'])
    .where('folder_id', '=', file.folderId)
    .where('name', '=', file.name)
    .executeTakeFirst();
  if (existing) {
    if (Buffer.from(existing.content).equals(Buffer.from(file.content))) return 'unchanged';
    await db
      .updateTable('package_kept_files')
      .set({ content: file.content, size: file.content.byteLength, updated_at: file.now })
      .where('id', '=', existing.id)
      .execute();
    return 'updated';
  }
  await db
    .insertInto('package_kept_files')
    .values({
      workspace_id: file.workspaceId,
      environment_id: file.environmentId,
      folder_id: file.folderId,
      name: file.name,
      content: file.content,
      size: file.content.byteLength,
      created_at: file.now,
      updated_at: file.now,
    })
    .execute();
  return 'created';
}

/** The kept files of these folders (their names and places; contents read one at a time). */
export async function keptFilesInFolders(db: Db, environmentId: number, folderIds: readonly number[]) {
  if (folderIds.length === 0) return [];
  const out: Array<{ id: number; folder_id: number; name: string }> = [];
  for (let i = 0; i < folderIds.length; i += 500) {
    out.push(
      ...(await db
        .selectFrom('package_kept_files')
        .select(['id', 'folder_id', 'name'])
        .where('environment_id', '=', environmentId)
        .where('folder_id', 'in', folderIds.slice(i, i + 500))
        .orderBy('id')
        .execute()),
    );
  }
  return out;
}

export async function keptFileContent(db: Db, id: number): Promise<Uint8Array | undefined> {
  const row = await db.selectFrom('package_kept_files').select('content').where('id', '=', id).executeTakeFirst();
  return row?.content;
}
