// Publishing and consuming (contract 13 §3-5). Messages are checked against the topic schema
// before they queue for the group commit (publisher.ts); consumers read after a cursor and, with
// nothing to read, wait for a commit (consumer-waits.ts) instead of asking the database again.
import { MAX_EVENT_DEPTH, nestedDeeperThan } from '../../recipe/formula/values.ts';
import type { ServiceContext } from '../../context.ts';
import { AppError, type FieldErrors } from '../../errors.ts';
import { toApiTimestamp, toStored } from '../../time.ts';
import { describeErrors } from '../event_streams/topic-schema.ts';
import type { ConsumerWaits } from './consumer-waits.ts';
import { formatMessageId, parseMessageId } from './message-id.ts';
import type { Publisher } from './publisher.ts';
import type { TopicCache, TopicState } from './topic-cache.ts';
import { findMessageTime, firstSeqAtOrAfter, lastSeqOf, latestMessages, readMessages } from './topics.store.ts';

export interface EventStreamsRuntime {
  topics: TopicCache;
  publisher: Publisher;
  waits: ConsumerWaits;
}

export const CONSUME_LIMITS = {
  batchSize: { min: 1, max: 50, default: 50 },
  timeoutSecs: { min: 0, max: 60, default: 0 },
};
export const MAX_BATCH_MESSAGES = 100;

export async function publishMessage(
  runtime: EventStreamsRuntime,
  topic: TopicState,
  body: unknown,
): Promise<{ message_id: string }> {
  const checked = checkPayload(topic, body);
  if ('tooDeep' in checked)
    throw new AppError('payload_too_deep', {
      errors: { payload: [`is nested more than ${MAX_EVENT_DEPTH} levels deep`] },
    });
  if ('errors' in checked)
    throw checked.errors === null
      ? new AppError('payload_not_object')
      : new AppError('payload_schema_mismatch', { errors: checked.errors });
  const published = await runtime.publisher.publish(topic.id, [checked.text]);
  if (!published) throw new AppError('topic_not_found');
  return { message_id: formatMessageId(Date.parse(published.publishedAt), published.firstSeq) };
}

/** The newest retained messages of a topic, newest first, with their ids (the web console shows them). */
export async function recentMessages(
  ctx: ServiceContext,
  topic: TopicState,
  limit: number,
): Promise<Array<{ message_id: string; time: string; payload: string }>> {
  const rows = await latestMessages(ctx.db, topic.id, topic.purgedSeq, cutoffOf(ctx, topic), limit);
  return rows.map((row) => ({
    message_id: formatMessageId(Date.parse(row.published_at), row.seq),
    time: row.published_at,
    payload: row.payload,
  }));
}

export interface BatchResult {
  is_partial_error: boolean;
  message_ids: Record<string, { message_id: string } | { error: string }>;
}

/** Each item on its own (13 §5): valid ones are stored in array order, invalid ones answered with their error. */
export async function publishBatch(
  runtime: EventStreamsRuntime,
  topic: TopicState,
  payloads: readonly unknown[],
): Promise<BatchResult> {
  const results: BatchResult['message_ids'] = {};
  const valid: Array<{ index: number; text: string }> = [];
  payloads.forEach((payload, index) => {
    const checked = checkPayload(topic, payload);
    if ('tooDeep' in checked) {
      results[String(index)] = { error: `Payload is nested more than ${MAX_EVENT_DEPTH} levels deep` };
    } else if ('errors' in checked) {
      results[String(index)] = {
        error:
          checked.errors === null
            ? 'Payload must be a JSON object'
            : `Payload does not match topic schema: ${describeErrors(checked.errors)}`,
      };
    } else valid.push({ index, text: checked.text });
  });
  if (valid.length > 0) {
    const published = await runtime.publisher.publish(
      topic.id,
      valid.map((v) => v.text),
    );
    if (!published) throw new AppError('topic_not_found');
    const time = Date.parse(published.publishedAt);
    valid.forEach((v, i) => {
      results[String(v.index)] = { message_id: formatMessageId(time, published.firstSeq + i) };
    });
  }
  // Keys in index order, as a reader of the map expects.
  const ordered: BatchResult['message_ids'] = {};
  for (let i = 0; i < payloads.length; i++)
    ordered[String(i)] = results[String(i)] as BatchResult['message_ids'][string];
  return { is_partial_error: valid.length < payloads.length, message_ids: ordered };
}

export interface ConsumeInput {
  after_message_id?: string | null;
  since_time?: string | null;
  batch_size?: number;
  timeout_secs?: number;
}

export interface ConsumeControl {
  /** True once the caller has gone (its connection closed): stop waiting. */
  closed(): boolean;
  /** Called with the wait, so that a closed connection can cancel it. */
  onWait(cancel: () => void): void;
}

