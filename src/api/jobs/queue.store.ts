// The queue's write path (contract 10, docs/adr/0018): jobs inserted, claimed under a lease, finished,
// their lines written; jobs a dead node left running. The engine is its only writer.
import { randomFillSync } from 'node:crypto';
import { sql } from 'kysely';
import type { Db, JobLineRow, JobRow } from '../../db/types.ts';
import {
  ADVISORY_LOCKS,
  insertFromColumnArrays,
  isSharedByNodes,
  jobLinesCheckedByStatements,
  lockedSkippingLocked,
  tryTransactionLock,
} from '../../db/dialect.ts';
import { prepareQuery } from '../../db/prepared.ts';
import { pgArray } from '../../db/pg-arrays.ts';
import { storableText, storableTextOrNull, storableValue } from '../../db/text.ts';

const HANDLE_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * Random bytes for job handles, drawn 4 KB at a time: a job's handle is made for every event a
 * trigger stores, and reading the system's random source for each one (a system call) cost more
 * than the rest of the handle.
 */
const handleBytes = Buffer.alloc(4096);
let handleBytesUsed = handleBytes.length;

/** `j-` + 8 + `-` + 7 characters, as the vendor's handles look (`j-KqM4tZ2w-Hc7pLs`). */
export function newJobHandle(): string {
  if (handleBytesUsed + 15 > handleBytes.length) {
    randomFillSync(handleBytes);
    handleBytesUsed = 0;
  }
  let chars = '';
  for (let i = 0; i < 15; i++) chars += HANDLE_ALPHABET[handleBytes[handleBytesUsed + i]! % HANDLE_ALPHABET.length];
  handleBytesUsed += 15;
  return `j-${chars.slice(0, 8)}-${chars.slice(8)}`;
}

/** A job to store; a queued one has no claim yet (a test job, which runs at once, is claimed by its node). */
export type NewJob = Omit<JobRow, 'id' | 'claimed_by' | 'lease_expires_at' | 'reply' | 'awaited'> &
  Partial<Pick<JobRow, 'claimed_by' | 'lease_expires_at' | 'awaited'>>;

/**
 * A job row of `recipeId` made at `at` (its created and started time): queued, titled `title`, with
 * an empty trigger output, no error, no caller, no task and no claim. `values` names what differs;
 * every job is built here, so a column added to jobs gets its default in one place.
 */
export function newJobRow(recipeId: number, at: string, title: string, values: Partial<NewJob> = {}): NewJob {
  return {
    recipe_id: recipeId,
    handle: values.handle ?? newJobHandle(),
    status: 'queued',
    title: storableText(title),
    trigger_output: 'null',
    error_parts: null,
    is_poll_error: 0,
    is_repeat: 0,
    is_test: 0,
    master_job_handle: null,
    calling_recipe_id: null,
    calling_job_handle: null,
    root_recipe_id: null,
    root_job_handle: null,
    task_count: 0,
    created_at: at,
    started_at: at,
    completed_at: null,
    recipe_version_no: null,
    ...UNSET_JOB_COLUMNS,
    ...values,
    error: storableTextOrNull(values.error ?? null),
  };
}

// The queue's own statements (a job stored, claimed, finished, its lines) run for every job: they
// are built once (src/db/prepared.ts) rather than per job.

const JOB_COLUMNS = [
  'recipe_id',
  'handle',
  'status',
  'title',
  'trigger_output',
  'error',
  'error_parts',
  'is_poll_error',
  'is_repeat',
  'is_test',
  'master_job_handle',
  'calling_recipe_id',
  'calling_job_handle',
  'root_recipe_id',
  'root_job_handle',
  'task_count',
  'created_at',
  'started_at',
  'completed_at',
  'claimed_by',
  'lease_expires_at',
  'awaited',
  'recipe_version_no',
] as const satisfies ReadonlyArray<keyof NewJob>;
// Every column of a job is inserted: a column added to the table and not here fails the type check.
const _everyJobColumn: [Exclude<keyof NewJob, (typeof JOB_COLUMNS)[number]>] extends [never] ? true : never = true;

