// Package retention's statements (retention.ts): each works on a bounded batch.
import type { Db } from '../../db/types.ts';

/** Up to `limit` ended exports and imports older than `cutoff` that still hold a zip; builds' zips are kept. */
export async function expiredExportIds(db: Db, cutoff: string, limit: number): Promise<number[]> {
  const rows = await db
    .selectFrom('packages')
    .select('id')
    .where('status', 'in', ['completed', 'failed'])
    .where('completed_at', '<', cutoff)
    .where('content_size', 'is not', null)
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('project_builds')
            .select('project_builds.id')
            .whereRef('project_builds.package_id', '=', 'packages.id'),
        ),
      ),
    )
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

/** Delete these packages' zips; the rows stay. */
export async function dropPackageContents(db: Db, ids: readonly number[]): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('package_chunks').where('package_id', 'in', ids).execute();
    await trx.updateTable('packages').set({ content_size: null }).where('id', 'in', ids).execute();
  });
}

/** Up to `limit` completed test run requests last updated before `cutoff`. */
export async function expiredRunRequestIds(db: Db, cutoff: string, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('test_run_requests')
    .select('id')
    .where('status', '=', 'completed')
    .where('updated_at', '<', cutoff)
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

export async function deleteRunRequests(db: Db, ids: readonly string[]): Promise<void> {
  await db.deleteFrom('test_run_requests').where('id', 'in', ids).execute();
}
