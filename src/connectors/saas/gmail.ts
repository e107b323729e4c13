// Gmail: Google OAuth 2.0; the Gmail API v1 under https://www.googleapis.com/gmail/v1/users/ (the
// vendor's base URL: custom actions say `me/messages`). Test: `me/profile`.
import { saasConnector } from './service.ts';
import { gmailActions } from './gmail-actions.ts';
import { GOOGLE_HOSTS, googleOAuth, OAUTH_APP_FIELDS } from './common.ts';
import { gmailTriggers } from './gmail-triggers.ts';
import type { Connector } from '../types.ts';

export const gmail: Connector = saasConnector({
  provider: 'gmail',
  title: 'Gmail',
  categories: ['Email'],
  connection: {
    fields: OAUTH_APP_FIELDS,
    auth: googleOAuth(['https://mail.google.com/']),
    baseUrl: () => 'https://www.googleapis.com/gmail/v1/users/',
    hosts: () => GOOGLE_HOSTS,
    test: (session) => session.request({ method: 'GET', url: 'me/profile' }),
  },
  actions: gmailActions(() => gmail),
  triggers: gmailTriggers(() => gmail),
});
