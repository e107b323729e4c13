// Jobs and their lines (contract 10): the durable queue the engine claims from, and the history
// the API reads. One mapper to the API shape.
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { Db, JobLineRow, JobRow, JobState } from '../../db/types.ts';
import {
  ADVISORY_LOCKS,
  insertFromColumnArrays,
  isSharedByNodes,
  jobLinesCheckedByStatements,
  lockedSkippingLocked,
  runsStoredFunctions,
  tryTransactionLock,
} from '../../db/dialect.ts';
import { prepareQuery, type PreparedQuery } from '../../db/prepared.ts';
import { toApiTimestamp } from '../../time.ts';

export type ApiJobStatus = 'pending' | 'succeeded' | 'failed';

const HANDLE_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** `j-` + 8 + `-` + 7 characters, as the vendor's handles look (`j-KqM4tZ2w-Hc7pLs`). */
export function newJobHandle(): string {
  const bytes = randomBytes(15);
  const chars = [...bytes].map((b) => HANDLE_ALPHABET[b % HANDLE_ALPHABET.length]).join('');
  return `j-${chars.slice(0, 8)}-${chars.slice(8)}`;
}

export function apiStatus(state: JobState): ApiJobStatus {
  if (state === 'queued' || state === 'running' || state === 'waiting') return 'pending';
  return state === 'succeeded' ? 'succeeded' : 'failed';
}

function statesFor(status: ApiJobStatus): JobState[] {
  return status === 'pending'
    ? ['queued', 'running', 'waiting']
    : status === 'succeeded'
      ? ['succeeded']
      : ['failed', 'canceled'];
}

/** A job to store; a queued one has no claim yet (a test job, which runs at once, is claimed by its node). */
export type NewJob = Omit<JobRow, 'id' | 'claimed_by' | 'lease_expires_at'> &
  Partial<Pick<JobRow, 'claimed_by' | 'lease_expires_at'>>;

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
  const [row] = (await insertJobQuery.execute(db, { claimed_by: null, lease_expires_at: null, ...values })).rows;
  if (!row) throw new Error('insert into jobs returned no id');
  return row.id;
}

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
          JOB_COLUMNS.map((name) => jobs.map((job) => job[name] ?? null)),
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
 * Running recipes that have queued jobs. One index probe per running recipe (jobs_status_recipe),
 * so the cost does not grow with the backlog of queued jobs.
 */
export async function recipesWithQueuedJobs(db: Db): Promise<Array<{ recipe_id: number; concurrency: number }>> {
  return (await recipesWithQueuedJobsQuery.execute(db, {})).rows;
}

