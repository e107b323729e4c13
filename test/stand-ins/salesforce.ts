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
// - Query paging: resources_query.htm ("done": false and nextRecordsUrl /query/<locator>-<offset> while rows
//   remain; batches of up to 2,000 rows, fewer here when a test sets the batch size); OFFSET at most 2,000
//   (NUMBER_OUTSIDE_VALID_RANGE)
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

/** Rows per answer of a query; the rest come through nextRecordsUrl (Salesforce: up to 2,000). */
const batchSizes = new WeakMap<StandIn, number>();
export function setQueryBatchSize(standIn: StandIn, size: number): void {
  batchSizes.set(standIn, size);
}
/** Query locators still open, with the rows they have left. */
const cursors = new Map<string, { sobject: string; rows: Row[] }>();

const malformed = (message: string): Answer => ({ status: 400, json: [{ message, errorCode: 'MALFORMED_QUERY' }] });

type Condition = (row: Row) => boolean;

/** One comparison: Field = 'text' | != | < | > | LIKE '%x%', a number, true, false or null. */
function comparison(text: string): Condition | null {
  const m = /^(\w+)\s*(=|!=|<|>|\s+like\s+)\s*('(?:[^'\\]|\\.)*'|-?\d+(?:\.\d+)?|true|false|null)$/i.exec(text.trim());
  if (!m) return null;
  const [, field, rawOp, literal] = m as unknown as [string, string, string, string];
  const op = rawOp.trim().toLowerCase();
  const value: unknown = literal.startsWith("'")
    ? literal.slice(1, -1).replace(/\\(.)/g, '$1')
    : /^(true|false)$/i.test(literal)
      ? literal.toLowerCase() === 'true'
      : /^null$/i.test(literal)
        ? null
        : Number(literal);
  return (row) => {
    const actual = row[field] ?? null;
    if (op === '=') return actual === value || (actual !== null && value !== null && String(actual) === String(value));
    if (op === '!=')
      return !(actual === value || (actual !== null && value !== null && String(actual) === String(value)));
    if (op === 'like') {
      const pattern = String(value)
        .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
        .replace(/%/g, '.*')
        .replace(/_/g, '.');
      return new RegExp(`^${pattern}$`, 'i').test(String(actual ?? ''));
    }
    if (actual === null) return false;
    return op === '<' ? Number(actual) < Number(value) : Number(actual) > Number(value);
  };
}

/** The clause split at each AND or OR outside quotes: [part, joiner, part, ...]. */
function splitClause(text: string): string[] {
  const out: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (quoted) {
      current += ch;
      if (ch === '\\') current += text[++i] ?? '';
      else if (ch === "'") quoted = false;
      continue;
    }
    if (ch === "'") quoted = true;
    const joiner = /^\s+(and|or)\s+/i.exec(text.slice(i));
    if (joiner) {
      out.push(current, (joiner[1] as string).toLowerCase());
      current = '';
      i += joiner[0].length - 1;
      continue;
    }
    current += ch;
  }
  out.push(current);
  return out;
}

/** A WHERE clause of comparisons joined by AND and OR (AND binds first), the subset the tests send. */
function whereClause(text: string): Condition | null {
  const parts = splitClause(text);
  const groups: Condition[][] = [[]];
  for (let i = 0; i < parts.length; i += 2) {
    const c = comparison(parts[i] as string);
    if (c === null) return null;
    (groups.at(-1) as Condition[]).push(c);
    if (parts[i + 1] === 'or') groups.push([]);
  }
  return (row) => groups.some((all) => all.every((c) => c(row)));
}

/** SELECT <fields | FIELDS(ALL)> FROM <object> [WHERE ...] [LIMIT n] [OFFSET m]. */
function select(q: string, standIn: StandIn): Answer {
  const m =
    /^\s*select\s+(.+?)\s+from\s+(\w+)(?:\s+where\s+(.+?))?(?:\s+limit\s+(\d+))?(?:\s+offset\s+(\d+))?\s*$/i.exec(q);
  if (!m) return malformed(`unexpected token: '${q.split(/\s+/)[0] ?? ''}'`);
  const [, fields, sobject, where, limit, offset] = m as unknown as [
    string,
    string,
    string,
    string | undefined,
    string | undefined,
    string | undefined,
  ];
  const all = /^fields\(all\)$/i.test(fields.trim());
  if (all && (limit === undefined || Number(limit) > 200))
    return malformed('The SOQL FIELDS function must have a LIMIT of at most 200');
  const names = all ? [] : fields.split(',').map((f) => f.trim());
  if (names.some((n) => !/^\w+$/.test(n))) return malformed(`unexpected field list: ${fields}`);
  if (offset !== undefined && Number(offset) > 2000)
    return {
      status: 400,
      json: [{ errorCode: 'NUMBER_OUTSIDE_VALID_RANGE', message: 'Maximum SOQL offset allowed is 2000' }],
    };
  const condition = where === undefined ? () => true : whereClause(where);
  if (condition === null) return malformed(`unexpected condition in ${where}`);
  const rows = records(standIn, sobject)
    .filter(condition)
    .slice(Number(offset ?? 0), limit === undefined ? undefined : Number(offset ?? 0) + Number(limit))
    .map((row) => (all ? row : ({ Id: row.Id, ...Object.fromEntries(names.map((n) => [n, row[n] ?? null])) } as Row)));
  return page(standIn, sobject, rows, rows.length);
}

/** One batch of rows, and the locator of the rest when there is more. */
function page(standIn: StandIn, sobject: string, rows: Row[], totalSize: number): Answer {
  const size = batchSizes.get(standIn) ?? 2000;
  const body: Record<string, unknown> = {
    totalSize,
    done: rows.length <= size,
    records: rows.slice(0, size).map((r) => withAttributes(sobject, r)),
  };
  if (rows.length > size) {
    const locator = `01gA0000000${String(++sequence).padStart(4, '0')}AAA-${size}`;
    cursors.set(locator, { sobject, rows: rows.slice(size) });
    body.nextRecordsUrl = `/services/data/v60.0/query/${locator}`;
  }
  return { json: body };
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
      method: 'GET',
      path: /^\/services\/data\/v\d+\.\d+\/query\/01g\w+-\d+$/,
      reference: 'resources_query.htm (retrieving the remaining results: nextRecordsUrl)',
      answer: (req, standIn) => {
        const locator = req.path.split('/').pop() as string;
        const rest = cursors.get(locator);
        cursors.delete(locator);
        if (!rest)
          return { status: 400, json: [{ errorCode: 'INVALID_QUERY_LOCATOR', message: 'invalid query locator' }] };
        return page(standIn, rest.sobject, rest.rows, rest.rows.length);
      },
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
