// Slack's named actions as the vendor's recipes store them (contract 22 §3): `post_bot_message`
// (slack_bot) and `post_message_to_channel` (slack), with `channel`, `text`, an optional
// `message: {title, attachment_text}` (an attachment with that title and text) and `thread_ts`;
// over chat.postMessage (https://api.slack.com/methods/chat.postMessage). Output: the message's
// `channel` and `ts` (its ID, and the thread to reply in), and `message` as Slack gives it back.
// The reply actions (`post_bot_reply`, `post_bot_reply_v2`) take the same fields with `thread_ts`
// required (the message replied to) and `reply_broadcast` (the reply shown in the channel too).
import { stepSession } from '../connections.ts';
import { StepError } from '../step-error.ts';
import type { ActionDef, Connector } from '../types.ts';
import { fromPlain, hashGet, isHash, toRubyString, type Hash } from '../../recipe/formula/values.ts';

/** Slack's message timestamps: seconds, a dot, microseconds. */
const TS = /^\d{1,12}\.\d{1,8}$/;

function textOf(input: Hash, key: string): string {
  const value = hashGet(input, key);
  return value === null || value === undefined ? '' : toRubyString(value);
}

export function postMessage(title: string, self: () => Connector, options: { reply?: boolean } = {}): ActionDef {
  return {
    title,
    required: [
      { path: 'channel', label: 'Channel' },
      ...(options.reply ? [{ path: 'thread_ts', label: 'Thread (the message replied to)' }] : []),
    ],
    async run(input, sc) {
      const channel = textOf(input, 'channel').trim();
      const text = textOf(input, 'text');
      const message = hashGet(input, 'message');
      const attachment = isHash(message)
        ? { title: textOf(message, 'title'), text: textOf(message, 'attachment_text') }
        : null;
      const withAttachment = attachment !== null && (attachment.title !== '' || attachment.text !== '');
      if (text === '' && !withAttachment)
        throw new StepError('Bad request', 'the message needs a text or a message title or attachment text');
      const body: Record<string, unknown> = { channel, text: text === '' ? (attachment?.title ?? '') : text };
      if (withAttachment) body.attachments = [{ ...attachment, mrkdwn_in: ['text'] }];
      const thread = textOf(input, 'thread_ts').trim();
      if (thread !== '' && !TS.test(thread))
        throw new StepError(
          'Bad request',
          `thread_ts ${JSON.stringify(thread.slice(0, 40))} is not a message timestamp`,
        );
      if (options.reply && thread === '') throw new StepError('Bad request', "thread_ts can't be blank in a reply");
      if (thread !== '') body.thread_ts = thread;
      const broadcast = hashGet(input, 'reply_broadcast');
      if (thread !== '' && (broadcast === true || textOf(input, 'reply_broadcast').trim() === 'true'))
        body.reply_broadcast = true;
      const session = await stepSession(sc, self());
      const res = await session.request({ method: 'POST', url: 'chat.postMessage', body: { json: body } });
      const answer = (res.body ?? {}) as { channel?: unknown; ts?: unknown; message?: unknown };
      return fromPlain({
        channel: answer.channel ?? channel,
        ts: answer.ts ?? null,
        ...(thread !== '' ? { thread_ts: thread } : {}),
        message: answer.message ?? null,
      });
    },
  };
}