const insertJobQuery = prepareQuery<NewJob, { id: number }>((db, param) =>
  db
    .insertInto('jobs')
    .values(Object.fromEntries(JOB_COLUMNS.map((column) => [column, param(column)])) as NewJob)
    .returning('id'),
);

export async function insertJob(db: Db, values: NewJob): Promise<number> {
  const [row] = (await insertJobQuery.execute(db, { ...UNSET_JOB_COLUMNS, ...values })).rows;
  if (!row) throw new Error('insert into jobs returned no id');
  return row.id;
}

/** What a job stored without them has in the columns NewJob may leave out. */
const UNSET_JOB_COLUMNS = { claimed_by: null, lease_expires_at: null, awaited: 0 } as const;

/** The type of each job column's array, as insertJobs binds one array per column. */
const JOB_ARRAY_TYPE: Record<(typeof JOB_COLUMNS)[number], 'bigint' | 'integer' | 'text'> = {
  recipe_id: 'bigint',
  handle: 'text',
  status: 'text',
  title: 'text',
  trigger_output: 'text',
  error: 'text',
  error_parts: 'text',
  is_poll_error: 'integer',
  is_repeat: 'integer',
  is_test: 'integer',
  master_job_handle: 'text',
  calling_recipe_id: 'bigint',
  calling_job_handle: 'text',
  root_recipe_id: 'bigint',
  root_job_handle: 'text',
  task_count: 'integer',
  created_at: 'text',
  started_at: 'text',
  completed_at: 'text',
  claimed_by: 'text',
  lease_expires_at: 'text',
  awaited: 'integer',
  recipe_version_no: 'integer',
};
const JOB_ARRAY_COLUMNS = JOB_COLUMNS.map((name) => ({ name, type: JOB_ARRAY_TYPE[name] }));

/**
 * Insert jobs, all or none: in one statement where the database binds arrays (PostgreSQL; outside
 * a transaction it is its own), elsewhere one insert each in a transaction (the caller's, or one
 * of its own). Their ids, in the order of `jobs`, matched by handle (a statement returns its rows
 * in no promised order).
 */
export async function insertJobs(db: Db, jobs: readonly NewJob[]): Promise<number[]> {
  const oneStatement =
    jobs.length === 0
      ? undefined
      : insertFromColumnArrays(
          db,
          'jobs',
          JOB_ARRAY_COLUMNS,
          JOB_COLUMNS.map((name) => jobs.map((job) => job[name] ?? (name === 'awaited' ? 0 : null))),
          ['id', 'handle'],
        );
  if (!oneStatement) {
    const each = async (trx: Db): Promise<number[]> => {
      const ids: number[] = [];
      for (const job of jobs) ids.push(await insertJob(trx, job));
      return ids;
    };
    return db.isTransaction || jobs.length <= 1 ? each(db) : db.transaction().execute(each);
  }
  const { rows } = await db.executeQuery<{ id: number; handle: string }>(oneStatement);
  const idByHandle = new Map(rows.map((row) => [row.handle, row.id]));
  return jobs.map((job) => {
    const id = idByHandle.get(job.handle);
    if (id === undefined) throw new Error(`insert into jobs returned no id for ${job.handle}`);
    return id;
  });
}

/**
 * Running recipes that have queued jobs. The recipes with queued jobs are found by a skip scan of
 * jobs_status_recipe (one index seek per such recipe: the next recipe id after the last found),
 * then each recipe by its key; so the cost grows with neither the running recipes (a workspace
 * holds thousands, most with nothing queued) nor the backlog of one recipe's queued jobs. The
 * dispatcher runs this at every wake-up: after each stored job and each job end, and every second.
 */
export async function recipesWithQueuedJobs(db: Db): Promise<Array<{ recipe_id: number; concurrency: number }>> {
  const { rows } = await recipesWithQueuedJobsQuery.execute(db, {});
  return rows.filter((row): row is { recipe_id: number; concurrency: number } => row.concurrency !== null);
}

