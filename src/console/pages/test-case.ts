// A test case's page: what it holds (trigger output, mocks, expectations), and for a role that may
// change test cases the form that edits it, Run and Delete. The form travels as rows
// (`mock:<i>:<part>`, `exp:<i>:<part>`) read back by readTestCaseForm; a refusal shows each
// problem on its row. Data in, HTML out.
import type { FieldErrors } from '../../errors.ts';
import type { ExpectationDoc, MockDoc, TestCaseDoc } from '../../api/test_cases/test-case-doc.ts';
import { MAX_EXPECTATIONS, MAX_MOCKS } from '../../api/test_cases/test-case-doc.ts';
import { parseCode, stepsOf } from '../../api/export_manifests/references.ts';
import { html, time, type Html } from '../html.ts';
import { csrfField, page, type PageFrame } from '../layout.ts';
import { field, fieldProblems, problemsOf, refusalNotice, type Refusal } from './form-fields.ts';
import { describeStep, type StepWords } from './step-words.ts';

/** A step of the recipe a mock or an expectation may name. */
export interface StepOption {
  number: number;
  /** How a test case names it: its alias, else `#<number>`. */
  ref: string;
  keyword: string;
  words: string;
}

/** The recipe's steps, in order, as a test case names them. */
export function stepOptions(code: string, words: StepWords): StepOption[] {
  const out: StepOption[] = [];
  for (const step of stepsOf(parseCode(code))) {
    if (typeof step.number !== 'number' || out.length >= 10_000) continue;
    const as = typeof step.as === 'string' && step.as !== '' ? step.as : undefined;
    out.push({
      number: step.number,
      ref: as ?? `#${step.number}`,
      keyword: typeof step.keyword === 'string' ? step.keyword : 'action',
      words: describeStep(step, words),
    });
  }
  return out.sort((a, b) => a.number - b.number);
}

/**
 * An example of what a trigger gives, from its output schema (the connector's output fields and the
 * step's `extended_output_schema`, vendor field lists): each field with an empty value of its type.
 * Bounded: five levels, 500 fields.
 */
export function exampleOfSchema(fields: unknown): Record<string, unknown> {
  let count = 0;
  const of = (list: unknown, depth: number): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    if (!Array.isArray(list) || depth > 5) return out;
    for (const f of list as unknown[]) {
      if (typeof f !== 'object' || f === null || count >= 500) continue;
      const {
        name,
        type,
        of: item,
        properties,
      } = f as { name?: unknown; type?: unknown; of?: unknown; properties?: unknown };
      if (typeof name !== 'string' || name === '') continue;
      count += 1;
      const nested = Array.isArray(properties) && properties.length > 0 ? of(properties, depth + 1) : undefined;
      out[name] =
        type === 'array'
          ? nested
            ? [nested]
            : item === 'integer' || item === 'number'
              ? [0]
              : []
          : type === 'object' || (type === undefined && nested)
            ? (nested ?? {})
            : type === 'integer' || type === 'number'
              ? 0
              : type === 'boolean'
                ? false
                : '';
    }
    return out;
  };
  return of(fields, 0);
}

/** Output field paths by step (as a test case names it), for an expectation's path: dotted. */
export type StepPaths = ReadonlyMap<string, readonly string[]>;

export interface MockRow {
  step: string;
  kind: 'output' | 'error';
  /** The output as JSON, or the error's message. */
  value: string;
  /** The error's type (kept as it was; the form does not edit it). */
  errorType: string;
  remove: boolean;
}

export const EXPECTATION_KINDS = {
  job_succeeded: 'The job succeeds',
  job_failed: 'The job fails',
  ran: 'The step runs',
  not_ran: 'The step does not run',
  failed: 'The step fails (error containing the value)',
  equals: 'Output at the path equals (JSON)',
  contains: 'Output at the path contains (JSON)',
  present: 'Output at the path is present',
  absent: 'Output at the path is blank or missing',
} as const;
export type ExpectationKind = keyof typeof EXPECTATION_KINDS;

export interface ExpectationRow {
  kind: ExpectationKind | '';
  step: string;
  path: string;
  value: string;
  remove: boolean;
}

export interface TestCaseDraft {
  name: string;
  description: string;
  triggerOutput: string;
  allowExternal: boolean;
  mocks: MockRow[];
  expectations: ExpectationRow[];
}

