// Messages of event topics. Rows are keyed by (topic_id, seq); seq comes from the topic row
// (advanceTopic), so it is allocated under the topic's row lock and commits in order.
import { CompiledQuery, sql } from 'kysely';
import type { Db, EventMessageRow } from '../../db/types.ts';
import { insertFromColumnArrays } from '../../db/dialect.ts';

/** Statement sizes for multi-row inserts: a few distinct statements, each compiled once. */
const INSERT_CHUNKS = [256, 64, 16, 4, 1];
const MESSAGE_COLUMNS = ['topic_id', 'seq', 'published_at', 'payload'] as const;
const MESSAGE_COLUMN_TYPES = [
  { name: 'topic_id', type: 'bigint' },
  { name: 'seq', type: 'bigint' },
  { name: 'published_at', type: 'text' },
  { name: 'payload', type: 'text' },
] as const;

/**
 * Reserve `count` sequence numbers on a live topic and move its last publish time forward
 * (never back, so ids sort by time too). On PostgreSQL the UPDATE holds the row lock until the
 * transaction ends: the next publisher to the topic waits, so numbers commit in their order.
 */
export async function advanceTopic(
  db: Db,
  topicId: number,
  count: number,
  now: string,
): Promise<{ lastSeq: number; publishedAt: string } | undefined> {
  const row = await db
    .updateTable('event_topics')
    .set({
      last_seq: sql`last_seq + ${count}`,
      last_message_at: sql`case when last_message_at is null or last_message_at < ${now} then ${now} else last_message_at end`,
    })
    .where('id', '=', topicId)
    .where('deleted_at', 'is', null)
    .returning(['last_seq', 'last_message_at'])
    .executeTakeFirst();
  if (!row) return undefined;
  return { lastSeq: Number(row.last_seq), publishedAt: row.last_message_at as string };
}

/**
 * Only where the database takes writes in a WITH clause (PostgreSQL, `writesInWithClause`):
 * reserve the sequence numbers on a live topic and insert its messages in ONE statement, outside
 * any transaction (the statement is its own: one round trip and one commit for the lot);
 * undefined when the topic no longer exists (nothing is inserted). Elsewhere the caller reserves
 * (advanceTopic) and inserts in its transaction.
 */
export async function publishInOneStatement(
  db: Db,
  topicId: number,
  payloads: readonly string[],
  now: string,
): Promise<{ lastSeq: number; publishedAt: string } | undefined> {
  const { rows } = await sql<{ last_seq: number | string; last_message_at: string }>`with advanced as (
      update event_topics set last_seq = last_seq + ${payloads.length},
        last_message_at = case when last_message_at is null or last_message_at < ${now} then ${now} else last_message_at end
      where id = ${topicId} and deleted_at is null
      returning last_seq, last_message_at
    ), added as (
      insert into event_messages (topic_id, seq, published_at, payload)
      select ${topicId}::bigint, a.last_seq - ${payloads.length}::bigint + m.n, a.last_message_at, m.payload
      from advanced a, json_array_elements_text(${JSON.stringify(payloads)}::json) with ordinality as m(payload, n)
    )
    select last_seq, last_message_at from advanced`.execute(db);
  const row = rows[0];
  return row ? { lastSeq: Number(row.last_seq), publishedAt: row.last_message_at } : undefined;
}

/**
 * Inserts messages in multi-row statements. Building and compiling a 256-row insert costs about
 * as much as running it, so each statement size is compiled once (by Kysely, for the database
 * that runs) and then run with new parameters. One writer per publisher (per app).
 */
export function createMessageWriter() {
  const compiled = new Map<number, string>();
  return async function insertMessages(db: Db, rows: readonly EventMessageRow[]): Promise<void> {
    // PostgreSQL: every row in one statement, each column bound as one array.
    const oneStatement =
      rows.length === 0
        ? undefined
        : insertFromColumnArrays(
            db,
            'event_messages',
            MESSAGE_COLUMN_TYPES,
            MESSAGE_COLUMNS.map((column) => rows.map((row) => row[column])),
          );
    if (oneStatement) {
      await db.executeQuery(oneStatement);
      return;
    }
    let at = 0;
    for (const size of INSERT_CHUNKS) {
      while (rows.length - at >= size) {
        const chunk = rows.slice(at, at + size);
        const parameters: unknown[] = [];
        for (const row of chunk) for (const column of MESSAGE_COLUMNS) parameters.push(row[column]);
        let text = compiled.get(size);
        if (text === undefined) {
          const query = db
            .insertInto('event_messages')
            .values(
              chunk.map((row) => ({
                topic_id: row.topic_id,
                seq: row.seq,
                published_at: row.published_at,
                payload: row.payload,
              })),
            )
            .compile();
          if (query.parameters.length !== parameters.length) throw new Error('unexpected insert statement shape');
          text = query.sql;
          compiled.set(size, text);
        }
        await db.executeQuery(CompiledQuery.raw(text, parameters));
        at += size;
      }
    }
  };
}

