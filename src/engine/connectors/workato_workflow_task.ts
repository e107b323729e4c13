// workato_workflow_task (Workflow apps): an app's requests are the records of its data table and
// move through its workflow stages (src/api/workflow_apps/). `human_review_on_existing_record`
// (Assign task to users) creates a task for a person and stops the job until the task ends:
// completed (approved, rejected, or a form's values), expired (`due_in_days`), or canceled. The job
// holds no worker meanwhile; when the task ends it runs again from its checkpoint and this step gives
// the task's outcome as its output (src/engine/README.md, "Workflow tasks"; the API:
// src/api/workflow_tasks/). `new_requests_realtime` (and `updated_requests_realtime`) start a job for
// each request created (or changed) in the app's table; `change_workflow_stage` and
// `update_request` move and change a request. The app functions (`app_function_*_request`
// triggers) answer a page's component through `app_function_return`, called by the Workflow apps
// API (POST /api/workflow_apps/app_functions/:recipe_id).
import { findStage, moveRequest, resolveApp, stageOfRequest } from '../../api/workflow_apps/workflow_apps.service.ts';
import { stagesOf } from '../../api/workflow_apps/workflow_apps.store.ts';
import type { Db, WorkflowAppRow } from '../../db/types.ts';
import type { RecordChange, VisibleTable } from '../../api/data_tables/data_tables.service.ts';
import {
  EndJob,
  StepError,
  SuspendJob,
  type ActionDef,
  type Connector,
  type StepContext,
  type TriggerDef,
} from './types.ts';
import { type TaskFormField } from '../../recipe/document.ts';
import { recordPlain, workatoDbTable } from './workato_db_table.ts';
import {
  fromPlain,
  hashGet,
  isHash,
  newHash,
  toPlain,
  toRubyString,
  type Hash,
  type Value,
} from '../../recipe/formula/values.ts';

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

/** The app a step or trigger names: `app_id`, or `project_id` (the lcap_app reference change_workflow_stage carries). */
export function appRefOf(input: Hash): Value {
  return hashGet(input, 'app_id') ?? hashGet(input, 'project_id') ?? hashGet(input, 'workflow_app');
}

async function appOf(sc: StepContext, input: Hash): Promise<WorkflowAppRow> {
  const ref = appRefOf(input);
  if (ref === null || ref === '') throw new StepError('Bad request', 'app_id must name a Workflow app');
  const app = await resolveApp(sc.ctx.db, sc.recipe.environmentId, toPlain(ref));
  if (!app)
    throw new StepError(
      'Not found',
      `Workflow app ${JSON.stringify(toPlain(isHash(ref) ? (hashGet(ref, 'name') ?? ref) : ref)).slice(0, 120)} not found in this environment`,
    );
  return app;
}

function stageOf(app: WorkflowAppRow, ref: Value) {
  const stage = findStage(app, toPlain(ref));
  if (!stage)
    throw new StepError(
      'Bad request',
      `workflow stage ${JSON.stringify(toPlain(isHash(ref) ? (hashGet(ref, 'name') ?? hashGet(ref, 'id')) : ref)).slice(0, 80)} does not exist in ${app.name} (stages: ${stagesOf(
        app,
      )
        .map((st) => st.name)
        .join(', ')})`,
    );
  return stage;
}

function recordIdOf(input: Hash): string {
  const id = toRubyString(hashGet(input, 'record_id')).trim();
  if (id === '') throw new StepError('Bad request', 'record_id must be the Record ID of a request');
  return id;
}

/** A request as recipes see it: the record's fields by column name, its Record ID, stage and times. */
function requestHash(
  app: WorkflowAppRow,
  table: Pick<VisibleTable, 'columns'>,
  change: RecordChange['record'],
  stage: { id: string; name: string },
): Hash {
  const named = recordPlain(table, change, 'field_name_to_value');
  return fromPlain({
    ...named,
    record_id: change.record_id,
    app_id: app.id,
    app_name: app.name,
    stage: { id: stage.id, name: stage.name },
    created_at: change.created_at,
    updated_at: change.updated_at,
  }) as Hash;
}

/** The stored event of a request trigger (the record written, in the write's transaction). */
export async function requestEvent(
  trx: Db,
  app: WorkflowAppRow,
  table: VisibleTable,
  change: RecordChange,
): Promise<Hash> {
  const stage = await stageOfRequest(trx, app, change.record.record_id);
  return newHash([
    ['request', requestHash(app, table, change.record, stage)],
    ['record', fromPlain(recordPlain(table, change.record, 'field_hash_to_value'))],
    ['is_new', change.old === null],
  ]);
}

const requestTrigger = (title: string): TriggerDef => ({
  title,
  kind: 'data_table',
  required: [{ path: 'app_id', label: 'Workflow app' }],
  output(event) {
    const request = hashGet(event, 'request');
    return newHash([
      ['request', request ?? newHash()],
      ['record_id', isHash(request) ? hashGet(request, 'record_id') : null],
      ['stage', isHash(request) ? hashGet(request, 'stage') : null],
      ['record', hashGet(event, 'record') ?? newHash()],
    ]);
  },
  titleFields(event) {
    const request = hashGet(event, 'request');
    if (!isHash(request)) return [];
    const stage = hashGet(request, 'stage');
    return [
      ['Record ID', toRubyString(hashGet(request, 'record_id'))],
      ['Stage', isHash(stage) ? toRubyString(hashGet(stage, 'name')) : ''],
    ];
  },
});