const pretty = (value: unknown) => JSON.stringify(value ?? null, null, 2);

/** The form's rows from a stored test case. */
export function draftOf(tc: { name: string; description: string } & TestCaseDoc): TestCaseDraft {
  return {
    name: tc.name,
    description: tc.description,
    triggerOutput: pretty(tc.trigger_output),
    allowExternal: tc.allow_external,
    mocks: tc.mocks.map((m: MockDoc) =>
      m.error
        ? { step: m.step, kind: 'error', value: m.error.message, errorType: m.error.type, remove: false }
        : { step: m.step, kind: 'output', value: pretty(m.output), errorType: '', remove: false },
    ),
    expectations: tc.expectations.map(expectationRow),
  };
}

function expectationRow(x: ExpectationDoc): ExpectationRow {
  const row = { step: '', path: '', value: '', remove: false };
  if ('job_status' in x) return { ...row, kind: x.job_status === 'succeeded' ? 'job_succeeded' : 'job_failed' };
  if ('ran' in x) return { ...row, step: x.step, kind: x.ran ? 'ran' : 'not_ran' };
  if ('failed' in x) return { ...row, step: x.step, kind: 'failed', value: x.error_contains ?? '' };
  const path = (x.output_path ?? []).join('.');
  if (x.equals !== undefined) return { ...row, step: x.step, path, kind: 'equals', value: JSON.stringify(x.equals) };
  if (x.contains !== undefined)
    return { ...row, step: x.step, path, kind: 'contains', value: JSON.stringify(x.contains) };
  return { ...row, step: x.step, path, kind: x.present === false ? 'absent' : 'present' };
}

/** What the form says, read back: the rows as typed, and the API's input made from the rows kept. */
export interface ReadForm {
  draft: TestCaseDraft;
  input: {
    name: string;
    description: string;
    trigger_output: unknown;
    mocks: unknown[];
    expectations: unknown[];
    allow_external: boolean;
  };
  /** Problems found before the service sees the input (JSON that does not parse), by the rows' keys. */
  errors: FieldErrors;
  /** The form's row of each mock and expectation sent, so the service's problems land on their row. */
  mockRows: number[];
  expectationRows: number[];
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, message: `is not JSON: ${(error as Error).message}` };
  }
}

const KINDS = new Set(Object.keys(EXPECTATION_KINDS));

