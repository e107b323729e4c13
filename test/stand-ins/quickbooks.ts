// QuickBooks Online stand-in. Endpoints follow Intuit's references:
// - OAuth 2.0: https://developer.intuit.com/app/developer/qbo/docs/develop/authentication-and-authorization/oauth-2.0
//   (appcenter.intuit.com/connect/oauth2; tokens at oauth.platform.intuit.com with client authentication by basic;
//   the redirect back carries realmId; refresh tokens rotate)
// - CompanyInfo: https://developer.intuit.com/app/developer/qbo/docs/api/accounting/all-entities/companyinfo
// - Query: https://developer.intuit.com/app/developer/qbo/docs/learn/explore-the-quickbooks-online-api/data-queries
//   (select * from <Entity> [where F = 'v' and ...] [startposition n] [maxresults m], maxresults at most 1,000)
// - Customer, Vendor, Invoice, Bill, Account: .../all-entities/<entity> (create: POST /<entity>, JSON, 200
//   {<Entity>: {...}}; read: GET /<entity>/<id>). Customer and Vendor need a DisplayName unique among them
//   (6240 Duplicate Name Exists Error); an Invoice needs CustomerRef and a Line with Amount and DetailType;
//   a Bill needs VendorRef and a Line with AccountBasedExpenseLineDetail.AccountRef; a reference to no entity
//   is refused (2500 Invalid Reference Id).
// - JSON only when the request's Accept asks for it (the API answers XML otherwise); minorversion on each call.
// - Errors: {"Fault": {"Error": [{"Message", "Detail", "code"}], "type"}}
import type { ServiceFixture } from './fixture.ts';
import { bearerIssued, parseJson, type Answer, type StandIn, type StandInRequest } from './stand-in.ts';

export const REALM = '9130357028561234';

const fault = (status: number, message: string, code = String(status), detail = message) => ({
  status,
  json: {
    Fault: {
      Error: [{ Message: message, Detail: detail, code }],
      type: status === 401 ? 'AUTHENTICATION' : 'ValidationFault',
    },
  },
});

type Entity = Record<string, unknown> & { Id: string };
const ENTITIES = ['Customer', 'Vendor', 'Invoice', 'Bill', 'Account', 'Item'] as const;
const stores = new WeakMap<StandIn, Map<string, Entity[]>>();
/** Each stand-in's entities by name, seeded with a vendor, two accounts and the Services item. */
export function entities(standIn: StandIn, name: string): Entity[] {
  let store = stores.get(standIn);
  if (!store) {
    store = new Map<string, Entity[]>(ENTITIES.map((e) => [e, []]));
    store.get('Vendor')?.push({ Id: '56', DisplayName: 'Paper Co', Active: true });
    store
      .get('Account')
      ?.push(
        { Id: '7', Name: 'Office Expenses', AccountType: 'Expense', Active: true },
        { Id: '79', Name: 'Sales of Product Income', AccountType: 'Income', Active: true },
      );
    store.get('Item')?.push({ Id: '1', Name: 'Services', Type: 'Service' });
    stores.set(standIn, store);
  }
  return store.get(name) as Entity[];
}
let sequence = 100;

const BASE = `/v3/company/${REALM}`;
const lower = (e: string) => e.toLowerCase();

/** The Accept header the API needs for JSON; XML otherwise, as the real one answers. */
function needsJson(req: StandInRequest): Answer | null {
  return String(req.headers.accept ?? '').includes('application/json')
    ? null
    : { status: 200, headers: { 'content-type': 'application/xml' }, text: '<IntuitResponse/>' };
}

function refOk(standIn: StandIn, entity: string, ref: unknown): boolean {
  const value = (ref as { value?: unknown } | undefined)?.value;
  return entities(standIn, entity).some((e) => e.Id === String(value));
}