const recipesWithQueuedJobsQuery = prepareQuery<
  Record<string, never>,
  { recipe_id: number; concurrency: number | null }
>((db) =>
  db
    .withRecursive('queued(recipe_id)', (qb) =>
      qb
        .selectNoFrom((eb) =>
          eb
            .selectFrom('jobs as j')
            .select('j.recipe_id')
            .where('j.status', '=', 'queued')
            .orderBy('j.recipe_id')
            .limit(1)
            .as('recipe_id'),
        )
        .unionAll((qb2) =>
          qb2
            .selectFrom('queued as q')
            // The next recipe id with a queued job after the last one found: one index seek.
            .select((eb) =>
              eb
                .selectFrom('jobs as j')
                .select('j.recipe_id')
                .where('j.status', '=', 'queued')
                .whereRef('j.recipe_id', '>', 'q.recipe_id')
                .orderBy('j.recipe_id')
                .limit(1)
                .as('recipe_id'),
            )
            .where('q.recipe_id', 'is not', null),
        ),
    )
    // Each id found reads its recipe by its key (null when it is not running): a subquery per id,
    // not a join, so that neither planner reads the recipes first.
    .selectFrom('queued as q')
    .select((eb) => [
      eb.ref('q.recipe_id').$notNull().as('recipe_id'),
      eb
        .selectFrom('recipes as r')
        .select('r.concurrency')
        .whereRef('r.id', '=', 'q.recipe_id')
        .where('r.running', '=', 1)
        .as('concurrency'),
    ])
    .where('q.recipe_id', 'is not', null)
    .orderBy('q.recipe_id'),
);

export type JobClaim = {
  recipeId: number;
  /** Jobs this node may start now for the recipe (its workers, its own jobs of the recipe). */
  limit: number;
  now: string;
  /** The claiming node and until when its claim holds (renewed while the job runs). */
  node: string;
  leaseUntil: string;
};

/**
 * Claim up to `limit` queued jobs of a running recipe, oldest first. Only a queued job can be
 * claimed. `contended`: another node held the recipe at that moment (try again shortly).
 * SQLite, one process: one statement (a conditional update; the process counts its recipe's
 * running jobs itself). Several nodes on PostgreSQL: the recipe's claim lock is taken (skipped if
 * another node holds it), its running jobs counted, and at most its concurrency minus those
 * claimed, skipping rows another transaction holds; so concurrency holds across the nodes.
 */
export async function claimJobs(db: Db, claim: JobClaim): Promise<{ jobs: JobRow[]; contended: boolean }> {
  if (isSharedByNodes(db))
    return db.isTransaction
      ? claimJobsAcrossNodes(db, claim)
      : db.transaction().execute((trx) => claimJobsAcrossNodes(trx, claim));
  const { rows } = await claimJobsQuery.execute(db, claim);
  return { jobs: rows.sort((a, b) => a.id - b.id), contended: false };
}

async function claimJobsAcrossNodes(trx: Db, claim: JobClaim): Promise<{ jobs: JobRow[]; contended: boolean }> {
  // One claim at a time per recipe across the nodes, so the count below stays true until the commit.
  // An advisory lock rather than the recipe's row: job ends update that row's counters all the time.
  if (!(await tryTransactionLock(trx, ADVISORY_LOCKS.recipeClaims, claim.recipeId)))
    return { jobs: [], contended: true };
  // One statement after the lock (its snapshot sees every claim committed before the lock was
  // taken): the room is the recipe's concurrency (none when it stopped) less its running jobs,
  // within the node's limit; that many of the oldest queued rows are claimed.
  const { rows } = await claimAcrossNodesQuery.execute(trx, claim);
  return { jobs: rows.sort((a, b) => a.id - b.id), contended: false };
}

/**
 * A job's start is its first claim: a job queued again after its workflow task ended (it keeps
 * the claim's node) goes on from its checkpoint and keeps the time it started.
 */
