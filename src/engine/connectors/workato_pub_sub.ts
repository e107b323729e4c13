// workato_pub_sub: event topics in recipes (20 §10.6, 13). The trigger `subscribe_to_topic` turns
// every new message of a topic into one job, in order; `batch_subscribe_to_topic` turns each run of
// up to `batch_size` messages (1 to 100) available at once into one job with their list; `publish_to_topic` and
// `publish_to_topic_batch` publish through the same service as the HTTP API (schema check,
// ordering, group commit).
//
// The trigger's cursor (the last message turned into a job) lives in the recipe row's
// `trigger_closure` and moves in the same transaction that stores the jobs, guarded by its old
// value: a message is never skipped nor stored twice, across stops and restarts. A subscription
// wakes on `event_topic.published` (no polling) and reads `seq > cursor`, which the publisher
// makes safe (numbers are handed out in commit order, src/api/topics/README.md).
import type { Transaction } from 'kysely';
import type { ServiceContext } from '../../context.ts';
import type { Database, Db, RecipeRow } from '../../db/types.ts';
import { AppError } from '../../errors.ts';
import { toApiTimestamp, toStored } from '../../time.ts';
import { nameKey, findLiveTopicId, findTopicById } from '../../api/event_streams/event_streams.store.ts';
import {
  findTriggerClosure,
  moveRunningTriggerClosure,
  replaceTriggerClosure,
} from '../../api/recipes/recipes.store.ts';
import { formatMessageId } from '../../api/topics/message-id.ts';
import {
  MAX_BATCH_MESSAGES,
  publishBatch,
  publishMessage,
  type EventStreamsRuntime,
} from '../../api/topics/topics.service.ts';
import { firstSeqAtOrAfter, readMessages } from '../../api/topics/topics.store.ts';
import type { GroupCommit } from '../../db/group-commit.ts';
import {
  fromPlain,
  hashGet,
  isHash,
  newHash,
  toPlain,
  toRubyString,
  type Hash,
  type Value,
} from '../../recipe/formula/values.ts';
import { StepError, type Connector, type StepContext } from './types.ts';

/** Largest message a recipe may publish (13 §8, D-conn: 512 KB through the connector). */
export const MAX_CONNECTOR_MESSAGE_BYTES = 512 * 1024;
/** Messages turned into jobs per transaction. */
const JOBS_PER_COMMIT = 100;

type Problem = [string, unknown, string, string];

/** Where a new subscription starts (20 §11 "when first started..."). */
export type StartingPoint = { kind: 'now' } | { kind: 'beginning' } | { kind: 'time'; at: number };

function text(input: Hash, key: string): string | null {
  const v = hashGet(input, key);
  if (v === null || v === undefined) return null;
  const s = toRubyString(v).trim();
  return s === '' ? null : s;
}

/**
 * The starting point in the trigger input: `since` (a date-time, or `beginning`), else
 * `since_offset` (seconds from the first start; negative looks back), else from now.
 */
export function startingPointOf(input: Hash, now: number): StartingPoint | Problem[] {
  const since = text(input, 'since');
  if (since !== null) {
    if (since.toLowerCase() === 'beginning') return { kind: 'beginning' };
    const at = Date.parse(since);
    if (Number.isNaN(at))
      return [
        [
          'When first started, this recipe should pick up events from',
          since,
          'is not a date and time (ISO 8601) nor "beginning"',
          'since',
        ],
      ];
    return { kind: 'time', at };
  }
  const offset = text(input, 'since_offset');
  if (offset !== null) {
    const seconds = Number(offset);
    if (!Number.isFinite(seconds))
      return [['Since offset', offset, 'must be a number of seconds (negative looks back)', 'since_offset']];
    return seconds >= 0 ? { kind: 'now' } : { kind: 'time', at: now + seconds * 1000 };
  }
  return { kind: 'now' };
}

