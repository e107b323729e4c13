// The test case document (our format; README): where a job starts (the trigger's output), which
// steps are mocked, and what is expected of the job. Checked against the recipe's steps when it
// is saved; evaluated against the job's lines after a run.
import type { FieldErrors } from '../../errors.ts';
import { MAX_EVENT_DEPTH, nestedDeeperThan } from '../../recipe/formula/values.ts';
import { parseCode, stepsOf } from '../export_manifests/references.ts';

export interface MockDoc {
  step: string;
  output?: unknown;
  error?: { type: string; message: string };
}

export type ExpectationDoc =
  | { job_status: 'succeeded' | 'failed' }
  | { step: string; ran: boolean }
  | { step: string; failed: true; error_contains?: string }
  | { step: string; output_path?: string[]; equals?: unknown; contains?: unknown; present?: boolean };

export interface TestCaseDoc {
  trigger_output: Record<string, unknown>;
  mocks: MockDoc[];
  expectations: ExpectationDoc[];
  allow_external: boolean;
}

export const MAX_MOCKS = 200;
export const MAX_EXPECTATIONS = 200;
const MAX_DOC_BYTES = 1024 * 1024;

type Obj = Record<string, unknown>;
function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The steps of a recipe: alias -> number, and every number. */
export interface StepIndex {
  byAlias: Map<string, number>;
  numbers: Set<number>;
  /** The steps that do something (the trigger and the actions): what coverage counts. */
  counted: Set<number>;
}

export function stepIndex(code: string): StepIndex {
  const byAlias = new Map<string, number>();
  const numbers = new Set<number>();
  const counted = new Set<number>();
  for (const step of stepsOf(parseCode(code))) {
    if (typeof step.number !== 'number') continue;
    numbers.add(step.number);
    if (step.keyword === 'trigger' || step.keyword === 'action') counted.add(step.number);
    if (typeof step.as === 'string' && step.as !== '') byAlias.set(step.as, step.number);
  }
  return { byAlias, numbers, counted };
}

/** A step reference: its alias (`as`), `#<number>`, or the number itself. */
export function stepNumber(index: StepIndex, ref: string): number | undefined {
  const alias = index.byAlias.get(ref);
  if (alias !== undefined) return alias;
  const m = /^#?(\d{1,6})$/.exec(ref);
  return m && index.numbers.has(Number(m[1])) ? Number(m[1]) : undefined;
}

function refOf(value: unknown): string | undefined {
  if (typeof value === 'string' && value.trim() !== '') return value.trim();
  if (typeof value === 'number' && Number.isInteger(value)) return `#${value}`;
  return undefined;
}

