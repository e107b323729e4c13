import { Type } from 'typebox';
import { Id, PageQuery, Timestamp } from '../../http/schemas.ts';

export const Endpoint = Type.Object({
  id: Type.Integer(),
  api_collection_id: Type.Integer(),
  flow_id: Type.Union([Type.Integer(), Type.Null()]),
  name: Type.String(),
  method: Type.String(),
  url: Type.String(),
  legacy_url: Type.Union([Type.String(), Type.Null()]),
  base_path: Type.String(),
  path: Type.String(),
  active: Type.Boolean(),
  legacy: Type.Boolean(),
  validate_request: Type.Boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const EndpointListQuery = Type.Object({ api_collection_id: Type.Optional(Id), ...PageQuery });