export function readTestCaseForm(body: Readonly<Record<string, string | undefined>>): ReadForm {
  const errors: FieldErrors = {};
  const draft: TestCaseDraft = {
    name: body.name ?? '',
    description: body.description ?? '',
    triggerOutput: body.trigger_output ?? '',
    allowExternal: body.allow_external === '1',
    mocks: [],
    expectations: [],
  };
  let triggerOutput: unknown = {};
  if (draft.triggerOutput.trim() !== '') {
    const parsed = parseJson(draft.triggerOutput);
    if (parsed.ok) triggerOutput = parsed.value;
    else errors.trigger_output = [parsed.message];
  }
  const mocks: unknown[] = [];
  const mockRows: number[] = [];
  for (let i = 0; body[`mock:${i}:step`] !== undefined; i += 1) {
    if (i >= MAX_MOCKS + 1) {
      errors.mocks = [`must be a list of at most ${MAX_MOCKS} mocks`];
      break;
    }
    const row: MockRow = {
      step: body[`mock:${i}:step`] ?? '',
      kind: body[`mock:${i}:kind`] === 'error' ? 'error' : 'output',
      value: body[`mock:${i}:value`] ?? '',
      errorType: body[`mock:${i}:type`] ?? '',
      remove: body[`mock:${i}:remove`] === '1',
    };
    draft.mocks.push(row);
    if (row.remove) continue;
    // A row without a step is the empty one offered for a new mock, unless something was typed in it.
    if (row.step === '') {
      if (row.value.trim() !== '') errors[`mocks[${i}].step`] = ['must name a step: choose one'];
      continue;
    }
    if (row.kind === 'error') {
      mocks.push({ step: row.step, error: { type: row.errorType || 'Error', message: row.value } });
    } else {
      const parsed = row.value.trim() === '' ? ({ ok: true, value: null } as const) : parseJson(row.value);
      if (!parsed.ok) errors[`mocks[${i}].output`] = [parsed.message];
      mocks.push({ step: row.step, output: parsed.ok ? parsed.value : null });
    }
    mockRows.push(i);
  }
  const expectations: unknown[] = [];
  const expectationRows: number[] = [];
  for (let i = 0; body[`exp:${i}:kind`] !== undefined; i += 1) {
    if (i >= MAX_EXPECTATIONS + 1) {
      errors.expectations = [`must be a list of at most ${MAX_EXPECTATIONS} expectations`];
      break;
    }
    const kind = body[`exp:${i}:kind`] ?? '';
    const row: ExpectationRow = {
      kind: KINDS.has(kind) ? (kind as ExpectationKind) : '',
      step: body[`exp:${i}:step`] ?? '',
      path: body[`exp:${i}:path`] ?? '',
      value: body[`exp:${i}:value`] ?? '',
      remove: body[`exp:${i}:remove`] === '1',
    };
    draft.expectations.push(row);
    if (row.remove || kind === '') continue;
    if (row.kind === '') {
      errors[`expectations[${i}]`] = ['is not a kind of expectation'];
      continue;
    }
    const path = row.path.split('.').filter((p) => p !== '');
    let value: unknown;
    if (row.kind === 'equals' || row.kind === 'contains') {
      const parsed = parseJson(row.value);
      if (!parsed.ok) errors[`expectations[${i}].${row.kind}`] = [`${parsed.message} (text goes in quotes)`];
      else value = parsed.value;
    }
    const expectation =
      row.kind === 'job_succeeded' || row.kind === 'job_failed'
        ? { job_status: row.kind === 'job_succeeded' ? 'succeeded' : 'failed' }
        : row.kind === 'ran' || row.kind === 'not_ran'
          ? { step: row.step, ran: row.kind === 'ran' }
          : row.kind === 'failed'
            ? { step: row.step, failed: true, ...(row.value !== '' ? { error_contains: row.value } : {}) }
            : row.kind === 'equals'
              ? { step: row.step, output_path: path, equals: value ?? null }
              : row.kind === 'contains'
                ? { step: row.step, output_path: path, contains: value ?? null }
                : { step: row.step, output_path: path, present: row.kind === 'present' };
    expectations.push(expectation);
    expectationRows.push(i);
  }
  return {
    draft,
    input: {
      name: draft.name,
      description: draft.description,
      trigger_output: triggerOutput,
      mocks,
      expectations,
      allow_external: draft.allowExternal,
    },
    errors,
    mockRows,
    expectationRows,
  };
}

/** The service's problems (`mocks[k].step`: the k-th mock sent) keyed by the form's rows instead. */
export function onRows(
  errors: FieldErrors,
  mockRows: readonly number[],
  expectationRows: readonly number[],
): FieldErrors {
  const out: FieldErrors = {};
  for (const [key, problems] of Object.entries(errors)) {
    const m = /^(mocks|expectations)\[(\d+)\](.*)$/.exec(key);
    if (!m) {
      out[key] = problems;
      continue;
    }
    const rows = m[1] === 'mocks' ? mockRows : expectationRows;
    const row = rows[Number(m[2])];
    out[row === undefined ? (m[1] as string) : `${m[1]}[${row}]${m[3]}`] = problems;
  }
  return out;
}

function rowProblems(errors: FieldErrors | undefined, list: 'mocks' | 'expectations', i: number): string[] {
  if (!errors) return [];
  const at = `${list}[${i}]`;
  return Object.entries(errors)
    .filter(([key]) => key === at || key.startsWith(`${at}.`))
    .flatMap(([key, problems]) => problems.map((p) => `${key.slice(at.length + 1) || 'it'} ${p}`));
}

export interface TestCasePageData {
  recipe: { id: number; name: string };
  testCase: { id: string; name: string; created_at: string; updated_at: string };
  /** What the form shows: the stored test case, or what was typed when it was refused. */
  draft: TestCaseDraft;
  steps: readonly StepOption[];
  /** Each step's output fields, offered for an expectation's path. */
  paths: StepPaths;
  canWrite: boolean;
  refusal?: Refusal | undefined;
  notice?: Html | '';
}

/** The id of the datalist of a step's output fields. */
function pathListId(steps: readonly StepOption[], ref: string): string {
  const step = steps.find((s) => s.ref === ref);
  return step ? `tc-paths-${step.number}` : '';
}

