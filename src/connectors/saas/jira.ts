// Jira Cloud: an API token with the account's e-mail (basic) on the site's host, or OAuth 2.0
// (3LO) through auth.atlassian.com, whose API is reached through api.atlassian.com and the site's
// cloud id (found once after the authorization: accessible-resources). REST API v3. Test: `myself`.
// Named actions: jira-actions.ts.
import type { Connector } from '../types.ts';
import { jiraActions } from './jira-actions.ts';
import { saasConnector } from './service.ts';
import { field, hostName, OAUTH_APP_FIELDS, secret, text } from './common.ts';
import { StepError } from '../step-error.ts';
import { jiraTriggers } from './jira-triggers.ts';

/** Jira's error answer: `errorMessages`, and `errors` by field ("project: valid project is required"). */
function jiraErrorOf(status: number, body: unknown): string | null {
  if (status < 400 || typeof body !== 'object' || body === null) return null;
  const { errorMessages, errors } = body as { errorMessages?: unknown; errors?: unknown };
  const parts = Array.isArray(errorMessages) ? errorMessages.filter((m) => typeof m === 'string' && m !== '') : [];
  if (typeof errors === 'object' && errors !== null)
    for (const [field, message] of Object.entries(errors).slice(0, 10))
      if (typeof message === 'string') parts.push(`${field}: ${message}`);
  return parts.length > 0 ? parts.join('; ') : null;
}

export const jira: Connector = saasConnector({
  provider: 'jira',
  title: 'Jira',
  categories: ['Project Management', 'IT Service Management'],
  connection: {
    fields: [field('host_name', 'Host name', { hint: 'yourcompany.atlassian.net', optional: true })],
    auth: {
      type: 'multi',
      default: 'api_token',
      options: {
        api_token: {
          title: 'API token',
          fields: [field('email', 'Email'), secret('apitoken', 'API token')],
          auth: { type: 'basic', username: 'email', password: 'apitoken' },
        },
        oauth2: {
          title: 'OAuth 2.0',
          fields: OAUTH_APP_FIELDS,
          auth: {
            type: 'oauth2_authorization_code',
            authorizationUrl: 'https://auth.atlassian.com/authorize',
            tokenUrl: 'https://auth.atlassian.com/oauth/token',
            scopes: ['read:jira-work', 'write:jira-work', 'read:jira-user', 'offline_access'],
            authorizationParams: { audience: 'api.atlassian.com', prompt: 'consent' },
          },
        },
      },
    },
    baseUrl: (state) => {
      if (text(state.values, 'auth_type', 'api_token') === 'oauth2') {
        const cloudId = state.auth.extra.cloud_id;
        return cloudId
          ? `https://api.atlassian.com/ex/jira/${encodeURIComponent(cloudId)}/rest/api/3/`
          : 'https://api.atlassian.com/';
      }
      if (text(state.values, 'host_name') === '')
        throw new StepError('Bad request', 'host_name is required for an API token connection');
      return `https://${hostName(state.values, 'host_name')}/rest/api/3/`;
    },
    hosts: () => ['api.atlassian.com'],
    errorOf: jiraErrorOf,
    async afterAuthorize(session) {
      const res = await session.request({
        method: 'GET',
        url: 'https://api.atlassian.com/oauth/token/accessible-resources',
      });
      const sites = Array.isArray(res.body) ? (res.body as Array<{ id?: unknown; url?: unknown }>) : [];
      const host = text(session.state.values, 'host_name').toLowerCase();
      const site =
        sites.find(
          (s) =>
            host !== '' &&
            String(s.url ?? '')
              .toLowerCase()
              .includes(host),
        ) ?? sites[0];
      if (!site || typeof site.id !== 'string')
        throw new StepError('Connection error', 'the authorization gives access to no Jira site');
      return { cloud_id: site.id };
    },
    test: (session) => session.request({ method: 'GET', url: 'myself' }),
  },
  actions: jiraActions(() => jira),
  triggers: jiraTriggers(() => jira),
});
