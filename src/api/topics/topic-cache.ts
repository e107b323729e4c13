// What the run-time API needs of a topic (environment, folder, retention, purge mark and the
// compiled message check), kept in memory: a publish needs no topic read and compiles no schema.
// An entry is dropped the moment the topic changes (event_topic.changed on the notifier).
import type { ServiceContext } from '../../context.ts';
import type { EventTopicRow } from '../../db/types.ts';
import { findTopicById } from '../event_streams/event_streams.store.ts';
import { compileMessageCheck, type MessageCheck, type SchemaField } from '../event_streams/topic-schema.ts';

export interface TopicState {
  id: number;
  environmentId: number;
  folderId: number;
  retentionSeconds: number;
  /** Messages up to this sequence number were purged. */
  purgedSeq: number;
  check: MessageCheck;
}

const MAX_ENTRIES = 10_000;

export function createTopicCache(ctx: Pick<ServiceContext, 'db' | 'notifier'>) {
  const states = new Map<number, TopicState>();
  // Bumped by every change, so a read that raced with a change is not cached stale.
  let version = 0;
  ctx.notifier.subscribe('event_topic.changed', ({ topicId }) => {
    version += 1;
    states.delete(topicId);
  });
  ctx.notifier.subscribe('everything.changed', () => {
    version += 1;
    states.clear();
  });

  return {
    /** The live topic, or undefined (unknown or deleted ids are not remembered). */
    async get(id: number): Promise<TopicState | undefined> {
      const cached = states.get(id);
      if (cached) return cached;
      const seen = version;
      const row = await findTopicById(ctx.db, id);
      if (!row) return undefined;
      const state = toState(row);
      if (seen === version) {
        if (states.size >= MAX_ENTRIES) states.delete(states.keys().next().value as number);
        states.set(id, state);
      }
      return state;
    },
  };
}

export type TopicCache = ReturnType<typeof createTopicCache>;

function toState(row: EventTopicRow): TopicState {
  return {
    id: row.id,
    environmentId: row.environment_id,
    folderId: row.folder_id,
    retentionSeconds: row.retention_seconds,
    purgedSeq: Number(row.purged_seq),
    check: compileMessageCheck(row.schema === null ? null : (JSON.parse(row.schema) as SchemaField[])),
  };
}
