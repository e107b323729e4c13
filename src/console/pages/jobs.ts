// A recipe's jobs (status filter, keyset paging: the page after or before a job, never an
// offset) and one job with every step's input, output, error and timing; large values folded.
import type { JobApi, JobDetailApi } from '../../api/jobs/jobs.store.ts';
import type { JobLineRow } from '../../db/types.ts';
import { html, query, time, type Html } from '../html.ts';
import { csrfField, notice, page, type PageFrame } from '../layout.ts';
import { iconImg, type IconOf } from './icons.ts';
import { parseCode, stepsOf } from '../../api/export_manifests/references.ts';
import { describeStep, operationText, type StepLike, type StepWords } from './step-words.ts';

export interface JobListData {
  recipe: { id: number; name: string };
  jobs: readonly JobApi[];
  counts: { succeeded: number; failed: number; all: number };
  status?: string | undefined;
  /** The recipe's test-case jobs, kept apart from its own jobs. */
  tests: boolean;
  /** Handles to page from: older than the last row, newer than the first. */
  older?: string | undefined;
  newer?: string | undefined;
}

function statusBadge(status: string): Html {
  return html`<span class="badge ${status === 'succeeded' ? 'ok' : status === 'failed' ? 'bad' : ''}">${status}</span>`;
}

export function jobListPage(frame: PageFrame, data: JobListData): string {
  const base = `/console/recipes/${data.recipe.id}/jobs`;
  const tests = data.tests ? 'true' : undefined;
  const tab = (value: string | undefined, label: string) =>
    html`<li><a href="${base}${query({ status: value, tests })}"${data.status === value ? html` aria-current="page"` : ''}>${label}</a></li>`;
  return page(
    frame,
    html`
<p><a href="/console/recipes/${data.recipe.id}">${data.recipe.name}</a> · ${data.tests ? 'jobs run by its test cases' : html`${data.counts.succeeded} succeeded, ${data.counts.failed} failed, ${data.counts.all} in all`}</p>
<nav aria-label="Kind of jobs"><ul class="tabs"><li><a href="${base}"${data.tests ? '' : html` aria-current="page"`}>Recipe jobs</a></li><li><a href="${base}?tests=true"${data.tests ? html` aria-current="page"` : ''}>Test-case jobs</a></li></ul></nav>
<nav aria-label="Job status"><ul class="tabs">${tab(undefined, 'All')}${tab('succeeded', 'Succeeded')}${tab('failed', 'Failed')}${tab('pending', 'Pending')}</ul></nav>
${
  data.jobs.length === 0
    ? html`<p class="muted">No job here.</p>`
    : html`<table><thead><tr><th scope="col">Job</th><th scope="col">Status</th><th scope="col">Started</th><th scope="col" class="wide-only">Ended</th><th scope="col" class="wide-only">Error</th></tr></thead><tbody>
${data.jobs.map((j) => html`<tr><td><a href="${base}/${j.id}">${j.title || j.id}</a><div class="muted small">${j.id}</div></td><td>${statusBadge(j.status)}</td><td>${time(j.started_at)}</td><td class="wide-only">${time(j.completed_at)}</td><td class="error-text wide-only">${j.error ? j.error.slice(0, 200) : ''}</td></tr>`)}
</tbody></table>`
}
<nav class="pager" aria-label="Pages">${data.newer ? html`<a href="${base}${query({ status: data.status, tests, before: data.newer })}" rel="prev">Newer jobs</a>` : ''}
${data.older ? html`<a href="${base}${query({ status: data.status, tests, after: data.older })}" rel="next">Older jobs</a>` : ''}</nav>`,
  );
}

export interface JobData {
  recipe: { id: number; name: string; running: boolean };
  job: JobDetailApi;
  lines: readonly JobLineRow[];
  /** The line values kept whole (over 100,000 characters), as `<seq>:<field>`. */
  wholeValues?: ReadonlySet<string> | undefined;
  canWrite: boolean;
  /** The role may write test cases: the job can become one. */
  canCreateTestCase?: boolean | undefined;
  message?: { text: string; kind: 'ok' | 'error' } | undefined;
  /** Each connector's icon. */
  iconOf: IconOf;
  words: StepWords;
  /** The control steps (IF, ELSE IF, repeat, foreach, ...) of the recipe version the job ran, by number. */
  steps?: ReadonlyMap<number, StepLike> | undefined;
  /** That version, and whether the job recorded it (false: a job stored before versions were recorded, read with the current one). */
  version?: { number: number; own: boolean } | undefined;
}

