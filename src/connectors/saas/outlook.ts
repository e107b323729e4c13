// Microsoft Outlook: the Microsoft identity platform (OAuth 2.0 v2.0 endpoints); Microsoft Graph
// v1.0 (https://graph.microsoft.com/v1.0/). Test: `me`.
import { saasConnector } from './service.ts';
import { outlookActions } from './outlook-actions.ts';
import { MICROSOFT_TENANT_FIELD, microsoftOAuth, OAUTH_APP_FIELDS } from './common.ts';
import { outlookTriggers } from './outlook-triggers.ts';
import type { Connector } from '../types.ts';

export const outlook: Connector = saasConnector({
  provider: 'outlook',
  title: 'Microsoft Outlook',
  categories: ['Email', 'Calendar'],
  connection: {
    fields: [MICROSOFT_TENANT_FIELD, ...OAUTH_APP_FIELDS],
    auth: microsoftOAuth(['offline_access', 'User.Read', 'Mail.ReadWrite', 'Mail.Send', 'Calendars.ReadWrite']),
    baseUrl: () => 'https://graph.microsoft.com/v1.0/',
    test: (session) => session.request({ method: 'GET', url: 'me' }),
  },
  actions: outlookActions(() => outlook),
  triggers: outlookTriggers(() => outlook),
});