/** One datalist of output fields per step that has them, for the expectations' paths. */
function pathLists(steps: readonly StepOption[], paths: StepPaths): Html {
  return html`${steps.map((s) => {
    const list = paths.get(s.ref) ?? [];
    return list.length === 0
      ? ''
      : html`<datalist id="tc-paths-${s.number}">${list.map((path) => html`<option value="${path}"></option>`)}</datalist>`;
  })}`;
}

function stepSelect(
  id: string,
  name: string,
  chosen: string,
  steps: readonly StepOption[],
  blank: string,
  problemsId: string | null,
  paths?: StepPaths,
): Html {
  const listOf = (s: StepOption) =>
    paths && (paths.get(s.ref)?.length ?? 0) > 0 ? html` data-paths="tc-paths-${s.number}"` : '';
  const known = chosen === '' || steps.some((s) => s.ref === chosen);
  return html`<select id="${id}" name="${name}"${problemsId ? html` aria-invalid="true" aria-describedby="${problemsId}"` : ''}>
<option value=""${chosen === '' ? html` selected` : ''}>${blank}</option>
${known ? '' : html`<option value="${chosen}" selected>${chosen} (not a step of the recipe)</option>`}
${steps.map((s) => html`<option value="${s.ref}"${s.ref === chosen ? html` selected` : ''}${listOf(s)}>${s.number} · ${s.words}${s.ref.startsWith('#') ? '' : ` (${s.ref})`}</option>`)}
</select>`;
}

function mockRowMarkup(i: number, row: MockRow, steps: readonly StepOption[], errors: FieldErrors | undefined): Html {
  const problems = rowProblems(errors, 'mocks', i);
  const id = `mock-${i}`;
  const isNew = row.step === '' && row.value === '';
  return html`<div class="mock-row" role="group" aria-labelledby="${id}-title">
<p class="row-title" id="${id}-title">${isNew ? 'New mock' : `Mock ${i + 1}`}</p>
<div class="field"><label for="${id}-step">Step</label>${stepSelect(
    `${id}-step`,
    `mock:${i}:step`,
    row.step,
    steps.filter((s) => s.number !== 0),
    isNew ? '(none: add no mock)' : '(choose a step)',
    problems.length > 0 ? `${id}-error` : null,
  )}</div>
<div class="field"><label for="${id}-kind">Gives</label><select id="${id}-kind" name="mock:${i}:kind">
<option value="output"${row.kind === 'output' ? html` selected` : ''}>This output (JSON)</option>
<option value="error"${row.kind === 'error' ? html` selected` : ''}>This error (its message)</option>
</select></div>
<div class="field wide"><label for="${id}-value">Output or error message</label><textarea id="${id}-value" name="mock:${i}:value" rows="${row.kind === 'error' ? 1 : Math.min(8, Math.max(2, row.value.split('\n').length))}" spellcheck="false"${problems.length > 0 ? html` aria-invalid="true" aria-describedby="${id}-error"` : ''}>${row.value}</textarea></div>
<input type="hidden" name="mock:${i}:type" value="${row.errorType}">
${isNew ? '' : html`<div class="check"><input type="checkbox" id="${id}-remove" name="mock:${i}:remove" value="1"${row.remove ? html` checked` : ''}><label for="${id}-remove">Remove this mock</label></div>`}
${fieldProblems(id, isNew ? 'New mock:' : `Mock ${i + 1}:`, problems)}</div>`;
}

