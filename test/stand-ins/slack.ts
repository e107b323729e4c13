// Slack stand-ins (`slack` with a user token, `slack_bot` with a bot token). Endpoints follow:
// - OAuth v2: https://api.slack.com/authentication/oauth-v2 (slack.com/oauth/v2/authorize;
//   https://api.slack.com/methods/oauth.v2.access: the bot token at the top, a user token in authed_user)
// - auth.test: https://api.slack.com/methods/auth.test
// - chat.postMessage: https://api.slack.com/methods/chat.postMessage (JSON body with a bearer token)
// - Errors: HTTP 200 with {"ok": false, "error": "invalid_auth" | "channel_not_found" | ...}
import { createHmac } from 'node:crypto';
import type { ServiceFixture } from './fixture.ts';
import { parseJson, type StandIn, type StandInRequest, type StandInSpec } from './stand-in.ts';

const invalidAuth = { json: { ok: false, error: 'invalid_auth' } };

export interface PostedMessage {
  channel: string;
  ts: string;
  text: string;
  thread_ts?: string;
  reply_broadcast?: boolean;
}
/** Each stand-in's posted messages, in order; each gets the next timestamp (1700000000.000100, .000200...). */
const posted = new WeakMap<StandIn, PostedMessage[]>();
export function messages(standIn: StandIn): PostedMessage[] {
  let list = posted.get(standIn);
  if (!list) posted.set(standIn, (list = []));
  return list;
}

const SLACK: StandInSpec = slackSpec();

function slackSpec(): StandInSpec {
  return {
    name: 'slack',
    origins: ['https://slack.com'],
    oauth: {
      authorizePath: '/oauth/v2/authorize',
      tokenPath: '/api/oauth.v2.access',
      reference: 'https://api.slack.com/methods/oauth.v2.access',
      clientAuth: 'either',
      pkce: 'optional',
      // A user token (user_scope) in authed_user and a bot token (scope) at the top, as oauth.v2.access
      // answers an app that asks for both.
      tokenReply: (t) => ({
        ok: true,
        app_id: 'A1',
        access_token: t.access,
        token_type: 'bot',
        scope: 'chat:write',
        bot_user_id: 'B1',
        authed_user: { id: 'U1', scope: 'chat:write', access_token: t.access, token_type: 'user' },
        team: { id: 'T1' },
      }),
    },
    authenticate: (req: StandInRequest, standIn: StandIn) => {
      const match = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''));
      return match && standIn.accessTokens.has(match[1] as string) ? null : invalidAuth;
    },
    routes: [
      {
        method: 'POST',
        path: '/api/auth.test',
        reference: 'https://api.slack.com/methods/auth.test',
        answer: () => ({
          json: {
            ok: true,
            url: 'https://acme.slack.com/',
            team: 'Acme',
            user: 'ana',
            team_id: 'T1',
            user_id: 'U1',
          },
        }),
      },
      {
        method: 'POST',
        path: '/api/chat.postMessage',
        reference: 'https://api.slack.com/methods/chat.postMessage',
        answer: (req, standIn) => {
          if (!String(req.headers['content-type']).startsWith('application/json'))
            return { json: { ok: false, error: 'invalid_arguments' } };
          const body = parseJson(req) as
            | {
                channel?: string;
                text?: string;
                attachments?: unknown[];
                thread_ts?: string;
                reply_broadcast?: boolean;
              }
            | undefined;
          if (!body?.channel) return { json: { ok: false, error: 'channel_not_found' } };
          if (!body.text && !body.attachments?.length) return { json: { ok: false, error: 'no_text' } };
          const list = messages(standIn);
          const ts = `1700000000.${String((list.length + 1) * 100).padStart(6, '0')}`;
          list.push({
            channel: body.channel,
            ts,
            text: body.text ?? '',
            ...(body.thread_ts ? { thread_ts: body.thread_ts } : {}),
            ...(body.reply_broadcast ? { reply_broadcast: true } : {}),
          });
          return {
            json: {
              ok: true,
              channel: body.channel,
              ts,
              message: {
                text: body.text ?? '',
                type: 'message',
                ...(body.attachments ? { attachments: body.attachments } : {}),
                ...(body.thread_ts ? { thread_ts: body.thread_ts } : {}),
              },
            },
          };
        },
      },
    ],
  };
}

const postMessage = {
  input: {
    verb: 'post',
    request_type: 'json',
    path: 'chat.postMessage',
    input: { data: { channel: 'C123', text: 'Hello from Switchboard' } },
  },
  check: (body: unknown) => {
    const b = body as { ok: boolean; message: { text: string } };
    if (!b.ok || b.message.text !== 'Hello from Switchboard') throw new Error(JSON.stringify(body));
  },
};

export const slack: ServiceFixture = {
  provider: 'slack',
  spec: SLACK,
  input: {},
  oauth: true,
  adhoc: postMessage,
};
export const slackBot: ServiceFixture = {
  provider: 'slack_bot',
  spec: SLACK,
  input: {},
  oauth: true,
  adhoc: postMessage,
};

// Slack's calls to an app's Events API Request URL (https://api.slack.com/apis/events-api): the
// JSON body and the signature headers Slack adds
// (https://api.slack.com/authentication/verifying-requests-from-slack).
export const SIGNING_SECRET = 'stand-in-signing-secret-0123456789';

export function eventsApiCall(
  body: unknown,
  options: { secret?: string; timestamp?: number } = {},
): { payload: string; headers: Record<string, string> } {
  const payload = JSON.stringify(body);
  const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
  const signature = createHmac('sha256', options.secret ?? SIGNING_SECRET)
    .update(`v0:${timestamp}:${payload}`)
    .digest('hex');
  return {
    payload,
    headers: {
      'content-type': 'application/json',
      'x-slack-request-timestamp': timestamp,
      'x-slack-signature': `v0=${signature}`,
    },
  };
}
