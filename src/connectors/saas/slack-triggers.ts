// Slack's `new_event` webhook trigger (Workbot for Slack): the Slack app's Events API Request URL is
// the recipe's webhook URL (https://api.slack.com/apis/events-api). Every call is checked against
// the app's signing secret (https://api.slack.com/authentication/verifying-requests-from-slack:
// `v0=` HMAC-SHA256 of `v0:<X-Slack-Request-Timestamp>:<raw body>`, the timestamp within five
// minutes); the URL verification answers its challenge; an `event_callback` is one job, its
// `event_id` the dedup key (Slack delivers again when not answered in time).
import { createHmac, timingSafeEqual } from 'node:crypto';
import { StepError } from '../step-error.ts';
import type { TriggerDef, TriggerContext, WebhookRequest } from '../types.ts';
import { fromPlain, hashGet, toRubyString, type Hash } from '../../recipe/formula/values.ts';

/** How old a signed request may be (Slack's advice against replays). */
const MAX_AGE_SECONDS = 5 * 60;

async function signingSecretOf(tc: TriggerContext): Promise<string> {
  const connection = await tc.connection();
  const secret = connection?.values.signing_secret;
  if (typeof secret !== 'string' || secret === '')
    throw new StepError('Bad request', "the Slack connection has no signing secret: requests can't be verified");
  return secret;
}

function verify(request: WebhookRequest, secret: string, now: Date): void {
  const stamp = request.headers['x-slack-request-timestamp'] ?? '';
  const signature = request.headers['x-slack-signature'] ?? '';
  if (!/^\d{1,12}$/.test(stamp) || Math.abs(now.getTime() / 1000 - Number(stamp)) > MAX_AGE_SECONDS)
    throw new StepError('Bad request', 'the request is not signed by Slack within the last five minutes');
  const expected = Buffer.from(`v0=${createHmac('sha256', secret).update(`v0:${stamp}:${request.raw}`).digest('hex')}`);
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    throw new StepError('Bad request', "the request's Slack signature does not match the signing secret");
}

export const slackNewEvent: TriggerDef = {
  title: 'New event',
  kind: 'webhook',
  description: 'Triggers when the Slack app receives an event of the Events API (a message, a reaction...)',
  inputFields: [
    {
      name: 'event_type',
      label: 'Event type',
      optional: true,
      hint: 'message, app_mention, reaction_added...; blank: all',
    },
  ],
  outputFields: [
    { name: 'type' },
    { name: 'user' },
    { name: 'text' },
    { name: 'channel' },
    { name: 'ts' },
    { name: 'thread_ts' },
    { name: 'event_id' },
    { name: 'event_time', type: 'integer' },
    { name: 'team_id' },
  ],
  output: (event) => event,
  webhook: {
    async notification(input: Hash, request, _subscription, tc) {
      verify(request, await signingSecretOf(tc), tc.ctx.clock.now());
      const body = request.payload;
      const kind = toRubyString(hashGet(body as Hash, 'type') ?? '');
      if (kind === 'url_verification')
        return {
          events: [],
          reply: { status: 200, body: { challenge: toRubyString(hashGet(body as Hash, 'challenge') ?? '') } },
        };
      if (kind !== 'event_callback') return { events: [] };
      const plain = JSON.parse(request.raw) as {
        event?: Record<string, unknown>;
        event_id?: string;
        event_time?: number;
        team_id?: string;
      };
      const event = plain.event ?? {};
      const wanted = toRubyString(hashGet(input, 'event_type') ?? '').trim();
      if (wanted !== '' && event.type !== wanted) return { events: [] };
      return {
        events: [
          {
            event: fromPlain({
              ...event,
              event_id: plain.event_id,
              event_time: plain.event_time,
              team_id: plain.team_id,
            }) as Hash,
            dedup: typeof plain.event_id === 'string' ? plain.event_id : null,
          },
        ],
      };
    },
  },
};
