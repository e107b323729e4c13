// QuickBooks Online: Intuit's OAuth 2.0 (appcenter.intuit.com; tokens at oauth.platform.intuit.com,
// client authentication by basic; refresh tokens rotate); the company is the `realmId` the
// callback carries. Base: https://quickbooks.api.intuit.com/v3/company/<realmId>/ (sandbox:
// sandbox-quickbooks.api.intuit.com). Test: the company's info. Named actions: quickbooks-actions.ts.
import type { Connector } from '../types.ts';
import { quickbooksActions } from './quickbooks-actions.ts';
import { saasConnector } from './service.ts';
import { field, fromAuthorization, OAUTH_APP_FIELDS, text } from './common.ts';

/** The API's fault: `{"Fault": {"Error": [{"Message", "Detail", "code"}]}}`, each error's message and detail. */
function quickbooksErrorOf(status: number, body: unknown): string | null {
  const errors = (body as { Fault?: { Error?: unknown } } | null)?.Fault?.Error;
  if (status < 400 || !Array.isArray(errors)) return null;
  const parts = errors.slice(0, 5).map((e: { Message?: unknown; Detail?: unknown; code?: unknown }) => {
    const message = typeof e.Message === 'string' ? e.Message : 'error';
    const detail = typeof e.Detail === 'string' && e.Detail !== message ? ` (${e.Detail})` : '';
    return `${message}${detail}${typeof e.code === 'string' ? ` [code ${e.code}]` : ''}`;
  });
  return parts.length > 0 ? parts.join('; ') : null;
}

export const quickbooks: Connector = saasConnector({
  provider: 'quickbooks',
  title: 'QuickBooks Online',
  categories: ['Accounting'],
  connection: {
    fields: [
      field('environment', 'Environment', {
        optional: true,
        control_type: 'select',
        pick_list: [
          ['Production', 'production'],
          ['Sandbox', 'sandbox'],
        ],
        default: 'production',
      }),
      ...OAUTH_APP_FIELDS,
    ],
    auth: {
      type: 'oauth2_authorization_code',
      authorizationUrl: 'https://appcenter.intuit.com/connect/oauth2',
      tokenUrl: 'https://oauth.platform.intuit.com/oauth2/v1/tokens/bearer',
      scopes: ['com.intuit.quickbooks.accounting'],
      clientAuth: 'basic',
      keepFromCallback: ['realmId'],
    },
    baseUrl: (state) => {
      const host =
        text(state.values, 'environment') === 'sandbox'
          ? 'sandbox-quickbooks.api.intuit.com'
          : 'quickbooks.api.intuit.com';
      return `https://${host}/v3/company/${encodeURIComponent(fromAuthorization(state, 'realmId', 'company (realm id)'))}/`;
    },
    errorOf: quickbooksErrorOf,
    test: (session) =>
      session.request({
        method: 'GET',
        url: `companyinfo/${encodeURIComponent(session.state.auth.extra.realmId ?? '')}`,
      }),
  },
  actions: quickbooksActions(() => quickbooks),
});
