// Recording a change in the activity log. Who: the caller (a developer API client, through the API
// or a console session opened with its token), acting for the workspace's owner. A service that
// makes a change in a transaction records it in that transaction (recordActivity with its trx), so
// an entry exists exactly when the change does; src/http/activity.ts records the other changes of
// the management API once they are made, before their reply leaves.
import type { ActivityVia, Db } from '../../db/types.ts';
import type { Clock } from '../../time.ts';
import { toStored } from '../../time.ts';
import { insertActivity } from './activity_logs.store.ts';

/** Who made a change, and from where. */
export interface Actor {
  readonly workspaceId: number;
  readonly environmentId: number;
  /** The developer API client whose token made the call (or opened the console session). */
  readonly clientId: number | null;
  readonly via: ActivityVia;
  readonly ip: string | null;
  readonly userAgent: string | null;
  readonly requestId: string | null;
}

/** What changed. */
export interface ActivityChange {
  /** `<resource>_<what happened>`, e.g. `tag_created` (the vendor's naming). */
  eventType: string;
  resourceType: string;
  resourceId?: string | number | null;
  resourceName?: string | null;
  /** Facts about the change; never a credential, a secret or a request body. */
  details?: Record<string, unknown>;
}

const MAX_TEXT = 255;

/** Write one entry with `db` (the transaction of the change where there is one). */
export async function recordActivity(db: Db, clock: Clock, actor: Actor, change: ActivityChange): Promise<void> {
  await insertActivity(db, {
    workspaceId: actor.workspaceId,
    environmentId: actor.environmentId,
    clientId: actor.clientId,
    via: actor.via,
    ip: clip(actor.ip, 64),
    userAgent: clip(actor.userAgent, MAX_TEXT),
    requestId: clip(actor.requestId, 100),
    occurredAt: toStored(clock.now()),
    eventType: change.eventType,
    resourceType: change.resourceType,
    resourceId:
      change.resourceId === undefined || change.resourceId === null ? null : clip(String(change.resourceId), 100),
    resourceName: clip(change.resourceName ?? null, MAX_TEXT),
    details: JSON.stringify(change.details ?? {}),
  });
}

/** More work for a service to do in the transaction of its change: recording it. */
export type InTransaction = (trx: Db) => Promise<void>;

export function recorderOf(
  clock: Clock,
  actor: Actor,
  change: ActivityChange | ((trx: Db) => Promise<ActivityChange>),
): InTransaction {
  return async (trx) => recordActivity(trx, clock, actor, typeof change === 'function' ? await change(trx) : change);
}

function clip(value: string | null, max: number): string | null {
  if (value === null) return null;
  return value.length > max ? value.slice(0, max) : value;
}
