// Salesforce stand-in. Endpoints follow the REST API Developer Guide:
// - OAuth 2.0 web server flow: https://help.salesforce.com/s/articleView?id=sf.remoteaccess_oauth_web_server_flow.htm
//   (authorize and token on login.salesforce.com; the token reply carries instance_url)
// - Resources by version: https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/resources_discoveryresource.htm
// - Query: https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/resources_query.htm
// - sObject rows (create, retrieve, update, delete): https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/resources_sobject_basic_info.htm
//   and resources_sobject_retrieve.htm (201 {id, success, errors}; 204 on update and delete; 404 NOT_FOUND)
// - Upsert by external ID: https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/dome_upsert.htm
//   (PATCH sobjects/<object>/<field>/<value>: 201 {id, success, errors, created: true}, or 200 with created: false)
// - SOQL FIELDS(ALL) with a LIMIT of at most 200: https://developer.salesforce.com/docs/atlas.en-us.soql_sosl.meta/soql_sosl/sforce_api_calls_soql_select_fields.htm
// - Errors: https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/errorcodes.htm
//   ([{"message": ..., "errorCode": ...}], 401 INVALID_SESSION_ID when the token expired)
import type { ServiceFixture } from './fixture.ts';
import {
  bearerIssued,
  parseJson,
  type Answer,
  type StandIn,
  type StandInRequest,
  type StandInSpec,
} from './stand-in.ts';

export const INSTANCE = 'https://acme.my.salesforce.com';

type Row = Record<string, unknown> & { Id: string };

/** Each stand-in's records by object, seeded with one Account. */
const stores = new WeakMap<StandIn, Map<string, Row[]>>();
export function records(standIn: StandIn, sobject: string): Row[] {
  let store = stores.get(standIn);
  if (!store) {
    store = new Map([['Account', [{ Id: '001A00000000001AAA', Name: 'Acme' }]]]);
    stores.set(standIn, store);
  }
  if (!store.has(sobject)) store.set(sobject, []);
  return store.get(sobject) as Row[];
}

const VERSION = '/services/data/v\\d+\\.\\d+';
const notFound: Answer = {
  status: 404,
  json: [{ errorCode: 'NOT_FOUND', message: 'The requested resource does not exist' }],
};
let sequence = 0;
const newId = (prefix: string) => `${prefix}${String(++sequence).padStart(15 - prefix.length, '0')}AAA`;
const withAttributes = (sobject: string, row: Row) => ({
  attributes: { type: sobject, url: `/services/data/v60.0/sobjects/${sobject}/${row.Id}` },
  ...row,
});

function fieldsOf(req: StandInRequest): Record<string, unknown> | Answer {
  if (!String(req.headers['content-type']).startsWith('application/json'))
    return { status: 415, json: [{ errorCode: 'UNSUPPORTED_MEDIA_TYPE', message: 'Content-Type must be JSON' }] };
  const body = parseJson(req);
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return { status: 400, json: [{ errorCode: 'JSON_PARSER_ERROR', message: 'the body is not a JSON object' }] };
  return body as Record<string, unknown>;
}
const isAnswer = (x: unknown): x is Answer => typeof x === 'object' && x !== null && 'status' in x;

/** SELECT ... FROM <object> [WHERE a = 'x' AND b = 'y'] [LIMIT n], the subset the connector sends. */
function select(q: string, standIn: StandIn): Answer {
  const m = /^\s*select\s+(.+?)\s+from\s+(\w+)(?:\s+where\s+(.+?))?(?:\s+limit\s+(\d+))?\s*$/i.exec(q);
  if (!m)
    return {
      status: 400,
      json: [{ message: `unexpected token: '${q.split(/\s+/)[0] ?? ''}'`, errorCode: 'MALFORMED_QUERY' }],
    };
  const [, fields, sobject, where, limit] = m as unknown as [
    string,
    string,
    string,
    string | undefined,
    string | undefined,
  ];
  if (/fields\(all\)/i.test(fields) && (limit === undefined || Number(limit) > 200))
    return {
      status: 400,
      json: [{ errorCode: 'MALFORMED_QUERY', message: 'The SOQL FIELDS function must have a LIMIT of at most 200' }],
    };
  const conditions = (where ?? '')
    .split(/\s+and\s+/i)
    .filter((c) => c !== '')
    .map((c) => /^(\w+)\s*=\s*'((?:[^'\\]|\\.)*)'$/.exec(c.trim()));
  if (conditions.some((c) => c === null))
    return { status: 400, json: [{ errorCode: 'MALFORMED_QUERY', message: `unexpected condition in ${where}` }] };
  const matches = records(standIn, sobject)
    .filter((row) =>
      conditions.every(
        (c) =>
          String(row[(c as RegExpExecArray)[1] as string]) ===
          ((c as RegExpExecArray)[2] as string).replace(/\\(.)/g, '$1'),
      ),
    )
    .slice(0, limit === undefined ? undefined : Number(limit));
  return { json: { totalSize: matches.length, done: true, records: matches.map((r) => withAttributes(sobject, r)) } };
}

