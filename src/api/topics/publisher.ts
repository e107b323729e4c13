// Publishing with group commit. Every publish (one message or a batch) joins a queue; one
// transaction at a time takes everything queued, reserves each topic's sequence numbers on its
// topic row, inserts the messages and commits; then every publisher in the group is answered and
// waiting consumers are told (event_topic.published). One fsync serves the whole group, and ids
// are handed out by the writer that commits them, in commit order. On PostgreSQL each topic of the
// group is one statement of its own instead (it reserves the numbers and inserts the rows: one
// round trip and one commit), which holds the topic's row lock only for that statement.
import type { ServiceContext } from '../../context.ts';
import type { EventMessageRow } from '../../db/types.ts';
import { toStored } from '../../time.ts';
import { writesInWithClause } from '../../db/dialect.ts';
import { advanceTopic, createMessageWriter, publishInOneStatement } from './topics.store.ts';

export interface Published {
  /** Sequence number of the first message; the others follow one by one. */
  firstSeq: number;
  publishedAt: string;
}

interface Job {
  topicId: number;
  payloads: readonly string[];
  resolve(result: Published | undefined): void;
  reject(error: unknown): void;
}

/** Most messages one transaction takes; the rest wait for the next (a bound on its length). */
const MAX_GROUP_MESSAGES = 5_000;

export function createPublisher(ctx: Pick<ServiceContext, 'db' | 'clock' | 'notifier' | 'log'>) {
  const queue: Job[] = [];
  const insertMessages = createMessageWriter();
  let scheduled = false;
  let running: Promise<void> | null = null;

  async function drain(): Promise<void> {
    scheduled = false;
    while (queue.length > 0) {
      let count = 0;
      let take = 0;
      while (
        take < queue.length &&
        (take === 0 || count + (queue[take] as Job).payloads.length <= MAX_GROUP_MESSAGES)
      ) {
        count += (queue[take] as Job).payloads.length;
        take += 1;
      }
      await commit(queue.splice(0, take));
    }
  }

  async function commit(jobs: Job[]): Promise<void> {
    // Jobs per topic in arrival order; topics in id order, so two writers (PostgreSQL, several
    // nodes) lock topic rows in the same order and never deadlock.
    const byTopic = new Map<number, Job[]>();
    for (const job of jobs) {
      const list = byTopic.get(job.topicId);
      if (list) list.push(job);
      else byTopic.set(job.topicId, [job]);
    }
    const topicIds = [...byTopic.keys()].sort((a, b) => a - b);
    const results = new Map<Job, Published | undefined>();
    const committed: Array<{ topicId: number; lastSeq: number }> = [];
    if (writesInWithClause(ctx.db)) {
      await commitEachTopicAlone(byTopic, topicIds);
      return;
    }
    try {
      await ctx.db.transaction().execute(async (trx) => {
        const now = toStored(ctx.clock.now());
        const rows: EventMessageRow[] = [];
        for (const topicId of topicIds) {
          const topicJobs = byTopic.get(topicId) as Job[];
          const total = topicJobs.reduce((n, job) => n + job.payloads.length, 0);
          const advanced = await advanceTopic(trx, topicId, total, now);
          if (!advanced) {
            for (const job of topicJobs) results.set(job, undefined);
            continue;
          }
          let seq = advanced.lastSeq - total + 1;
          for (const job of topicJobs) {
            results.set(job, { firstSeq: seq, publishedAt: advanced.publishedAt });
            for (const payload of job.payloads)
              rows.push({ topic_id: topicId, seq: seq++, published_at: advanced.publishedAt, payload });
          }
          committed.push({ topicId, lastSeq: advanced.lastSeq });
        }
        await insertMessages(trx, rows);
      });
    } catch (error) {
      ctx.log.error({ err: error, messages: jobs.length }, 'publishing to event topics failed');
      for (const job of jobs) job.reject(error);
      return;
    }
    for (const job of jobs) job.resolve(results.get(job));
    for (const c of committed) ctx.notifier.publish('event_topic.published', c);
  }

  /**
   * PostgreSQL: each topic's messages in one statement of their own (sequence numbers and rows,
   * one round trip, one commit); its publishers are answered once it committed, or get its error.
   */
  async function commitEachTopicAlone(byTopic: Map<number, Job[]>, topicIds: number[]): Promise<void> {
    const now = toStored(ctx.clock.now());
    for (const topicId of topicIds) {
      const topicJobs = byTopic.get(topicId) as Job[];
      const payloads = topicJobs.flatMap((job) => job.payloads);
      let advanced: Awaited<ReturnType<typeof publishInOneStatement>>;
      try {
        advanced = await publishInOneStatement(ctx.db, topicId, payloads, now);
      } catch (error) {
        ctx.log.error({ err: error, messages: payloads.length }, 'publishing to event topics failed');
        for (const job of topicJobs) job.reject(error);
        continue;
      }
      if (advanced === undefined) {
        for (const job of topicJobs) job.resolve(undefined);
        continue;
      }
      let seq = advanced.lastSeq - payloads.length + 1;
      for (const job of topicJobs) {
        job.resolve({ firstSeq: seq, publishedAt: advanced.publishedAt });
        seq += job.payloads.length;
      }
      ctx.notifier.publish('event_topic.published', { topicId, lastSeq: advanced.lastSeq });
    }
  }

  function schedule(): void {
    if (scheduled || running) return;
    scheduled = true;
    // After the I/O callbacks of this turn, so every request parsed meanwhile joins the group.
    setImmediate(() => {
      // commit() answers every job itself, even on failure; this only guards the loop.
      running = drain()
        .catch((error: unknown) => ctx.log.error({ err: error }, 'event streams publisher failed'))
        .finally(() => {
          running = null;
          if (queue.length > 0) schedule();
        });
    });
  }

  return {
    /** Store messages durably, in this order; undefined when the topic no longer exists. */
    publish(topicId: number, payloads: readonly string[]): Promise<Published | undefined> {
      return new Promise((resolve, reject) => {
        queue.push({ topicId, payloads, resolve, reject });
        schedule();
      });
    },
    /** Wait for the group being committed (before the database closes). */
    async close(): Promise<void> {
      while (running || scheduled) await (running ?? new Promise((r) => setImmediate(r)));
    },
  };
}

export type Publisher = ReturnType<typeof createPublisher>;