function startedAtOnClaim(now: string) {
  return sql<string>`case when claimed_by is null then ${now} else started_at end`;
}

const claimAcrossNodesQuery = prepareQuery<JobClaim, JobRow>((db, param) => {
  const concurrency = db
    .selectFrom('recipes')
    .select(sql<number>`greatest(1, concurrency)`.as('c'))
    .where('id', '=', param('recipeId'))
    .where('running', '=', 1);
  const running = db
    .selectFrom('jobs')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('status', '=', 'running')
    .where('recipe_id', '=', param('recipeId'))
    .where('is_test', '=', 0);
  const room = sql<number>`greatest(0, least(${param('limit')}::int, coalesce((${concurrency}), 0) - (${running})))`;
  return db
    .updateTable('jobs')
    .set({
      status: 'running',
      started_at: startedAtOnClaim(param('now')),
      claimed_by: param('node'),
      lease_expires_at: param('leaseUntil'),
    })
    .where(
      'id',
      'in',
      lockedSkippingLocked(
        db
          .selectFrom('jobs')
          .select('id')
          .where('recipe_id', '=', param('recipeId'))
          .where('status', '=', 'queued')
          .orderBy('id')
          .limit(room),
        db,
      ),
    )
    .returningAll();
});

/**
 * A node's claims on the jobs it runs hold until `until` (the heartbeat of a running node). Rows
 * another transaction holds (a job's end being recorded) are skipped, not waited for: a renewal
 * locking many rows in its own order would otherwise meet the job ends in a deadlock.
 */
export async function renewJobLeases(db: Db, node: string, until: string): Promise<void> {
  await db
    .updateTable('jobs')
    .set({ lease_expires_at: until })
    .where('id', 'in', (eb) =>
      lockedSkippingLocked(
        eb.selectFrom('jobs').select('id').where('status', '=', 'running').where('claimed_by', '=', node),
        db,
      ),
    )
    .execute();
}

const claimJobsQuery = prepareQuery<JobClaim, JobRow>((db, param) =>
  db
    .updateTable('jobs')
    .set({
      status: 'running',
      started_at: startedAtOnClaim(param('now')),
      claimed_by: param('node'),
      lease_expires_at: param('leaseUntil'),
    })
    // The ids are those of queued jobs, chosen in this same statement (so no second status test,
    // which would lead SQLite to walk every queued job instead of fetching these few by id).
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('jobs')
        .select('id')
        .where('recipe_id', '=', param('recipeId'))
        .where('status', '=', 'queued')
        .orderBy('id')
        .limit(param('limit')),
    )
    // A stopped recipe's queued jobs wait (20 §12): nothing is claimed for it.
    .where((eb) =>
      eb.exists(eb.selectFrom('recipes').select('id').where('id', '=', param('recipeId')).where('running', '=', 1)),
    )
    .returningAll(),
);

export type JobResult = {
  status: 'succeeded' | 'failed' | 'canceled';
  error: string | null;
  error_parts: string | null;
  completed_at: string;
  task_count: number;
  /** What the job returned, as JSON `{kind, value}` (replyText), for a caller on any node. */
  reply?: string | null;
  /** The recipe's version_no the job ran; when not given, the one it was stored with stays. */
  recipe_version_no?: number | null;
};

export async function finishJob(db: Db, id: number, result: JobResult): Promise<void> {
  await finishJobQuery.execute(db, {
    id,
    ...result,
    error: storableTextOrNull(result.error),
    reply: result.reply ?? null,
    recipe_version_no: result.recipe_version_no ?? null,
  });
}

const finishJobQuery = prepareQuery<Required<JobResult> & { id: number }, never>((db, param) =>
  db
    .updateTable('jobs')
    .set({
      status: param('status'),
      error: param('error'),
      error_parts: param('error_parts'),
      completed_at: param('completed_at'),
      task_count: param('task_count'),
      reply: param('reply'),
      recipe_version_no: sql<number | null>`coalesce(${param('recipe_version_no')}, recipe_version_no)`,
    })
    .where('id', '=', param('id')),
);