// The triggers' query: SELECT FIELDS(ALL) FROM <object> WHERE <CreatedDate | SystemModstamp> >=
// <dateTime literal> ORDER BY <the same> ASC, Id ASC LIMIT n (SOQL date formats:
// https://developer.salesforce.com/docs/atlas.en-us.soql_sosl.meta/soql_sosl/sforce_api_calls_soql_select_dateformats.htm).
// Records keep their times as Salesforce writes them (`2026-01-01T00:00:00.000+0000`).
const utc = (time: unknown) => Date.parse(String(time).replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
function timeWindowQuery(q: string, standIn: StandIn): Answer | null {
  const m =
    /^SELECT FIELDS\(ALL\) FROM (\w+) WHERE (CreatedDate|SystemModstamp) >= (\S+) ORDER BY (\w+) ASC, Id ASC LIMIT (\d+)$/.exec(
      q,
    );
  if (!m) return null;
  const [, sobject, field, literal, order, limit] = m as unknown as [string, string, string, string, string, string];
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?(Z|[+-]\d{2}:\d{2})$/.test(literal))
    return {
      status: 400,
      json: [
        {
          errorCode: 'MALFORMED_QUERY',
          message: `value of filter criterion for field '${field}' must be of type dateTime`,
        },
      ],
    };
  if (order !== field || Number(limit) > 200)
    return { status: 400, json: [{ errorCode: 'MALFORMED_QUERY', message: 'unexpected ORDER BY or LIMIT' }] };
  const from = Date.parse(literal);
  const rows = records(standIn, sobject)
    .filter((r) => utc(r[field]) >= from)
    .sort((a, b) => utc(a[field]) - utc(b[field]) || a.Id.localeCompare(b.Id))
    .slice(0, Number(limit));
  return { json: { totalSize: rows.length, done: true, records: rows.map((r) => withAttributes(sobject, r)) } };
}