/** The topic a `topic_id` input names in an environment: an id (number or digits) or a reference `{name}`. */
/** The batch trigger's `batch_size`: 1 to 100 messages a job (default 100), or the problem with it. */
export function batchSizeOf(input: Hash): number | Problem {
  const raw = text(input, 'batch_size');
  if (raw === null) return MAX_BATCH_MESSAGES;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > MAX_BATCH_MESSAGES)
    return ['Batch size', raw, `must be a whole number from 1 to ${MAX_BATCH_MESSAGES}`, 'batch_size'];
  return n;
}

export async function resolveTopicId(db: Db, environmentId: number, ref: Value): Promise<number | undefined> {
  if (typeof ref === 'number' || (typeof ref === 'string' && /^\s*\d{1,15}\s*$/.test(ref)))
    return findLiveTopicId(db, environmentId, { id: Number(ref) });
  if (isHash(ref) && typeof ref.name === 'string' && ref.name !== '')
    return findLiveTopicId(db, environmentId, { nameKey: nameKey(ref.name) });
  return undefined;
}

function describeRef(ref: Value): string {
  if (isHash(ref) && typeof ref.name === 'string') return ref.name;
  return JSON.stringify(toPlain(ref)).slice(0, 100);
}

async function topicFor(sc: StepContext, input: Hash) {
  const runtime = sc.eventStreams;
  if (!runtime) throw new StepError('Bad request', 'event streams are not available in this process');
  const ref = hashGet(input, 'topic_id');
  const id = await resolveTopicId(sc.ctx.db, sc.recipe.environmentId, ref);
  const topic = id === undefined ? undefined : await runtime.topics.get(id);
  if (!topic || topic.environmentId !== sc.recipe.environmentId)
    throw new StepError('Topic not found', `the topic ${describeRef(ref)} does not exist in this environment`);
  return { runtime, topic };
}

/** An AppError of the publish service as the step's error. */
function stepErrorOf(error: unknown): unknown {
  if (!(error instanceof AppError)) return error;
  if (error.code === 'topic_not_found') return new StepError('Topic not found', 'the topic does not exist any more');
  if (error.code === 'payload_schema_mismatch' && error.errors) {
    const details = Object.entries(error.errors)
      .flatMap(([field, list]) => list.map((m) => `${field} ${m}`))
      .join(', ');
    return new StepError('Schema mismatch', `Payload does not match topic schema: ${details}`);
  }
  return new StepError('Bad request', error.message);
}

function messageOf(value: Value, label: string): Record<string, unknown> {
  const plain = value === null ? {} : toPlain(value);
  if (typeof plain !== 'object' || plain === null || Array.isArray(plain))
    throw new StepError('Bad request', `${label} must be an object of message fields`);
  if (Buffer.byteLength(JSON.stringify(plain)) > MAX_CONNECTOR_MESSAGE_BYTES)
    throw new StepError('Message too large', `${label} is larger than ${MAX_CONNECTOR_MESSAGE_BYTES} bytes`);
  return plain as Record<string, unknown>;
}

