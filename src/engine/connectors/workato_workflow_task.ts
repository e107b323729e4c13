// workato_workflow_task (Workflow apps): `human_review_on_existing_record` (Assign task to users)
// creates a task for a person and stops the job until the task ends: completed (approved,
// rejected, or a form's values), expired (`due_in_days`), or canceled. The job holds no worker
// meanwhile; when the task ends it runs again from its checkpoint and this step gives the task's
// outcome as its output (src/engine/README.md, "Workflow tasks"; the API: src/api/workflow_tasks/).
import { StepError, SuspendJob, type Connector } from './types.ts';
import { type TaskFormField } from '../../recipe/document.ts';
import { hashGet, isHash, toRubyString, type Hash, type Value } from '../../recipe/formula/values.ts';

const FIELD_TYPES = new Set(['string', 'integer', 'number', 'boolean', 'date']);
const MAX_FIELDS = 100;
const EMAIL = /^[^\s@]{1,200}@[^\s@]{1,200}$/;

function text(input: Hash, key: string): string | null {
  const v = hashGet(input, key);
  if (v === null || v === undefined) return null;
  const s = toRubyString(v).trim();
  return s === '' ? null : s;
}

function formFieldsOf(raw: Value): TaskFormField[] {
  if (raw === null || raw === undefined || raw === '') return [];
  let list: Value = raw;
  if (typeof raw === 'string') {
    try {
      list = JSON.parse(raw) as Value;
    } catch {
      throw new StepError('Bad request', 'form_fields must be a list of fields (or its JSON text)');
    }
  }
  if (!Array.isArray(list)) throw new StepError('Bad request', 'form_fields must be a list of fields');
  if (list.length > MAX_FIELDS) throw new StepError('Bad request', `a form has at most ${MAX_FIELDS} fields`);
  const seen = new Set<string>();
  return list.map((item, i) => {
    if (!isHash(item)) throw new StepError('Bad request', `form field ${i + 1} must be an object with a name`);
    const name = toRubyString(hashGet(item, 'name')).trim();
    if (!/^[A-Za-z0-9_]{1,100}$/.test(name))
      throw new StepError('Bad request', `form field ${i + 1}: the name must be 1-100 letters, digits or _`);
    if (seen.has(name)) throw new StepError('Bad request', `form field ${name} is named twice`);
    seen.add(name);
    const type = toRubyString(hashGet(item, 'type') ?? 'string').trim() || 'string';
    if (!FIELD_TYPES.has(type))
      throw new StepError('Bad request', `form field ${name}: type must be one of ${[...FIELD_TYPES].join(', ')}`);
    const optional = hashGet(item, 'optional');
    return {
      name,
      label: toRubyString(hashGet(item, 'label') ?? name) || name,
      type: type as TaskFormField['type'],
      optional: optional === true || optional === 'true',
    };
  });
}

export const workatoWorkflowTask: Connector = {
  provider: 'workato_workflow_task',
  title: 'Workflow apps by Workato',
  needsConnection: false,
  // A person completes the task: a test case mocks the step.
  reachesOutside: true,
  triggers: {},
  actions: {
    human_review_on_existing_record: {
      title: 'Assign task to users',
      required: [{ path: 'name', label: 'Task name' }],
      run(input, sc) {
        const name = text(input, 'name');
        if (name === null) throw new StepError('Bad request', 'the task needs a name');
        const email = text(input, 'email') ?? text(input, 'assignee');
        if (email !== null && !EMAIL.test(email))
          throw new StepError('Bad request', `${JSON.stringify(email).slice(0, 80)} is not an e-mail address`);
        const formFields = formFieldsOf(hashGet(input, 'form_fields'));
        const requested = text(input, 'task_type');
        if (requested !== null && requested !== 'approval' && requested !== 'form')
          throw new StepError('Bad request', 'task_type must be approval or form');
        const taskType =
          requested === 'approval' || (requested === null && formFields.length === 0) ? 'approval' : 'form';
        let expiresAt: string | null = null;
        const due = hashGet(input, 'due_in_days');
        if (due !== null && due !== undefined && due !== '') {
          const days = typeof due === 'number' ? due : Number(toRubyString(due));
          if (!Number.isFinite(days) || days <= 0 || days > 732)
            throw new StepError('Bad request', 'due_in_days must be a number of days from 0 to 732');
          expiresAt = new Date(sc.ctx.clock.now().getTime() + Math.round(days * 86_400_000)).toISOString();
        }
        throw new SuspendJob({
          name: name.slice(0, 1000),
          assignee: email?.toLowerCase() ?? null,
          recordId: text(input, 'record_id')?.slice(0, 255) ?? null,
          taskType,
          formFields,
          expiresAt,
        });
      },
    },
  },
};
