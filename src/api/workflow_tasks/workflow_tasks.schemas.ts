import { Type } from 'typebox';
import { Id, Timestamp } from '../../http/schemas.ts';

const NullableString = Type.Union([Type.String(), Type.Null()]);
const Status = Type.Union([
  Type.Literal('open'),
  Type.Literal('completed'),
  Type.Literal('expired'),
  Type.Literal('canceled'),
]);

const FormField = Type.Object({
  name: Type.String(),
  label: Type.String(),
  type: Type.Union([
    Type.Literal('string'),
    Type.Literal('integer'),
    Type.Literal('number'),
    Type.Literal('boolean'),
    Type.Literal('date'),
  ]),
  optional: Type.Boolean(),
});

export const WorkflowTask = Type.Object({
  id: Id,
  recipe_id: Id,
  job_id: Type.String({ description: 'The handle of the job waiting for the task (j-...)' }),
  step_number: Type.Integer(),
  name: Type.String(),
  assignee: NullableString,
  record_id: NullableString,
  status: Status,
  task_type: Type.Union([Type.Literal('approval'), Type.Literal('form')]),
  form_fields: Type.Array(FormField),
  result: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], {
    description: "The task step's output once the task ended",
  }),
  completed_by: NullableString,
  created_at: Timestamp,
  expires_at: Type.Union([Timestamp, Type.Null()]),
  completed_at: Type.Union([Timestamp, Type.Null()]),
});

export const WorkflowTaskList = Type.Object({ items: Type.Array(WorkflowTask) });

export const WorkflowTaskListQuery = Type.Object(
  {
    recipe_id: Type.Optional(Id),
    status: Type.Optional(Type.String({ maxLength: 20, description: 'open, completed, expired or canceled' })),
    assignee: Type.Optional(Type.String({ maxLength: 320, description: "The assignee's e-mail" })),
    since_id: Type.Optional(Type.Integer({ minimum: 0, description: 'Only tasks with a larger id (paging)' })),
    per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
  },
  { additionalProperties: false },
);

export const CompleteTaskBody = Type.Object(
  {
    status: Type.Optional(
      Type.Union([Type.Literal('approved'), Type.Literal('rejected'), Type.Literal('completed')], {
        description: 'approved or rejected (approval tasks); completed (form tasks, the default)',
      }),
    ),
    fields: Type.Optional(
      Type.Record(Type.String({ maxLength: 100 }), Type.Unknown(), {
        maxProperties: 100,
        description: "The form's values, by field name",
      }),
    ),
    comments: Type.Optional(Type.String({ maxLength: 10_000 })),
    custom_status_label: Type.Optional(Type.String({ maxLength: 255 })),
    completed_by: Type.Optional(Type.String({ maxLength: 320 })),
  },
  { additionalProperties: false },
);
