// Helpers for recipe tests: datapill text, step builders, and a recipe created and started
// through the API, with its jobs read back (lines with their stored input and output).
import assert from 'node:assert/strict';
import type { TestApp } from './helpers.ts';

export type StepDoc = Record<string, unknown>;

/** `_dp('...')` for an output datapill (the form real exports use). */
export function dp(provider: string, line: string, ...path: Array<string | { path_element_type: string }>): string {
  return `_dp('${JSON.stringify({ pill_type: 'output', provider, line, path })}')`;
}

/** A text-mode value that is exactly one datapill (keeps the value's type). */
export function pill(provider: string, line: string, ...path: Array<string | { path_element_type: string }>): string {
  return `#{${dp(provider, line, ...path)}}`;
}

export const CURRENT = { path_element_type: 'current_item' };
export const SIZE = { path_element_type: 'size' };

let counter = 0;

/** Number the steps in pre-order and give each a uuid, as exports do. */
export function numbered(code: StepDoc): StepDoc {
  let n = 0;
  const visit = (s: StepDoc): StepDoc => {
    const out: StepDoc = { ...s, number: n++, uuid: (s.uuid as string | undefined) ?? `step-${++counter}` };
    if (Array.isArray(s.block)) out.block = (s.block as StepDoc[]).map(visit);
    return out;
  };
  return visit(code);
}

export function webhookTrigger(block: StepDoc[], extra: StepDoc = {}): StepDoc {
  return numbered({
    keyword: 'trigger',
    provider: 'workato_webhooks',
    name: 'new_event',
    as: 'hook',
    input: { webhook_suffix: 'event' },
    ...extra,
    block,
  });
}

export function action(provider: string, name: string, as: string, input: StepDoc, extra: StepDoc = {}): StepDoc {
  return { keyword: 'action', provider, name, as, input, ...extra };
}

export function log(as: string, message: string): StepDoc {
  return action('logger', 'log_message', as, { message });
}

export function condition(operand: string, lhs: string, rhs = ''): StepDoc {
  return { type: 'compound', operand: 'and', conditions: [{ operand, lhs, rhs, uuid: `c-${++counter}` }] };
}

/** A skill recipe: its parameters, then a return of `result` built from them. */
export function skillRecipe(
  description: string,
  parameters: Array<Record<string, unknown>>,
  result: Record<string, unknown>,
  middle: StepDoc[] = [],
): StepDoc {
  return numbered({
    keyword: 'trigger',
    provider: 'workato_skill',
    name: 'start_workflow',
    as: 'start',
    input: {
      description,
      requires_user_confirmation: 'false',
      parameters_schema_json: JSON.stringify(parameters),
      result_schema_json: JSON.stringify(Object.keys(result).map((name) => ({ name, type: 'string' }))),
    },
    block: [...middle, action('workato_skill', 'workflow_return_result', 'ret', { result })],
  });
}

export async function createRecipe(t: TestApp, code: StepDoc, extra: Record<string, unknown> = {}): Promise<number> {
  const res = await t.call('POST', '/api/recipes', {
    body: { recipe: { name: `Recipe ${++counter}`, code: JSON.stringify(code), ...extra } },
  });
  assert.equal(res.status, 200, res.text);
  return res.body.id as number;
}

export async function startRecipe(t: TestApp, id: number): Promise<void> {
  const res = await t.call('PUT', `/api/recipes/${id}/start`);
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(res.body, { success: true }, res.text);
}

/** Create and start a webhook recipe; returns its id and webhook path. */
export async function webhookRecipe(
  t: TestApp,
  block: StepDoc[],
  extra: Record<string, unknown> = {},
): Promise<{ id: number; path: string }> {
  const id = await createRecipe(t, webhookTrigger(block), extra);
  await startRecipe(t, id);
  const recipe = await t.call('GET', `/api/recipes/${id}`);
  return { id, path: new URL(recipe.body.webhook_url as string).pathname };
}

export interface StoredLine {
  n: number;
  adapter: string;
  operation: string;
  pass: number | null;
  input: unknown;
  output: unknown;
  error: string | null;
}

export interface RanJob {
  status: string;
  error: string | null;
  errorType: string | null;
  lines: StoredLine[];
  /** Stored output of the first line of step `n` (and of pass `pass`, when given). */
  output(n: number, pass?: number): unknown;
  input(n: number, pass?: number): unknown;
  ran(n: number): boolean;
}

/** Post one event to the recipe's webhook, wait for the job, and read it back. */
export async function fire(t: TestApp, path: string, payload: unknown): Promise<RanJob> {
  const res = await t.app.inject({ method: 'POST', url: path, payload: payload as Record<string, unknown> });
  assert.equal(res.statusCode, 200, res.body);
  await t.engine.idle();
  const job = await t.ctx.db.selectFrom('jobs').selectAll().orderBy('id', 'desc').executeTakeFirstOrThrow();
  return readJob(t, job.id);
}

export async function readJob(t: TestApp, jobId: number): Promise<RanJob> {
  const job = await t.ctx.db.selectFrom('jobs').selectAll().where('id', '=', jobId).executeTakeFirstOrThrow();
  const rows = await t.ctx.db
    .selectFrom('job_line_rows')
    .selectAll()
    .where('job_id', '=', jobId)
    .orderBy('seq')
    .execute();
  const lines: StoredLine[] = rows.map((r) => ({
    n: r.recipe_line_number,
    adapter: r.adapter_name,
    operation: r.adapter_operation,
    pass: r.pass,
    input: r.input === null ? undefined : JSON.parse(r.input),
    output: r.output === null ? undefined : JSON.parse(r.output),
    error: r.error,
  }));
  const find = (n: number, pass?: number) => lines.find((l) => l.n === n && (pass === undefined || l.pass === pass));
  return {
    status: job.status,
    error: job.error,
    errorType: job.error_parts ? (JSON.parse(job.error_parts) as { error_type: string }).error_type : null,
    lines,
    output: (n, pass) => find(n, pass)?.output,
    input: (n, pass) => find(n, pass)?.input,
    ran: (n) => lines.some((l) => l.n === n),
  };
}

/**
 * What the jobs of a recipe whose first step logs a message logged, in the order they were stored
 * (a failed step's error in its place), and its failed polls' errors apart.
 */
export async function loggedByJobs(t: TestApp, recipeId: number): Promise<{ messages: string[]; errors: string[] }> {
  await t.engine.idle();
  const jobs = await t.ctx.db
    .selectFrom('jobs')
    .select(['id', 'is_poll_error', 'error'])
    .where('recipe_id', '=', recipeId)
    .orderBy('id')
    .execute();
  const messages: string[] = [];
  const errors: string[] = [];
  for (const job of jobs) {
    if (job.is_poll_error) {
      errors.push(job.error ?? '');
      continue;
    }
    const line = await t.ctx.db
      .selectFrom('job_line_rows')
      .select(['output', 'error'])
      .where('job_id', '=', job.id)
      .where('recipe_line_number', '=', 1)
      .executeTakeFirst();
    messages.push((JSON.parse(line?.output ?? 'null') as { message: string } | null)?.message ?? String(line?.error));
  }
  return { messages, errors };
}