/** Check a document; field errors name what is wrong. */
export function checkDoc(raw: Obj, index: StepIndex, errors: FieldErrors): TestCaseDoc {
  const doc: TestCaseDoc = { trigger_output: {}, mocks: [], expectations: [], allow_external: false };
  // A trigger output nests at most as deep as a recipe event may; a mock or an expectation holds
  // one two levels down. Checked without recursion, before anything walks the document.
  const depths = { trigger_output: MAX_EVENT_DEPTH, mocks: MAX_EVENT_DEPTH + 2, expectations: MAX_EVENT_DEPTH + 2 };
  let tooDeep = false;
  for (const [field, max] of Object.entries(depths)) {
    const value = raw[field];
    if (typeof value !== 'object' || value === null || !nestedDeeperThan(value, max)) continue;
    errors[field] = [`nests objects and arrays more than ${max} levels deep`];
    tooDeep = true;
  }
  if (tooDeep) return doc;
  if (JSON.stringify(raw).length > MAX_DOC_BYTES) {
    errors.test_case = [`is larger than ${MAX_DOC_BYTES} bytes`];
    return doc;
  }
  if (raw.trigger_output !== undefined && raw.trigger_output !== null) {
    if (!isObj(raw.trigger_output))
      errors.trigger_output = ['must be an object: the output of the trigger, as its datapills read it'];
    else doc.trigger_output = raw.trigger_output;
  }
  if (raw.allow_external !== undefined) {
    if (typeof raw.allow_external !== 'boolean') errors.allow_external = ['must be true or false'];
    else doc.allow_external = raw.allow_external;
  }
  const mocks = raw.mocks ?? [];
  if (!Array.isArray(mocks) || mocks.length > MAX_MOCKS)
    errors.mocks = [`must be a list of at most ${MAX_MOCKS} mocks`];
  else {
    const seen = new Set<number>();
    mocks.forEach((m, i) => {
      const at = `mocks[${i}]`;
      if (!isObj(m)) return void (errors[at] = ['must be an object']);
      const ref = refOf(m.step);
      const n = ref === undefined ? undefined : stepNumber(index, ref);
      if (ref === undefined) errors[`${at}.step`] = ['must name a step: its alias (as) or #number'];
      else if (n === undefined) errors[`${at}.step`] = [`names no step of the recipe: ${ref}`];
      else if (n === 0) errors[`${at}.step`] = ['cannot mock the trigger: give its output as trigger_output'];
      else if (seen.has(n)) errors[`${at}.step`] = ['is mocked twice'];
      if (n !== undefined) seen.add(n);
      const hasError = m.error !== undefined;
      if (hasError) {
        const e = m.error;
        if (!isObj(e) || typeof e.message !== 'string' || (e.type !== undefined && typeof e.type !== 'string'))
          errors[`${at}.error`] = ['must be {type?, message}'];
        else if (ref !== undefined)
          doc.mocks.push({
            step: ref,
            error: { type: typeof e.type === 'string' && e.type !== '' ? e.type : 'Mock error', message: e.message },
          });
      } else if (ref !== undefined) doc.mocks.push({ step: ref, output: m.output ?? null });
    });
  }
  const expectations = raw.expectations ?? [];
  if (!Array.isArray(expectations) || expectations.length > MAX_EXPECTATIONS)
    errors.expectations = [`must be a list of at most ${MAX_EXPECTATIONS} expectations`];
  else {
    expectations.forEach((x, i) => {
      const at = `expectations[${i}]`;
      if (!isObj(x)) return void (errors[at] = ['must be an object']);
      if (x.job_status !== undefined) {
        if (x.job_status !== 'succeeded' && x.job_status !== 'failed')
          errors[`${at}.job_status`] = ['must be succeeded or failed'];
        else doc.expectations.push({ job_status: x.job_status });
        return;
      }
      const ref = refOf(x.step);
      if (ref === undefined) return void (errors[`${at}.step`] = ['must name a step, or give job_status']);
      if (stepNumber(index, ref) === undefined)
        return void (errors[`${at}.step`] = [`names no step of the recipe: ${ref}`]);
      if (x.ran !== undefined) {
        if (typeof x.ran !== 'boolean') errors[`${at}.ran`] = ['must be true or false'];
        else doc.expectations.push({ step: ref, ran: x.ran });
        return;
      }
      if (x.failed !== undefined) {
        if (x.failed !== true) errors[`${at}.failed`] = ['must be true (an expected failure)'];
        else if (x.error_contains !== undefined && typeof x.error_contains !== 'string')
          errors[`${at}.error_contains`] = ['must be a string'];
        else
          doc.expectations.push({
            step: ref,
            failed: true,
            ...(typeof x.error_contains === 'string' ? { error_contains: x.error_contains } : {}),
          });
        return;
      }
      const path =
        x.output_path === undefined
          ? []
          : typeof x.output_path === 'string'
            ? x.output_path.split('.').filter((p) => p !== '')
            : x.output_path;
      if (!Array.isArray(path) || !path.every((p) => typeof p === 'string'))
        return void (errors[`${at}.output_path`] = ['must be a list of keys or a dotted path']);
      const checks = ['equals', 'contains', 'present'].filter((k) => x[k] !== undefined);
      if (checks.length !== 1)
        return void (errors[at] = ['must give one of job_status, ran, failed, equals, contains or present']);
      if (x.present !== undefined && typeof x.present !== 'boolean')
        return void (errors[`${at}.present`] = ['must be true or false']);
      doc.expectations.push({
        step: ref,
        output_path: path as string[],
        ...(x.equals !== undefined ? { equals: x.equals } : {}),
        ...(x.contains !== undefined ? { contains: x.contains } : {}),
        ...(x.present !== undefined ? { present: x.present as boolean } : {}),
      });
    });
  }
  return doc;
}

