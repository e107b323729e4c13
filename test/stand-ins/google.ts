// Google stand-ins (Gmail, Sheets, Drive, Calendar). Endpoints follow:
// - OAuth 2.0 for web server apps: https://developers.google.com/identity/protocols/oauth2/web-server
//   (accounts.google.com/o/oauth2/v2/auth, oauth2.googleapis.com/token, PKCE S256 accepted)
// - Gmail users.getProfile / users.messages.list: https://developers.google.com/gmail/api/reference/rest/v1/users/getProfile,
//   https://developers.google.com/gmail/api/reference/rest/v1/users.messages/list
// - Drive about.get: https://developers.google.com/drive/api/reference/rest/v3/about/get (needs `fields`)
// - Sheets spreadsheets.values.get: https://developers.google.com/sheets/api/reference/rest/v4/spreadsheets.values/get
// - Calendar calendarList.list, freebusy.query: https://developers.google.com/calendar/api/v3/reference/calendarList/list,
//   https://developers.google.com/calendar/api/v3/reference/freebusy/query
// - The routes of the named actions (Gmail send/get/attachments, Sheets values, Drive upload/download/search):
//   google-workspace.ts, which names their pages
// - Errors: {"error": {"code", "message", "status"}} (https://cloud.google.com/apis/design/errors)
import type { ServiceFixture } from './fixture.ts';
import { driveRoutes, gmailRoutes, sheetsRoutes } from './google-workspace.ts';
import { bearerIssued, parseJson, type Route, type StandIn, type StandInSpec } from './stand-in.ts';

const unauthenticated = {
  status: 401,
  json: { error: { code: 401, message: 'Request had invalid authentication credentials.', status: 'UNAUTHENTICATED' } },
};

const about: Route = {
  method: 'GET',
  path: '/drive/v3/about',
  reference: 'https://developers.google.com/drive/api/reference/rest/v3/about/get',
  answer: (req) =>
    req.query.get('fields')
      ? { json: { user: { displayName: 'Ana', emailAddress: 'ana@example.com' } } }
      : {
          status: 400,
          json: {
            error: {
              code: 400,
              message: "The 'fields' parameter is required for this method.",
              status: 'INVALID_ARGUMENT',
            },
          },
        },
};

const routes: Route[] = [];

/** One Google for every Google service: one authorization server, each API's routes. */
export const GOOGLE: StandInSpec = (() => {
  return {
    name: 'google',
    origins: [
      'https://accounts.google.com',
      'https://oauth2.googleapis.com',
      'https://www.googleapis.com',
      'https://sheets.googleapis.com',
      'https://gmail.googleapis.com',
    ],
    oauth: {
      authorizePath: '/o/oauth2/v2/auth',
      tokenPath: '/token',
      reference: 'https://developers.google.com/identity/protocols/oauth2/web-server',
      clientAuth: 'body',
      pkce: 'optional',
    },
    authenticate: (req, standIn) => bearerIssued(req, standIn, unauthenticated),
    routes,
  };
})();

function googleSpec(_name: string, own: Route[]): StandInSpec {
  for (const route of own) if (!routes.includes(route)) routes.push(route);
  return GOOGLE;
}

export const gmail: ServiceFixture = {
  provider: 'gmail',
  spec: googleSpec('gmail', [
    {
      method: 'GET',
      path: '/gmail/v1/users/me/profile',
      reference: 'https://developers.google.com/gmail/api/reference/rest/v1/users/getProfile',
      answer: () => ({
        json: { emailAddress: 'ana@example.com', messagesTotal: 2, threadsTotal: 2, historyId: '100' },
      }),
    },
    ...gmailRoutes,
  ]),
  input: {},
  oauth: true,
  adhoc: {
    input: {
      verb: 'get',
      path: 'me/messages',
      response_type: 'json',
      input: { data: { maxResults: '1', q: 'is:unread' } },
    },
    check: (body) => {
      if ((body as { messages: Array<{ id: string }> }).messages[0]?.id !== 'm1') throw new Error(JSON.stringify(body));
    },
  },
};

