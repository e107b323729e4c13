// Recipes: the list with its search and filters, and one recipe with its steps drawn as the tree
// of its keywords, its versions, and start/stop for a role that may change recipes.
import type { RecipeApi } from '../../api/recipes/recipes.store.ts';
import type { TestCaseSummary } from '../../api/test_cases/test_cases.store.ts';
import { html, query, time, type Html } from '../html.ts';
import { csrfField, notice, page, type PageFrame } from '../layout.ts';
import { iconImg, type IconOf } from './icons.ts';
import { describeStep, type StepWords } from './step-words.ts';
import { tagLabels, type TagIndex } from './tags.ts';

export interface RecipeListData {
  recipes: ReadonlyArray<
    Pick<
      RecipeApi,
      | 'id'
      | 'name'
      | 'running'
      | 'folder_id'
      | 'trigger_application'
      | 'applications'
      | 'last_run_at'
      | 'job_succeeded_count'
      | 'job_failed_count'
      | 'tags'
    >
  >;
  /** The tags the recipes carry, by handle. */
  tags: TagIndex;
  folders: ReadonlyArray<{ id: number; name: string }>;
  filters: {
    q?: string | undefined;
    folder_id?: number | undefined;
    running?: string | undefined;
    application?: string | undefined;
    page: number;
  };
  hasMore: boolean;
  /** The role may create recipes (the editor's link). */
  canWrite?: boolean | undefined;
}

export function recipeListPage(frame: PageFrame, data: RecipeListData): string {
  const f = data.filters;
  const params = { q: f.q, folder_id: f.folder_id, running: f.running, application: f.application };
  return page(
    frame,
    html`${data.canWrite ? html`<p><a class="button" href="/console/recipes/new">New recipe</a></p>` : ''}
<form method="get" action="/console/recipes" class="filters" role="search">
  <label>Name <input type="search" name="q" value="${f.q ?? ''}" maxlength="255"></label>
  <label>Folder <select name="folder_id"><option value="">Any</option>${data.folders.map((folder) => html`<option value="${folder.id}"${folder.id === f.folder_id ? html` selected` : ''}>${folder.name}</option>`)}</select></label>
  <label>State <select name="running"><option value="">Any</option><option value="true"${f.running === 'true' ? html` selected` : ''}>Running</option><option value="false"${f.running === 'false' ? html` selected` : ''}>Stopped</option></select></label>
  <label>Application <input type="text" name="application" value="${f.application ?? ''}" maxlength="100" placeholder="e.g. webhooks"></label>
  <button type="submit">Filter</button>
</form>
${
  data.recipes.length === 0
    ? html`<p class="muted">No recipe matches.</p>`
    : html`<table><thead><tr><th scope="col">Recipe</th><th scope="col">State</th><th scope="col" class="wide-only">Applications</th><th scope="col">Last job</th><th scope="col">Succeeded</th><th scope="col">Failed</th></tr></thead><tbody>
${data.recipes.map((r) => html`<tr><td><a href="/console/recipes/${r.id}">${r.name}</a>${tagLabels(r.tags, data.tags)}</td><td>${state(r.running)}</td><td class="wide-only">${r.applications.join(', ')}</td><td>${time(r.last_run_at)}</td><td class="num">${r.job_succeeded_count}</td><td class="num">${r.job_failed_count}</td></tr>`)}
</tbody></table>`
}
<nav class="pager" aria-label="Pages">${f.page > 1 ? html`<a href="/console/recipes${query({ ...params, page: f.page - 1 })}">Previous page</a>` : ''}
${data.hasMore ? html`<a href="/console/recipes${query({ ...params, page: f.page + 1 })}">Next page</a>` : ''}</nav>`,
  );
}

/** One reason a start was refused: the step, what it names, the problem, the input field it sits in. */
export interface StartProblem {
  step: number;
  subject: string;
  message: string;
  field: string | null;
}

/** A step error as the engine reports it (`[label, value, message, field]`) in words for the page. */
export function startProblemOf(step: number, detail: readonly unknown[]): StartProblem {
  const [label, value, message, field] = detail;
  const named = typeof value === 'string' && value !== '' ? `${String(label)} “${value}”` : String(label ?? '');
  return {
    step,
    subject: named,
    message: typeof message === 'string' ? message : '',
    field: typeof field === 'string' && field !== '' ? field : null,
  };
}