export const workatoPubSub: Connector = {
  provider: 'workato_pub_sub',
  title: 'Event streams',
  needsConnection: false,
  reachesOutside: false,
  triggers: {
    subscribe_to_topic: {
      title: 'new message',
      kind: 'topic',
      required: [{ path: 'topic_id', label: 'Topic' }],
      check(input) {
        const point = startingPointOf(input, Date.now());
        return Array.isArray(point) ? point : [];
      },
      output(event) {
        return newHash([
          ['message', fromPlain(hashGet(event, 'payload')) ?? newHash()],
          ['message_id', hashGet(event, 'message_id')],
          ['time', hashGet(event, 'time')],
          ['topic_id', hashGet(event, 'topic_id')],
        ]);
      },
      titleFields: (event) => [['Message ID', toRubyString(hashGet(event, 'message_id'))]],
    },
    batch_subscribe_to_topic: {
      title: 'new batch of messages',
      kind: 'topic',
      required: [{ path: 'topic_id', label: 'Topic' }],
      check(input) {
        const point = startingPointOf(input, Date.now());
        const problems = Array.isArray(point) ? [...point] : [];
        const size = batchSizeOf(input);
        if (typeof size !== 'number') problems.push(size);
        return problems;
      },
      output(event) {
        return newHash([
          ['messages', hashGet(event, 'messages') ?? []],
          ['count', hashGet(event, 'count')],
          ['first_message_id', hashGet(event, 'first_message_id')],
          ['last_message_id', hashGet(event, 'last_message_id')],
          ['topic_id', hashGet(event, 'topic_id')],
        ]);
      },
      titleFields: (event) => [
        ['Messages', toRubyString(hashGet(event, 'count'))],
        ['Last message ID', toRubyString(hashGet(event, 'last_message_id'))],
      ],
    },
  },
  actions: {
    publish_to_topic: {
      title: 'Publish message',
      required: [{ path: 'topic_id', label: 'Topic' }],
      async run(input, sc) {
        const { runtime, topic } = await topicFor(sc, input);
        const message = messageOf(hashGet(input, 'message'), 'message');
        try {
          const { message_id } = await publishMessage(runtime, topic, message);
          return newHash([['message_id', message_id]]);
        } catch (error) {
          throw stepErrorOf(error);
        }
      },
    },
    publish_to_topic_batch: {
      title: 'Publish messages in batch',
      required: [
        { path: 'topic_id', label: 'Topic' },
        { path: 'messages', label: 'Messages' },
      ],
      async run(input, sc) {
        const { runtime, topic } = await topicFor(sc, input);
        const list = toPlain(hashGet(input, 'messages'));
        if (!Array.isArray(list)) throw new StepError('Bad request', 'messages must be a list of messages');
        if (list.length === 0 || list.length > MAX_BATCH_MESSAGES)
          throw new StepError(
            'Bad request',
            `messages must hold 1 to ${MAX_BATCH_MESSAGES} messages (got ${list.length})`,
          );
        list.forEach((item, i) => {
          if (typeof item === 'object' && item !== null && !Array.isArray(item))
            messageOf(fromPlain(item), `message ${i}`);
        });
        let result;
        try {
          result = await publishBatch(runtime, topic, list);
        } catch (error) {
          throw stepErrorOf(error);
        }
        const entries = Object.values(result.message_ids);
        const errors = entries.flatMap((entry, index) => ('error' in entry ? [`${index}: ${entry.error}`] : []));
        // Nothing published: the step fails (P); some published: it succeeds and says which failed.
        if (errors.length === entries.length)
          throw new StepError('Schema mismatch', `no message was published: ${errors.join('; ')}`.slice(0, 2000));
        return fromPlain({
          is_partial_error: result.is_partial_error,
          message_ids: entries.map((entry) => ('message_id' in entry ? entry.message_id : null)),
          errors: entries.map((entry) => ('error' in entry ? entry.error : null)),
        });
      },
    },
  },
};

// ---------------------------------------------------------------------------------------------
// The trigger at run time.

interface Closure {
  topic_id: number;
  last_seq: number;
}

function parseClosure(text: string | null): Closure | null {
  if (text === null) return null;
  try {
    const parsed = JSON.parse(text) as Partial<Closure>;
    return typeof parsed.topic_id === 'number' && typeof parsed.last_seq === 'number'
      ? { topic_id: parsed.topic_id, last_seq: parsed.last_seq }
      : null;
  } catch {
    return null;
  }
}

export interface SubscriptionDeps {
  ctx: ServiceContext;
  commits: GroupCommit;
  /** Store one event as a job of the recipe inside the transaction (filter applied); null when filtered out. */
  storeJob(
    trx: Transaction<Database>,
    row: RecipeRow,
    event: Hash,
  ): Promise<{ handle: string; queued: boolean } | null>;
  /** Jobs were committed (count them, emit events, wake the dispatcher). */
  stored(row: RecipeRow, handles: string[]): void;
}

interface Subscription {
  row: RecipeRow;
  topicId: number;
  /** The closure text in the database (the guard of the next update). */
  closure: string;
  cursor: number;
  busy: boolean;
  again: boolean;
  active: boolean;
  /** The batch trigger: messages a job; null for one job a message. */
  batchSize: number | null;
}

