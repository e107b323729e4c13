// Outlook's `new_email` polling trigger over Microsoft Graph's message list of a mail folder
// (https://learn.microsoft.com/en-us/graph/api/user-list-messages, `$filter=receivedDateTime ge
// <time>`, `$orderby=receivedDateTime asc`, pages of 50 linked by `@odata.nextLink`). The cursor is
// the time of the newest message read; messages of that very time come again and are dropped by
// their id (the dedup key).
import { stepSession } from '../connections.ts';
import { StepError } from '../step-error.ts';
import type { Connector, TriggerDef } from '../types.ts';
import { fromPlain, hashGet, toRubyString, type Hash } from '../../recipe/formula/values.ts';
import { closureOf, startOf } from './trigger-helpers.ts';

const PAGE = 50;
/** Well-known folder names and folder ids (base64url-ish). */
const FOLDER = /^[A-Za-z0-9_=+-]{1,300}$/;

export function outlookTriggers(self: () => Connector): Record<string, TriggerDef> {
  return {
    new_email: {
      title: 'New email',
      kind: 'poll',
      description: 'Triggers when an email arrives in the chosen Outlook folder',
      inputFields: [
        { name: 'folder_id', label: 'Folder', optional: true, hint: 'A folder id or well-known name; blank: inbox' },
        {
          name: 'since',
          label: 'When first started, this recipe should pick up events from',
          type: 'timestamp',
          optional: true,
        },
      ],
      outputFields: [
        { name: 'id' },
        { name: 'subject' },
        { name: 'bodyPreview' },
        { name: 'receivedDateTime', type: 'date_time' },
        { name: 'hasAttachments', type: 'boolean' },
        { name: 'from', type: 'object', properties: [{ name: 'emailAddress', type: 'object' }] },
        { name: 'body', type: 'object', properties: [{ name: 'contentType' }, { name: 'content' }] },
      ],
      output: (event) => event,
      async poll(input: Hash, closure, tc) {
        const folder = toRubyString(hashGet(input, 'folder_id') ?? '').trim() || 'inbox';
        if (!FOLDER.test(folder))
          throw new StepError('Bad request', `folder_id ${JSON.stringify(folder.slice(0, 80))} is not a folder`);
        const state = closureOf(closure);
        const since =
          typeof state.since === 'string'
            ? state.since
            : startOf(input, tc.ctx.clock.now())
                .toISOString()
                .replace(/\.\d{3}Z$/, 'Z');
        const session = await stepSession(tc, self());
        const next = typeof state.next_link === 'string' ? state.next_link : null;
        const res = next
          ? await session.request({ method: 'GET', url: next })
          : await session.request({
              method: 'GET',
              url: `me/mailFolders/${encodeURIComponent(folder)}/messages`,
              query: { $filter: `receivedDateTime ge ${since}`, $orderby: 'receivedDateTime asc', $top: PAGE },
            });
        const body = res.body as { value?: Array<Record<string, unknown>>; '@odata.nextLink'?: unknown };
        const messages = body.value ?? [];
        const newest = messages.reduce<string>(
          (max, m) => {
            const at = typeof m.receivedDateTime === 'string' ? m.receivedDateTime : '';
            return Date.parse(at) > Date.parse(max) ? at.replace(/\.\d+Z$/, 'Z') : max;
          },
          typeof state.newest === 'string' ? state.newest : since,
        );
        const link = body['@odata.nextLink'];
        const more = typeof link === 'string' && link.startsWith(session.baseUrl.origin);
        return {
          events: messages.map((m) => ({ event: fromPlain(m) as Hash, dedup: String(m.id) })),
          closure: more ? { since, next_link: link, newest } : { since: newest },
          canPollMore: more,
        };
      },
    },
  };
}
