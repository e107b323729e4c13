// Stripe's `new_event` polling trigger over the events list
// (https://docs.stripe.com/api/events/list): newest first, `created[gte]` on the first poll, then
// `ending_before` the newest event seen, which lists the events just after it (pages of 100,
// `has_more` when more follow). One job per event, oldest first; the event's `id` is its dedup key.
import { stepSession } from '../connections.ts';
import { StepError } from '../step-error.ts';
import type { Connector, TriggerDef } from '../types.ts';
import { fromPlain, hashGet, toRubyString, type Hash } from '../../recipe/formula/values.ts';
import { closureOf, startOf } from './trigger-helpers.ts';

const PAGE = 100;
const TYPE = /^[a-z_.*]{1,100}$/;

interface StripeEvent {
  id: string;
  type: string;
  created: number;
}

export function stripeTriggers(self: () => Connector): Record<string, TriggerDef> {
  return {
    new_event: {
      title: 'New event',
      kind: 'poll',
      description: 'Triggers when an event happens in Stripe (a customer created, an invoice paid...)',
      inputFields: [
        { name: 'event_type', label: 'Event type', optional: true, hint: 'invoice.paid, customer.*; blank: all' },
        {
          name: 'since',
          label: 'When first started, this recipe should pick up events from',
          type: 'timestamp',
          optional: true,
        },
      ],
      outputFields: [
        { name: 'id' },
        { name: 'type' },
        { name: 'created', type: 'integer' },
        { name: 'livemode', type: 'boolean' },
        { name: 'data', type: 'object', properties: [{ name: 'object', type: 'object' }] },
      ],
      output: (event) => event,
      async poll(input: Hash, closure, tc) {
        const type = toRubyString(hashGet(input, 'event_type') ?? '').trim();
        if (type !== '' && !TYPE.test(type))
          throw new StepError(
            'Bad request',
            `event_type ${JSON.stringify(type.slice(0, 100))} is not a Stripe event type`,
          );
        const state = closureOf(closure);
        const last = typeof state.last_id === 'string' ? state.last_id : null;
        const query: Record<string, string | number> = { limit: PAGE };
        if (type !== '') query.type = type;
        if (last) query.ending_before = last;
        else query['created[gte]'] = Math.floor(startOf(input, tc.ctx.clock.now()).getTime() / 1000);
        const session = await stepSession(tc, self());
        const page = (await session.request({ method: 'GET', url: 'events', query })).body as {
          data?: StripeEvent[];
          has_more?: boolean;
        };
        const events = Array.isArray(page.data) ? [...page.data].reverse() : [];
        const newest = events.at(-1)?.id ?? last;
        return {
          events: events.map((e) => ({ event: fromPlain(e) as Hash, dedup: String(e.id) })),
          closure: newest ? { last_id: newest } : null,
          // The first poll lists from `since`: the newest page only (older ones of a busy first window are left).
          canPollMore: last !== null && page.has_more === true,
        };
      },
    },
  };
}
