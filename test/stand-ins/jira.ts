// Jira Cloud stand-in. Endpoints follow the REST API v3 reference:
// - Basic auth with an API token: https://developer.atlassian.com/cloud/jira/platform/basic-auth-for-rest-apis/
// - OAuth 2.0 (3LO): https://developer.atlassian.com/cloud/jira/platform/oauth-2-3lo-apps/ (auth.atlassian.com,
//   accessible-resources, requests through api.atlassian.com/ex/jira/{cloudid})
// - Get current user: https://developer.atlassian.com/cloud/jira/platform/rest/v3/api-group-myself/#api-rest-api-3-myself-get
// - Search by JQL: https://developer.atlassian.com/cloud/jira/platform/rest/v3/api-group-issue-search/#api-rest-api-3-search-jql-get
//   (only issue ids unless `fields` names some; maxResults, nextPageToken and isLast page the answer)
// - Create issue: https://developer.atlassian.com/cloud/jira/platform/rest/v3/api-group-issues/#api-rest-api-3-issue-post
//   (JSON {fields: {project, issuetype, summary, description...}}; 201 {id, key, self}; in v3 a
//   description must be an Atlassian Document: https://developer.atlassian.com/cloud/jira/platform/apis/document/structure/)
// - Get issue / Edit issue: api-group-issues/#api-rest-api-3-issue-issueidorkey-get and -put (204 No Content)
// - Errors: {"errorMessages": [...], "errors": {"<field>": "<message>"}}
import type { ServiceFixture } from './fixture.ts';
import {
  basicIs,
  bearerIssued,
  parseJson,
  type Answer,
  type Route,
  type StandIn,
  type StandInRequest,
  type StandInSpec,
} from './stand-in.ts';

export const EMAIL = 'ana@acme.example';
export const API_TOKEN = 'jira-api-token-0123456789';
export const CLOUD_ID = '11223344-aaaa-bbbb-cccc-556677889900';

const unauthorized = {
  status: 401,
  json: {
    errorMessages: ['You are not authenticated. Authentication required to perform this operation.'],
    errors: {},
  },
};

type Issue = { id: string; key: string; fields: Record<string, unknown> };

const issueStores = new WeakMap<StandIn, Issue[]>();
/** Each stand-in's issues, seeded with OPS-1 (project OPS is the only one). */
export function issues(standIn: StandIn): Issue[] {
  let list = issueStores.get(standIn);
  if (!list) {
    list = [
      {
        id: '10001',
        key: 'OPS-1',
        fields: { summary: 'Printer on fire', status: { name: 'To Do' }, issuetype: { name: 'Task' }, labels: [] },
      },
    ];
    issueStores.set(standIn, list);
  }
  return list;
}

const fail = (status: number, errorMessages: string[], errors: Record<string, string> = {}): Answer => ({
  status,
  json: { errorMessages, errors },
});
const noIssue = fail(404, ['Issue does not exist or you do not have permission to see it.']);

const isDocument = (value: unknown) =>
  typeof value === 'object' &&
  value !== null &&
  (value as { type?: unknown }).type === 'doc' &&
  (value as { version?: unknown }).version === 1 &&
  Array.isArray((value as { content?: unknown }).content);

/** The JSON body's `fields`, checked as Jira checks them; an Answer when they are refused. */
function fieldsOf(req: StandInRequest, creating: boolean): Record<string, unknown> | Answer {
  if (!String(req.headers['content-type'] ?? '').startsWith('application/json'))
    return fail(415, ['Unsupported Media Type']);
  const body = parseJson(req) as { fields?: Record<string, unknown> } | undefined;
  if (typeof body?.fields !== 'object' || body.fields === null) return fail(400, ['No fields were given.']);
  const fields = body.fields;
  const errors: Record<string, string> = {};
  if (creating) {
    if ((fields.project as { key?: unknown } | undefined)?.key !== 'OPS') errors.project = 'valid project is required';
    const type = fields.issuetype as { name?: unknown; id?: unknown } | undefined;
    if (!type || !['Task', 'Bug', 'Story', '10001'].includes(String(type.name ?? type.id)))
      errors.issuetype = 'Specify an issue type';
    if (typeof fields.summary !== 'string' || fields.summary === '')
      errors.summary = 'You must specify a summary of the issue.';
  }
  if (typeof fields.summary === 'string' && fields.summary.length > 255)
    errors.summary = 'Summary must be less than 255 characters.';
  if (fields.description !== undefined && !isDocument(fields.description))
    errors.description = 'Operation value must be an Atlassian Document (see the Atlassian Document Format)';
  return Object.keys(errors).length > 0 ? fail(400, [], errors) : fields;
}
const isAnswer = (x: unknown): x is Answer => typeof x === 'object' && x !== null && 'status' in x && 'json' in x;