/** Keywords whose job line says only the keyword: the recipe's step gives its condition or list. */
const CONTROL = new Set(['if', 'elsif', 'while_condition', 'repeat', 'foreach', 'stop']);

/** A line records a while loop's failure as `repeat`: a step and its line agree by family. */
function familyOf(keyword: unknown): unknown {
  return keyword === 'elsif' ? 'if' : keyword === 'while_condition' ? 'repeat' : keyword;
}

/** The control steps of a recipe's code by number (what a job line of one reads its words from). */
export function controlStepsOf(code: string): Map<number, StepLike> {
  const out = new Map<number, StepLike>();
  for (const step of stepsOf(parseCode(code)))
    if (typeof step.number === 'number' && typeof step.keyword === 'string' && CONTROL.has(step.keyword))
      out.set(step.number, step);
  return out;
}

/** Values longer than this are folded (a <details> closed by default). */
const FOLD_CHARS = 600;
/** And shown up to this many characters (a stored value is at most 100 KB). */
const SHOW_CHARS = 200_000;

function pretty(text: string | null): string | null {
  if (text === null) return null;
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** The size a value had when it was too large to keep with its line (`{"truncated": true, "bytes": n}`). */
export function truncatedSize(text: string | null): number | null {
  if (text === null || text.length > 100 || !text.startsWith('{"truncated":true')) return null;
  try {
    const parsed = JSON.parse(text) as { truncated?: unknown; bytes?: unknown };
    return parsed.truncated === true && typeof parsed.bytes === 'number' && Object.keys(parsed).length === 2
      ? parsed.bytes
      : null;
  } catch {
    return null;
  }
}

function value(label: string, text: string | null, masked: boolean, full?: { href: string; note?: string }): Html {
  if (masked)
    return html`<div class="value"><span class="label">${label}</span> <span class="muted">masked (the step hides its data)</span></div>`;
  const size = truncatedSize(text);
  if (size !== null)
    return html`<div class="value"><span class="label">${label}</span> <span class="muted">${size.toLocaleString('en')} bytes, more than a step line keeps (100,000).</span> ${
      full
        ? html`<a href="${full.href}" download>Download the full value</a>${full.note ? html` <span class="muted small">(${full.note})</span>` : ''}`
        : html`<span class="muted">Only its size was kept.</span>`
    }</div>`;
  const shown = pretty(text);
  if (shown === null)
    return html`<div class="value"><span class="label">${label}</span> <span class="muted">none</span></div>`;
  const clipped =
    shown.length > SHOW_CHARS ? `${shown.slice(0, SHOW_CHARS)}\n… ${shown.length - SHOW_CHARS} more characters` : shown;
  if (shown.length <= FOLD_CHARS)
    return html`<div class="value"><span class="label">${label}</span><pre>${clipped}</pre></div>`;
  return html`<details class="value"><summary><span class="label">${label}</span> <span class="muted">${shown.length.toLocaleString('en')} characters: show</span></summary><pre>${clipped}</pre></details>`;
}

/** A job's time from its trigger to its end, waits for workflow tasks included. */
export function duration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '?';
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 3 : 1)} s`;
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 60) return `${minutes} min ${Math.round((ms % 60_000) / 1000)} s`;
  const hours = Math.floor(minutes / 60);
  return hours < 48 ? `${hours} h ${minutes % 60} min` : `${Math.floor(hours / 24)} days ${hours % 24} h`;
}

export function jobPage(frame: PageFrame, data: JobData, csrf: string): string {
  const { job, recipe } = data;
  const base = `/console/recipes/${recipe.id}/jobs/${job.handle}`;
  const finished = job.status !== 'pending';
  const wholeOf = (seq: number, field: 'input' | 'output') =>
    data.wholeValues?.has(`${seq}:${field}`) ? { href: `${base}/lines/${seq}/${field}` } : undefined;
  const controls = !data.canWrite
    ? ''
    : finished
      ? html`<form method="post" action="${base}/repeat" class="inline">${csrfField(csrf)}<button type="submit"${recipe.running ? '' : html` disabled title="Start the recipe to run jobs again"`}>Re-run job</button></form>`
      : html`<form method="post" action="${base}/cancel" class="inline">${csrfField(csrf)}<button type="submit" class="danger" data-confirm="Cancel this job?">Cancel job</button></form>`;
  return page(
    frame,
    html`