export const googleSheets: ServiceFixture = {
  provider: 'google_sheets',
  spec: googleSpec('google_sheets', [about, ...sheetsRoutes]),
  input: {},
  oauth: true,
  adhoc: {
    input: { verb: 'get', path: 'spreadsheets/sheet-1/values/Sheet1!A1:B2' },
    check: (body) => {
      if ((body as { values: string[][] }).values[1]?.[0] !== 'Acme') throw new Error(JSON.stringify(body));
    },
  },
};

export const googleDrive: ServiceFixture = {
  provider: 'google_drive',
  spec: googleSpec('google_drive', [about, ...driveRoutes]),
  input: {},
  oauth: true,
  adhoc: {
    input: { verb: 'get', path: 'files', input: { data: { q: "name = 'report.pdf'", pageSize: '1' } } },
    check: (body) => {
      const files = (body as { files: Array<{ name: string }> }).files;
      if (files.length !== 1 || files[0]?.name !== 'report.pdf') throw new Error(JSON.stringify(body));
    },
  },
};

export const googleCalendar: ServiceFixture = {
  provider: 'google_calendar',
  spec: googleSpec('google_calendar', [
    {
      method: 'GET',
      path: '/calendar/v3/users/me/calendarList',
      reference: 'https://developers.google.com/calendar/api/v3/reference/calendarList/list',
      answer: () => ({ json: { kind: 'calendar#calendarList', items: [{ id: 'primary', summary: 'Ana' }] } }),
    },
    {
      method: 'POST',
      path: '/calendar/v3/freeBusy',
      reference: 'https://developers.google.com/calendar/api/v3/reference/freebusy/query',
      answer: (req) => {
        const body = parseJson(req) as
          { timeMin?: string; timeMax?: string; items?: Array<{ id: string }> } | undefined;
        if (!body?.timeMin || !body.timeMax || !Array.isArray(body.items))
          return {
            status: 400,
            json: { error: { code: 400, message: 'Missing timeMin.', status: 'INVALID_ARGUMENT' } },
          };
        return {
          json: {
            kind: 'calendar#freeBusy',
            calendars: Object.fromEntries(body.items.map((i) => [i.id, { busy: [] }])),
          },
        };
      },
    },
  ]),
  input: {},
  oauth: true,
  adhoc: {
    input: {
      verb: 'post',
      request_type: 'json',
      path: 'calendar/v3/freeBusy',
      input: { data: { timeMin: '2025-01-01T00:00:00Z', timeMax: '2025-01-02T00:00:00Z', items: [{ id: 'primary' }] } },
    },
    check: (body) => {
      if (!(body as { calendars: Record<string, unknown> }).calendars.primary) throw new Error(JSON.stringify(body));
    },
  },
};

