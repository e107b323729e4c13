// Google Sheets: Google OAuth 2.0; the Sheets API v4 (https://sheets.googleapis.com/v4/). Test:
// the Drive API's `about` for the signed-in user (Sheets has no call of its own for that).
import { saasConnector } from './service.ts';
import { googleSheetsActions } from './google_sheets-actions.ts';
import { GOOGLE_HOSTS, googleOAuth, OAUTH_APP_FIELDS } from './common.ts';
import { googleSheetsTriggers } from './google-sheets-triggers.ts';
import type { Connector } from '../types.ts';

export const googleSheets: Connector = saasConnector({
  provider: 'google_sheets',
  title: 'Google Sheets',
  categories: ['Spreadsheets'],
  connection: {
    fields: OAUTH_APP_FIELDS,
    auth: googleOAuth([
      'https://www.googleapis.com/auth/spreadsheets',
      'https://www.googleapis.com/auth/drive.metadata.readonly',
    ]),
    baseUrl: () => 'https://sheets.googleapis.com/v4/',
    hosts: () => GOOGLE_HOSTS,
    test: (session) =>
      session.request({ method: 'GET', url: 'https://www.googleapis.com/drive/v3/about', query: { fields: 'user' } }),
  },
  actions: googleSheetsActions(() => googleSheets),
  triggers: googleSheetsTriggers(() => googleSheets),
});
