import { Type } from 'typebox';
import { Id, IdInput, PageQuery, Timestamp } from '../../http/schemas.ts';
import { DataRecord } from '../data_tables/data_tables.schemas.ts';

const Stage = Type.Object({ id: Type.String(), name: Type.String() });

export const WorkflowApp = Type.Object({
  id: Id,
  name: Type.String(),
  data_table_id: Id,
  stages: Type.Array(Stage, { description: 'The workflow stages, in order; a new request is at the first' }),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export const WorkflowAppList = Type.Object({ items: Type.Array(WorkflowApp) });
export const WorkflowAppListQuery = Type.Object(PageQuery);

const StageInput = Type.Union([
  Type.String({ minLength: 1, maxLength: 255 }),
  Type.Object({
    id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    name: Type.String({ minLength: 1, maxLength: 255 }),
  }),
]);

export const CreateWorkflowAppBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255 }),
  data_table_id: Type.Union([IdInput, Type.String({ minLength: 1, maxLength: 255 })], {
    description: 'The data table of the requests: its id or its name',
  }),
  stages: Type.Array(StageInput, { minItems: 1, maxItems: 50 }),
});

export const UpdateWorkflowAppBody = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  stages: Type.Optional(Type.Array(StageInput, { minItems: 1, maxItems: 50 })),
});

export const RequestParams = Type.Object({ id: Id, record_id: Type.String({ minLength: 1, maxLength: 64 }) });

export const WorkflowRequest = Type.Object({
  record_id: Type.String(),
  app_id: Id,
  stage: Stage,
  record: DataRecord,
});

export const AppFunctionParams = Type.Object({ recipe_id: Id });

export const AppFunctionBody = Type.Object({
  parameters: Type.Optional(
    Type.Record(Type.String(), Type.Unknown(), { description: "The component's input parameters" }),
  ),
  search_query: Type.Optional(Type.String({ maxLength: 1000, description: 'What the user typed in a drop-down' })),
  user: Type.Optional(
    Type.Object({
      id: Type.Optional(Type.Union([Type.String({ maxLength: 255 }), Type.Integer()])),
      name: Type.Optional(Type.String({ maxLength: 255 })),
      email: Type.Optional(Type.String({ maxLength: 320 })),
      user_groups: Type.Optional(Type.Array(Type.Unknown(), { maxItems: 100 })),
    }),
  ),
});

export const AppFunctionResult = Type.Object({
  data: Type.Unknown({ description: 'What app_function_return gave back: items (drop-down), rows (table), data' }),
  job_id: Type.String(),
});
