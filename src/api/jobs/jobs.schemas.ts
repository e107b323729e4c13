import { Type } from 'typebox';
import { Id, Timestamp } from '../../http/schemas.ts';

const NullableString = Type.Union([Type.String(), Type.Null()]);
const NullableInt = Type.Union([Type.Integer(), Type.Null()]);

const ErrorParts = Type.Object({
  adapter: Type.Union([Type.String(), Type.Null()]),
  error_type: Type.String(),
  message: Type.String(),
  error_id: Type.String(),
  error_at: Timestamp,
  input: Type.String(),
  inner_message: NullableString,
});

const JobFields = {
  id: Type.String({ description: 'Job handle (j-...)' }),
  flow_run_id: Type.Integer(),
  recipe_id: Type.Integer(),
  title: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')]),
  started_at: Timestamp,
  completed_at: Type.Union([Timestamp, Type.Null()]),
  is_error: Type.Boolean(),
  is_poll_error: Type.Boolean(),
  error: NullableString,
  error_parts: Type.Optional(ErrorParts),
  master_job_id: NullableString,
  calling_recipe_id: NullableInt,
  calling_job_id: NullableString,
  root_recipe_id: NullableInt,
  root_job_id: NullableString,
};

export const JobListItem = Type.Object(JobFields);

export const Line = Type.Object({
  recipe_line_number: Type.Integer(),
  adapter_name: Type.String(),
  adapter_operation: Type.String(),
  mask_data: Type.Boolean(),
  error: Type.Optional(Type.String()),
  line_stat: Type.Object({ total: Type.Number(), started_at: Timestamp, completed_at: Timestamp }),
});

export const JobDetail = Type.Object({
  ...JobFields,
  handle: Type.String(),
  is_repeat: Type.Boolean(),
  is_test: Type.Boolean(),
  is_test_case_job: Type.Boolean(),
  master_job_handle: NullableString,
  calling_job_handle: NullableString,
  lines: Type.Array(Line),
});

export const JobList = Type.Object({
  job_succeeded_count: Type.Integer(),
  job_failed_count: Type.Integer(),
  job_count: Type.Integer(),
  job_scope_count: Type.Integer(),
  items: Type.Array(JobListItem),
});

export const JobListParams = Type.Object({ recipe_id: Id });
export const JobParams = Type.Object({ recipe_id: Id, job_handle: Type.String({ minLength: 1, maxLength: 100 }) });

export const JobListQuery = Type.Object({
  offset_job_id: Type.Optional(Type.String({ maxLength: 100 })),
  prev: Type.Optional(Type.String({ maxLength: 10 })),
  status: Type.Optional(Type.String({ maxLength: 20 })),
  rerun_only: Type.Optional(Type.String({ maxLength: 10 })),
  per_page: Type.Optional(Type.String({ maxLength: 20 })),
  page: Type.Optional(Type.String({ maxLength: 20 })),
  offset_run_id: Type.Optional(Type.String({ maxLength: 20 })),
  failed: Type.Optional(Type.String({ maxLength: 10 })),
});

export const JobIdsBody = Type.Object({
  job_ids: Type.Optional(
    Type.Unsafe<unknown>({
      description: 'Job ids (j-...), at most 25; cancel_jobs without it cancels every pending job',
    }),
  ),
});

export const JobControlResults = Type.Object({
  results: Type.Array(
    Type.Object({
      job_id: Type.String(),
      status: Type.Unsafe<string>({ type: 'string', enum: ['enqueued', 'canceled', 'canceling', 'failed'] }),
      new_job_id: Type.Optional(Type.String({ description: 'repeat_jobs: the new job' })),
      error: Type.Optional(Type.String()),
    }),
  ),
});