function validate(standIn: StandIn, entity: string, body: Record<string, unknown>): Answer | null {
  if (entity === 'Customer' || entity === 'Vendor') {
    if (typeof body.DisplayName !== 'string' || body.DisplayName === '')
      return fault(
        400,
        'Required param missing, need to supply the required value for the API',
        '2020',
        'Required parameter DisplayName is missing in the request',
      );
    const taken = [...entities(standIn, 'Customer'), ...entities(standIn, 'Vendor')].some(
      (e) => e.DisplayName === body.DisplayName,
    );
    if (taken)
      return fault(
        400,
        'Duplicate Name Exists Error',
        '6240',
        `The name supplied already exists. : ${body.DisplayName}`,
      );
    return null;
  }
  const lines = body.Line;
  if (!Array.isArray(lines) || lines.length === 0)
    return fault(
      400,
      'Required param missing, need to supply the required value for the API',
      '2020',
      'Required parameter Line is missing in the request',
    );
  if (entity === 'Invoice') {
    if (!refOk(standIn, 'Customer', body.CustomerRef))
      return fault(
        400,
        'Invalid Reference Id',
        '2500',
        'Invalid Reference Id : Customer assigned to this transaction has been deleted or does not exist',
      );
    for (const line of lines as Array<Record<string, unknown>>) {
      if (typeof line.Amount !== 'number' || line.DetailType !== 'SalesItemLineDetail')
        return fault(
          400,
          'Request has invalid or unsupported property',
          '2010',
          'Each invoice Line needs a numeric Amount and DetailType SalesItemLineDetail',
        );
      const item = (line.SalesItemLineDetail as { ItemRef?: unknown } | undefined)?.ItemRef;
      if (item !== undefined && !refOk(standIn, 'Item', item))
        return fault(400, 'Invalid Reference Id', '2500', 'Invalid Reference Id : Item');
    }
  }
  if (entity === 'Bill') {
    if (!refOk(standIn, 'Vendor', body.VendorRef))
      return fault(
        400,
        'Invalid Reference Id',
        '2500',
        'Invalid Reference Id : Vendor assigned to this transaction has been deleted or does not exist',
      );
    for (const line of lines as Array<Record<string, unknown>>) {
      const account = (line.AccountBasedExpenseLineDetail as { AccountRef?: unknown } | undefined)?.AccountRef;
      if (
        typeof line.Amount !== 'number' ||
        line.DetailType !== 'AccountBasedExpenseLineDetail' ||
        !refOk(standIn, 'Account', account)
      )
        return fault(400, 'Invalid Reference Id', '2500', 'Invalid Reference Id : Accounts element id in Line');
    }
  }
  return null;
}

function create(entity: string) {
  return (req: StandInRequest, standIn: StandIn): Answer => {
    const xml = needsJson(req);
    if (xml) return xml;
    if (!String(req.headers['content-type'] ?? '').startsWith('application/json'))
      return fault(415, 'Unsupported Media Type', '415');
    const body = parseJson(req);
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      return fault(400, 'Request has invalid or unsupported property', '2010', 'the body is not a JSON object');
    const refused = validate(standIn, entity, body as Record<string, unknown>);
    if (refused) return refused;
    const row: Entity = { ...(body as Record<string, unknown>), Id: String(++sequence), SyncToken: '0' };
    if (entity === 'Invoice' || entity === 'Bill') {
      const total = (row.Line as Array<{ Amount: number }>).reduce((sum, l) => sum + l.Amount, 0);
      Object.assign(row, { TotalAmt: total, Balance: total, DocNumber: String(1000 + Number(row.Id)) });
    }
    entities(standIn, entity).push(row);
    return { json: { [entity]: row, time: '2025-01-01T00:00:00-08:00' } };
  };
}

