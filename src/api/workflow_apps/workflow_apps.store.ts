// Workflow apps and the stages of their requests (migration 0067).
import type { Db, WorkflowAppRow } from '../../db/types.ts';
import { toApiTimestamp } from '../../time.ts';

export interface Stage {
  id: string;
  name: string;
}

export interface WorkflowAppApi {
  id: number;
  name: string;
  data_table_id: number;
  stages: Stage[];
  created_at: string;
  updated_at: string;
}

export function stagesOf(row: Pick<WorkflowAppRow, 'stages'>): Stage[] {
  return JSON.parse(row.stages) as Stage[];
}

export function appToApi(row: WorkflowAppRow): WorkflowAppApi {
  return {
    id: row.id,
    name: row.name,
    data_table_id: row.data_table_id,
    stages: stagesOf(row),
    created_at: toApiTimestamp(row.created_at),
    updated_at: toApiTimestamp(row.updated_at),
  };
}

export async function insertApp(db: Db, values: Omit<WorkflowAppRow, 'id'>): Promise<WorkflowAppRow> {
  return db.insertInto('workflow_apps').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function findApp(db: Db, environmentId: number, id: number): Promise<WorkflowAppRow | undefined> {
  return db
    .selectFrom('workflow_apps')
    .selectAll()
    .where('environment_id', '=', environmentId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function findAppByName(db: Db, environmentId: number, name: string): Promise<WorkflowAppRow | undefined> {
  return db
    .selectFrom('workflow_apps')
    .selectAll()
    .where('environment_id', '=', environmentId)
    .where('name_key', '=', name.trim().toLowerCase())
    .executeTakeFirst();
}

/** The apps whose requests are the records of a data table. */
export async function appsOfTable(db: Db, tableId: number): Promise<WorkflowAppRow[]> {
  return db.selectFrom('workflow_apps').selectAll().where('data_table_id', '=', tableId).orderBy('id').execute();
}

export async function listApps(
  db: Db,
  environmentId: number,
  page: { offset: number; limit: number },
): Promise<WorkflowAppRow[]> {
  return db
    .selectFrom('workflow_apps')
    .selectAll()
    .where('environment_id', '=', environmentId)
    .orderBy('id')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
}

export async function updateApp(
  db: Db,
  id: number,
  values: Partial<Pick<WorkflowAppRow, 'name' | 'name_key' | 'stages' | 'updated_at'>>,
): Promise<WorkflowAppRow> {
  return db.updateTable('workflow_apps').set(values).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

export async function deleteApp(db: Db, id: number): Promise<void> {
  await db.deleteFrom('workflow_apps').where('id', '=', id).execute();
}

/** The stage a request was moved to, or undefined (it is at the app's first stage). */
export async function requestStageId(db: Db, appId: number, recordId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('workflow_app_requests')
    .select('stage_id')
    .where('app_id', '=', appId)
    .where('record_id', '=', recordId)
    .executeTakeFirst();
  return row?.stage_id;
}

export async function setRequestStage(
  db: Db,
  appId: number,
  recordId: string,
  stageId: string,
  now: string,
): Promise<void> {
  await db
    .insertInto('workflow_app_requests')
    .values({ app_id: appId, record_id: recordId, stage_id: stageId, updated_at: now })
    .onConflict((oc) => oc.columns(['app_id', 'record_id']).doUpdateSet({ stage_id: stageId, updated_at: now }))
    .execute();
}

/** Stages that no longer exist are read as the first: requests at them move there. */
export async function deleteRequestsAtStages(db: Db, appId: number, keep: readonly string[]): Promise<void> {
  let q = db.deleteFrom('workflow_app_requests').where('app_id', '=', appId);
  if (keep.length > 0) q = q.where('stage_id', 'not in', keep);
  await q.execute();
}