export const spec: StandInSpec = {
  name: 'salesforce',
  origins: ['https://login.salesforce.com', 'https://test.salesforce.com', INSTANCE],
  oauth: {
    authorizePath: '/services/oauth2/authorize',
    tokenPath: '/services/oauth2/token',
    reference: 'https://help.salesforce.com/s/articleView?id=sf.remoteaccess_oauth_web_server_flow.htm',
    clientAuth: 'either',
    pkce: 'optional',
    tokenExtras: () => ({
      instance_url: INSTANCE,
      id: `${INSTANCE}/id/00D/005`,
      issued_at: String(Date.now()),
      signature: 'sig',
    }),
  },
  authenticate: (req, standIn) =>
    bearerIssued(req, standIn, {
      status: 401,
      json: [{ message: 'Session expired or invalid', errorCode: 'INVALID_SESSION_ID' }],
    }),
  routes: [
    {
      method: 'GET',
      path: '/services/data/v60.0/',
      reference: 'resources_discoveryresource.htm',
      answer: () => ({
        json: {
          sobjects: '/services/data/v60.0/sobjects',
          query: '/services/data/v60.0/query',
          limits: '/services/data/v60.0/limits',
        },
      }),
    },
    {
      method: 'GET',
      path: /^\/services\/data\/v\d+\.\d+\/query\/?$/,
      reference: 'resources_query.htm',
      answer: (req, standIn) =>
        timeWindowQuery(req.query.get('q') ?? '', standIn) ?? select(req.query.get('q') ?? '', standIn),
    },
    {
      method: 'POST',
      path: new RegExp(`^${VERSION}/sobjects/\\w+/?$`),
      reference: 'resources_sobject_basic_info.htm',
      answer: (req, standIn) => {
        const sobject = req.path.split('/')[5] as string;
        const fields = fieldsOf(req);
        if (isAnswer(fields)) return fields;
        if (sobject === 'Contact' && !fields.LastName)
          return {
            status: 400,
            json: [
              {
                message: 'Required fields are missing: [LastName]',
                errorCode: 'REQUIRED_FIELD_MISSING',
                fields: ['LastName'],
              },
            ],
          };
        const row: Row = { ...fields, Id: newId('003') };
        records(standIn, sobject).push(row);
        return { status: 201, json: { id: row.Id, success: true, errors: [] } };
      },
    },
    {
      method: 'GET',
      path: new RegExp(`^${VERSION}/sobjects/\\w+/\\w{15,18}$`),
      reference: 'resources_sobject_retrieve.htm',
      answer: (req, standIn) => {
        const [, , , , , sobject, id] = req.path.split('/') as string[];
        const row = records(standIn, sobject as string).find((r) => r.Id === id);
        return row ? { json: withAttributes(sobject as string, row) } : notFound;
      },
    },
    {
      method: 'PATCH',
      path: new RegExp(`^${VERSION}/sobjects/\\w+/\\w{15,18}$`),
      reference: 'resources_sobject_retrieve.htm',
      answer: (req, standIn) => {
        const [, , , , , sobject, id] = req.path.split('/') as string[];
        const fields = fieldsOf(req);
        if (isAnswer(fields)) return fields;
        const row = records(standIn, sobject as string).find((r) => r.Id === id);
        if (!row) return notFound;
        Object.assign(row, fields, { Id: row.Id });
        return { status: 204, text: '' };
      },
    },
    {
      method: 'DELETE',
      path: new RegExp(`^${VERSION}/sobjects/\\w+/\\w{15,18}$`),
      reference: 'resources_sobject_retrieve.htm',
      answer: (req, standIn) => {
        const [, , , , , sobject, id] = req.path.split('/') as string[];
        const rows = records(standIn, sobject as string);
        const at = rows.findIndex((r) => r.Id === id);
        if (at < 0) return notFound;
        rows.splice(at, 1);
        return { status: 204, text: '' };
      },
    },
    {
      method: 'PATCH',
      path: new RegExp(`^${VERSION}/sobjects/\\w+/\\w+/[^/]+$`),
      reference: 'dome_upsert.htm',
      answer: (req, standIn) => {
        const [, , , , , sobject, field, raw] = req.path.split('/') as string[];
        const value = decodeURIComponent(raw as string);
        const fields = fieldsOf(req);
        if (isAnswer(fields)) return fields;
        const rows = records(standIn, sobject as string);
        const found = rows.filter((r) => String(r[field as string]) === value);
        if (found.length > 1)
          return { status: 300, json: found.map((r) => `/services/data/v60.0/sobjects/${sobject}/${r.Id}`) };
        if (found[0]) {
          Object.assign(found[0], fields, { Id: found[0].Id });
          return { json: { id: found[0].Id, success: true, errors: [], created: false } };
        }
        const row: Row = { ...fields, [field as string]: value, Id: newId('003') };
        rows.push(row);
        return { status: 201, json: { id: row.Id, success: true, errors: [], created: true } };
      },
    },
  ],
};

export const fixture: ServiceFixture = {
  provider: 'salesforce',
  spec,
  input: {},
  oauth: true,
  adhoc: {
    input: { verb: 'get', path: 'query', input: { data: { q: 'SELECT Id, Name FROM Account LIMIT 1' } } },
    check: (body) => {
      const b = body as { records: Array<{ Name: string }> };
      if (b.records[0]?.Name !== 'Acme') throw new Error(`unexpected body ${JSON.stringify(body)}`);
    },
  },
};