/** A job's end as a caller waiting for it reads it (from any node). */
export type EndedJob = Pick<JobRow, 'handle' | 'status' | 'error' | 'error_parts' | 'task_count' | 'reply'>;

/**
 * Those of the jobs `handles` names that have ended (succeeded, failed or canceled), by the
 * unique handle: what a caller on another node than the one that ran the job answers with.
 */
export async function endedJobsAmong(db: Db, handles: readonly string[]): Promise<EndedJob[]> {
  if (handles.length === 0) return [];
  return db
    .selectFrom('jobs')
    .select(['handle', 'status', 'error', 'error_parts', 'task_count', 'reply'])
    .where('handle', 'in', handles)
    .where('status', 'in', ['succeeded', 'failed', 'canceled'])
    .execute();
}

/**
 * A line's fields in a row of job_line_sets, in this order (its job is the row's): the view
 * job_line_rows (migration 0083) reads them by these positions.
 */
const LINE_SET_FIELDS = [
  'seq',
  'recipe_line_number',
  'adapter_name',
  'adapter_operation',
  'pass',
  'input',
  'output',
  'error',
  'mask_data',
  'started_at',
  'completed_at',
] as const satisfies ReadonlyArray<keyof JobLineRow>;
// Every field of a line is kept: a column added to the lines and not here fails the type check.
const _everyLineField: [Exclude<keyof JobLineRow, 'job_id' | (typeof LINE_SET_FIELDS)[number]>] extends [never]
  ? true
  : never = true;

/** The lines a job recorded at once, as its row of job_line_sets. */
export type LineSet = { job_id: number; seq: number; lines: string };

/**
 * Characters of one row's `lines` beyond which the next line starts a new row. A job keeps up to
 * 5,000 lines of up to 100,000 characters of input and as much of output each: as one text, that
 * could pass the longest string JavaScript makes and the 1 GB a value takes in either database.
 */
export const LINE_SET_MAX_CHARS = 1_000_000;

/**
 * Lines as rows of job_line_sets: each run of consecutive lines of one job is one row (or several,
 * each within LINE_SET_MAX_CHARS but for a single line larger than that), at the seq of its first
 * line, its lines a JSON array of their fields (LINE_SET_FIELDS).
 */
export function lineSets(lines: readonly JobLineRow[]): LineSet[] {
  const sets: LineSet[] = [];
  let i = 0;
  while (i < lines.length) {
    const first = lines[i]!;
    const encoded: string[] = [];
    let chars = 0;
    for (; i < lines.length && lines[i]!.job_id === first.job_id; i++) {
      const line = lines[i]!;
      const text = JSON.stringify(LINE_SET_FIELDS.map((field) => storableValue(line[field])));
      if (encoded.length > 0 && chars + text.length > LINE_SET_MAX_CHARS) break;
      encoded.push(text);
      chars += text.length + 1;
    }
    sets.push({ job_id: first.job_id, seq: first.seq, lines: `[${encoded.join(',')}]` });
  }
  return sets;
}

/**
 * Line sets' texts as one, for PostgreSQL to split with `string_to_array(text, chr(31))`: each is
 * JSON, in which every control character is escaped, so the unit separator occurs in none of them
 * (migration 0084). No sets: the empty text, which splits into no element.
 */
export function joinedLines(sets: readonly LineSet[]): string {
  return sets.map((set) => set.lines).join('\u001f');
}

const insertLineSetQuery = prepareQuery<LineSet, never>((db, param) =>
  db.insertInto('job_line_sets').values({ job_id: param('job_id'), seq: param('seq'), lines: param('lines') }),
);

/**
 * Insert lines of jobs, one row of job_line_sets for each job's. Where lines hold no foreign key
 * to their job (jobLinesCheckedByStatements: PostgreSQL), one statement inserts those of jobs it
 * finds and locks for key share (the lock a foreign key's check takes), so that no line outlives
 * its job; a job deleted already gets none.
 */
