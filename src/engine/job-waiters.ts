// Callers waiting for a job's end (synchronous recipe function calls, API platform endpoints, app
// functions, MCP tool calls), on the node that received the call. The job may run on any node:
// - ended here, the waiter gets the outcome at once, from memory;
// - ended on another node, that node announces it (`job.ended`, only for jobs stored as awaited)
//   and the waiter's node reads the job's end, its reply included, from the database;
// - a notice missed (the link to the other nodes lost, a node gone before it sent it, a job
//   failed Interrupted by the recovery): every waiting job is read again every `recheckMs`, and
//   at once when the notifier says changes may have been missed.
import type { Logger } from 'pino';
import type { Db } from '../db/types.ts';
import { endedJobsAmong, type EndedJob } from '../api/jobs/queue.store.ts';
import type { Notifier } from '../notifier.ts';
import { replyOf, type ErrorParts, type JobOutcome } from '../recipe/job-outcome.ts';

/** Handles read in one query at most. */
const READ_CHUNK = 500;

export interface JobWaitersDeps {
  db: Db;
  notifier: Notifier;
  log: Logger;
  recheckMs: number;
}

export class JobWaiters {
  readonly #deps: JobWaitersDeps;
  readonly #waiting = new Map<string, (outcome: JobOutcome) => void>();
  /** Waiting jobs to read from the database (a notice came, or notices may have been missed). */
  readonly #toRead = new Set<string>();
  #reading = false;
  #readQueued = false;
  #recheckTimer: NodeJS.Timeout | undefined;
  #unsubscribe: Array<() => void> = [];

  constructor(deps: JobWaitersDeps) {
    this.#deps = deps;
  }

  /** Hear of jobs ended on other nodes. */
  listen(): void {
    if (this.#unsubscribe.length > 0) return;
    const { notifier } = this.#deps;
    this.#unsubscribe = [
      notifier.subscribe('job.ended', ({ handle }) => {
        if (this.#waiting.has(handle)) this.#read([handle]);
      }),
      notifier.subscribe('everything.changed', () => this.#read([...this.#waiting.keys()])),
    ];
  }

  /** Stop hearing (the engine closed: its waiters have had their answer or their timeout). */
  stop(): void {
    for (const off of this.#unsubscribe) off();
    this.#unsubscribe = [];
    if (this.#recheckTimer) clearTimeout(this.#recheckTimer);
    this.#recheckTimer = undefined;
  }

  /** Wait for the job `handle` (before it is stored, so that no end slips past). */
  add(handle: string, answer: (outcome: JobOutcome) => void): void {
    this.#waiting.set(handle, answer);
    this.#scheduleRecheck();
  }

  delete(handle: string): void {
    this.#waiting.delete(handle);
  }

  /**
   * A job ended on this node and is recorded: its waiter here gets the outcome; a job awaited by
   * a caller elsewhere is announced to the other nodes.
   */
  ended(handle: string, outcome: JobOutcome, awaited: boolean): void {
    const answer = this.#waiting.get(handle);
    if (answer) {
      this.#waiting.delete(handle);
      answer(outcome);
    } else if (awaited) this.#deps.notifier.publish('job.ended', { handle });
  }

  #scheduleRecheck(): void {
    if (this.#recheckTimer || this.#waiting.size === 0) return;
    this.#recheckTimer = setTimeout(() => {
      this.#recheckTimer = undefined;
      this.#read([...this.#waiting.keys()]);
      this.#scheduleRecheck();
    }, this.#deps.recheckMs);
    this.#recheckTimer.unref();
  }

  /** Read these waiting jobs soon, together with any others asked for meanwhile. */
  #read(handles: readonly string[]): void {
    for (const handle of handles) this.#toRead.add(handle);
    if (this.#readQueued || this.#reading || this.#toRead.size === 0) return;
    this.#readQueued = true;
    setImmediate(() => {
      this.#readQueued = false;
      void this.#readNow();
    });
  }

  async #readNow(): Promise<void> {
    this.#reading = true;
    try {
      const handles = [...this.#toRead].filter((handle) => this.#waiting.has(handle));
      this.#toRead.clear();
      for (let i = 0; i < handles.length; i += READ_CHUNK) {
        for (const row of await endedJobsAmong(this.#deps.db, handles.slice(i, i + READ_CHUNK))) {
          const answer = this.#waiting.get(row.handle);
          if (!answer) continue;
          this.#waiting.delete(row.handle);
          answer(outcomeOfRow(row));
        }
      }
    } catch (error) {
      // The next recheck reads them again.
      this.#deps.log.warn({ err: error }, 'could not read the end of jobs callers wait for');
    } finally {
      this.#reading = false;
    }
    if (this.#toRead.size > 0) this.#read([]);
  }
}

/** A job's end as its row keeps it, in the shape its waiter reads (status, error, what it returned). */
export function outcomeOfRow(row: EndedJob): JobOutcome {
  let errorParts: JobOutcome['errorParts'] = null;
  let end: JobOutcome['end'] = null;
  try {
    if (row.error_parts !== null) {
      const { error_id: _id, ...parts } = JSON.parse(row.error_parts) as ErrorParts;
      errorParts = parts;
    }
    end = replyOf(row.reply);
  } catch {
    // Written by this code as JSON; a row that is not stays without its parts or its reply.
  }
  return {
    status: row.status === 'succeeded' ? 'succeeded' : 'failed',
    error: row.error,
    errorParts,
    lines: [],
    linesDropped: 0,
    taskCount: row.task_count,
    end,
    firstSeq: 0,
  };
}
