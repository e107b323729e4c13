// Packages (contract 15 §7–§11): one row per export or import, and the zip in chunks of bytes.
import type { Db, PackageRow, PackageStatus } from '../../db/types.ts';

export type ImportResult = 'no_update_or_updated_without_restart' | 'restarted' | 'stopped' | 'restart_failed';

/** What became of one file of an imported package (`files` in GET /api/packages/:id). */
export interface FileOutcome {
  path: string;
  /** The asset type its name says; null for a file this server does not know. */
  type: string | null;
  result: 'imported' | 'kept' | 'skipped' | 'failed';
  /** Imported files, where known: the asset was created, updated, or already as the file says. */
  change?: 'created' | 'updated' | 'unchanged';
  reason?: string;
}

export interface PackageApi {
  id: number;
  operation_type: 'export' | 'import';
  status: PackageStatus;
  export_manifest_id?: number | null;
  download_url: string | null;
  error?: string;
  error_parts?: string[];
  recipe_status?: Array<{ id: number; import_result: ImportResult }>;
  warnings?: string[];
  files?: FileOutcome[];
}

/** Bytes per stored chunk of a zip. */
export const CHUNK_BYTES = 1024 * 1024;

export function packageToApi(row: PackageRow, publicBaseUrl: string): PackageApi {
  const out: PackageApi = {
    id: row.id,
    operation_type: row.operation_type,
    status: row.status,
    download_url:
      row.operation_type === 'export' && row.status === 'completed' && row.content_size !== null
        ? `${publicBaseUrl.replace(/\/+$/, '')}/api/packages/${row.id}/download`
        : null,
  };
  if (row.operation_type === 'export') out.export_manifest_id = row.export_manifest_id;
  if (row.status === 'failed') {
    out.error = row.error ?? 'The package failed';
    if (row.error_parts !== null) out.error_parts = JSON.parse(row.error_parts) as string[];
  }
  if (row.operation_type === 'import') {
    out.recipe_status =
      row.recipe_status === null ? [] : (JSON.parse(row.recipe_status) as PackageApi['recipe_status']);
    const applied = (JSON.parse(row.options) as { applied?: { warnings?: string[]; files?: FileOutcome[] } }).applied;
    out.warnings = applied?.warnings ?? [];
    out.files = applied?.files ?? [];
  }
  return out;
}

export async function insertPackage(db: Db, values: Omit<PackageRow, 'id' | 'attempts'>): Promise<number> {
  const row = await db.insertInto('packages').values(values).returning('id').executeTakeFirstOrThrow();
  return Number(row.id);
}

export async function findPackage(db: Db, environmentId: number, id: number): Promise<PackageRow | undefined> {
  return db
    .selectFrom('packages')
    .selectAll()
    .where('id', '=', id)
    .where('environment_id', '=', environmentId)
    .executeTakeFirst();
}

export async function findPackageById(db: Db, id: number): Promise<PackageRow | undefined> {
  return db.selectFrom('packages').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Packages whose work has not finished (after a restart: the ones to take up again), oldest first. */
export async function pendingPackageIds(db: Db): Promise<number[]> {
  const rows = await db.selectFrom('packages').select('id').where('status', '=', 'in_progress').orderBy('id').execute();
  return rows.map((r) => Number(r.id));
}

/** Count one more start of the work; the count after it. */
export async function countAttempt(db: Db, id: number): Promise<number> {
  await db
    .updateTable('packages')
    .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
    .where('id', '=', id)
    .execute();
  const row = await db.selectFrom('packages').select('attempts').where('id', '=', id).executeTakeFirst();
  return row?.attempts ?? 0;
}

/** Forget a start of the work that a graceful stop cut short (it ran nothing to the end). */
export async function giveBackAttempt(db: Db, id: number): Promise<void> {
  await db
    .updateTable('packages')
    .set((eb) => ({ attempts: eb('attempts', '-', 1) }))
    .where('id', '=', id)
    .where('status', '=', 'in_progress')
    .where('attempts', '>', 0)
    .execute();
}

/**
 * End the work, only if it is still in progress. An import's uploaded zip has served its purpose
 * then: it goes in the same transaction, so no reader sees an ended import that still holds it.
 */
export async function finishPackage(
  db: Db,
  id: number,
  values: {
    status: 'completed' | 'failed';
    error?: string | null;
    error_parts?: string[] | null;
    recipe_status?: unknown;
    content_size?: number | null;
    now: string;
  },
): Promise<boolean> {
  if (!db.isTransaction) return db.transaction().execute((trx) => finishPackage(trx, id, values));
  const finished = await db
    .updateTable('packages')
    .set({
      status: values.status,
      error: values.error ?? null,
      error_parts: values.error_parts ? JSON.stringify(values.error_parts) : null,
      ...(values.recipe_status !== undefined ? { recipe_status: JSON.stringify(values.recipe_status) } : {}),
      ...(values.content_size !== undefined ? { content_size: values.content_size } : {}),
      updated_at: values.now,
      completed_at: values.now,
    })
    .where('id', '=', id)
    .where('status', '=', 'in_progress')
    .returning('operation_type')
    .executeTakeFirst();
  if (finished?.operation_type === 'import') await deleteChunks(db, id);
  return finished !== undefined;
}

export async function insertChunk(db: Db, packageId: number, seq: number, data: Uint8Array): Promise<void> {
  await db.insertInto('package_chunks').values({ package_id: packageId, seq, data }).execute();
}

export async function deleteChunks(db: Db, packageId: number): Promise<void> {
  await db.deleteFrom('package_chunks').where('package_id', '=', packageId).execute();
}

export async function readChunk(db: Db, packageId: number, seq: number): Promise<Uint8Array | undefined> {
  const row = await db
    .selectFrom('package_chunks')
    .select('data')
    .where('package_id', '=', packageId)
    .where('seq', '=', seq)
    .executeTakeFirst();
  return row?.data;
}

export async function countChunks(db: Db, packageId: number): Promise<number> {
  const row = await db
    .selectFrom('package_chunks')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('package_id', '=', packageId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}