function expectationRowMarkup(
  i: number,
  row: ExpectationRow,
  steps: readonly StepOption[],
  errors: FieldErrors | undefined,
  paths: StepPaths,
): Html {
  const problems = rowProblems(errors, 'expectations', i);
  const id = `exp-${i}`;
  // The chosen step's output fields (console.js follows the step picked; without script, as drawn).
  const listed = (paths.get(row.step)?.length ?? 0) > 0 ? pathListId(steps, row.step) : '';
  const isNew = row.kind === '';
  return html`<div class="mock-row" role="group" aria-labelledby="${id}-title">
<p class="row-title" id="${id}-title">${isNew ? 'New expectation' : `Expectation ${i + 1}`}</p>
<div class="field"><label for="${id}-kind">Expect</label><select id="${id}-kind" name="exp:${i}:kind"${problems.length > 0 ? html` aria-invalid="true" aria-describedby="${id}-error"` : ''}>
<option value=""${isNew ? html` selected` : ''}>${isNew ? '(none: add no expectation)' : '(choose)'}</option>
${Object.entries(EXPECTATION_KINDS).map(([k, label]) => html`<option value="${k}"${row.kind === k ? html` selected` : ''}>${label}</option>`)}
</select></div>
<div class="field"><label for="${id}-step">Step <span class="muted small">(not for the job's status)</span></label>${stepSelect(`${id}-step`, `exp:${i}:step`, row.step, steps, '(the job)', problems.length > 0 ? `${id}-error` : null, paths)}</div>
<div class="field"><label for="${id}-path">Output path <span class="muted small">(dotted: body.name${listed ? '; the step’s output fields are offered' : ''})</span></label><input id="${id}-path" name="exp:${i}:path" value="${row.path}"${listed ? html` list="${listed}"` : ''} data-paths-of="${id}-step" autocomplete="off" spellcheck="false"></div>
<div class="field"><label for="${id}-value">Value <span class="muted small">(JSON: "text", 42, true)</span></label><input id="${id}-value" name="exp:${i}:value" value="${row.value}" autocomplete="off" spellcheck="false"></div>
${isNew ? '' : html`<div class="check"><input type="checkbox" id="${id}-remove" name="exp:${i}:remove" value="1"${row.remove ? html` checked` : ''}><label for="${id}-remove">Remove this expectation</label></div>`}
${fieldProblems(id, isNew ? 'New expectation:' : `Expectation ${i + 1}:`, problems)}</div>`;
}

function readOnlyBody(draft: TestCaseDraft, steps: readonly StepOption[]): Html {
  const named = (ref: string) => {
    const s = steps.find((x) => x.ref === ref);
    return s
      ? `${s.number} · ${s.words}${ref.startsWith('#') ? '' : ` (${ref})`}`
      : `${ref} (not a step of the recipe)`;
  };
  return html`${draft.description ? html`<p>${draft.description}</p>` : ''}
<h2>Trigger output</h2><pre class="value">${draft.triggerOutput}</pre>
<h2>Mocks</h2>${
    draft.mocks.length === 0
      ? html`<p class="muted">No step is mocked: every step runs.</p>`
      : html`<ul>${draft.mocks.map((m) => html`<li>${named(m.step)}: ${m.kind === 'error' ? html`fails with <q>${m.value}</q>` : html`gives <pre class="value">${m.value}</pre>`}</li>`)}</ul>`
  }
<h2>Expectations</h2>${
    draft.expectations.length === 0
      ? html`<p class="muted">None: the test passes when the job succeeds.</p>`
      : html`<ul>${draft.expectations.map((x) => html`<li>${x.kind === '' ? '' : EXPECTATION_KINDS[x.kind]}${x.step ? html` · ${named(x.step)}` : ''}${x.path ? html` · <code>${x.path}</code>` : ''}${x.value ? html` · <code>${x.value}</code>` : ''}</li>`)}</ul>`
  }
<p>Steps not mocked ${draft.allowExternal ? 'may' : 'may not'} reach outside Switchboard.</p>`;
}

/** A draft with one empty row to add a mock and one to add an expectation, below those it has. */
function withEmptyRows(draft: TestCaseDraft): TestCaseDraft {
  return {
    ...draft,
    mocks: draft.mocks.some((m) => m.step === '' && m.value === '')
      ? draft.mocks
      : [...draft.mocks, { step: '', kind: 'output' as const, value: '', errorType: '', remove: false }],
    expectations: draft.expectations.some((x) => x.kind === '')
      ? draft.expectations
      : [...draft.expectations, { kind: '' as const, step: '', path: '', value: '', remove: false }],
  };
}

