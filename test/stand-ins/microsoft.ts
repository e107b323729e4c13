// Microsoft stand-ins (Outlook, Teams, Dynamics 365). Endpoints follow:
// - Identity platform authorization code flow: https://learn.microsoft.com/en-us/entra/identity-platform/v2-oauth2-auth-code-flow
//   (login.microsoftonline.com/{tenant}/oauth2/v2.0/authorize and /token)
// - Graph user get (`me`): https://learn.microsoft.com/en-us/graph/api/user-get
// - Graph list messages: https://learn.microsoft.com/en-us/graph/api/user-list-messages
// - Graph list joined teams: https://learn.microsoft.com/en-us/graph/api/user-list-joinedteams
// - Dataverse WhoAmI: https://learn.microsoft.com/en-us/power-apps/developer/data-platform/webapi/reference/whoami
// - Graph send mail: https://learn.microsoft.com/en-us/graph/api/user-sendmail (202, no body; recipients
//   and file attachments checked)
// - Graph list attachments: https://learn.microsoft.com/en-us/graph/api/message-list-attachments (pages by
//   @odata.nextLink, one attachment a page here)
// - Graph errors: {"error": {"code", "message"}} (https://learn.microsoft.com/en-us/graph/errors)
import type { ServiceFixture } from './fixture.ts';
import { bearerIssued, parseJson, type Route, type StandIn, type StandInSpec } from './stand-in.ts';

export interface OutlookData {
  /** Message id → its file attachments. */
  attachments: Map<string, Array<{ id: string; name: string; contentType: string; content: string }>>;
  /** The `message` of each sendMail request. */
  sent: Array<Record<string, unknown>>;
}

const outlookData = new WeakMap<StandIn, OutlookData>();

export function outlookOf(standIn: StandIn): OutlookData {
  let d = outlookData.get(standIn);
  if (!d) {
    d = {
      attachments: new Map([
        [
          'AAMkAGI2-msg1=',
          [
            { id: 'att-1', name: 'order.csv', contentType: 'text/csv', content: 'sku,qty\nA-1,2\n' },
            { id: 'att-2', name: 'notes.txt', contentType: 'text/plain', content: 'Deliver before noon' },
          ],
        ],
      ]),
      sent: [],
    };
    outlookData.set(standIn, d);
  }
  return d;
}

const graphError = (status: number, code: string, message: string) => ({ status, json: { error: { code, message } } });

function checkRecipients(list: unknown, field: string): string | null {
  if (list === undefined) return null;
  if (!Array.isArray(list)) return `${field} must be a list`;
  for (const r of list as Array<{ emailAddress?: { address?: unknown } }>)
    if (typeof r?.emailAddress?.address !== 'string' || !r.emailAddress.address.includes('@'))
      return `At least one recipient is not valid., Recipient '${String(r?.emailAddress?.address)}' is not resolved. All recipients must be resolved before a message can be submitted.`;
  return null;
}

