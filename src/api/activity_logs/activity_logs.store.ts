// The activity log's rows: one insert per change (names of the owner and the client copied in
// the same statement), the list the API reads, and the retention deletes.
import { sql } from 'kysely';
import type { ActivityLogRow, ActivityVia, Db } from '../../db/types.ts';
import { toApiTimestamp } from '../../time.ts';

export interface NewActivity {
  workspaceId: number;
  environmentId: number;
  clientId: number | null;
  via: ActivityVia;
  ip: string | null;
  userAgent: string | null;
  requestId: string | null;
  occurredAt: string;
  eventType: string;
  resourceType: string;
  resourceId: string | null;
  resourceName: string | null;
  details: string;
}

/**
 * One entry. The owner (on whose behalf every client acts) and the client's name are read by the
 * statement itself, so the entry costs one round trip inside the caller's transaction.
 */
export async function insertActivity(db: Db, entry: NewActivity): Promise<void> {
  const owner = sql`(select u.id from users u where u.workspace_id = ${entry.workspaceId} and u.role = 'owner' order by u.id limit 1)`;
  const ownerField = (field: 'name' | 'email') =>
    sql<string>`coalesce((select ${sql.ref(`u.${field}`)} from users u where u.workspace_id = ${entry.workspaceId} and u.role = 'owner' order by u.id limit 1), '')`;
  const clientName =
    entry.clientId === null
      ? sql<string>`''`
      : sql<string>`coalesce((select c.name from developer_api_clients c where c.id = ${entry.clientId}), '')`;
  await db
    .insertInto('activity_logs')
    .values({
      workspace_id: entry.workspaceId,
      environment_id: entry.environmentId,
      occurred_at: entry.occurredAt,
      event_type: entry.eventType,
      resource_type: entry.resourceType,
      resource_id: entry.resourceId,
      resource_name: entry.resourceName,
      user_id: sql<number | null>`${owner}`,
      user_name: ownerField('name'),
      user_email: ownerField('email'),
      client_id: entry.clientId,
      client_name: clientName,
      via: entry.via,
      ip: entry.ip,
      user_agent: entry.userAgent,
      request_id: entry.requestId,
      details: entry.details,
    })
    .execute();
}

export interface ActivityFilters {
  from?: string;
  to?: string;
  eventTypes?: readonly string[];
  resourceTypes?: readonly string[];
}

/** An environment's entries, newest first (by id: the order they were written in). */
export async function listActivity(
  db: Db,
  environmentId: number,
  filters: ActivityFilters,
  page: { offset: number; perPage: number },
): Promise<ActivityLogRow[]> {
  let query = db.selectFrom('activity_logs').selectAll().where('environment_id', '=', environmentId);
  if (filters.from !== undefined) query = query.where('occurred_at', '>=', filters.from);
  if (filters.to !== undefined) query = query.where('occurred_at', '<=', filters.to);
  if (filters.eventTypes !== undefined && filters.eventTypes.length > 0)
    query = query.where('event_type', 'in', filters.eventTypes);
  if (filters.resourceTypes !== undefined && filters.resourceTypes.length > 0)
    query = query.where('resource_type', 'in', filters.resourceTypes);
  return query.orderBy('id', 'desc').limit(page.perPage).offset(page.offset).execute();
}

/** The newest entry of a workspace (the members list shows it as the owner's last activity). */
export async function latestActivityOfWorkspace(
  db: Db,
  workspaceId: number,
): Promise<Pick<ActivityLogRow, 'id' | 'event_type' | 'occurred_at'> | undefined> {
  return db
    .selectFrom('activity_logs')
    .select(['id', 'event_type', 'occurred_at'])
    .where('workspace_id', '=', workspaceId)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** Entries written before `cutoff`, oldest first, at most `limit`. */
export async function expiredActivityIds(db: Db, cutoff: string, limit: number): Promise<number[]> {
  const rows = await db
    .selectFrom('activity_logs')
    .select('id')
    .where('occurred_at', '<', cutoff)
    .orderBy('occurred_at')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

export async function deleteActivityByIds(db: Db, ids: readonly number[]): Promise<number> {
  if (ids.length === 0) return 0;
  const result = await db.deleteFrom('activity_logs').where('id', 'in', ids).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export interface ActivityLogApi {
  id: number;
  event_type: string;
  timestamp: string;
  user: { id: number; name: string; email: string };
  resource_type: string;
  resource_id: string | null;
  resource_name: string | null;
  details: Record<string, unknown>;
}

export function activityToApi(row: ActivityLogRow): ActivityLogApi {
  let details: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(row.details);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed))
      details = parsed as Record<string, unknown>;
  } catch {
    // An unreadable details column shows as {}: the entry itself still counts.
  }
  return {
    id: row.id,
    event_type: row.event_type,
    timestamp: toApiTimestamp(row.occurred_at),
    user: { id: row.user_id ?? 0, name: row.user_name, email: row.user_email },
    resource_type: row.resource_type,
    resource_id: row.resource_id,
    resource_name: row.resource_name,
    details: {
      ...details,
      client: { id: row.client_id, name: row.client_name },
      via: row.via,
      ip: row.ip,
      user_agent: row.user_agent,
      request_id: row.request_id,
    },
  };
}