/** Why a start was refused: one box, a line per problem, the field named as such. */
export function startProblems(problems: readonly StartProblem[]): Html {
  return html`<div class="notice error" role="alert"><p>The recipe cannot start:</p><ul class="problems">${problems.map(
    (p) =>
      html`<li><strong>Step ${p.step}</strong>${p.subject ? html` · ${p.subject}` : ''}: ${p.message}${p.field ? html` <span class="muted small">(input field <code>${p.field}</code>)</span>` : ''}</li>`,
  )}</ul></div>`;
}

function state(running: boolean): Html {
  return running ? html`<span class="badge ok">running</span>` : html`<span class="badge">stopped</span>`;
}

export interface RecipeData {
  recipe: RecipeApi;
  versions: ReadonlyArray<{
    id: number;
    version_no: number;
    author_name?: string | null;
    comment?: string | null;
    created_at: string;
  }>;
  canWrite: boolean;
  canReadJobs: boolean;
  message?: { text: string; kind: 'ok' | 'error' } | undefined;
  startErrors?: readonly StartProblem[] | undefined;
  /** The recipe's test cases; null when the role may not read them. */
  testCases?: readonly TestCaseSummary[] | null | undefined;
  canRunTests?: boolean | undefined;
  /** Each connector's icon. */
  iconOf: IconOf;
  words: StepWords;
}

export function recipePage(frame: PageFrame, data: RecipeData, csrf: string): string {
  const r = data.recipe;
  const control = data.canWrite
    ? html`<a class="button" href="/console/recipes/${r.id}/edit">Edit recipe</a> <form method="post" action="/console/recipes/${r.id}/${r.running ? 'stop' : 'start'}" class="inline">${csrfField(csrf)}<button type="submit"${r.running ? html` class="danger" data-confirm="Stop this recipe? Its trigger stops."` : ''}>${r.running ? 'Stop recipe' : 'Start recipe'}</button></form>`
    : html`<p class="muted">Your role may not start or stop recipes.</p>`;
  return page(
    frame,
    html`
${data.message ? notice(data.message.text, data.message.kind) : ''}
${data.startErrors && data.startErrors.length > 0 ? startProblems(data.startErrors) : ''}
<dl class="facts">
  <dt>State</dt><dd>${state(r.running)}</dd>
  <dt>Version</dt><dd>${r.version_no}</dd>
  <dt>Trigger</dt><dd>${r.trigger_application ? html`${iconImg(data.iconOf(r.trigger_application))} ${data.words.connector(r.trigger_application) ?? r.trigger_application}` : '—'}</dd>
  <dt>Jobs</dt><dd>${r.job_succeeded_count} succeeded, ${r.job_failed_count} failed${data.canReadJobs ? html` · <a href="/console/recipes/${r.id}/jobs">Jobs</a>` : ''}</dd>
  <dt>Last job</dt><dd>${time(r.last_run_at)}</dd>
  ${r.webhook_url ? html`<dt>Webhook</dt><dd><code>${r.webhook_url}</code></dd>` : ''}
  ${r.stop_cause ? html`<dt>Stopped by</dt><dd>${r.stop_cause}</dd>` : ''}
</dl>
${control}
${r.description ? html`<p>${r.description}</p>` : ''}
<section aria-labelledby="steps-title"><h2 id="steps-title">Steps</h2>${stepTree(r.code, data.iconOf, data.words)}</section>
${data.testCases ? testCasesSection(r.id, data.testCases, data.canRunTests === true, csrf) : ''}
<section aria-labelledby="versions-title"><h2 id="versions-title">Versions</h2>
${data.versions.length > 1 ? html`<p><a href="/console/recipes/${r.id}/versions/diff">Compare the latest two versions</a></p>` : ''}
<table><thead><tr><th scope="col">Version</th><th scope="col">Saved</th><th scope="col">By</th><th scope="col">Comment</th></tr></thead><tbody>
${data.versions.map((v) => html`<tr><td>${v.version_no}</td><td>${time(v.created_at)}</td><td>${v.author_name ?? ''}</td><td>${v.comment ?? ''}</td></tr>`)}
</tbody></table></section>`,
  );
}