${data.message ? notice(data.message.text, data.message.kind) : ''}
<p><a href="/console/recipes/${recipe.id}">${recipe.name}</a> · <a href="/console/recipes/${recipe.id}/jobs">All jobs</a></p>
<dl class="facts">
  <dt>Job</dt><dd><code>${job.handle}</code></dd>
  <dt>Status</dt><dd>${statusBadge(job.status)}${job.is_repeat ? ' (a re-run)' : ''}</dd>
  <dt>Started</dt><dd>${time(job.started_at)}</dd>
  <dt>Ended</dt><dd>${time(job.completed_at)}</dd>
  ${job.completed_at ? html`<dt>Duration</dt><dd>${duration(Date.parse(job.completed_at) - Date.parse(job.started_at))}</dd>` : ''}
  ${data.version ? html`<dt>Recipe version</dt><dd>${data.version.number}${data.version.own ? '' : html` <span class="muted small">(the current one: this job did not record its own)</span>`}</dd>` : ''}
  ${job.error ? html`<dt>Error</dt><dd class="error-text">${job.error}</dd>` : ''}
</dl>
${controls}${finished && data.canCreateTestCase ? html` <a class="button" href="${base}/test-case">Create test case</a>` : ''}
<section aria-labelledby="steps-title"><h2 id="steps-title">Steps</h2>
${
  data.lines.length === 0
    ? html`<p class="muted">No step has run.</p>`
    : html`<ol class="lines">${data.lines.map((line) => {
        const seconds = (Date.parse(line.completed_at) - Date.parse(line.started_at)) / 1000;
        return html`<li class="line${line.error ? ' failed' : ''}"><h3><span class="step-no">${line.recipe_line_number}</span> ${line.adapter_name === 'workato' ? '' : html`${iconImg(data.iconOf(line.adapter_name))} `}${lineText(line, data.words, data.steps)}${line.pass !== null ? html` <span class="muted">pass ${line.pass}</span>` : ''}</h3>
<p class="muted small">${time(line.started_at)} · ${Number.isFinite(seconds) ? seconds.toFixed(3) : '?'} s</p>
${line.error ? html`<div class="value"><span class="label">Error</span><pre class="error-text">${line.error}</pre></div>` : ''}
${value('Input', line.input, line.mask_data === 1, wholeOf(line.seq, 'input'))}${value('Output', line.output, line.mask_data === 1, line.recipe_line_number === 0 ? { href: `${base}/trigger-output`, note: "the trigger's event as stored with the job" } : wholeOf(line.seq, 'output'))}</li>`;
      })}</ol>`
}
</section>`,
  );
}

/**
 * A job line in a person's words: its operation's title, or a control step as the recipe version
 * the job ran has it (*IF total > 1000*); the keyword alone when that version has no such step.
 */
function lineText(
  line: { recipe_line_number: number; adapter_name: string; adapter_operation: string },
  words: StepWords,
  steps: ReadonlyMap<number, StepLike> | undefined,
): string {
  if (line.adapter_name === 'workato') {
    const step = steps?.get(line.recipe_line_number);
    const same = step !== undefined && familyOf(step.keyword) === familyOf(line.adapter_operation);
    return describeStep(same ? step : { keyword: line.adapter_operation }, words);
  }
  const keyword = line.recipe_line_number === 0 ? 'trigger' : 'action';
  return operationText(line.adapter_name, keyword, line.adapter_operation, words);
}
