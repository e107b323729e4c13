// Slack's named actions as the vendor's recipes store them (contract 22 §3): `post_bot_message`
// (slack_bot) and `post_message_to_channel` (slack), with `channel`, `text`, an optional
// `message: {title, attachment_text}` (an attachment with that title and text) and `thread_ts`;
// over chat.postMessage (https://api.slack.com/methods/chat.postMessage). Output: the message's
// `channel` and `ts` (its ID, and the thread to reply in), and `message` as Slack gives it back.
import { stepSession } from '../connections.ts';
import { StepError } from '../step-error.ts';
import type { ActionDef, Connector } from '../types.ts';
import { fromPlain, hashGet, isHash, toRubyString, type Hash } from '../../recipe/formula/values.ts';

function textOf(input: Hash, key: string): string {
  const value = hashGet(input, key);
  return value === null || value === undefined ? '' : toRubyString(value);
}

export function postMessage(title: string, self: () => Connector): ActionDef {
  return {
    title,
    required: [{ path: 'channel', label: 'Channel' }],
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
      if (thread !== '') body.thread_ts = thread;
      const session = await stepSession(sc, self());
      const res = await session.request({ method: 'POST', url: 'chat.postMessage', body: { json: body } });
      const answer = (res.body ?? {}) as { channel?: unknown; ts?: unknown; message?: unknown };
      return fromPlain({ channel: answer.channel ?? channel, ts: answer.ts ?? null, message: answer.message ?? null });
    },
  };
}