export type MessageWriter = ReturnType<typeof createMessageWriter>;

/** The stored publish time of one message, if it is still there. */
export async function findMessageTime(db: Db, topicId: number, seq: number): Promise<string | undefined> {
  const row = await db
    .selectFrom('event_messages')
    .select('published_at')
    .where('topic_id', '=', topicId)
    .where('seq', '=', seq)
    .executeTakeFirst();
  return row?.published_at;
}

/** The last sequence number handed out in a topic. */
export async function lastSeqOf(db: Db, topicId: number): Promise<number | undefined> {
  const row = await db.selectFrom('event_topics').select('last_seq').where('id', '=', topicId).executeTakeFirst();
  return row ? Number(row.last_seq) : undefined;
}

/** The first message published at or after a time (through the time index, no scan). */
export async function firstSeqAtOrAfter(db: Db, topicId: number, time: string): Promise<number | undefined> {
  const row = await db
    .selectFrom('event_messages')
    .select('seq')
    .where('topic_id', '=', topicId)
    .where('published_at', '>=', time)
    .orderBy('published_at')
    .orderBy('seq')
    .limit(1)
    .executeTakeFirst();
  return row ? Number(row.seq) : undefined;
}

/** Up to `limit` messages after a sequence number, oldest first, none older than `notBefore`. */
export async function readMessages(
  db: Db,
  topicId: number,
  afterSeq: number,
  notBefore: string,
  limit: number,
): Promise<EventMessageRow[]> {
  return db
    .selectFrom('event_messages')
    .selectAll()
    .where('topic_id', '=', topicId)
    .where('seq', '>', afterSeq)
    .where('published_at', '>=', notBefore)
    .orderBy('seq')
    .limit(limit)
    .execute();
}

export interface SweepTopic {
  id: number;
  retention_seconds: number;
  purged_seq: number;
  deleted_at: string | null;
}

export async function topicsToSweep(db: Db): Promise<SweepTopic[]> {
  const rows = await db
    .selectFrom('event_topics')
    .select(['id', 'retention_seconds', 'purged_seq', 'deleted_at'])
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ ...r, purged_seq: Number(r.purged_seq) }));
}

/**
 * Delete at most `limit` of a topic's oldest messages that are purged or published before
 * `cutoff`. Both sets are a prefix of the topic (times never go back), so the candidates are the
 * first `limit` rows by sequence and the condition keeps the ones to go.
 */
export async function deleteOldestMessages(
  db: Db,
  topicId: number,
  limit: number,
  gone: { purgedSeq: number; cutoff: string } | 'all',
): Promise<number> {
  const first = db
    .selectFrom('event_messages')
    .select('seq')
    .where('topic_id', '=', topicId)
    .orderBy('seq')
    .limit(limit);
  let query = db.deleteFrom('event_messages').where('topic_id', '=', topicId).where('seq', 'in', first);
  if (gone !== 'all')
    query = query.where((eb) => eb.or([eb('seq', '<=', gone.purgedSeq), eb('published_at', '<', gone.cutoff)]));
  const result = await query.executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** A deleted topic whose messages are all gone. */
export async function deleteTopicRow(db: Db, topicId: number): Promise<void> {
  await db.deleteFrom('event_topics').where('id', '=', topicId).where('deleted_at', 'is not', null).execute();
}

/** The newest messages still retained, newest first (the web console's topic page). */
export async function latestMessages(
  db: Db,
  topicId: number,
  afterSeq: number,
  notBefore: string,
  limit: number,
): Promise<EventMessageRow[]> {
  return db
    .selectFrom('event_messages')
    .selectAll()
    .where('topic_id', '=', topicId)
    .where('seq', '>', afterSeq)
    .where('published_at', '>=', notBefore)
    .orderBy('seq', 'desc')
    .limit(limit)
    .execute();
}
