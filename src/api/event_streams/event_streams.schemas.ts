import { Type } from 'typebox';
import { IdInput, PageQuery, Timestamp } from '../../http/schemas.ts';

const SchemaFields = Type.Array(Type.Unknown(), {
  maxItems: 1000,
  description: 'Fields in the Workato schema format: {name, label, type, control_type, optional, of, properties}',
});

export const Topic = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  retention: Type.Integer({ description: 'Seconds a message is kept' }),
  folder_id: Type.Integer(),
  schema: Type.Optional(
    Type.Union([SchemaFields, Type.Null()], {
      description: 'Present on get, create and update, and on list with include_schema=true',
    }),
  ),
  last_message_at: Type.Union([Timestamp, Type.Null()]),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const TopicResult = Type.Object({ data: Topic });
export const TopicListResult = Type.Object({ data: Type.Array(Topic) });

const topicFields = {
  name: Type.String({ minLength: 1, maxLength: 255 }),
  description: Type.Union([Type.String({ maxLength: 10_000 }), Type.Null()]),
  schema: Type.Union([SchemaFields, Type.Null()]),
  retention: Type.Number({ description: 'Seconds (60 to 315360000); default 604800 (168 hours)' }),
  folder_id: IdInput,
};

export const CreateTopicBody = Type.Object({
  name: topicFields.name,
  description: Type.Optional(topicFields.description),
  schema: Type.Optional(topicFields.schema),
  retention: Type.Optional(topicFields.retention),
  folder_id: Type.Optional(topicFields.folder_id),
});

export const UpdateTopicBody = Type.Partial(CreateTopicBody);

export const TopicListQuery = Type.Object({
  name: Type.Optional(Type.String({ maxLength: 255, description: 'Case-sensitive partial match on the name' })),
  sort: Type.Optional(
    Type.Union([Type.Literal('id'), Type.Literal('name'), Type.Literal('activity')], {
      description: 'id (default), name, or activity (most recent first)',
    }),
  ),
  include_schema: Type.Optional(Type.Boolean({ description: "Include each topic's schema (default false)" })),
  ...PageQuery,
});