const outlookRoutes: Route[] = [
  {
    method: 'POST',
    path: '/v1.0/me/sendMail',
    reference: 'https://learn.microsoft.com/en-us/graph/api/user-sendmail',
    answer: (req, s) => {
      const body = parseJson(req) as { message?: Record<string, unknown> } | undefined;
      const message = body?.message;
      if (!message || typeof message !== 'object')
        return graphError(400, 'ErrorInvalidRequest', 'Empty Payload. JSON content expected.');
      if (!Array.isArray(message.toRecipients) || message.toRecipients.length === 0)
        return graphError(400, 'ErrorInvalidRecipients', 'At least one recipient is required, but none were found.');
      for (const field of ['toRecipients', 'ccRecipients', 'bccRecipients', 'replyTo']) {
        const problem = checkRecipients(message[field], field);
        if (problem) return graphError(400, 'ErrorInvalidRecipients', problem);
      }
      for (const a of (message.attachments ?? []) as Array<Record<string, unknown>>)
        if (
          a['@odata.type'] !== '#microsoft.graph.fileAttachment' ||
          typeof a.name !== 'string' ||
          typeof a.contentBytes !== 'string'
        )
          return graphError(400, 'ErrorInvalidRequest', 'A file attachment needs @odata.type, name and contentBytes.');
      outlookOf(s).sent.push(message);
      return { status: 202, text: '' };
    },
  },
  {
    method: 'GET',
    path: /^\/v1\.0\/me\/messages\/[^/]+\/attachments$/,
    reference: 'https://learn.microsoft.com/en-us/graph/api/message-list-attachments',
    answer: (req, s) => {
      const id = decodeURIComponent(req.path.split('/')[4] ?? '');
      const list = outlookOf(s).attachments.get(id);
      if (!list) return graphError(404, 'ErrorItemNotFound', 'The specified object was not found in the store.');
      const skip = Number(req.query.get('$skip') ?? 0);
      const a = list[skip];
      return {
        json: {
          value: a
            ? [
                {
                  '@odata.type': '#microsoft.graph.fileAttachment',
                  id: a.id,
                  name: a.name,
                  contentType: a.contentType,
                  size: a.content.length,
                  isInline: false,
                  contentBytes: Buffer.from(a.content, 'utf8').toString('base64'),
                },
              ]
            : [],
          ...(skip + 1 < list.length
            ? { '@odata.nextLink': `https://graph.microsoft.com${req.path}?$skip=${skip + 1}` }
            : {}),
        },
      };
    },
  },
];

export const ORG = 'https://acme.crm.dynamics.com';

const graphUnauthorized = {
  status: 401,
  json: { error: { code: 'InvalidAuthenticationToken', message: 'Access token has expired or is not yet valid.' } },
};

const me: Route = {
  method: 'GET',
  path: '/v1.0/me',
  reference: 'https://learn.microsoft.com/en-us/graph/api/user-get',
  answer: () => ({ json: { id: 'u1', displayName: 'Ana', userPrincipalName: 'ana@acme.example' } }),
};

const routes: Route[] = [];

/** One Microsoft identity platform and Graph for Outlook, Teams and Dynamics 365. */
export const MICROSOFT: StandInSpec = (() => {
  return {
    name: 'microsoft',
    origins: ['https://login.microsoftonline.com', 'https://graph.microsoft.com', ORG],
    oauth: {
      authorizePath: '/common/oauth2/v2.0/authorize',
      tokenPath: '/common/oauth2/v2.0/token',
      reference: 'https://learn.microsoft.com/en-us/entra/identity-platform/v2-oauth2-auth-code-flow',
      clientAuth: 'body',
      pkce: 'optional',
    },
    authenticate: (req, standIn) => bearerIssued(req, standIn, graphUnauthorized),
    routes,
  };
})();

function microsoftSpec(_name: string, own: Route[]): StandInSpec {
  for (const route of own) if (!routes.includes(route)) routes.push(route);
  return MICROSOFT;
}

export const outlook: ServiceFixture = {
  provider: 'outlook',
  spec: microsoftSpec('outlook', [
    me,
    {
      method: 'GET',
      path: '/v1.0/me/messages',
      reference: 'https://learn.microsoft.com/en-us/graph/api/user-list-messages',
      answer: (req) => ({ json: { value: [{ id: 'msg-1', subject: 'Invoice', top: req.query.get('$top') }] } }),
    },
    ...outlookRoutes,
  ]),
  input: {},
  oauth: true,
  adhoc: {
    input: { verb: 'get', path: 'me/messages', input: { data: { $top: '1' } } },
    check: (body) => {
      const m = (body as { value: Array<{ subject: string; top: string }> }).value[0];
      if (m?.subject !== 'Invoice' || m.top !== '1') throw new Error(JSON.stringify(body));
    },
  },
};

export const teams: ServiceFixture = {
  provider: 'teams',
  spec: microsoftSpec('teams', [
    me,
    {
      method: 'GET',
      path: '/v1.0/me/joinedTeams',
      reference: 'https://learn.microsoft.com/en-us/graph/api/user-list-joinedteams',
      answer: () => ({ json: { value: [{ id: 'team-1', displayName: 'Operations' }] } }),
    },
  ]),
  input: {},
  oauth: true,
  adhoc: {
    input: { verb: 'get', path: 'me/joinedTeams' },
    check: (body) => {
      if ((body as { value: Array<{ displayName: string }> }).value[0]?.displayName !== 'Operations')
        throw new Error(JSON.stringify(body));
    },
  },
};

