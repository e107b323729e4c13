// Slack (`slack`: a user's token) and Workbot-style apps (`slack_bot`: the bot's token): Slack's
// OAuth v2 (https://slack.com/oauth/v2/authorize, oauth.v2.access). Web API methods under
// https://slack.com/api/ answer 200 with `{"ok": false, "error": ...}` when they fail. Test: auth.test.
import type { ConnectionDefinition } from '../definition.ts';
import type { Connector } from '../types.ts';
import { postMessage } from './slack-actions.ts';
import { saasConnector } from './service.ts';
import { OAUTH_APP_FIELDS, secret } from './common.ts';
import { slackNewEvent } from './slack-triggers.ts';

function slackErrorOf(_status: number, body: unknown): string | null {
  if (typeof body === 'object' && body !== null && (body as { ok?: unknown }).ok === false) {
    const error = (body as { error?: unknown }).error;
    return typeof error === 'string' ? error : 'the Slack API answered ok: false';
  }
  return null;
}

function slackConnection(user: boolean): ConnectionDefinition {
  return {
    // The app's signing secret checks the Events API's calls (the bot's `new_event` trigger).
    fields: user
      ? OAUTH_APP_FIELDS
      : [
          ...OAUTH_APP_FIELDS,
          secret('signing_secret', 'Signing secret', {
            optional: true,
            hint: "The Slack app's Basic Information page",
          }),
        ],
    auth: {
      type: 'oauth2_authorization_code',
      authorizationUrl: 'https://slack.com/oauth/v2/authorize',
      tokenUrl: 'https://slack.com/api/oauth.v2.access',
      scopes: user
        ? ['channels:read', 'channels:history', 'chat:write', 'users:read', 'files:write']
        : ['chat:write', 'channels:read', 'channels:history', 'commands', 'users:read', 'im:write'],
      scopeSeparator: ',',
      scopeParam: user ? 'user_scope' : 'scope',
      pkce: false,
      ...(user
        ? {
            readToken: (reply: Record<string, unknown>) => {
              const authed = reply.authed_user as { access_token?: unknown; refresh_token?: unknown } | undefined;
              return typeof authed?.access_token === 'string'
                ? {
                    accessToken: authed.access_token,
                    ...(typeof authed.refresh_token === 'string' ? { refreshToken: authed.refresh_token } : {}),
                  }
                : null;
            },
          }
        : {}),
    },
    baseUrl: () => 'https://slack.com/api/',
    hosts: () => ['slack.com', 'files.slack.com'],
    errorOf: slackErrorOf,
    unauthorized: (_status, body) =>
      typeof body === 'object' &&
      body !== null &&
      ['invalid_auth', 'token_expired'].includes(String((body as { error?: unknown }).error)),
    test: (session) => session.request({ method: 'POST', url: 'auth.test' }),
  };
}

export const slack: Connector = saasConnector({
  provider: 'slack',
  title: 'Slack',
  categories: ['Collaboration'],
  connection: slackConnection(true),
  actions: { post_message_to_channel: postMessage('Post message', () => slack) },
});

export const slackBot: Connector = saasConnector({
  provider: 'slack_bot',
  title: 'Workbot for Slack',
  categories: ['Collaboration', 'Bots'],
  connection: slackConnection(false),
  actions: {
    post_bot_message: postMessage('Post message', () => slackBot),
    post_bot_reply: postMessage('Post reply', () => slackBot, { reply: true }),
    post_bot_reply_v2: postMessage('Post reply', () => slackBot, { reply: true }),
  },
  triggers: { new_event: slackNewEvent },
});