const recipesWithQueuedJobsQuery = prepareQuery<Record<string, never>, { recipe_id: number; concurrency: number }>(
  (db) =>
    db
      .selectFrom('recipes as r')
      .select(['r.id as recipe_id', 'r.concurrency'])
      .where('r.running', '=', 1)
      .where((eb) =>
        eb.exists(
          eb
            .selectFrom('jobs as j')
            .select('j.id')
            .where('j.status', '=', 'queued')
            .whereRef('j.recipe_id', '=', 'r.id'),
        ),
      )
      .orderBy('r.id'),
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
      started_at: param('now'),
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

/** A node's claims on the jobs it runs hold until `until` (the heartbeat of a running node). */
export async function renewJobLeases(db: Db, node: string, until: string): Promise<void> {
  await db
    .updateTable('jobs')
    .set({ lease_expires_at: until })
    .where('status', '=', 'running')
    .where('claimed_by', '=', node)
    .execute();
}

const claimJobsQuery = prepareQuery<JobClaim, JobRow>((db, param) =>
  db
    .updateTable('jobs')
    .set({
      status: 'running',
      started_at: param('now'),
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
};

export async function finishJob(db: Db, id: number, result: JobResult): Promise<void> {
  await finishJobQuery.execute(db, { id, ...result });
}

const finishJobQuery = prepareQuery<JobResult & { id: number }, never>((db, param) =>
  db
    .updateTable('jobs')
    .set({
      status: param('status'),
      error: param('error'),
      error_parts: param('error_parts'),
      completed_at: param('completed_at'),
      task_count: param('task_count'),
    })
    .where('id', '=', param('id')),
);

const LINE_COLUMNS = [
  'job_id',
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
const _everyLineColumn: [Exclude<keyof JobLineRow, (typeof LINE_COLUMNS)[number]>] extends [never] ? true : never =
  true;
/** Lines a statement: 12 values each, well within SQLite's limit of bound values. */
const LINES_PER_STATEMENT = 100;
/** One prepared insert per number of lines (jobs of a recipe mostly have the same count). */
/** The lines themselves; the placeholders are named `<line>.<column>` (read in place by `bind`). */
type LinesParams = { lines: readonly JobLineRow[] } & Record<string, unknown>;
const insertLinesQueries = new Map<number, PreparedQuery<LinesParams, never>>();

/** Placeholder `<line>.<column>` reads that column of that line in place; any other, the parameter of its name. */
function bindLineOrName<P extends LinesParams>(name: string): (params: P) => unknown {
  const dot = name.indexOf('.');
  if (dot < 0) return (params) => params[name];
  const index = Number(name.slice(0, dot));
  const column = name.slice(dot + 1) as keyof JobLineRow;
  return (params) => (params.lines[index] as JobLineRow)[column];
}

function insertLinesQuery(count: number): PreparedQuery<LinesParams, never> {
  let query = insertLinesQueries.get(count);
  if (query === undefined) {
    query = prepareQuery<LinesParams, never>(
      (db, param) =>
        db
          .insertInto('job_lines')
          .values(
            Array.from(
              { length: count },
              (_, i) =>
                Object.fromEntries(
                  LINE_COLUMNS.map((column) => [column, param(`${i}.${column}`)]),
                ) as unknown as JobLineRow,
            ),
          ),
      // Placeholder `<line>.<column>` reads that column of that line in place.
      { bind: bindLineOrName },
    );
    insertLinesQueries.set(count, query);
  }
  return query;
}

/**
 * Insert a job's lines. Where lines hold no foreign key to their job (jobLinesCheckedByStatements:
 * PostgreSQL), one statement inserts those of jobs it finds and locks for key share (the lock a
 * foreign key's check takes), so that no line outlives its job; a job deleted already gets none.
 */
export async function insertLines(db: Db, lines: JobLineRow[]): Promise<void> {
  if (lines.length === 0) return;
  if (jobLinesCheckedByStatements(db)) {
    await insertLinesOfLockedJobs.execute(db, {
      lines: JSON.stringify(lines),
      jobIds: [...new Set(lines.map((line) => line.job_id))],
    });
    return;
  }
  for (let i = 0; i < lines.length; i += LINES_PER_STATEMENT) {
    const chunk = lines.length <= LINES_PER_STATEMENT ? lines : lines.slice(i, i + LINES_PER_STATEMENT);
    await insertLinesQuery(chunk.length).execute(db, { lines: chunk });
  }
}

const insertLinesOfLockedJobs = prepareQuery<{ lines: string; jobIds: number[] }, never>((db, param) => {
  const query = sql<never>`insert into job_lines (${sql.join(LINE_COLUMNS.map((column) => sql.ref(column)))})
    select l.* from json_to_recordset(${param('lines')}::json) as l(job_id bigint, seq int, recipe_line_number int, adapter_name text,
      adapter_operation text, pass int, input text, output text, error text, mask_data int, started_at text, completed_at text)
    where l.job_id in (select id from jobs where id = any(${param('jobIds')}::bigint[]) for key share)`;
  return { compile: () => query.compile(db) };
});

/** What the end of a job adds to its recipe's counters. */
export async function countJobEnd(
  db: Db,
  recipeId: number,
  succeeded: boolean,
  taskCount: number,
  lastRunAt: string,
): Promise<void> {
  await (succeeded ? countSucceeded : countFailed).execute(db, { recipeId, taskCount, lastRunAt });
}

type CountParams = { recipeId: number; taskCount: number; lastRunAt: string };
const countSucceeded = prepareQuery<CountParams, never>((db, param) =>
  db
    .updateTable('recipes')
    .set((eb) => ({
      job_succeeded_count: eb('job_succeeded_count', '+', 1),
      lifetime_task_count: eb('lifetime_task_count', '+', param('taskCount')),
      last_run_at: param('lastRunAt'),
    }))
    .where('id', '=', param('recipeId')),
);
const countFailed = prepareQuery<CountParams, never>((db, param) =>
  db
    .updateTable('recipes')
    .set((eb) => ({
      job_failed_count: eb('job_failed_count', '+', 1),
      lifetime_task_count: eb('lifetime_task_count', '+', param('taskCount')),
      last_run_at: param('lastRunAt'),
    }))
    .where('id', '=', param('recipeId')),
);

/** What a job's end writes: its lines, its end state, and (unless a test case's) its recipe's counters. */
export type JobEnd = {
  id: number;
  lines: JobLineRow[];
  result: JobResult;
  counters: { recipeId: number; succeeded: boolean; taskCount: number; lastRunAt: string } | null;
};

/**
 * Record a job's end: its state, its lines and its recipe's counters, one statement each in the
 * caller's transaction (recordJobEnds makes many ends in one call where it can).
 */
export async function recordJobEnd(db: Db, end: JobEnd): Promise<void> {
  await finishJob(db, end.id, end.result);
  await insertLines(db, end.lines);
  if (end.counters)
    await countJobEnd(
      db,
      end.counters.recipeId,
      end.counters.succeeded,
      end.counters.taskCount,
      end.counters.lastRunAt,
    );
}

/** A job's end as a batch records it, with the claim of its successor (one job of its recipe) unless null. */
export type JobEndAndClaim = { end: JobEnd; successor: Omit<JobClaim, 'limit'> | null };

/** What a successor's claim got: the job (none when no job was queued), or `contended` (another node held the recipe). */
export type SuccessorClaim = { jobs: JobRow[]; contended: boolean };

/**
 * Record the ends of many jobs in the caller's transaction, then claim their successors: one
 * claim per recipe, of as many jobs as its ends asked successors for, handed out in the order of
 * the ends. Where the database runs stored functions (PostgreSQL), one call does it all (one round
 * trip): every line, every job's state, each recipe's counters summed (several jobs of a recipe
 * add up; its last run is the latest of theirs), then the claims. Otherwise each end as
 * recordJobEnd, then each claim as claimJobs.
 */
export async function recordJobEnds(db: Db, items: readonly JobEndAndClaim[]): Promise<SuccessorClaim[]> {
  return recordJobEndsAlone(db, items) ?? recordEachEnd(db, items);
}

/**
 * As recordJobEnds, as one statement that is its own transaction when `db` is not one (the
 * group commit's batch of nothing but job ends): undefined where that cannot be (SQLite, or more
 * lines than one call takes), for the caller to record them in a transaction.
 */
export function recordJobEndsAlone(db: Db, items: readonly JobEndAndClaim[]): Promise<SuccessorClaim[]> | undefined {
  const lineCount = items.reduce((n, item) => n + item.end.lines.length, 0);
  if (items.length === 0 || !runsStoredFunctions(db) || lineCount > MAX_LINES_IN_ONE_RECORD) return undefined;
  return recordInOneCall(db, items);
}

/** The indexes of the items asking a successor of each recipe, in the items' order. */
function successorsByRecipe(items: readonly JobEndAndClaim[]): Map<number, number[]> {
  const byRecipe = new Map<number, number[]>();
  items.forEach((item, i) => {
    if (item.successor === null) return;
    const asking = byRecipe.get(item.successor.recipeId);
    if (asking) asking.push(i);
    else byRecipe.set(item.successor.recipeId, [i]);
  });
  return byRecipe;
}

/** Each recipe's claimed jobs (oldest first) handed to the items that asked, in their order. */
function handOut(
  items: readonly JobEndAndClaim[],
  byRecipe: Map<number, number[]>,
  claimed: (recipeId: number) => { jobs: JobRow[]; contended: boolean },
): SuccessorClaim[] {
  const results = items.map((): SuccessorClaim => ({ jobs: [], contended: false }));
  for (const [recipeId, asking] of byRecipe) {
    const { jobs, contended } = claimed(recipeId);
    asking.forEach((index, k) => {
      const job = jobs[k];
      results[index] = { jobs: job ? [job] : [], contended };
    });
  }
  return results;
}

async function recordEachEnd(db: Db, items: readonly JobEndAndClaim[]): Promise<SuccessorClaim[]> {
  for (const item of items) await recordJobEnd(db, item.end);
  const byRecipe = successorsByRecipe(items);
  const claims = new Map<number, { jobs: JobRow[]; contended: boolean }>();
  for (const [recipeId, asking] of byRecipe) {
    const first = items[asking[0] as number]!.successor!;
    claims.set(recipeId, await claimJobs(db, { ...first, recipeId, limit: asking.length }));
  }
  return handOut(items, byRecipe, (recipeId) => claims.get(recipeId)!);
}

/** Lines of all the ends one call records at most (its parameters stay a few megabytes at most). */
const MAX_LINES_IN_ONE_RECORD = 5_000;

/**
 * PostgreSQL: the ends of many jobs and their successors' claims in one call of
 * switchboard_job_ends_1 (migration 0024). The lines travel as one JSON parameter and every other
 * column as one array, so the statement's text is the same whatever the number of jobs and lines.
 * The claims try the same claim lock as claimJobs: a recipe whose lock another transaction holds
 * comes back as a row with no id, and its ends' claims are `contended` (their places go back to
 * the dispatcher).
 */
async function recordInOneCall(db: Db, items: readonly JobEndAndClaim[]): Promise<SuccessorClaim[]> {
  const ends = items.map((item) => item.end);
  const lines = ends.flatMap((end) => end.lines);
  const counters = new Map<number, { succeeded: number; failed: number; tasks: number; last: string }>();
  for (const end of ends) {
    const c = end.counters;
    if (c === null) continue;
    const sum = counters.get(c.recipeId) ?? { succeeded: 0, failed: 0, tasks: 0, last: c.lastRunAt };
    if (c.succeeded) sum.succeeded += 1;
    else sum.failed += 1;
    sum.tasks += c.taskCount;
    if (c.lastRunAt > sum.last) sum.last = c.lastRunAt;
    counters.set(c.recipeId, sum);
  }
  const sums = [...counters.entries()].sort(([a], [b]) => a - b);
  const byRecipe = successorsByRecipe(items);
  // In the order of the recipes' ids, as every call takes their rows' and claim locks.
  const claims = [...byRecipe.entries()].sort(([a], [b]) => a - b);
  // Every successor of a batch is claimed with the time and lease of the first end asking (the
  // ends of a batch are milliseconds apart) and this node.
  const claim =
    claims.length > 0 ? items[claims[0]![1][0] as number]!.successor! : { now: '', node: '', leaseUntil: '' };
  const { rows } = await sql<JobRow>`select * from switchboard_job_ends_1(
      ${JSON.stringify(lines)}::json,
      ${ends.map((e) => e.id)}::bigint[], ${ends.map((e) => e.result.status)}::text[], ${ends.map((e) => e.result.error)}::text[],
      ${ends.map((e) => e.result.error_parts)}::text[], ${ends.map((e) => e.result.completed_at)}::text[], ${ends.map((e) => e.result.task_count)}::int[],
      ${sums.map(([id]) => id)}::bigint[], ${sums.map(([, c]) => c.succeeded)}::int[], ${sums.map(([, c]) => c.failed)}::int[],
      ${sums.map(([, c]) => c.tasks)}::bigint[], ${sums.map(([, c]) => c.last)}::text[],
      ${claims.map(([id]) => id)}::bigint[], ${claims.map(([, asking]) => asking.length)}::int[], ${ADVISORY_LOCKS.recipeClaims}::int,
      ${claim.now}::text, ${claim.node}::text, ${claim.leaseUntil}::text)`.execute(db);
  const claimed = new Map<number, { jobs: JobRow[]; contended: boolean }>(
    claims.map(([id]) => [id, { jobs: [], contended: false }]),
  );
  for (const row of rows as Array<Omit<JobRow, 'id'> & { id: number | null }>) {
    const of = claimed.get(row.recipe_id);
    if (of === undefined) continue;
    if (row.id === null) of.contended = true;
    else of.jobs.push(row as JobRow);
  }
  for (const of of claimed.values()) of.jobs.sort((a, b) => a.id - b.id);
  return handOut(items, byRecipe, (recipeId) => claimed.get(recipeId)!);
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
      error: result.error,
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

// Retention (retention.ts): finished jobs that ended before a cutoff are deleted with their lines,
// a bounded batch per statement. A pending job has no `completed_at`, so it is never chosen.

/** Up to `limit` jobs that ended before `cutoff`, oldest end first (the partial index jobs_completed). */
export async function expiredJobIds(db: Db, cutoff: string, limit: number): Promise<number[]> {
  const rows = await db
    .selectFrom('jobs')
    .select('id')
    .where('completed_at', '<', cutoff)
    .orderBy('completed_at')
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}

/** Delete up to `limit` lines of these jobs; returns how many went (fewer than `limit`: none is left). */
export async function deleteLinesOfJobs(db: Db, jobIds: readonly number[], limit: number): Promise<number> {
  if (jobIds.length === 0) return 0;
  const result = await db
    .deleteFrom('job_lines')
    .where((eb) =>
      eb(
        eb.refTuple('job_id', 'seq'),
        'in',
        eb
          .selectFrom('job_lines')
          .select(['job_id', 'seq'])
          .where('job_id', 'in', jobIds)
          .limit(limit)
          .$asTuple('job_id', 'seq'),
      ),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Delete these jobs if they ended before `cutoff` (their lines first: deleteLinesOfJobs). */
export async function deleteExpiredJobs(db: Db, jobIds: readonly number[], cutoff: string): Promise<number> {
  if (jobIds.length === 0) return 0;
  const result = await db
    .deleteFrom('jobs')
    .where('id', 'in', jobIds)
    .where('completed_at', '<', cutoff)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function findJob(db: Db, recipeId: number, handleOrId: string): Promise<JobRow | undefined> {
  let q = db.selectFrom('jobs').selectAll().where('recipe_id', '=', recipeId);
  q = /^\d{1,15}$/.test(handleOrId)
    ? q.where((eb) => eb.or([eb('handle', '=', handleOrId), eb('id', '=', Number(handleOrId))]))
    : q.where('handle', '=', handleOrId);
  return q.executeTakeFirst();
}

/** The jobs a job started (recipe function calls), oldest first: what `wait_for_async_jobs` waits for. */
export async function jobsCalledBy(
  db: Db,
  callingJobHandle: string,
  limit: number,
): Promise<Array<Pick<JobRow, 'handle' | 'recipe_id' | 'status' | 'error'>>> {
  return db
    .selectFrom('jobs')
    .select(['handle', 'recipe_id', 'status', 'error'])
    .where('calling_job_handle', '=', callingJobHandle)
    .orderBy('id')
    .limit(limit)
    .execute();
}

export async function listLines(db: Db, jobId: number): Promise<JobLineRow[]> {
  return db.selectFrom('job_lines').selectAll().where('job_id', '=', jobId).orderBy('seq').execute();
}

export interface JobListFilters {
  status?: ApiJobStatus;
  rerunOnly: boolean;
}

export async function listJobs(
  db: Db,
  recipeId: number,
  filters: JobListFilters,
  cursor: { job: JobRow; newer: boolean } | null,
  perPage: number,
): Promise<JobRow[]> {
  // One query per engine state: each walks its index range (recipe_id, status, started_at, id) in
  // order from the cursor and stops after a page, however many jobs the recipe has; the pages are
  // merged here. The cursor is a row-value comparison, so it bounds the index range (an OR of two
  // comparisons would not).
  const states = filters.status ? statesFor(filters.status) : [null];
  const pages = await Promise.all(
    states.map((state) => {
      let q = db.selectFrom('jobs').selectAll().where('recipe_id', '=', recipeId);
      if (state !== null) q = q.where('status', '=', state);
      if (filters.rerunOnly) q = q.where('is_repeat', '=', 1);
      if (cursor) {
        const { started_at: at, id } = cursor.job;
        q = q.where((eb) => eb(eb.refTuple('started_at', 'id'), cursor.newer ? '>' : '<', eb.tuple(at, id)));
      }
      const direction = cursor?.newer ? 'asc' : 'desc';
      return q.orderBy('started_at', direction).orderBy('id', direction).limit(perPage).execute();
    }),
  );
  const newestFirst = (a: JobRow, b: JobRow) =>
    a.started_at < b.started_at ? 1 : a.started_at > b.started_at ? -1 : b.id - a.id;
  const rows =
    pages.length === 1
      ? (pages[0] as JobRow[])
      : pages
          .flat()
          .sort((a, b) => (cursor?.newer ? -newestFirst(a, b) : newestFirst(a, b)))
          .slice(0, perPage);
  // The page of jobs just newer than the cursor is read oldest first, and shown newest first like every page.
  return cursor?.newer ? rows.reverse() : rows;
}

export interface JobCounters {
  succeeded: number;
  failed: number;
  pending: number;
}

/**
 * The recipe's lifetime counters and its pending jobs, read in one statement so they agree. The
 * counters outlive the jobs that retention deletes; pending jobs are never deleted.
 */
export async function jobCounters(db: Db, recipeId: number): Promise<JobCounters> {
  const row = await db
    .selectFrom('recipes as r')
    .select((eb) => [
      'r.job_succeeded_count',
      'r.job_failed_count',
      eb
        .selectFrom('jobs as j')
        .select((e) => e.fn.countAll<number>().as('n'))
        .where('j.status', 'in', ['queued', 'running', 'waiting'])
        .whereRef('j.recipe_id', '=', 'r.id')
        .as('pending'),
    ])
    .where('r.id', '=', recipeId)
    .executeTakeFirstOrThrow();
  return { succeeded: row.job_succeeded_count, failed: row.job_failed_count, pending: Number(row.pending ?? 0) };
}

/** Jobs of the recipe still kept (not deleted by retention) under these filters. */
export async function countRetainedJobs(db: Db, recipeId: number, filters: JobListFilters): Promise<number> {
  let q = db
    .selectFrom('jobs')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('recipe_id', '=', recipeId);
  if (filters.status) q = q.where('status', 'in', statesFor(filters.status));
  if (filters.rerunOnly) q = q.where('is_repeat', '=', 1);
  return Number((await q.executeTakeFirstOrThrow()).n);
}

export interface ErrorPartsApi {
  adapter: string | null;
  error_type: string;
  message: string;
  error_id: string;
  error_at: string;
  input: string;
  inner_message: string | null;
}

export interface JobApi {
  id: string;
  flow_run_id: number;
  recipe_id: number;
  title: string;
  status: ApiJobStatus;
  started_at: string;
  completed_at: string | null;
  is_error: boolean;
  is_poll_error: boolean;
  error: string | null;
  error_parts?: ErrorPartsApi;
  master_job_id: string | null;
  calling_recipe_id: number | null;
  calling_job_id: string | null;
  root_recipe_id: number | null;
  root_job_id: string | null;
}

export interface JobDetailApi extends JobApi {
  handle: string;
  is_repeat: boolean;
  is_test: boolean;
  is_test_case_job: boolean;
  master_job_handle: string | null;
  calling_job_handle: string | null;
  lines: LineApi[];
}

export interface LineApi {
  recipe_line_number: number;
  adapter_name: string;
  adapter_operation: string;
  mask_data: boolean;
  error?: string;
  line_stat: { total: number; started_at: string; completed_at: string };
}

function errorPartsOf(text: string | null): ErrorPartsApi | undefined {
  if (!text) return undefined;
  try {
    const p = JSON.parse(text) as Record<string, unknown>;
    const str = (v: unknown) => (typeof v === 'string' ? v : null);
    return {
      adapter: str(p.adapter),
      error_type: str(p.error_type) ?? 'Error',
      message: str(p.message) ?? '',
      error_id: str(p.error_id) ?? '',
      error_at: toApiTimestamp(str(p.error_at) ?? new Date(0).toISOString()),
      input: '<redacted>',
      inner_message: str(p.inner_message),
    };
  } catch {
    return undefined;
  }
}

export function jobToApi(row: JobRow): JobApi {
  const failed = row.status === 'failed' || row.status === 'canceled';
  const parts = failed ? errorPartsOf(row.error_parts) : undefined;
  return {
    id: row.handle,
    flow_run_id: row.id,
    recipe_id: row.recipe_id,
    title: row.title,
    status: apiStatus(row.status),
    started_at: toApiTimestamp(row.started_at),
    completed_at: toApiTimestamp(row.completed_at),
    is_error: failed,
    is_poll_error: row.is_poll_error === 1,
    error: failed ? row.error : null,
    ...(parts ? { error_parts: parts } : {}),
    master_job_id: row.master_job_handle,
    calling_recipe_id: row.calling_recipe_id,
    calling_job_id: row.calling_job_handle,
    root_recipe_id: row.root_recipe_id,
    root_job_id: row.root_job_handle,
  };
}

export function jobDetailToApi(row: JobRow, lines: JobLineRow[]): JobDetailApi {
  return {
    ...jobToApi(row),
    handle: row.handle,
    is_repeat: row.is_repeat === 1,
    is_test: row.is_test === 1,
    is_test_case_job: row.is_test === 1,
    master_job_handle: row.master_job_handle,
    calling_job_handle: row.calling_job_handle,
    lines: lines.map((line) => ({
      recipe_line_number: line.recipe_line_number,
      adapter_name: line.adapter_name,
      adapter_operation: line.adapter_operation,
      mask_data: line.mask_data === 1,
      ...(line.error !== null ? { error: line.error } : {}),
      line_stat: {
        total: Math.max(0, Date.parse(line.completed_at) - Date.parse(line.started_at)) / 1000,
        started_at: toApiTimestamp(line.started_at),
        completed_at: toApiTimestamp(line.completed_at),
      },
    })),
  };
}

export async function findJobById(db: Db, id: number): Promise<JobRow> {
  return db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

/** Cancel a job still queued (repeat and cancel routes); false when it was claimed or ended meanwhile. */
export async function cancelQueuedJob(db: Db, id: number, now: string): Promise<boolean> {
  const result = await db
    .updateTable('jobs')
    .set({
      status: 'canceled',
      error: 'Canceled: the job was canceled before it ran',
      error_parts: JSON.stringify({
        adapter: 'workato',
        error_type: 'Canceled',
        message: 'the job was canceled before it ran',
        error_at: now,
        input: '<redacted>',
        inner_message: null,
      }),
      completed_at: now,
    })
    .where('id', '=', id)
    .where('status', '=', 'queued')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Pending (queued, running or waiting for a workflow task) jobs of a recipe, oldest first. */
export async function pendingJobsOf(db: Db, recipeId: number, limit: number): Promise<JobRow[]> {
  return db
    .selectFrom('jobs')
    .selectAll()
    .where('recipe_id', '=', recipeId)
    .where('status', 'in', ['queued', 'running', 'waiting'])
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** Finished jobs of an environment per minute since a time (the console's dashboard chart). */
export async function jobsPerMinute(
  db: Db,
  environmentId: number,
  since: string,
  folderIds: readonly number[] | null,
): Promise<Array<{ minute: string; status: string; n: number }>> {
  if (folderIds !== null && folderIds.length === 0) return [];
  let q = db
    .selectFrom('jobs as j')
    .innerJoin('recipes as r', 'r.id', 'j.recipe_id')
    .select((eb) => [
      eb.fn<string>('substr', ['j.completed_at', eb.val(1), eb.val(16)]).as('minute'),
      'j.status',
      eb.fn.countAll<number | string>().as('n'),
    ])
    .where('j.completed_at', '>=', since)
    .where('j.status', 'in', ['succeeded', 'failed'])
    .where('r.environment_id', '=', environmentId);
  if (folderIds !== null) q = q.where('r.folder_id', 'in', folderIds);
  const rows = await q.groupBy(['minute', 'j.status']).execute();
  return rows.map((r) => ({ minute: r.minute, status: r.status, n: Number(r.n) }));
}

/** The latest failed jobs of an environment, with their recipe's name. */
export async function recentFailedJobs(
  db: Db,
  environmentId: number,
  folderIds: readonly number[] | null,
  limit: number,
) {
  if (folderIds !== null && folderIds.length === 0) return [];
  let q = db
    .selectFrom('jobs as j')
    .innerJoin('recipes as r', 'r.id', 'j.recipe_id')
    .select(['j.handle', 'j.recipe_id', 'j.title', 'j.error', 'j.completed_at', 'r.name as recipe_name', 'r.folder_id'])
    .where('j.status', '=', 'failed')
    .where('r.environment_id', '=', environmentId);
  if (folderIds !== null) q = q.where('r.folder_id', 'in', folderIds);
  return q.orderBy('j.completed_at', 'desc').limit(limit).execute();
}
