import { Type } from 'typebox';
import { Id, IdInput, PageQuery, Timestamp } from '../../http/schemas.ts';

export const ApiClient = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  project_id: Type.Union([Type.Integer(), Type.Null()]),
  active: Type.Boolean(),
  api_policy_id: Type.Union([Type.Integer(), Type.Null()]),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const CreateApiClientBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255 }),
  project_id: Type.Optional(IdInput),
  description: Type.Optional(Type.String({ maxLength: 10_000 })),
  api_policy_id: Type.Optional(IdInput),
});

export const ApiClientListQuery = Type.Object({ project_id: Type.Optional(Id), ...PageQuery });
