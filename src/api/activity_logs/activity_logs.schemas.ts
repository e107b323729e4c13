import { Type } from 'typebox';
import { PageQuery, Timestamp } from '../../http/schemas.ts';

const StringOrList = Type.Union([
  Type.String({ maxLength: 2000 }),
  Type.Array(Type.String({ maxLength: 200 }), { maxItems: 100 }),
]);

export const ActivityLogQuery = Type.Object({
  from: Type.Optional(
    Type.String({ maxLength: 64, description: 'RFC 3339 date-time or date: entries at or after it' }),
  ),
  to: Type.Optional(Type.String({ maxLength: 64, description: 'RFC 3339 date-time or date: entries at or before it' })),
  event_type: Type.Optional(Type.String({ maxLength: 2000, description: 'Event type (a comma list takes several)' })),
  'include_event_types[]': Type.Optional(StringOrList),
  'include_resource_types[]': Type.Optional(StringOrList),
  ...PageQuery,
});

export const ActivityLogEntry = Type.Object({
  id: Type.Integer(),
  event_type: Type.String({ description: '<resource>_<what happened>, e.g. recipe_started' }),
  timestamp: Timestamp,
  user: Type.Object(
    { id: Type.Integer(), name: Type.String(), email: Type.String() },
    { description: 'The workspace owner, on whose behalf developer API clients act' },
  ),
  resource_type: Type.String(),
  resource_id: Type.Union([Type.String(), Type.Null()]),
  resource_name: Type.Union([Type.String(), Type.Null()]),
  details: Type.Record(Type.String(), Type.Unknown(), {
    description: 'What changed, with the client that made the change (client, via, ip, user_agent, request_id)',
  }),
});

export const ActivityLogList = Type.Object({ data: Type.Array(ActivityLogEntry) });