/** select * from <Entity> [where a = 'x' and b = 'y'] [startposition n] [maxresults m]. */
function query(req: StandInRequest, standIn: StandIn): Answer {
  const xml = needsJson(req);
  if (xml) return xml;
  const q = req.query.get('query') ?? '';
  const m = /^select \* from (\w+)(?: where (.+?))?(?: startposition (\d+))?(?: maxresults (\d+))?$/i.exec(q.trim());
  const entity = ENTITIES.find((e) => lower(e) === lower(m?.[1] ?? ''));
  if (!m || !entity)
    return fault(400, `Error parsing query: ${q}`, '4000', `QueryParserError: Encountered an unexpected token in ${q}`);
  const conditions = (m[2] ?? '')
    .split(/ and /i)
    .filter((c) => c !== '')
    .map((c) => /^(\w+)\s*=\s*(?:'((?:[^'\\]|\\.)*)'|(\S+))$/.exec(c.trim()));
  if (conditions.some((c) => c === null)) return fault(400, `Error parsing query: ${q}`, '4000');
  const max = Number(m[4] ?? 100);
  if (max > 1000) return fault(400, 'Invalid query', '4001', 'maxresults must be at most 1000');
  const start = Number(m[3] ?? 1);
  const rows = entities(standIn, entity)
    .filter((row) =>
      conditions.every((c) => {
        const [, field, quoted, bare] = c as RegExpExecArray;
        return String(row[field as string]) === (quoted ?? bare ?? '').replace(/\\(.)/g, '$1');
      }),
    )
    .slice(start - 1, start - 1 + max);
  return {
    json: {
      QueryResponse: rows.length ? { [entity]: rows, startPosition: start, maxResults: rows.length } : {},
      time: '2025-01-01T00:00:00-08:00',
    },
  };
}

export const quickbooks: ServiceFixture = {
  provider: 'quickbooks',
  spec: {
    name: 'quickbooks',
    origins: ['https://appcenter.intuit.com', 'https://oauth.platform.intuit.com', 'https://quickbooks.api.intuit.com'],
    oauth: {
      authorizePath: '/connect/oauth2',
      tokenPath: '/oauth2/v1/tokens/bearer',
      reference:
        'https://developer.intuit.com/app/developer/qbo/docs/develop/authentication-and-authorization/oauth-2.0',
      clientAuth: 'basic',
      pkce: 'optional',
      callbackExtras: { realmId: REALM },
      rotateRefreshTokens: true,
    },
    authenticate: (req, standIn) => bearerIssued(req, standIn, fault(401, 'AuthenticationFailed')),
    routes: [
      {
        method: 'GET',
        path: `/v3/company/${REALM}/companyinfo/${REALM}`,
        reference: 'all-entities/companyinfo',
        answer: () => ({
          json: { CompanyInfo: { CompanyName: 'Acme Books', Id: '1' }, time: '2025-01-01T00:00:00-08:00' },
        }),
      },
      { method: 'GET', path: `${BASE}/query`, reference: 'data-queries', answer: query },
      ...(['Customer', 'Vendor', 'Invoice', 'Bill'] as const).map((entity) => ({
        method: 'POST',
        path: `${BASE}/${lower(entity)}`,
        reference: `all-entities/${lower(entity)} (create)`,
        answer: create(entity),
      })),
      ...ENTITIES.map((entity) => ({
        method: 'GET',
        path: new RegExp(`^${BASE}/${lower(entity)}/\\d+$`),
        reference: `all-entities/${lower(entity)} (read)`,
        answer: (req: StandInRequest, standIn: StandIn): Answer => {
          const xml = needsJson(req);
          if (xml) return xml;
          const id = req.path.split('/').pop();
          const row = entities(standIn, entity).find((e) => e.Id === id);
          return row
            ? { json: { [entity]: row, time: '2025-01-01T00:00:00-08:00' } }
            : fault(
                400,
                'Object Not Found',
                '610',
                `Object Not Found : Something you're trying to use has been made inactive. Check the fields with accounts, customers, items, vendors or employees.`,
              );
        },
      })),
    ],
  },
  input: {},
  oauth: true,
  adhoc: {
    input: {
      verb: 'get',
      path: 'query',
      input: { data: { query: 'select * from Vendor maxresults 1', minorversion: '75' } },
    },
    check: (body) => {
      if (
        (body as { QueryResponse: { Vendor: Array<{ DisplayName: string }> } }).QueryResponse.Vendor[0]?.DisplayName !==
        'Paper Co'
      )
        throw new Error(JSON.stringify(body));
    },
  },
};