/**
 * An app function trigger: called by a page's component through the API. The vendor refuses one
 * without its hidden marker input (`_<name>_trigger_mark: true`), so Switchboard does too.
 */
const appFunctionTrigger = (name: string, title: string): TriggerDef => ({
  title,
  kind: 'app_function',
  check(input) {
    const mark = hashGet(input, `_${name}_trigger_mark`);
    return mark === true || mark === 'true'
      ? []
      : [['Trigger mark', mark, 'is not set in input field', `_${name}_trigger_mark`]];
  },
  output(event) {
    const user = hashGet(event, 'user');
    return newHash([
      [
        'context',
        newHash([
          ['user', fromPlain(user) ?? newHash()],
          ['session_id', hashGet(event, 'session_id')],
        ]),
      ],
      ['parameters', fromPlain(hashGet(event, 'parameters')) ?? newHash()],
      ['search_query', hashGet(event, 'search_query')],
    ]);
  },
  titleFields(event) {
    const user = hashGet(event, 'user');
    const email = isHash(user) ? hashGet(user, 'email') : null;
    return email === null ? [] : [['User', toRubyString(email)]];
  },
});

const MAX_ITEMS = 10_000;

/** Return data to component: the drop-down's `items`, the table's `rows`, or a button's `data`; ends the job. */
const appFunctionReturn: ActionDef = {
  title: 'Return data to component',
  run(input) {
    const out = newHash();
    for (const key of ['items', 'rows', 'data']) {
      const v = hashGet(input, key);
      if (v === null) continue;
      if ((key === 'items' || key === 'rows') && !Array.isArray(v))
        throw new StepError('Bad request', `${key} must be a list`);
      if (Array.isArray(v) && v.length > MAX_ITEMS)
        throw new StepError('Bad request', `${key} holds more than ${MAX_ITEMS} entries`);
      if (key === 'items' && Array.isArray(v))
        v.forEach((item: Value, i: number) => {
          if (!isHash(item) || hashGet(item, 'value') === null)
            throw new StepError('Bad request', `items[${i}] must be an object with a value (and a label)`);
        });
      out[key] = v;
    }
    for (const key of Object.keys(input)) if (!Object.hasOwn(out, key)) out[key] = input[key] as Value;
    throw new EndJob('response', out);
  },
};

const changeWorkflowStage: ActionDef = {
  title: 'Change workflow stage',
  required: [
    { path: 'record_id', label: 'Record ID' },
    { path: 'workflow_stage_id', label: 'Workflow stage' },
  ],
  async run(input, sc) {
    const app = await appOf(sc, input);
    const recordId = recordIdOf(input);
    const stage = stageOf(app, hashGet(input, 'workflow_stage_id'));
    if (!(await moveRequest(sc.ctx, app, recordId, stage)))
      throw new StepError('Not found', `no request ${JSON.stringify(recordId).slice(0, 80)} in ${app.name}`);
    return newHash([
      ['record_id', recordId],
      [
        'stage',
        newHash([
          ['id', stage.id],
          ['name', stage.name],
        ]),
      ],
    ]);
  },
};

const updateRequest: ActionDef = {
  title: 'Update request',
  required: [{ path: 'record_id', label: 'Record ID' }],
  async run(input, sc) {
    const app = await appOf(sc, input);
    const recordId = recordIdOf(input);
    const stageRef = hashGet(input, 'workflow_stage_id');
    const stage = stageRef === null || stageRef === '' ? null : stageOf(app, stageRef);
    const parameters = hashGet(input, 'parameters');
    if (parameters !== null && !isHash(parameters))
      throw new StepError('Bad request', 'parameters must be an object of column values (by column UUID)');
    const update = workatoDbTable.actions.update_record as ActionDef;
    const result = await update.run(
      newHash([
        ['table_id', app.data_table_id],
        ['record_id', recordId],
        ['parameters', parameters ?? newHash()],
        ['output_format', 'field_name_to_value'],
      ]),
      sc,
    );
    if (stage) await moveRequest(sc.ctx, app, recordId, stage);
    const now = stage ?? (await stageOfRequest(sc.ctx.db, app, recordId));
    const record = isHash(result) ? hashGet(result, 'record') : null;
    return newHash([
      [
        'request',
        newHash([
          ...(isHash(record) ? Object.entries(record) : []),
          ['record_id', recordId],
          ['app_id', app.id],
          [
            'stage',
            newHash([
              ['id', now.id],
              ['name', now.name],
            ]),
          ],
        ]),
      ],
    ]);
  },
};

export const workatoWorkflowTask: Connector = {
  provider: 'workato_workflow_task',
  title: 'Workflow apps by Workato',
  needsConnection: false,
  // A person completes the task: a test case mocks the step.
  reachesOutside: true,
  triggers: {
    new_requests_realtime: requestTrigger('new request'),
    updated_requests_realtime: requestTrigger('new/updated request'),
    app_function_load_dropdown_request: appFunctionTrigger(
      'app_function_load_dropdown_request',
      'new component event (drop-down)',
    ),
    app_function_load_table_request: appFunctionTrigger(
      'app_function_load_table_request',
      'new component event (table)',
    ),
    app_function_generic_request: appFunctionTrigger('app_function_generic_request', 'new component event'),
  },
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
    change_workflow_stage: { ...changeWorkflowStage, reachesOutside: false },
    update_request: { ...updateRequest, reachesOutside: false },
    app_function_return: { ...appFunctionReturn, reachesOutside: false },
    app_function_load_dropdown_return: { ...appFunctionReturn, reachesOutside: false },
  },
};