export const dynamicsCrm: ServiceFixture = {
  provider: 'dynamics_crm',
  spec: microsoftSpec('dynamics_crm', [
    {
      method: 'GET',
      path: '/api/data/v9.2/WhoAmI',
      reference: 'https://learn.microsoft.com/en-us/power-apps/developer/data-platform/webapi/reference/whoami',
      answer: (req) =>
        req.headers['odata-version'] === '4.0'
          ? { json: { BusinessUnitId: 'bu-1', UserId: 'user-1', OrganizationId: 'org-1' } }
          : { status: 400, json: { error: { code: '0x0', message: 'OData-Version 4.0 expected' } } },
    },
    {
      method: 'GET',
      path: '/api/data/v9.2/accounts',
      reference: 'https://learn.microsoft.com/en-us/power-apps/developer/data-platform/webapi/query-data-web-api',
      answer: (req) => ({
        json: {
          '@odata.context': `${ORG}/api/data/v9.2/$metadata#accounts`,
          value: [{ accountid: 'a1', name: 'Acme', select: req.query.get('$select') }],
        },
      }),
    },
  ]),
  input: { organization_url: ORG },
  oauth: true,
  adhoc: {
    input: { verb: 'get', path: 'accounts', input: { data: { $select: 'name', $top: '1' } } },
    check: (body) => {
      const a = (body as { value: Array<{ name: string; select: string }> }).value[0];
      if (a?.name !== 'Acme' || a.select !== 'name') throw new Error(JSON.stringify(body));
    },
  },
};

// Outlook's `new_email` trigger: a mail folder's messages
// (https://learn.microsoft.com/en-us/graph/api/user-list-messages with
// `$filter=receivedDateTime ge <DateTimeOffset>` and `$orderby=receivedDateTime asc`,
// https://learn.microsoft.com/en-us/graph/filter-query-parameter; pages of `$top` linked by
// `@odata.nextLink`, https://learn.microsoft.com/en-us/graph/paging).
export interface GraphMessage {
  id: string;
  subject: string;
  receivedDateTime: string;
  bodyPreview: string;
  from: { emailAddress: { name: string; address: string } };
}
const mailboxes = new WeakMap<StandIn, GraphMessage[]>();
export function inboxMessages(standIn: StandIn): GraphMessage[] {
  let list = mailboxes.get(standIn);
  if (!list) mailboxes.set(standIn, (list = []));
  return list;
}
microsoftSpec('outlook new_email', [
  {
    method: 'GET',
    path: /^\/v1\.0\/me\/mailFolders\/inbox\/messages$/,
    reference: 'https://learn.microsoft.com/en-us/graph/api/user-list-messages',
    answer: (req, standIn) => {
      const filter = /^receivedDateTime ge (\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z)$/.exec(
        req.query.get('$filter') ?? '',
      );
      if (!filter || req.query.get('$orderby') !== 'receivedDateTime asc')
        return {
          status: 400,
          json: { error: { code: 'BadRequest', message: `Invalid filter clause: ${req.query.get('$filter')}` } },
        };
      const top = Number(req.query.get('$top') ?? '10');
      const skip = Number(req.query.get('$skip') ?? '0');
      const all = inboxMessages(standIn)
        .filter((m) => Date.parse(m.receivedDateTime) >= Date.parse(filter[1]!))
        .sort((a, b) => Date.parse(a.receivedDateTime) - Date.parse(b.receivedDateTime));
      const link = new URL(`https://graph.microsoft.com${req.path}`);
      for (const [k, v] of req.query) if (k !== '$skip') link.searchParams.set(k, v);
      link.searchParams.set('$skip', String(skip + top));
      return {
        json: {
          value: all.slice(skip, skip + top),
          ...(skip + top < all.length ? { '@odata.nextLink': link.toString() } : {}),
        },
      };
    },
  },
]);
