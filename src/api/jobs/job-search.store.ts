// A recipe's jobs searched by title for the console's job list: each search reads a bounded window
// of the recipe's jobs (newest first from a cursor, along the index (recipe_id, started_at, id)),
// so its cost does not grow with the recipe's history; the next window goes on from its edge.
import { sql } from 'kysely';
import type { Db, JobRow } from '../../db/types.ts';
import { statesFor, type ApiJobStatus } from './jobs.store.ts';

export interface TitleSearch {
  /** Words the title holds (case-insensitive, `%` and `_` taken literally). */
  text: string;
  status?: ApiJobStatus | undefined;
  testJobs: 'exclude' | 'only';
}

type Cursor = Pick<JobRow, 'started_at' | 'id'>;

/** The window's oldest job (the `window`th from `from`): read from the index alone. */
export function windowEdgeQuery(db: Db, recipeId: number, from: Cursor | null, window: number) {
  let q = db
    .selectFrom('jobs')
    .select(['started_at', 'id'])
    .where('recipe_id', '=', recipeId)
    .orderBy('started_at', 'desc')
    .orderBy('id', 'desc');
  if (from) q = q.where((eb) => eb(eb.refTuple('started_at', 'id'), '<', eb.tuple(from.started_at, from.id)));
  return q.offset(window - 1).limit(1);
}

/** The jobs of the window (`from` down to `edge`) whose title holds the text, newest first. */
export function titleMatchQuery(
  db: Db,
  recipeId: number,
  search: TitleSearch,
  from: Cursor | null,
  edge: Cursor | null,
  limit: number,
) {
  const pattern = `%${search.text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  let q = db
    .selectFrom('jobs')
    .selectAll()
    .where('recipe_id', '=', recipeId)
    .where('is_test', '=', search.testJobs === 'only' ? 1 : 0)
    .where(sql<boolean>`lower(title) like ${pattern} escape '\\'`);
  if (search.status) q = q.where('status', 'in', statesFor(search.status));
  if (from) q = q.where((eb) => eb(eb.refTuple('started_at', 'id'), '<', eb.tuple(from.started_at, from.id)));
  if (edge) q = q.where((eb) => eb(eb.refTuple('started_at', 'id'), '>=', eb.tuple(edge.started_at, edge.id)));
  return q.orderBy('started_at', 'desc').orderBy('id', 'desc').limit(limit);
}

/**
 * Up to `limit` jobs whose title holds the text, newest first, among the `window` jobs of the recipe
 * started before `from` (or the newest ones). `edge` is the oldest job of the window when older jobs
 * were left unsearched: the next window starts after it.
 */
export async function searchJobTitles(
  db: Db,
  recipeId: number,
  search: TitleSearch,
  from: Cursor | null,
  limit: number,
  window: number,
): Promise<{ rows: JobRow[]; edge: (Cursor & { handle: string }) | null }> {
  const edge = (await windowEdgeQuery(db, recipeId, from, window).executeTakeFirst()) ?? null;
  const rows = await titleMatchQuery(db, recipeId, search, from, edge, limit).execute();
  if (!edge) return { rows, edge: null };
  const handle = await db.selectFrom('jobs').select('handle').where('id', '=', edge.id).executeTakeFirstOrThrow();
  return { rows, edge: { ...edge, handle: handle.handle } };
}
