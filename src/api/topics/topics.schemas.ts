import { Type } from 'typebox';
import { Id } from '../../http/schemas.ts';
import { CONSUME_LIMITS, MAX_BATCH_MESSAGES } from './topics.service.ts';

export const TopicParams = Type.Object({ topic_id: Id });

export const ConsumeBody = Type.Object({
  after_message_id: Type.Optional(
    Type.Union([Type.String({ maxLength: 200 }), Type.Null()], {
      description: 'Return messages published after this one (the recommended cursor)',
    }),
  ),
  since_time: Type.Optional(
    Type.Union([Type.String({ maxLength: 100 }), Type.Null()], {
      description: 'RFC 3339: return messages published after this time (ignored with after_message_id)',
    }),
  ),
  batch_size: Type.Optional(
    Type.Integer({
      minimum: CONSUME_LIMITS.batchSize.min,
      maximum: CONSUME_LIMITS.batchSize.max,
      description: 'At most this many messages (default 50)',
    }),
  ),
  timeout_secs: Type.Optional(
    Type.Integer({
      minimum: CONSUME_LIMITS.timeoutSecs.min,
      maximum: CONSUME_LIMITS.timeoutSecs.max,
      description: 'Long-poll wait when nothing is there yet (default 0: answer at once)',
    }),
  ),
});

export const Message = Type.Object({
  message_id: Type.String(),
  payload: Type.Record(Type.String(), Type.Unknown()),
  time: Type.String({ description: 'Publish time, RFC 3339' }),
});

export const ConsumeResult = Type.Object({ messages: Type.Array(Message) });

export const PublishResult = Type.Object({ message_id: Type.String() });

export const BatchBody = Type.Object({
  payloads: Type.Array(Type.Unknown(), {
    minItems: 1,
    maxItems: MAX_BATCH_MESSAGES,
    description: 'Messages (JSON objects), stored in this order',
  }),
});

export const BatchResult = Type.Object({
  is_partial_error: Type.Boolean(),
  message_ids: Type.Record(
    Type.String(),
    Type.Union([Type.Object({ message_id: Type.String() }), Type.Object({ error: Type.String() })]),
    { description: 'Item index (as a string) -> its message id, or why it was refused' },
  ),
});