export interface RanLine {
  recipe_line_number: number;
  output: string | null;
  error: string | null;
}

function equalJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (isObj(value))
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, canonical(value[k])]),
    );
  return value;
}

function show(value: unknown): string {
  const text = JSON.stringify(value);
  return text === undefined ? 'nothing' : text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/**
 * Whether a test case passed, and the first reason it did not. The job must succeed, or fail only
 * in steps with an expected failure (unless job_status says otherwise); every expectation must hold.
 */
export function evaluate(
  doc: TestCaseDoc,
  index: StepIndex,
  status: 'succeeded' | 'failed',
  jobError: string | null,
  lines: readonly RanLine[],
): string | null {
  const ran = (n: number) => lines.filter((l) => l.recipe_line_number === n);
  const expectedFailures = new Set<number>();
  for (const x of doc.expectations) {
    if (!('job_status' in x)) {
      const n = stepNumber(index, x.step);
      if (n === undefined) return `the step ${x.step} no longer exists in the recipe`;
      if ('failed' in x) expectedFailures.add(n);
    }
  }
  const statusExpectation = doc.expectations.find(
    (x): x is { job_status: 'succeeded' | 'failed' } => 'job_status' in x,
  );
  if (statusExpectation) {
    if (statusExpectation.job_status !== status)
      return `expected the job to be ${statusExpectation.job_status}, it ${status === 'failed' ? `failed: ${jobError ?? ''}` : 'succeeded'}`;
  } else if (status === 'failed') {
    const failing = lines.filter((l) => l.error !== null).map((l) => l.recipe_line_number);
    const unexpected = failing.find((n) => !expectedFailures.has(n));
    if (failing.length === 0 || unexpected !== undefined) return `the job failed: ${jobError ?? 'no error recorded'}`;
  }
  for (const x of doc.expectations) {
    if ('job_status' in x) continue;
    const n = stepNumber(index, x.step) as number;
    const mine = ran(n);
    if ('ran' in x) {
      if (x.ran && mine.length === 0) return `expected step ${x.step} to run; it did not`;
      if (!x.ran && mine.length > 0) return `expected step ${x.step} not to run; it ran`;
      continue;
    }
    if ('failed' in x) {
      const failed = mine.find((l) => l.error !== null);
      if (!failed) return `expected step ${x.step} to fail; it ${mine.length === 0 ? 'did not run' : 'succeeded'}`;
      if (x.error_contains !== undefined && !(failed.error ?? '').includes(x.error_contains))
        return `expected the error of step ${x.step} to contain ${show(x.error_contains)}, it was ${show(failed.error)}`;
      continue;
    }
    const last = mine.at(-1);
    if (!last) return `expected an output of step ${x.step}; the step did not run`;
    let value: unknown = last.output === null ? null : (JSON.parse(last.output) as unknown);
    for (const key of x.output_path ?? [])
      value = isObj(value) ? value[key] : Array.isArray(value) && /^\d+$/.test(key) ? value[Number(key)] : undefined;
    const where = `step ${x.step} output${(x.output_path ?? []).length > 0 ? ` ${(x.output_path ?? []).join('.')}` : ''}`;
    if (x.equals !== undefined && !equalJson(value, x.equals))
      return `expected ${where} to equal ${show(x.equals)}, got ${show(value)}`;
    if (x.contains !== undefined) {
      const holds =
        typeof value === 'string'
          ? typeof x.contains === 'string' && value.includes(x.contains)
          : Array.isArray(value)
            ? value.some((v) => equalJson(v, x.contains))
            : false;
      if (!holds) return `expected ${where} to contain ${show(x.contains)}, got ${show(value)}`;
    }
    if (x.present !== undefined) {
      const present =
        value !== undefined && value !== null && value !== '' && !(Array.isArray(value) && value.length === 0);
      if (present !== x.present)
        return `expected ${where} to be ${x.present ? 'present' : 'blank'}, got ${show(value)}`;
    }
  }
  return null;
}
