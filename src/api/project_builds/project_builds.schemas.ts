import { Type } from 'typebox';
import { Id, Timestamp } from '../../http/schemas.ts';

export const ProjectRefParams = Type.Object({
  project_id: Type.String({
    pattern: '^[fF]?[0-9]{1,15}$',
    description: 'A project id, or f<folder id> for the project rooted at that folder',
  }),
});
export const BuildParams = Type.Object({ id: Id });

export const BuildBody = Type.Object({
  description: Type.Optional(Type.String()),
  include_test_cases: Type.Optional(
    Type.Boolean({ description: "Put the project's recipes' test cases into the build" }),
  ),
  include_data: Type.Optional(
    Type.Boolean({
      description:
        'Put the rows of the lookup and data tables into the build (default false: a deployment keeps the rows of the target)',
    }),
  ),
});

export const DeployQuery = Type.Object({
  environment_type: Type.Optional(
    Type.String({ description: 'test or prod (also accepted in the body); any other value answers 404' }),
  ),
});

export const DeployBody = Type.Object({
  environment_type: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  title: Type.Optional(Type.String({ description: 'Accepted and ignored' })),
  include_tags: Type.Optional(Type.Boolean()),
  include_test_cases: Type.Optional(Type.Boolean()),
  include_data: Type.Optional(Type.Boolean()),
});

const State = Type.Unsafe<string>({ type: 'string', enum: ['pending', 'success', 'failed'] });

export const Build = Type.Object({
  id: Type.Integer(),
  project_build_id: Type.Integer({ description: 'Equal to id' }),
  created_at: Timestamp,
  updated_at: Timestamp,
  description: Type.Union([Type.String(), Type.Null()]),
  include_test_cases: Type.Union([Type.Boolean(), Type.Null()]),
  include_data: Type.Boolean({ description: 'Whether the build carries the rows of its lookup and data tables' }),
  project_id: Type.String(),
  state: State,
  performed_by_name: Type.String(),
  download_url: Type.Union([Type.String(), Type.Null()], {
    description: "The build's zip (GET /api/packages/:id/download) once state is success",
  }),
  error: Type.Optional(Type.String()),
});

export const Deployment = Type.Object({
  id: Type.Integer(),
  created_at: Timestamp,
  updated_at: Timestamp,
  description: Type.Union([Type.String(), Type.Null()]),
  project_build_id: Type.Integer(),
  environment_type: Type.Unsafe<string>({ type: 'string', enum: ['test', 'prod'] }),
  project_id: Type.String({ description: 'The source (dev) project' }),
  target_project_id: Type.Union([Type.String(), Type.Null()], {
    description: 'The project in the target environment (null until the deployment has created it)',
  }),
  state: State,
  performed_by_name: Type.String(),
  error: Type.Optional(Type.String({ description: 'Why it failed' })),
});

export const DeploymentParams = Type.Object({ id: Id });

export const DeploymentListQuery = Type.Object({
  project_id: Type.Optional(Type.String()),
  folder_id: Type.Optional(Type.String({ description: 'f<folder id> or the bare id' })),
  environment_type: Type.Optional(Type.String()),
  state: Type.Optional(Type.String()),
  from: Type.Optional(Type.String({ description: 'Created at or after (ISO 8601)' })),
  to: Type.Optional(Type.String({ description: 'Created at or before (ISO 8601)' })),
  page: Type.Optional(Type.Unsafe<string | number>({ type: ['integer', 'string'] })),
  per_page: Type.Optional(Type.Unsafe<string | number>({ type: ['integer', 'string'] })),
});

export const DeploymentList = Type.Object({ items: Type.Array(Deployment) });