export async function insertLines(db: Db, lines: JobLineRow[]): Promise<void> {
  if (lines.length === 0) return;
  const sets = lineSets(lines);
  if (jobLinesCheckedByStatements(db)) {
    const jobIds = pgArray(sets.map((set) => set.job_id));
    await sql`insert into job_line_sets (job_id, seq, lines)
      select s.* from unnest(${jobIds}::bigint[], ${pgArray(sets.map((set) => set.seq))}::int[],
          string_to_array(${joinedLines(sets)}::text, chr(31))) as s(job_id, seq, lines)
        where s.job_id in (select id from jobs where id = any(${jobIds}::bigint[]) for key share)`.execute(db);
    return;
  }
  for (const set of sets) await insertLineSetQuery.execute(db, set);
}

/** Jobs left `running` by a process that died: the documented recovery marks them failed. */
/**
 * Jobs left running by a node that died. `leaseExpiredBefore` unset: every running job (one
 * process owns the database and has just started). Set: only those whose claim ran out then, or
 * that were never given one.
 */
export async function interruptedJobs(
  db: Db,
  leaseExpiredBefore?: string,
): Promise<Array<Pick<JobRow, 'id' | 'recipe_id' | 'handle' | 'is_test'>>> {
  let query = db.selectFrom('jobs').select(['id', 'recipe_id', 'handle', 'is_test']).where('status', '=', 'running');
  if (leaseExpiredBefore !== undefined)
    query = query.where((eb) =>
      eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<', leaseExpiredBefore)]),
    );
  return query.orderBy('id').limit(1000).execute();
}

/** Fail a job left running by a dead node, unless another node did it first; true when this call did. */
export async function failInterruptedJob(
  db: Db,
  id: number,
  result: JobResult,
  leaseExpiredBefore?: string,
): Promise<boolean> {
  let query = db
    .updateTable('jobs')
    .set({
      status: result.status,
      error: storableTextOrNull(result.error),
      error_parts: result.error_parts,
      completed_at: result.completed_at,
      task_count: result.task_count,
    })
    .where('id', '=', id)
    .where('status', '=', 'running');
  if (leaseExpiredBefore !== undefined)
    query = query.where((eb) =>
      eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<', leaseExpiredBefore)]),
    );
  const { numUpdatedRows } = await query.executeTakeFirst();
  return numUpdatedRows > 0n;
}

/** Pending (queued or running) jobs by recipe, with the recipe's workspace: the engine's backlog counts start from these. */
export async function pendingJobCounts(db: Db): Promise<Array<{ recipe_id: number; workspace_id: number; n: number }>> {
  const rows = await db
    .selectFrom('jobs as j')
    .innerJoin('recipes as r', 'r.id', 'j.recipe_id')
    .select((eb) => ['j.recipe_id', 'r.workspace_id', eb.fn.countAll<number>().as('n')])
    .where('j.status', 'in', ['queued', 'running'])
    .groupBy(['j.recipe_id', 'r.workspace_id'])
    .execute();
  return rows.map((r) => ({ recipe_id: Number(r.recipe_id), workspace_id: Number(r.workspace_id), n: Number(r.n) }));
}

export async function countQueued(db: Db): Promise<number> {
  const row = await db
    .selectFrom('jobs')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('status', 'in', ['queued', 'running'])
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A line's input or output kept whole beside it (job_line_values); written again, it is left as it is. */
export interface LineValueRow {
  job_id: number;
  seq: number;
  field: 'input' | 'output';
  value: string;
}

/** Store large line values, one statement each (each may be megabytes): idempotent, so an end stored again repeats it. */
export async function insertLineValues(db: Db, values: readonly LineValueRow[]): Promise<void> {
  for (const row of values)
    await db
      .insertInto('job_line_values')
      .values(row)
      .onConflict((oc) => oc.columns(['job_id', 'seq', 'field']).doNothing())
      .execute();
}
