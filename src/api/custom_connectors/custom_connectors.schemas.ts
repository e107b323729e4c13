import { Type } from 'typebox';
import { Timestamp } from '../../http/schemas.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

export const ConnectorListQuery = Type.Object({
  title: Type.Optional(Type.String({ maxLength: 255, description: 'Case-insensitive substring of the title' })),
  oem_shared: Type.Optional(
    Type.Boolean({ description: 'true: only connectors shared from an Embedded parent workspace' }),
  ),
});

const code = Type.String({
  maxLength: 10 * 1024 * 1024,
  description: 'Connector source (a Ruby hash literal), at most 10 MB',
});

export const CreateConnectorBody = Type.Object({
  title: Type.String({ maxLength: 10_000 }),
  code,
  description: Type.Optional(Nullable(Type.String({ maxLength: 100_000 }))),
  note: Type.Optional(Nullable(Type.String({ maxLength: 100_000, description: 'Note of the first version' }))),
});

export const UpdateConnectorBody = Type.Object({
  code: Type.Optional(code),
  description: Type.Optional(Nullable(Type.String({ maxLength: 100_000 }))),
  note: Type.Optional(
    Nullable(Type.String({ maxLength: 100_000, description: 'Note of the new version (needs code)' })),
  ),
});

export const CustomConnector = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  title: Type.String(),
  description: Nullable(Type.String()),
  latest_released_version: Nullable(Type.Integer()),
  latest_released_version_note: Nullable(Type.String()),
  oem_shared_version: Nullable(Type.Integer()),
  oem_shared_at: Nullable(Timestamp),
  released_versions: Type.Array(
    Type.Object({
      version: Type.Integer(),
      version_note: Nullable(Type.String()),
      created_at: Timestamp,
      released_at: Timestamp,
    }),
  ),
  static_webhook_url: Nullable(Type.String()),
});

export const ConnectorListResult = Type.Object({ result: Type.Array(CustomConnector) });
export const ConnectorDataResult = Type.Object({ data: CustomConnector });
export const ConnectorCodeResult = Type.Object({ data: Type.Object({ code: Type.String() }) });
