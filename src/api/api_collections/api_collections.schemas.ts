import { Type } from 'typebox';
import { IdInput, PageQuery, Timestamp } from '../../http/schemas.ts';

export const Collection = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  version: Type.String(),
  url: Type.String({ description: 'Base URL on the gateway: <gateway>/<api-prefix>/<collection-slug>' }),
  api_spec_url: Type.String(),
  project_id: Type.Union([Type.Integer(), Type.Null()]),
  proxy_connection_id: Type.Union([Type.Integer(), Type.Null()]),
  public_access: Type.Boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const CreatedCollection = Type.Intersect([
  Collection,
  Type.Object({
    message: Type.Optional(Type.String()),
    import_results: Type.Optional(
      Type.Object({
        success: Type.Boolean(),
        total_endpoints: Type.Integer(),
        failed_endpoints: Type.Integer(),
        failed_actions: Type.Array(Type.String()),
      }),
    ),
  }),
]);

export const CreateCollectionBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255 }),
  version: Type.Optional(Type.String({ maxLength: 50 })),
  project_id: Type.Optional(IdInput),
  proxy_connection_id: Type.Optional(Type.Union([IdInput, Type.Null()])),
  public_access: Type.Optional(Type.Boolean()),
  openapi_spec: Type.Optional(
    Type.Object({
      content: Type.String({ maxLength: 1_000_000 }),
      format: Type.Union([Type.Literal('json'), Type.Literal('yaml')]),
    }),
  ),
  description: Type.Optional(Type.String({ description: 'Accepted and ignored, as the vendor does' })),
});

export const UpdateCollectionBody = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  proxy_connection_id: Type.Optional(Type.Union([IdInput, Type.Null()])),
  public_access: Type.Optional(Type.Boolean()),
});

export const CreateEndpointBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255 }),
  method: Type.String({ maxLength: 10 }),
  path: Type.String({ minLength: 1, maxLength: 1000 }),
  flow_id: Type.Optional(IdInput),
  description: Type.Optional(Type.String({ maxLength: 10_000 })),
  validate_request: Type.Optional(
    Type.Boolean({ description: "Check each request against the recipe trigger's request schema (400 otherwise)" }),
  ),
});

export const CollectionListQuery = Type.Object(PageQuery);
export const DeleteResult = Type.Object({ result: Type.Object({ success: Type.Boolean() }) });