/** The form's fields, the same for a new test case and one edited: what the API's create and update take. */
function testCaseFields(
  draft: TestCaseDraft,
  steps: readonly StepOption[],
  paths: StepPaths,
  errors: FieldErrors | undefined,
  triggerHint: string,
): Html {
  const { mocks, expectations } = withEmptyRows(draft);
  return html`${field({ id: 'tc-name', name: 'name', label: 'Name', value: draft.name, errors, required: true, maxlength: 255 })}
${field({ id: 'tc-description', name: 'description', label: 'Description', value: draft.description, errors, rows: 2, maxlength: 10_000 })}
${field({ id: 'tc-trigger', name: 'trigger_output', label: 'Trigger output', value: draft.triggerOutput, errors, rows: Math.min(16, Math.max(4, draft.triggerOutput.split('\n').length)), hint: triggerHint })}
<fieldset class="stack"><legend>Mocks</legend>
<span class="muted small">A mocked step does not run: it gives this output or fails with this error.</span>
${fieldProblems('tc-mocks', 'Mocks', problemsOf(errors, 'mocks'))}
${mocks.map((row, i) => mockRowMarkup(i, row, steps, errors))}
</fieldset>
<fieldset class="stack"><legend>Expectations</legend>
<span class="muted small">Without one, the test passes when the job succeeds (or fails only in steps expected to fail).</span>
${fieldProblems('tc-expectations', 'Expectations', problemsOf(errors, 'expectations'))}
${expectations.map((row, i) => expectationRowMarkup(i, row, steps, errors, paths))}
${pathLists(steps, paths)}
</fieldset>
<div class="check"><input type="checkbox" id="tc-external" name="allow_external" value="1"${draft.allowExternal ? html` checked` : ''}><label for="tc-external">Let steps that are not mocked reach outside Switchboard</label></div>
${fieldProblems('tc-doc', 'Test case', problemsOf(errors, 'test_case'))}`;
}

const TRIGGER_HINT = 'JSON: the trigger’s output as the recipe’s datapills read it (a webhook’s {"payload": …}).';

export function testCasePage(frame: PageFrame, data: TestCasePageData, csrf: string): string {
  const { recipe, testCase, draft, steps } = data;
  const base = `/console/recipes/${recipe.id}/test-cases/${testCase.id}`;
  const errors = data.refusal?.errors;
  const facts = html`<p><a href="/console/recipes/${recipe.id}">${recipe.name}</a> · test case <code>${testCase.id}</code> · updated ${time(testCase.updated_at)}</p>`;
  if (!data.canWrite) return page(frame, html`${data.notice ?? ''}${facts}${readOnlyBody(draft, steps)}`);
  return page(
    frame,
    html`${data.notice ?? ''}${refusalNotice(data.refusal)}${facts}
<div class="actions"><form method="post" action="/console/test-runs" class="inline">${csrfField(csrf)}<input type="hidden" name="recipe_id" value="${recipe.id}"><input type="hidden" name="test_case_id" value="${testCase.id}"><button type="submit">Run this test case</button></form>
<form method="post" action="${base}/delete" class="inline">${csrfField(csrf)}<button type="submit" class="danger" data-confirm="Delete the test case ${testCase.name}?">Delete test case</button></form></div>
<form method="post" action="${base}" class="stack test-case" novalidate>${csrfField(csrf)}
${testCaseFields(draft, steps, data.paths, errors, TRIGGER_HINT)}
<button type="submit" class="primary">Save test case</button></form>`,
  );
}

export interface NewTestCasePageData {
  recipe: { id: number; name: string };
  draft: TestCaseDraft;
  steps: readonly StepOption[];
  paths: StepPaths;
  /** The trigger's output schema gave the example in the trigger output. */
  fromSchema: boolean;
  refusal?: Refusal | undefined;
}

/** *New test case*: the same fields as a test case's page, empty but for the trigger's example. */
export function newTestCasePage(frame: PageFrame, data: NewTestCasePageData, csrf: string): string {
  const { recipe, draft, steps } = data;
  return page(
    frame,
    html`${refusalNotice(data.refusal)}<p><a href="/console/recipes/${recipe.id}">${recipe.name}</a></p>
<p>A test case runs the recipe from a trigger output you write, with the steps you mock giving what you say, and checks what you expect. To start from what a job received, open the job and press <em>Create test case</em>.</p>
<form method="post" action="/console/recipes/${recipe.id}/test-cases/new" class="stack test-case" novalidate>${csrfField(csrf)}
${testCaseFields(draft, steps, data.paths, data.refusal?.errors, data.fromSchema ? `${TRIGGER_HINT} Filled in from the trigger’s output schema: replace the empty values.` : TRIGGER_HINT)}
<button type="submit" class="primary">Create test case</button></form>`,
  );
}
