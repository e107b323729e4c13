// Workflow tasks: the tasks waiting jobs stopped at (open ones first), and one task with its
// decision: approve or reject an approval, fill in a form's fields.
import type { WorkflowTaskApi } from '../../api/workflow_tasks/workflow_tasks.store.ts';
import { html, query, time } from '../html.ts';
import { csrfField, notice, page, type PageFrame } from '../layout.ts';

export const TASK_STATUSES = ['open', 'completed', 'expired', 'canceled'] as const;

function statusBadge(status: string) {
  return html`<span class="badge ${status === 'completed' ? 'ok' : status === 'expired' || status === 'canceled' ? 'bad' : ''}">${status}</span>`;
}

export interface TasksData {
  tasks: readonly WorkflowTaskApi[];
  status: string;
  assignee?: string | undefined;
}

export function workflowTasksPage(frame: PageFrame, data: TasksData): string {
  return page(
    frame,
    html`
<nav class="tabs" aria-label="Task status">${TASK_STATUSES.map((s) => html`<a href="/console/workflow-tasks${query({ status: s, assignee: data.assignee })}"${s === data.status ? html` aria-current="page"` : ''}>${s}</a>`)}</nav>
<form method="get" action="/console/workflow-tasks" class="filters" role="search"><input type="hidden" name="status" value="${data.status}">
  <label>Assignee <input type="search" name="assignee" value="${data.assignee ?? ''}" maxlength="255"></label><button type="submit">Filter</button></form>
${
  data.tasks.length === 0
    ? html`<p class="muted">No ${data.status} task.</p>`
    : html`<table><thead><tr><th scope="col">Task</th><th scope="col" class="wide-only">Kind</th><th scope="col">Assignee</th><th scope="col" class="wide-only">State</th><th scope="col">Created</th><th scope="col" class="wide-only">Expires</th><th scope="col">Job</th></tr></thead><tbody>
${data.tasks.map((t) => html`<tr><td><a href="/console/workflow-tasks/${t.id}">${t.name}</a></td><td class="wide-only">${t.task_type}</td><td>${t.assignee ?? ''}</td><td class="wide-only">${statusBadge(t.status)}</td><td>${time(t.created_at)}</td><td class="wide-only">${time(t.expires_at)}</td><td><a href="/console/recipes/${t.recipe_id}/jobs/${encodeURIComponent(t.job_id)}">${t.job_id}</a></td></tr>`)}
</tbody></table>`
}
<p class="muted small">The 100 latest ${data.status} tasks.</p>`,
  );
}

export interface TaskData {
  task: WorkflowTaskApi;
  canComplete: boolean;
  message?: { text: string; kind: 'ok' | 'error' } | undefined;
  /** The values of a refused completion, shown again. */
  draft?: Record<string, string> | undefined;
}

export function workflowTaskPage(frame: PageFrame, data: TaskData, csrf: string): string {
  const t = data.task;
  const fields = t.form_fields.map(
    (f, i) =>
      html`<label for="field-${i}">${f.label || f.name} <span class="muted small">(${f.type}${f.optional ? '' : ', required'})</span></label>${
        f.type === 'boolean'
          ? html`<select id="field-${i}" name="field_${i}"><option value="">—</option>${['true', 'false'].map((v) => html`<option${data.draft?.[`field_${i}`] === v ? html` selected` : ''}>${v}</option>`)}</select>`
          : html`<input id="field-${i}" name="field_${i}" type="${f.type === 'date' ? 'date' : f.type === 'integer' || f.type === 'number' ? 'number' : 'text'}"${f.type === 'number' ? html` step="any"` : ''} value="${data.draft?.[`field_${i}`] ?? ''}" maxlength="10000">`
      }`,
  );
  const decision =
    t.task_type === 'approval'
      ? html`<div class="buttons"><button type="submit" name="decision" value="approved">Approve</button> <button type="submit" name="decision" value="rejected" class="danger">Reject</button></div>`
      : html`<button type="submit" name="decision" value="completed">Complete task</button>`;
  return page(
    frame,
    html`
${data.message ? notice(data.message.text, data.message.kind) : ''}
<dl class="facts">
  <dt>State</dt><dd>${statusBadge(t.status)}</dd>
  <dt>Kind</dt><dd>${t.task_type}</dd>
  <dt>Assignee</dt><dd>${t.assignee ?? '—'}</dd>
  <dt>Job</dt><dd><a href="/console/recipes/${t.recipe_id}/jobs/${encodeURIComponent(t.job_id)}">${t.job_id}</a>, step ${t.step_number}</dd>
  <dt>Created</dt><dd>${time(t.created_at)}</dd>
  <dt>Expires</dt><dd>${time(t.expires_at)}</dd>
  ${t.completed_at ? html`<dt>Ended</dt><dd>${time(t.completed_at)}${t.completed_by ? html` by ${t.completed_by}` : ''}</dd>` : ''}
</dl>
${t.result ? html`<section aria-labelledby="result-title"><h2 id="result-title">Result</h2><pre>${JSON.stringify(t.result, null, 2)}</pre></section>` : ''}
${
  t.status !== 'open'
    ? ''
    : data.canComplete
      ? html`<section aria-labelledby="complete-title"><h2 id="complete-title">${t.task_type === 'approval' ? 'Decide' : 'Fill in'}</h2>
<form method="post" action="/console/workflow-tasks/${t.id}/complete" class="stack narrow">${csrfField(csrf)}${fields}
<label for="comments">Comments (optional)</label><textarea id="comments" name="comments" rows="3" maxlength="10000">${data.draft?.comments ?? ''}</textarea>
${decision}</form></section>`
      : html`<p class="muted">Your role may not complete tasks.</p>`
}
<p><a href="/console/workflow-tasks">Open tasks</a></p>`,
  );
}
