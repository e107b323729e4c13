// Gmail's `new_email` polling trigger: users.messages.list with `q=after:<epoch seconds>`
// (https://developers.google.com/gmail/api/reference/rest/v1/users.messages/list; newest first,
// pages with `nextPageToken`), then users.messages.get of each
// (https://developers.google.com/gmail/api/reference/rest/v1/users.messages/get). One job per
// message, oldest first within a page (Gmail lists newest first, so a burst of more than a page of
// 50 comes newest page first), with `subject`, `from`, `to` and `date` read from its headers beside the
// message resource; the message id is the dedup key. The cursor is the newest message's second
// (`internalDate`), asked again from one second before it.
import { stepSession } from '../connections.ts';
import { StepError } from '../step-error.ts';
import type { Connector, TriggerDef } from '../types.ts';
import { fromPlain, hashGet, toRubyString, type Hash } from '../../recipe/formula/values.ts';
import { closureOf, startOf } from './trigger-helpers.ts';

const PAGE = 50;
const LABEL = /^[A-Za-z0-9_ -]{1,100}$/;

interface Message {
  id: string;
  internalDate?: string;
  payload?: { headers?: Array<{ name?: string; value?: string }> };
}

export function gmailTriggers(self: () => Connector): Record<string, TriggerDef> {
  return {
    new_email: {
      title: 'New email',
      kind: 'poll',
      description: 'Triggers when an email arrives in Gmail',
      inputFields: [
        { name: 'label', label: 'Label', optional: true, hint: 'INBOX, a label name; blank: all mail' },
        {
          name: 'since',
          label: 'When first started, this recipe should pick up events from',
          type: 'timestamp',
          optional: true,
        },
      ],
      outputFields: [
        { name: 'id' },
        { name: 'threadId' },
        { name: 'labelIds', type: 'array', of: 'string' },
        { name: 'snippet' },
        { name: 'subject' },
        { name: 'from' },
        { name: 'to' },
        { name: 'date' },
        { name: 'internalDate' },
      ],
      output: (event) => event,
      async poll(input: Hash, closure, tc) {
        const label = toRubyString(hashGet(input, 'label') ?? '').trim();
        if (label !== '' && !LABEL.test(label))
          throw new StepError('Bad request', `label ${JSON.stringify(label.slice(0, 100))} is not a label`);
        const state = closureOf(closure);
        const after =
          typeof state.after === 'number'
            ? state.after
            : Math.floor(startOf(input, tc.ctx.clock.now()).getTime() / 1000) - 1;
        const session = await stepSession(tc, self());
        const query: Record<string, string | number> = {
          q: `after:${after}`,
          maxResults: PAGE,
          ...(label !== '' ? { labelIds: label } : {}),
          ...(typeof state.page_token === 'string' ? { pageToken: state.page_token } : {}),
        };
        const list = (await session.request({ method: 'GET', url: 'me/messages', query })).body as {
          messages?: Array<{ id: string }>;
          nextPageToken?: unknown;
        };
        const messages: Message[] = [];
        for (const { id } of list.messages ?? [])
          messages.push(
            (
              await session.request({
                method: 'GET',
                url: `me/messages/${encodeURIComponent(id)}`,
                query: { format: 'full' },
              })
            ).body as Message,
          );
        messages.sort((a, b) => Number(a.internalDate) - Number(b.internalDate));
        const newest = Math.max(
          typeof state.newest === 'number' ? state.newest : after,
          ...messages.map((m) => Math.floor(Number(m.internalDate) / 1000) - 1).filter(Number.isFinite),
        );
        const more = typeof list.nextPageToken === 'string';
        const header = (m: Message, name: string) =>
          m.payload?.headers?.find((h) => h.name?.toLowerCase() === name)?.value ?? null;
        return {
          events: messages.map((m) => ({
            event: fromPlain({
              ...m,
              subject: header(m, 'subject'),
              from: header(m, 'from'),
              to: header(m, 'to'),
              date: header(m, 'date'),
            }) as Hash,
            dedup: String(m.id),
          })),
          closure: more ? { after, page_token: list.nextPageToken, newest } : { after: newest },
          canPollMore: more,
        };
      },
    },
  };
}
