// Google Calendar: Google OAuth 2.0; base https://www.googleapis.com/ (custom actions say
// `calendar/v3/freeBusy`). Test: the first entry of the user's calendar list.
import { saasConnector } from './service.ts';
import { GOOGLE_HOSTS, googleOAuth, OAUTH_APP_FIELDS } from './common.ts';

export const googleCalendar = saasConnector({
  provider: 'google_calendar',
  title: 'Google Calendar',
  categories: ['Calendar'],
  connection: {
    fields: OAUTH_APP_FIELDS,
    auth: googleOAuth(['https://www.googleapis.com/auth/calendar']),
    baseUrl: () => 'https://www.googleapis.com/',
    hosts: () => GOOGLE_HOSTS,
    test: (session) =>
      session.request({ method: 'GET', url: 'calendar/v3/users/me/calendarList', query: { maxResults: 1 } }),
  },
});
