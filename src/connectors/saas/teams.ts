// Microsoft Teams: the Microsoft identity platform; Microsoft Graph v1.0. Test: `me`.
import { saasConnector } from './service.ts';
import { MICROSOFT_TENANT_FIELD, microsoftOAuth, OAUTH_APP_FIELDS } from './common.ts';

export const teams = saasConnector({
  provider: 'teams',
  title: 'Microsoft Teams',
  categories: ['Collaboration'],
  connection: {
    fields: [MICROSOFT_TENANT_FIELD, ...OAUTH_APP_FIELDS],
    auth: microsoftOAuth([
      'offline_access',
      'User.Read',
      'Team.ReadBasic.All',
      'Channel.ReadBasic.All',
      'ChannelMessage.Send',
      'Chat.ReadWrite',
    ]),
    baseUrl: () => 'https://graph.microsoft.com/v1.0/',
    test: (session) => session.request({ method: 'GET', url: 'me' }),
  },
});
