// Environment properties (project_id null) and project properties, one table.
import { sql } from 'kysely';
import type { Db, PropertyRow } from '../../db/types.ts';
import { inByteOrder } from '../../db/dialect.ts';

export interface PropertyLevel {
  workspaceId: number;
  environmentId: number;
  /** null: the environment level. */
  projectId: number | null;
}

export async function listProperties(db: Db, level: PropertyLevel): Promise<Pick<PropertyRow, 'name' | 'value'>[]> {
  let query = db.selectFrom('properties').select(['name', 'value']).where('environment_id', '=', level.environmentId);
  query =
    level.projectId === null ? query.where('project_id', 'is', null) : query.where('project_id', '=', level.projectId);
  return query.orderBy(inByteOrder(db, 'name')).execute();
}

export async function countProperties(db: Db, level: PropertyLevel): Promise<number> {
  let query = db
    .selectFrom('properties')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('environment_id', '=', level.environmentId);
  query =
    level.projectId === null ? query.where('project_id', 'is', null) : query.where('project_id', '=', level.projectId);
  const row = await query.executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Insert or overwrite by name, in batches (one statement each); names not given are untouched.
 * With 'keep' (package imports), a value the target holds is never overwritten: only an empty one is filled.
 */
export async function upsertProperties(
  db: Db,
  level: PropertyLevel,
  entries: readonly (readonly [string, string])[],
  now: string,
  onExisting: 'replace' | 'keep' = 'replace',
): Promise<void> {
  const BATCH = 200;
  for (let i = 0; i < entries.length; i += BATCH) {
    const rows = entries.slice(i, i + BATCH).map(([name, value]) => ({
      workspace_id: level.workspaceId,
      environment_id: level.environmentId,
      project_id: level.projectId,
      name,
      value,
      created_at: now,
      updated_at: now,
    }));
    await db
      .insertInto('properties')
      .values(rows)
      .onConflict((oc) => {
        // The conflict target must name the partial unique index of the level, predicate included.
        const target =
          level.projectId === null
            ? oc.columns(['environment_id', 'name']).where('project_id', 'is', null)
            : oc.columns(['project_id', 'name']).where('project_id', 'is not', null);
        // 'keep': a value the target holds stays; an empty one takes the value given, if any.
        if (onExisting === 'keep')
          return target
            .doUpdateSet((eb) => ({ value: eb.ref('excluded.value'), updated_at: eb.ref('excluded.updated_at') }))
            .where(sql<boolean>`properties.value = '' and excluded.value <> ''`);
        return target.doUpdateSet((eb) => ({
          value: eb.ref('excluded.value'),
          updated_at: eb.ref('excluded.updated_at'),
        }));
      })
      .execute();
  }
}
