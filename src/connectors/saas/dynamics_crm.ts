// Microsoft Dynamics 365 (Dataverse): the Microsoft identity platform, with the organization's URL
// as the scope's resource; the Web API v9.2 under <organization>/api/data/v9.2/. Test: WhoAmI.
import { saasConnector } from './service.ts';
import { field, MICROSOFT_TENANT_FIELD, microsoftOAuth, OAUTH_APP_FIELDS, urlField } from './common.ts';

export const dynamicsCrm = saasConnector({
  provider: 'dynamics_crm',
  title: 'Microsoft Dynamics 365',
  categories: ['CRM'],
  connection: {
    fields: [
      field('organization_url', 'Organization URL', { hint: 'https://yourorg.crm.dynamics.com' }),
      MICROSOFT_TENANT_FIELD,
      ...OAUTH_APP_FIELDS,
    ],
    auth: microsoftOAuth((values) => ['offline_access', `${urlField(values, 'organization_url')}/user_impersonation`]),
    baseUrl: (state) => `${urlField(state.values, 'organization_url')}/api/data/v9.2/`,
    headers: { 'odata-version': '4.0', 'odata-maxversion': '4.0' },
    test: (session) => session.request({ method: 'GET', url: 'WhoAmI' }),
  },
});
