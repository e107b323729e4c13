// DocuSign eSignature: OAuth 2.0 authorization code through account.docusign.com (the demo
// environment: account-d.docusign.com), client authentication by basic; after it, the user's
// default account and its base URI (oauth/userinfo). Base: <base_uri>/restapi/v2.1/accounts/<id>/.
// Test: the account.
import { saasConnector } from './service.ts';
import { field, fromAuthorization, OAUTH_APP_FIELDS, text } from './common.ts';
import { StepError } from '../step-error.ts';

const accountHost = (values: Readonly<Record<string, string | number | boolean>>) =>
  text(values, 'environment') === 'demo' ? 'https://account-d.docusign.com' : 'https://account.docusign.com';

export const docusign = saasConnector({
  provider: 'docusign',
  title: 'DocuSign',
  categories: ['Document/File', 'E-signature'],
  connection: {
    fields: [
      field('environment', 'Environment', {
        optional: true,
        control_type: 'select',
        pick_list: [
          ['Production', 'production'],
          ['Demo', 'demo'],
        ],
        default: 'production',
      }),
      ...OAUTH_APP_FIELDS,
    ],
    auth: {
      type: 'oauth2_authorization_code',
      authorizationUrl: (v) => `${accountHost(v)}/oauth/auth`,
      tokenUrl: (v) => `${accountHost(v)}/oauth/token`,
      scopes: ['signature', 'extended'],
      clientAuth: 'basic',
    },
    baseUrl: (state) =>
      state.auth.extra.base_uri
        ? `${fromAuthorization(state, 'base_uri', 'account base URI').replace(/\/+$/, '')}/restapi/v2.1/accounts/${encodeURIComponent(fromAuthorization(state, 'account_id', 'account'))}/`
        : `${accountHost(state.values)}/`,
    async afterAuthorize(session) {
      const res = await session.request({ method: 'GET', url: `${accountHost(session.state.values)}/oauth/userinfo` });
      const accounts =
        (res.body as { accounts?: Array<{ account_id?: unknown; base_uri?: unknown; is_default?: unknown }> })
          .accounts ?? [];
      const account = accounts.find((a) => a.is_default === true || a.is_default === 'true') ?? accounts[0];
      if (!account || typeof account.account_id !== 'string' || typeof account.base_uri !== 'string')
        throw new StepError('Connection error', 'the DocuSign user has no account');
      return { account_id: account.account_id, base_uri: account.base_uri };
    },
    // The account itself: its URL is the base URL without the trailing slash.
    test: (session) => session.request({ method: 'GET', url: session.baseUrl.toString().replace(/\/+$/, '') }),
  },
});