/** The JQL the connector sends: `project = X` and `field = "value"` clauses joined by AND, and ORDER BY. */
function matcher(jql: string): ((issue: Issue) => boolean) | null {
  const where = jql.replace(/\s+order\s+by\s+.+$/i, '').trim();
  const clauses = where
    .split(/\s+and\s+/i)
    .map((c) => /^(\w+)\s*(=|~)\s*(?:"((?:[^"\\]|\\.)*)"|(\w+))$/.exec(c.trim()));
  if (clauses.some((c) => c === null)) return null;
  return (issue) =>
    clauses.every((c) => {
      const [, field, op, quoted, bare] = c as RegExpExecArray;
      const value = (quoted ?? bare ?? '').replace(/\\(.)/g, '$1');
      if (field === 'project') return issue.key.startsWith(`${value}-`);
      if (field === 'key') return issue.key === value;
      const actual = issue.fields[field as string];
      const text =
        typeof actual === 'object' && actual !== null
          ? String((actual as { name?: unknown }).name ?? '')
          : String(actual ?? '');
      return op === '~' ? text.toLowerCase().includes(value.toLowerCase()) : text === value;
    });
}

function search(req: StandInRequest, standIn: StandIn): Answer {
  const jql = req.query.get('jql');
  if (!jql) return fail(400, ["The 'jql' parameter is required."]);
  const match = matcher(jql);
  if (!match) return fail(400, [`Error in the JQL Query: ${jql}`]);
  const max = Number(req.query.get('maxResults') ?? 50);
  if (!Number.isInteger(max) || max < 1) return fail(400, ['maxResults must be a positive number']);
  const start = Number(req.query.get('nextPageToken') ?? 0);
  const found = issues(standIn).filter(match);
  const wanted = req.query.get('fields');
  const page = found.slice(start, start + Math.min(max, 100)).map((issue) =>
    wanted === null
      ? { id: issue.id }
      : {
          id: issue.id,
          key: issue.key,
          self: `https://acme.atlassian.net/rest/api/3/issue/${issue.id}`,
          fields: issue.fields,
        },
  );
  const more = start + page.length < found.length;
  return { json: { issues: page, isLast: !more, ...(more ? { nextPageToken: String(start + page.length) } : {}) } };
}

const find = (standIn: StandIn, keyOrId: string) => issues(standIn).find((i) => i.key === keyOrId || i.id === keyOrId);

const issueRoutes = (prefix: string): Route[] => [
  { method: 'GET', path: `${prefix}/rest/api/3/search/jql`, reference: 'api-group-issue-search', answer: search },
  {
    method: 'POST',
    path: `${prefix}/rest/api/3/issue`,
    reference: 'api-group-issues/#api-rest-api-3-issue-post',
    answer: (req, standIn) => {
      const fields = fieldsOf(req, true);
      if (isAnswer(fields)) return fields;
      const list = issues(standIn);
      const issue: Issue = {
        id: String(10001 + list.length),
        key: `OPS-${list.length + 1}`,
        fields: { status: { name: 'To Do' }, labels: [], ...fields },
      };
      list.push(issue);
      return {
        status: 201,
        json: { id: issue.id, key: issue.key, self: `https://acme.atlassian.net/rest/api/3/issue/${issue.id}` },
      };
    },
  },
  {
    method: 'GET',
    path: new RegExp(`^${prefix}/rest/api/3/issue/[A-Z0-9_-]+$`),
    reference: 'api-group-issues/#api-rest-api-3-issue-issueidorkey-get',
    answer: (req, standIn) => {
      const issue = find(standIn, req.path.split('/').pop() as string);
      return issue
        ? {
            json: {
              id: issue.id,
              key: issue.key,
              self: `https://acme.atlassian.net/rest/api/3/issue/${issue.id}`,
              fields: issue.fields,
            },
          }
        : noIssue;
    },
  },
  {
    method: 'PUT',
    path: new RegExp(`^${prefix}/rest/api/3/issue/[A-Z0-9_-]+$`),
    reference: 'api-group-issues/#api-rest-api-3-issue-issueidorkey-put',
    answer: (req, standIn) => {
      const issue = find(standIn, req.path.split('/').pop() as string);
      if (!issue) return noIssue;
      const fields = fieldsOf(req, false);
      if (isAnswer(fields)) return fields;
      Object.assign(issue.fields, fields);
      return { status: 204, text: '' };
    },
  },
];

