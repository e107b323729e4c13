import { Type } from 'typebox';
import { IdInput, PageQuery, Timestamp } from '../../http/schemas.ts';

const NullableString = Type.Union([Type.String(), Type.Null()]);

export const Tag = Type.Object({
  handle: Type.String({ description: "The tag's id in paths and assignments (tag-...)" }),
  title: Type.String(),
  description: NullableString,
  color: NullableString,
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const TagList = Type.Object({ data: Type.Object({ tags: Type.Array(Tag) }) });

export const TagListQuery = Type.Object({
  q: Type.Optional(Type.String({ maxLength: 200, description: 'Only tags whose title holds this text (any case)' })),
  ...PageQuery,
});

export const TagHandleParams = Type.Object({ handle: Type.String({ minLength: 1, maxLength: 100 }) });

export const CreateTagBody = Type.Object({
  title: Type.String({ description: 'Unique in the environment, whatever the case; at most 100 characters' }),
  description: Type.Optional(NullableString),
  color: Type.Optional(NullableString),
});

export const UpdateTagBody = Type.Object({
  title: Type.Optional(Type.String()),
  description: Type.Optional(NullableString),
  color: Type.Optional(NullableString),
});

export const AssignmentBody = Type.Object({
  add_tags: Type.Optional(Type.Array(Type.String(), { description: 'Handles to attach' })),
  remove_tags: Type.Optional(Type.Array(Type.String(), { description: 'Handles to detach' })),
  recipe_ids: Type.Optional(Type.Array(IdInput)),
  connection_ids: Type.Optional(Type.Array(IdInput)),
});

export const AssignmentResult = Type.Object({
  success: Type.Boolean(),
  added: Type.Integer({ description: 'Attachments made' }),
  removed: Type.Integer({ description: 'Attachments removed' }),
});
