// Test cases and run requests: rows and their API shapes (contract 16 §4, §6).
import { randomInt } from 'node:crypto';
import { sql } from 'kysely';
import type { Db, TestCaseRow, TestRunRequestRow } from '../../db/types.ts';
import { toApiTimestamp } from '../../time.ts';
import type { TestCaseDoc } from './test-case-doc.ts';

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function chars(n: number): string {
  let out = '';
  for (let i = 0; i < n; i += 1) out += ALPHANUMERIC[randomInt(ALPHANUMERIC.length)];
  return out;
}

/** `citc-` or `cirr-`, 8 and 6 alphanumerics (contract 16 §1). */
export function newId(prefix: 'citc' | 'cirr'): string {
  return `${prefix}-${chars(8)}-${chars(6)}`;
}

export interface TestCaseSummary {
  id: string;
  name: string;
  description: string;
  recipe_id: number;
  created_at: string;
  updated_at: string;
}

export type TestCaseApi = TestCaseSummary & TestCaseDoc;

export function summaryOf(row: Omit<TestCaseRow, 'position'>): TestCaseSummary {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    recipe_id: row.recipe_id,
    created_at: toApiTimestamp(row.created_at),
    updated_at: toApiTimestamp(row.updated_at),
  };
}

export function testCaseToApi(row: Omit<TestCaseRow, 'position'>): TestCaseApi {
  return { ...summaryOf(row), ...(JSON.parse(row.body) as TestCaseDoc) };
}

export async function listTestCases(db: Db, recipeIds: readonly number[]): Promise<TestCaseRow[]> {
  if (recipeIds.length === 0) return [];
  return db
    .selectFrom('test_cases')
    .selectAll()
    .where('recipe_id', 'in', [...recipeIds])
    .orderBy('recipe_id')
    .orderBy('position')
    .orderBy('id')
    .execute();
}

export async function findTestCase(db: Db, id: string): Promise<TestCaseRow | undefined> {
  return db.selectFrom('test_cases').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Inserted after the recipe's other test cases: `position` is one more than theirs. */
export async function insertTestCase(db: Db, row: Omit<TestCaseRow, 'position'>): Promise<void> {
  await db
    .insertInto('test_cases')
    .values({ ...row, position: nextPosition(row.recipe_id) })
    .execute();
}

function nextPosition(recipeId: number) {
  return sql<number>`(select coalesce(max(position), 0) + 1 from test_cases where recipe_id = ${recipeId})`;
}

export async function updateTestCase(
  db: Db,
  id: string,
  values: Partial<Omit<TestCaseRow, 'id' | 'recipe_id'>>,
): Promise<void> {
  await db.updateTable('test_cases').set(values).where('id', '=', id).execute();
}

export async function deleteTestCase(db: Db, id: string): Promise<void> {
  await db.deleteFrom('test_cases').where('id', '=', id).execute();
}

/** Replace a recipe's test cases by these (an import of its package file, or a copy of a recipe). */
export async function replaceTestCases(
  db: Db,
  recipeId: number,
  cases: ReadonlyArray<{ name: string; description: string; body: string }>,
  now: string,
): Promise<void> {
  const existing = await db.selectFrom('test_cases').select(['id', 'name']).where('recipe_id', '=', recipeId).execute();
  const byName = new Map(existing.map((r) => [r.name, r.id]));
  const keep = new Set<string>();
  for (const c of cases) {
    const id = byName.get(c.name);
    if (id) {
      keep.add(id);
      await db
        .updateTable('test_cases')
        .set({ description: c.description, body: c.body, updated_at: now })
        .where('id', '=', id)
        .execute();
    } else {
      await insertTestCase(db, {
        id: newId('citc'),
        recipe_id: recipeId,
        name: c.name,
        description: c.description,
        body: c.body,
        created_at: now,
        updated_at: now,
      });
    }
  }
  const gone = existing.filter((r) => !keep.has(r.id)).map((r) => r.id);
  if (gone.length > 0) await db.deleteFrom('test_cases').where('id', 'in', gone).execute();
}

export interface RunResult {
  recipe: { id: number; name: string };
  test_case: { id: string; name: string };
  job: { id: string; status: string } | null;
  status: 'pending' | 'succeeded' | 'failed';
  /** Why it failed (P). */
  failure?: string;
  /** Steps the job ran (for coverage; not shown). */
  steps?: number[];
}

export interface RunRequestApi {
  id: string;
  status: 'running' | 'completed';
  user: { id: number };
  created_at: string;
  updated_at: string;
  results: Array<Omit<RunResult, 'steps'>>;
  coverage?: { value: number };
}

export function runRequestToApi(row: TestRunRequestRow): RunRequestApi {
  const results = (JSON.parse(row.results) as RunResult[]).map(({ steps: _, ...r }) => r);
  return {
    id: row.id,
    status: row.status,
    user: { id: row.client_id },
    created_at: toApiTimestamp(row.created_at),
    updated_at: toApiTimestamp(row.updated_at),
    results,
    ...(row.status === 'completed' ? { coverage: { value: row.coverage ?? 0 } } : {}),
  };
}

export async function insertRunRequest(db: Db, row: TestRunRequestRow): Promise<void> {
  await db.insertInto('test_run_requests').values(row).execute();
}

export async function findRunRequest(
  db: Db,
  environmentId: number,
  id: string,
): Promise<TestRunRequestRow | undefined> {
  return db
    .selectFrom('test_run_requests')
    .selectAll()
    .where('id', '=', id)
    .where('environment_id', '=', environmentId)
    .executeTakeFirst();
}

export async function findRunRequestById(db: Db, id: string): Promise<TestRunRequestRow | undefined> {
  return db.selectFrom('test_run_requests').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function runningRunRequestIds(db: Db): Promise<string[]> {
  const rows = await db
    .selectFrom('test_run_requests')
    .select('id')
    .where('status', '=', 'running')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((r) => r.id);
}

export async function saveResults(
  db: Db,
  id: string,
  results: readonly RunResult[],
  now: string,
  completed?: { coverage: number },
): Promise<void> {
  await db
    .updateTable('test_run_requests')
    .set({
      results: JSON.stringify(results),
      updated_at: now,
      ...(completed ? { status: 'completed' as const, coverage: completed.coverage } : {}),
    })
    .where('id', '=', id)
    .execute();
}

/** An environment's latest run requests, newest first (the web console's list). */
export async function recentRunRequests(
  db: Db,
  workspaceId: number,
  environmentId: number,
  limit: number,
): Promise<TestRunRequestRow[]> {
  return db
    .selectFrom('test_run_requests')
    .selectAll()
    .where('environment_id', '=', environmentId)
    .where('workspace_id', '=', workspaceId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}