// Gmail's `new_email` trigger: users.messages.list with `q=after:<epoch seconds>` (newest first,
// `maxResults`, `nextPageToken`; search operators: https://support.google.com/mail/answer/7190),
// then users.messages.get for each
// (https://developers.google.com/gmail/api/reference/rest/v1/users.messages/get: `internalDate` in
// epoch milliseconds as text, `payload.headers`) of the messages a test puts here; other calls go to
// the routes of google-workspace.ts.
export interface GmailMessage {
  id: string;
  threadId: string;
  labelIds: string[];
  snippet: string;
  internalDate: string;
  payload: { mimeType: string; headers: Array<{ name: string; value: string }> };
}
const gmailStores = new WeakMap<StandIn, GmailMessage[]>();
export function gmailMessages(standIn: StandIn): GmailMessage[] {
  let list = gmailStores.get(standIn);
  if (!list) gmailStores.set(standIn, (list = []));
  return list;
}
const gmailSearch: Route = {
  method: 'GET',
  path: '/gmail/v1/users/me/messages',
  reference: 'https://developers.google.com/gmail/api/reference/rest/v1/users.messages/list',
  answer: (req, standIn) => {
    const after = /^after:(\d+)$/.exec(req.query.get('q') ?? '');
    if (!after) {
      const other = routes.find((r) => r !== gmailSearch && r.method === 'GET' && r.path === gmailSearch.path);
      return other ? other.answer(req, standIn) : { status: 404, json: {} };
    }
    const max = Number(req.query.get('maxResults') ?? '100');
    const offset = Number(req.query.get('pageToken') ?? '0');
    const all = gmailMessages(standIn)
      .filter((m) => Number(m.internalDate) > Number(after[1]) * 1000)
      .sort((a, b) => Number(b.internalDate) - Number(a.internalDate));
    const page = all.slice(offset, offset + max);
    return {
      json: {
        messages: page.map((m) => ({ id: m.id, threadId: m.threadId })),
        resultSizeEstimate: all.length,
        ...(offset + max < all.length ? { nextPageToken: String(offset + max) } : {}),
      },
    };
  },
};
routes.unshift(gmailSearch);
const gmailMessage: Route = {
  method: 'GET',
  path: /^\/gmail\/v1\/users\/me\/messages\/[^/]+$/,
  reference: 'https://developers.google.com/gmail/api/reference/rest/v1/users.messages/get',
  answer: (req, standIn) => {
    const id = decodeURIComponent(req.path.split('/').pop() ?? '');
    const found = gmailMessages(standIn).find((m) => m.id === id);
    if (found) return { json: found };
    const other = routes.find(
      (r) => r !== gmailMessage && r.method === 'GET' && String(r.path) === String(gmailMessage.path),
    );
    return other
      ? other.answer(req, standIn)
      : {
          status: 404,
          json: { error: { code: 404, message: 'Requested entity was not found.', status: 'NOT_FOUND' } },
        };
  },
};
routes.unshift(gmailMessage);

// Google Sheets' `new_spreadsheet_row` trigger: spreadsheets.values.get of A1 ranges
// (`'Sheet'!1:1`, `'Sheet'!A5:ZZZ504`; https://developers.google.com/sheets/api/guides/concepts#cell)
// over sheets a test fills; trailing empty rows are left out, as the API does. Other spreadsheets
// go to the route after this one.
const sheetStores = new WeakMap<StandIn, Map<string, string[][]>>();
/** The rows of a sheet (`<spreadsheet id>/<sheet name>`), row 1 first. */
export function sheetRows(standIn: StandIn, spreadsheetId: string, sheet: string): string[][] {
  let store = sheetStores.get(standIn);
  if (!store) sheetStores.set(standIn, (store = new Map()));
  const key = `${spreadsheetId}/${sheet}`;
  if (!store.has(key)) store.set(key, []);
  return store.get(key)!;
}
const sheetValues: Route = {
  method: 'GET',
  path: /^\/v4\/spreadsheets\/[^/]+\/values\/[^/]+$/,
  reference: 'https://developers.google.com/sheets/api/reference/rest/v4/spreadsheets.values/get',
  answer: (req, standIn) => {
    const [, , , id, , encoded] = req.path.split('/');
    const range = decodeURIComponent(encoded ?? '');
    const store = sheetStores.get(standIn);
    const parsed = /^'((?:[^']|'')+)'!(?:1:1|A(\d+):ZZZ(\d+))$/.exec(range);
    if (!parsed || !store?.has(`${id}/${parsed[1]!.replace(/''/g, "'")}`)) {
      const other = routes.find(
        (r) => r !== sheetValues && r.method === 'GET' && String(r.path) === String(sheetValues.path),
      );
      return other ? other.answer(req, standIn) : { status: 404, json: {} };
    }
    const rows = sheetRows(standIn, id!, parsed[1]!.replace(/''/g, "'"));
    const from = parsed[2] ? Number(parsed[2]) : 1;
    const to = parsed[3] ? Number(parsed[3]) : 1;
    const values = rows.slice(from - 1, to);
    return { json: { range, majorDimension: 'ROWS', ...(values.length > 0 ? { values } : {}) } };
  },
};
routes.unshift(sheetValues);