export function createTopicSubscriptions(deps: SubscriptionDeps) {
  const { ctx } = deps;
  const byRecipe = new Map<number, Subscription>();
  const byTopic = new Map<number, Set<Subscription>>();
  let closed = false;
  const pending = new Set<Promise<void>>();

  const offPublished = ctx.notifier.subscribe('event_topic.published', ({ topicId, lastSeq }) => {
    for (const sub of byTopic.get(topicId) ?? []) if (lastSeq > sub.cursor) wake(sub);
  });
  // A purge or a retention change moves the first readable message: read again.
  const offChanged = ctx.notifier.subscribe('event_topic.changed', ({ topicId }) => {
    for (const sub of byTopic.get(topicId) ?? []) wake(sub);
  });
  // Publishes may have been missed (another node's, while the link was down): every subscription reads.
  const offEverything = ctx.notifier.subscribe('everything.changed', () => {
    for (const sub of byRecipe.values()) wake(sub);
  });

  function wake(sub: Subscription): void {
    if (!sub.active || closed) return;
    if (sub.busy) {
      sub.again = true;
      return;
    }
    const task = pump(sub).catch((error: unknown) =>
      ctx.log.error({ err: error, recipe_id: sub.row.id }, 'topic trigger failed'),
    );
    pending.add(task);
    void task.finally(() => pending.delete(task));
  }

  async function pump(sub: Subscription): Promise<void> {
    sub.busy = true;
    try {
      do {
        sub.again = false;
        const topic = await findTopicById(ctx.db, sub.topicId);
        if (!topic || !sub.active) return;
        const cutoff = toStored(new Date(ctx.clock.now().getTime() - topic.retention_seconds * 1000));
        const rows = await readMessages(
          ctx.db,
          sub.topicId,
          Math.max(sub.cursor, Number(topic.purged_seq)),
          cutoff,
          JOBS_PER_COMMIT,
        );
        // Not `return`: a wake-up that came during the read must not be lost.
        if (rows.length === 0) continue;
        const last = Number((rows[rows.length - 1] as { seq: number }).seq);
        const next = JSON.stringify({ topic_id: sub.topicId, last_seq: last } satisfies Closure);
        const guard = sub.closure;
        const handles = await deps.commits.run(async (trx) => {
          // The cursor moves only from the value this process read, and only while the recipe runs.
          if (!(await moveRunningTriggerClosure(trx, sub.row.id, guard, next))) return null;
          const out: string[] = [];
          const messageOfRow = (r: (typeof rows)[number]) =>
            newHash([
              ['topic_id', sub.topicId],
              ['message_id', formatMessageId(Date.parse(r.published_at), Number(r.seq))],
              ['time', toApiTimestamp(r.published_at)],
              ['payload', fromPlain(JSON.parse(r.payload))],
            ]);
          if (sub.batchSize === null) {
            for (const r of rows) {
              const stored = await deps.storeJob(trx, sub.row, messageOfRow(r));
              if (stored?.queued) out.push(stored.handle);
            }
            return out;
          }
          // The batch trigger: one job for each batch_size messages, in order.
          for (let i = 0; i < rows.length; i += sub.batchSize) {
            const messages = rows
              .slice(i, i + sub.batchSize)
              .map(messageOfRow)
              .map((m) =>
                newHash([
                  ['message', hashGet(m, 'payload') ?? newHash()],
                  ['message_id', hashGet(m, 'message_id')],
                  ['time', hashGet(m, 'time')],
                ]),
              );
            const event = newHash([
              ['topic_id', sub.topicId],
              ['messages', messages],
              ['count', messages.length],
              ['first_message_id', hashGet(messages[0] as Hash, 'message_id')],
              ['last_message_id', hashGet(messages[messages.length - 1] as Hash, 'message_id')],
            ]);
            const stored = await deps.storeJob(trx, sub.row, event);
            if (stored?.queued) out.push(stored.handle);
          }
          return out;
        });
        if (handles === null) {
          // Stopped, or the cursor changed under us: read the stored one and stop here.
          const current = await findTriggerClosure(ctx.db, sub.row.id);
          const parsed = parseClosure(current?.trigger_closure ?? null);
          if (!current || current.running !== 1 || !parsed || parsed.topic_id !== sub.topicId) return;
          sub.closure = current.trigger_closure as string;
          sub.cursor = parsed.last_seq;
          sub.again = true;
          continue;
        }
        sub.closure = next;
        sub.cursor = last;
        deps.stored(sub.row, handles);
        if (rows.length === JOBS_PER_COMMIT) sub.again = true;
      } while (sub.again && sub.active && !closed);
    } finally {
      sub.busy = false;
    }
  }

  /** The cursor a new subscription starts from. */
  async function initialCursor(topicId: number, point: StartingPoint): Promise<number> {
    const topic = await findTopicById(ctx.db, topicId);
    const lastSeq = topic ? Number(topic.last_seq) : 0;
    const purged = topic ? Number(topic.purged_seq) : 0;
    if (point.kind === 'now') return lastSeq;
    if (point.kind === 'beginning') return purged;
    const at = Math.min(point.at, ctx.clock.now().getTime());
    const first = await firstSeqAtOrAfter(ctx.db, topicId, toStored(new Date(at)));
    return Math.max(first === undefined ? lastSeq : first - 1, purged);
  }

  return {
    /**
     * Arm the trigger of a running recipe. The first start on a topic fixes the cursor from the
     * starting point (and stores it); later starts and restarts go on from the stored cursor.
     */
    async arm(row: RecipeRow, input: Hash, batchSize: number | null = null): Promise<void> {
      this.disarm(row.id);
      if (closed) return;
      const topicId = await resolveTopicId(ctx.db, row.environment_id, hashGet(input, 'topic_id'));
      if (topicId === undefined) {
        ctx.log.warn({ recipe_id: row.id }, 'the topic of this recipe trigger does not exist; no jobs will be made');
        return;
      }
      const current = await findTriggerClosure(ctx.db, row.id);
      if (!current || current.running !== 1) return;
      let closureText = current.trigger_closure;
      let closure = parseClosure(closureText);
      if (!closure || closure.topic_id !== topicId) {
        const point = startingPointOf(input, ctx.clock.now().getTime());
        const cursor = await initialCursor(topicId, Array.isArray(point) ? { kind: 'now' } : point);
        const text = JSON.stringify({ topic_id: topicId, last_seq: cursor } satisfies Closure);
        if (!(await replaceTriggerClosure(ctx.db, row.id, closureText, text))) return this.arm(row, input, batchSize);
        closureText = text;
        closure = { topic_id: topicId, last_seq: cursor };
      }
      const sub: Subscription = {
        row,
        topicId,
        closure: closureText as string,
        cursor: closure.last_seq,
        busy: false,
        again: false,
        active: true,
        batchSize,
      };
      byRecipe.set(row.id, sub);
      let set = byTopic.get(topicId);
      if (!set) byTopic.set(topicId, (set = new Set()));
      set.add(sub);
      // Messages published while stopped or down are picked up now.
      wake(sub);
    },
    disarm(recipeId: number): void {
      const sub = byRecipe.get(recipeId);
      if (!sub) return;
      sub.active = false;
      byRecipe.delete(recipeId);
      const set = byTopic.get(sub.topicId);
      set?.delete(sub);
      if (set?.size === 0) byTopic.delete(sub.topicId);
    },
    /** Whether the recipe's trigger is armed here. */
    has(recipeId: number): boolean {
      return byRecipe.has(recipeId);
    },
    /** Whether a subscription is reading or storing jobs (engine.idle waits for it). */
    busy(): boolean {
      return pending.size > 0;
    },
    /** Stop waking; wait for the commits in flight. */
    async close(): Promise<void> {
      closed = true;
      offPublished();
      offChanged();
      offEverything();
      for (const id of [...byRecipe.keys()]) this.disarm(id);
      await Promise.allSettled([...pending]);
    },
  };
}

export type TopicSubscriptions = ReturnType<typeof createTopicSubscriptions>;

export type { EventStreamsRuntime };
