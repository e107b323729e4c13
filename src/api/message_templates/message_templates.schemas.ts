import { Type } from 'typebox';
import { Id, PageQuery, Timestamp } from '../../http/schemas.ts';

const ContentType = Type.Union([Type.Literal('html'), Type.Literal('text'), Type.Literal('json'), Type.Literal('xml')]);

export const MessageTemplate = Type.Object({
  id: Id,
  name: Type.String(),
  content_type: ContentType,
  body: Type.String({ description: 'The Mustache text' }),
  description: Type.Union([Type.String(), Type.Null()]),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export const MessageTemplateList = Type.Object({ items: Type.Array(MessageTemplate) });
export const MessageTemplateListQuery = Type.Object(PageQuery);

export const CreateMessageTemplateBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255 }),
  content_type: Type.Optional(ContentType),
  body: Type.String({ maxLength: 100_000 }),
  description: Type.Optional(Type.Union([Type.String({ maxLength: 10_000 }), Type.Null()])),
});

export const UpdateMessageTemplateBody = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  content_type: Type.Optional(ContentType),
  body: Type.Optional(Type.String({ maxLength: 100_000 })),
  description: Type.Optional(Type.Union([Type.String({ maxLength: 10_000 }), Type.Null()])),
});