/** The reply body as JSON text: stored payloads are JSON already and go out without a parse. */
export async function consumeMessages(
  ctx: ServiceContext,
  runtime: EventStreamsRuntime,
  initial: TopicState,
  input: ConsumeInput,
  control: ConsumeControl,
): Promise<string> {
  const batchSize = input.batch_size ?? CONSUME_LIMITS.batchSize.default;
  const timeoutMs = (input.timeout_secs ?? CONSUME_LIMITS.timeoutSecs.default) * 1000;
  const deadline = Date.now() + timeoutMs;
  let topic = initial;
  const afterSeq = await startingPoint(ctx, topic, input);

  for (;;) {
    // Registered before the read: a commit between the read and the wait still wakes it.
    const wait = runtime.waits.register(topic.id, afterSeq);
    const rows = await readMessages(
      ctx.db,
      topic.id,
      Math.max(afterSeq, topic.purgedSeq),
      cutoffOf(ctx, topic),
      batchSize,
    );
    const remaining = deadline - Date.now();
    if (rows.length > 0 || remaining <= 0 || control.closed()) {
      wait.cancel();
      return messagesJson(rows);
    }
    control.onWait(() => wait.cancel('closed'));
    const reason = await wait.until(remaining);
    if (reason === 'closed' || reason === 'shutdown') return messagesJson([]);
    if (reason === 'changed') {
      // Renamed, re-schemed, purged or deleted while we waited: read the topic again.
      const current = await runtime.topics.get(topic.id);
      if (!current) throw new AppError('topic_not_found');
      topic = current;
    }
  }
}

/** The sequence number after which this consumer reads (13 §3: cursor, time, or the oldest retained). */
async function startingPoint(ctx: ServiceContext, topic: TopicState, input: ConsumeInput): Promise<number> {
  const cutoff = cutoffOf(ctx, topic);
  if (input.after_message_id !== undefined && input.after_message_id !== null) {
    const id = input.after_message_id;
    const parsed = parseMessageId(id);
    const stored =
      parsed && parsed.seq > topic.purgedSeq ? await findMessageTime(ctx.db, topic.id, parsed.seq) : undefined;
    if (!parsed || stored === undefined || Date.parse(stored) !== parsed.publishedAtMs || stored < cutoff) {
      throw new AppError('message_not_found', { params: { id } });
    }
    return parsed.seq;
  }
  let from = cutoff;
  if (input.since_time !== undefined && input.since_time !== null) {
    const since = parseSinceTime(input.since_time);
    // A time in the future means "from now" (13 §3); "after" a time with milliseconds is from the next one.
    const after = Math.min(since, ctx.clock.now().getTime());
    const next = toStored(new Date(Math.floor(after) + 1));
    if (next > from) from = next;
  }
  // Read the last number first: anything committed after it is news; anything before it is found by time.
  const lastSeq = (await lastSeqOf(ctx.db, topic.id)) ?? 0;
  const first = await firstSeqAtOrAfter(ctx.db, topic.id, from);
  return Math.max(first === undefined ? lastSeq : first - 1, topic.purgedSeq);
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

function parseSinceTime(value: string): number {
  const ms = RFC3339.test(value) ? Date.parse(value.replace(' ', 'T')) : Number.NaN;
  if (Number.isNaN(ms))
    throw new AppError('since_time_invalid', { errors: { since_time: ['must be an RFC 3339 date-time'] } });
  return ms;
}

function cutoffOf(ctx: ServiceContext, topic: TopicState): string {
  return toStored(new Date(ctx.clock.now().getTime() - topic.retentionSeconds * 1000));
}

function messagesJson(rows: ReadonlyArray<{ seq: number; published_at: string; payload: string }>): string {
  const items = rows.map(
    (r) =>
      `{"message_id":"${formatMessageId(Date.parse(r.published_at), Number(r.seq))}","payload":${r.payload},"time":"${toApiTimestamp(r.published_at)}"}`,
  );
  return `{"messages":[${items.join(',')}]}`;
}

/** The message as it will be stored, or why not (null: not a JSON object). */
function checkPayload(
  topic: TopicState,
  payload: unknown,
): { text: string } | { errors: FieldErrors | null } | { tooDeep: true } {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return { errors: null };
  // Before anything walks it: the schema check and serialising recurse, and a recipe's topic
  // trigger takes a message as an event, which may nest at most MAX_EVENT_DEPTH levels.
  if (nestedDeeperThan(payload, MAX_EVENT_DEPTH)) return { tooDeep: true };
  const verdict = topic.check(payload as Record<string, unknown>);
  if (!verdict.ok) return { errors: verdict.errors };
  return { text: JSON.stringify(payload) };
}