/** Steps drawn at most this deep and this many, so a huge recipe cannot make a huge page. */
const MAX_DEPTH = 40;
const MAX_STEPS = 2000;

interface Step {
  keyword?: unknown;
  provider?: unknown;
  name?: unknown;
  as?: unknown;
  number?: unknown;
  skip?: unknown;
  block?: unknown;
  input?: unknown;
}

const KEYWORD_LABELS: Record<string, string> = {
  trigger: 'Trigger',
  action: 'Action',
  if: 'IF',
  elsif: 'ELSE IF',
  else: 'ELSE',
  foreach: 'For each',
  repeat: 'Repeat',
  while_condition: 'While',
  try: 'Try',
  catch: 'On error',
  stop: 'Stop job',
};

export function stepTree(code: string, iconOf: IconOf, words: StepWords): Html {
  let root: unknown;
  try {
    root = JSON.parse(code);
  } catch {
    return html`<p class="muted">The recipe's code is not JSON.</p>`;
  }
  let count = 0;
  const draw = (step: Step, depth: number): Html => {
    count++;
    const keyword = typeof step.keyword === 'string' ? step.keyword : 'action';
    const children = Array.isArray(step.block) ? (step.block as Step[]) : [];
    const isOperation = keyword === 'trigger' || keyword === 'action';
    const what =
      isOperation && typeof step.provider === 'string'
        ? html` ${iconImg(iconOf(step.provider))}<span class="operation">${describeStep(step, words)}</span>`
        : '';
    const shown = isOperation ? (KEYWORD_LABELS[keyword] ?? keyword) : describeStep(step, words);
    const label = html`<span class="keyword kw-${keyword}">${shown}</span>${what}${typeof step.as === 'string' && step.as !== '' ? html` <span class="muted">(${step.as})</span>` : ''}${step.skip === true ? html` <span class="badge">skipped</span>` : ''}`;
    const number = typeof step.number === 'number' ? html`<span class="step-no">${step.number}</span> ` : '';
    let inner: Html | '' = '';
    if (children.length > 0) {
      if (depth >= MAX_DEPTH || count >= MAX_STEPS)
        inner = html`<p class="muted">${children.length} more steps not drawn.</p>`;
      else
        inner = html`<ol>${children.map((c) => (count >= MAX_STEPS ? '' : html`<li>${draw(c ?? {}, depth + 1)}</li>`))}</ol>`;
    }
    return html`<div class="step">${number}${label}</div>${inner}`;
  };
  if (typeof root !== 'object' || root === null) return html`<p class="muted">No steps.</p>`;
  return html`<ol class="tree"><li>${draw(root as Step, 0)}</li></ol>`;
}

function testCasesSection(recipeId: number, cases: readonly TestCaseSummary[], canRun: boolean, csrf: string): Html {
  const runForm = (label: Html | string, testCaseId?: string) =>
    html`<form method="post" action="/console/test-runs" class="inline">${csrfField(csrf)}<input type="hidden" name="recipe_id" value="${recipeId}">${testCaseId ? html`<input type="hidden" name="test_case_id" value="${testCaseId}">` : ''}<button type="submit"${testCaseId ? html` class="link"` : ''}>${label}</button></form>`;
  return html`<section aria-labelledby="tests-title"><h2 id="tests-title">Test cases</h2>
${
  cases.length === 0
    ? html`<p class="muted">No test case yet.${canRun ? ' Write one here, or create one from a job of this recipe (its page has Create test case).' : ''}</p>`
    : html`<table><thead><tr><th scope="col">Test case</th><th scope="col">Description</th><th scope="col">Updated</th>${canRun ? html`<th scope="col"><span class="visually-hidden">Actions</span></th>` : ''}</tr></thead><tbody>
${cases.map((c) => html`<tr><td><a href="/console/recipes/${recipeId}/test-cases/${c.id}">${c.name}</a></td><td>${c.description}</td><td>${time(c.updated_at)}</td>${canRun ? html`<td>${runForm(html`Run<span class="visually-hidden"> ${c.name}</span>`, c.id)}</td>` : ''}</tr>`)}</tbody></table>
${canRun ? runForm('Run all test cases') : ''}`
}${canRun ? html`<p><a class="button" href="/console/recipes/${recipeId}/test-cases/new">New test case</a></p>` : ''}</section>`;
}
