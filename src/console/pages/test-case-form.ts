// "Create test case" from a past job: the job's trigger output becomes the test case's input, and
// each step the job ran is run again, or mocked with what it gave in this job (its output or its
// error). Data in, HTML out.
import { html } from '../html.ts';
import { csrfField, page, type PageFrame } from '../layout.ts';
import { field, problemsOf, refusalNotice, type Refusal } from './form-fields.ts';
import { iconImg, type IconOf } from './icons.ts';

/** A step of the recipe that ran in the job, with what it gave there. */
export interface JobStepChoice {
  number: number;
  /** How a test case names the step: its alias, else `#<number>`. */
  ref: string;
  provider: string;
  operation: string;
  /** The output as the job kept it; null when none, or only its size was kept (too large). */
  output: unknown;
  outputKept: boolean;
  error: string | null;
}

export type MockChoice = 'run' | 'output' | 'error';

export interface TestCaseFormData {
  recipe: { id: number; name: string };
  job: { handle: string; status: string; title: string };
  steps: readonly JobStepChoice[];
  draft: {
    name: string;
    description: string;
    mocks: Readonly<Record<number, MockChoice>>;
    expectStatus: boolean;
    allowExternal: boolean;
  };
  refusal?: Refusal | undefined;
  iconOf: IconOf;
}

/** What a step is mocked with by default: a step that reaches outside is mocked with its output. */
export function defaultMock(step: JobStepChoice, reachesOutside: boolean): MockChoice {
  if (!reachesOutside) return 'run';
  if (step.error !== null) return 'error';
  return step.outputKept ? 'output' : 'run';
}

export function testCaseFormPage(frame: PageFrame, data: TestCaseFormData, csrf: string): string {
  const { recipe, job, draft } = data;
  const errors = data.refusal?.errors;
  const action = `/console/recipes/${recipe.id}/jobs/${job.handle}/test-case`;
  const mockProblems = [...problemsOf(errors, 'mocks'), ...problemsOf(errors, 'trigger_output')];
  return page(
    frame,
    html`${refusalNotice(data.refusal)}
<p><a href="/console/recipes/${recipe.id}">${recipe.name}</a> · job <a href="/console/recipes/${recipe.id}/jobs/${job.handle}"><code>${job.handle}</code></a> (${job.status})</p>
<p>The test case starts from this job's trigger output. For each step, choose whether the test runs it or gives what it gave in this job.</p>
<form method="post" action="${action}" class="stack" novalidate>${csrfField(csrf)}
${field({ id: 'tc-name', name: 'name', label: 'Name', value: draft.name, errors, required: true, maxlength: 255 })}
${field({ id: 'tc-description', name: 'description', label: 'Description', value: draft.description, errors, rows: 2, maxlength: 10_000 })}
<fieldset class="mocks"><legend>Steps</legend>
${data.steps.length === 0 ? html`<p class="muted">No step ran in this job after its trigger.</p>` : ''}
${data.steps.map((step) => {
  const id = `mock-${step.number}`;
  const chosen = draft.mocks[step.number] ?? 'run';
  return html`<div class="field"><label for="${id}"><span class="step-no">${step.number}</span> ${iconImg(data.iconOf(step.provider))} ${step.provider} · ${step.operation} <span class="muted">(${step.ref})</span></label>
<select id="${id}" name="mock:${step.number}">
<option value="run"${chosen === 'run' ? html` selected` : ''}>Run it</option>
${step.outputKept ? html`<option value="output"${chosen === 'output' ? html` selected` : ''}>Mock: give its output in this job</option>` : ''}
${step.error !== null ? html`<option value="error"${chosen === 'error' ? html` selected` : ''}>Mock: fail with its error in this job</option>` : ''}
</select>${!step.outputKept && step.error === null ? html`<span class="muted small">Its output in this job was too large to keep: it can only run.</span>` : ''}</div>`;
})}
${mockProblems.length > 0 ? html`<p class="error-text small" id="tc-mocks-error">${mockProblems.join('; ')}</p>` : ''}
</fieldset>
<div class="check"><input type="checkbox" id="tc-status" name="expect_status" value="1"${draft.expectStatus ? html` checked` : ''}><label for="tc-status">Expect the job to end as this one did (${job.status})</label></div>
<div class="check"><input type="checkbox" id="tc-external" name="allow_external" value="1"${draft.allowExternal ? html` checked` : ''}><label for="tc-external">Let steps that are not mocked reach outside Switchboard</label></div>
<button type="submit" class="primary">Create test case</button></form>`,
  );
}