// The `new_issue` trigger's search: `[project = "KEY" AND ]created >= "yyyy/MM/dd HH:mm" ORDER BY
// created ASC, id ASC` (JQL dates in the user's time zone: https://support.atlassian.com/jira-software-cloud/docs/jql-fields/#Created),
// pages of maxResults with nextPageToken; issues keep `created` as Jira writes it (`...000+0000`).
export const USER_TIME_ZONE = 'Europe/Lisbon';
export interface JiraIssue {
  id: string;
  key: string;
  fields: { summary: string; created: string; project: { key: string } };
}
/** The issues the trigger's search reads (tests push to it), apart from the actions' `issues`. */
const triggerIssueStores = new WeakMap<StandIn, JiraIssue[]>();
export function jiraIssues(standIn: StandIn): JiraIssue[] {
  let list = triggerIssueStores.get(standIn);
  if (!list) triggerIssueStores.set(standIn, (list = []));
  return list;
}
function createdSearch(req: StandInRequest, standIn: StandIn): Answer | null {
  const m =
    /^(?:project = "([A-Z][A-Z0-9_]*)" AND )?created >= "(\d{4})\/(\d{2})\/(\d{2}) (\d{2}):(\d{2})" ORDER BY created ASC, id ASC$/.exec(
      req.query.get('jql') ?? '',
    );
  if (!m) return null;
  const [, project, y, mo, d, h, mi] = m as unknown as string[];
  // The minute in the user's zone, as UTC: the zone's offset at that time.
  const guess = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi));
  const shown = new Date(new Date(guess).toLocaleString('en-US', { timeZone: USER_TIME_ZONE }) + ' UTC').getTime();
  const from = guess - (shown - guess);
  const max = Number(req.query.get('maxResults') ?? '50');
  const offset = Number(req.query.get('nextPageToken') ?? '0');
  const utc = (t: string) => Date.parse(t.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
  const all = jiraIssues(standIn)
    .filter((i) => (project === undefined || i.fields.project.key === project) && utc(i.fields.created) >= from)
    .sort((a, b) => utc(a.fields.created) - utc(b.fields.created) || Number(a.id) - Number(b.id));
  const page = all.slice(offset, offset + max);
  const isLast = offset + max >= all.length;
  return { json: { issues: page, isLast, ...(isLast ? {} : { nextPageToken: String(offset + max) }) } };
}

export const spec: StandInSpec = {
  name: 'jira',
  origins: ['https://acme.atlassian.net', 'https://auth.atlassian.com', 'https://api.atlassian.com'],
  oauth: {
    authorizePath: '/authorize',
    tokenPath: '/oauth/token',
    reference: 'https://developer.atlassian.com/cloud/jira/platform/oauth-2-3lo-apps/',
    clientAuth: 'body',
    pkce: 'optional',
  },
  authenticate: (req, standIn) =>
    req.path.startsWith('/ex/jira/') || req.path.startsWith('/oauth/token/accessible-resources')
      ? bearerIssued(req, standIn, unauthorized)
      : basicIs(req, EMAIL, API_TOKEN, unauthorized),
  routes: [
    {
      method: 'GET',
      path: '/rest/api/3/myself',
      reference: 'api-group-myself',
      answer: () => ({
        json: { accountId: 'acc-1', emailAddress: EMAIL, displayName: 'Ana', timeZone: USER_TIME_ZONE },
      }),
    },
    {
      method: 'GET',
      path: '/rest/api/3/search/jql',
      reference: 'api-group-issue-search',
      answer: (req, standIn) => createdSearch(req, standIn) ?? search(req, standIn),
    },
    ...issueRoutes(''),
    {
      method: 'GET',
      path: '/oauth/token/accessible-resources',
      reference:
        'https://developer.atlassian.com/cloud/jira/platform/oauth-2-3lo-apps/#3-1-get-the-cloudid-for-your-site',
      answer: () => ({
        json: [{ id: CLOUD_ID, url: 'https://acme.atlassian.net', name: 'acme', scopes: ['read:jira-work'] }],
      }),
    },
    {
      method: 'GET',
      path: `/ex/jira/${CLOUD_ID}/rest/api/3/myself`,
      reference: 'api-group-myself',
      answer: () => ({ json: { accountId: 'acc-1', emailAddress: EMAIL, displayName: 'Ana' } }),
    },
    ...issueRoutes(`/ex/jira/${CLOUD_ID}`),
  ],
};

export const jira: ServiceFixture = {
  provider: 'jira',
  spec,
  input: { host_name: 'acme.atlassian.net', auth_type: 'api_token', email: EMAIL, apitoken: API_TOKEN },
  oauth: false,
  adhoc: {
    input: {
      verb: 'get',
      path: 'search/jql',
      input: { data: { jql: 'project = OPS', maxResults: '1', fields: 'summary' } },
    },
    check: (body) => {
      if ((body as { issues: Array<{ key: string }> }).issues[0]?.key !== 'OPS-1')
        throw new Error(JSON.stringify(body));
    },
  },
};
