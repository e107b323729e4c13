// Google Drive: Google OAuth 2.0; the Drive API v3 (https://www.googleapis.com/drive/v3/). Test: `about`.
import { saasConnector } from './service.ts';
import { googleDriveActions } from './google_drive-actions.ts';
import { googleDriveTriggers } from './google_drive-triggers.ts';
import { GOOGLE_HOSTS, googleOAuth, OAUTH_APP_FIELDS } from './common.ts';

export const googleDrive = saasConnector({
  provider: 'google_drive',
  title: 'Google Drive',
  categories: ['Document/File'],
  connection: {
    fields: OAUTH_APP_FIELDS,
    auth: googleOAuth(['https://www.googleapis.com/auth/drive']),
    baseUrl: () => 'https://www.googleapis.com/drive/v3/',
    hosts: () => GOOGLE_HOSTS,
    test: (session) => session.request({ method: 'GET', url: 'about', query: { fields: 'user' } }),
  },
  actions: googleDriveActions(() => googleDrive),
  triggers: googleDriveTriggers(() => googleDrive),
});
