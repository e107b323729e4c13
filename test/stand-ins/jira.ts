// Jira Cloud stand-in. Endpoints follow the REST API v3 reference:
// - Basic auth with an API token: https://developer.atlassian.com/cloud/jira/platform/basic-auth-for-rest-apis/
// - OAuth 2.0 (3LO): https://developer.atlassian.com/cloud/jira/platform/oauth-2-3lo-apps/ (auth.atlassian.com,
//   accessible-resources, requests through api.atlassian.com/ex/jira/{cloudid})
// - Get current user: https://developer.atlassian.com/cloud/jira/platform/rest/v3/api-group-myself/#api-rest-api-3-myself-get
// - Search by JQL: https://developer.atlassian.com/cloud/jira/platform/rest/v3/api-group-issue-search/#api-rest-api-3-search-jql-get
// - Errors: {"errorMessages": [...], "errors": {}}
import type { ServiceFixture } from './fixture.ts';
import { basicIs, bearerIssued, type Answer, type StandIn, type StandInRequest, type StandInSpec } from './stand-in.ts';

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

const search = (req: { query: URLSearchParams }) => {
  const jql = req.query.get('jql');
  if (!jql) return { status: 400, json: { errorMessages: ["The 'jql' parameter is required."], errors: {} } };
  return { json: { issues: [{ id: '10001', key: 'OPS-1', fields: { summary: 'Printer on fire' } }], isLast: true } };
};

// The `new_issue` trigger's search: `[project = "KEY" AND ]created >= "yyyy/MM/dd HH:mm" ORDER BY
// created ASC, id ASC` (JQL dates in the user's time zone: https://support.atlassian.com/jira-software-cloud/docs/jql-fields/#Created),
// pages of maxResults with nextPageToken; issues keep `created` as Jira writes it (`...000+0000`).
export const USER_TIME_ZONE = 'Europe/Lisbon';
export interface JiraIssue {
  id: string;
  key: string;
  fields: { summary: string; created: string; project: { key: string } };
}
const issueStores = new WeakMap<StandIn, JiraIssue[]>();
export function jiraIssues(standIn: StandIn): JiraIssue[] {
  let list = issueStores.get(standIn);
  if (!list) issueStores.set(standIn, (list = []));
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
      answer: (req, standIn) => createdSearch(req, standIn) ?? search(req),
    },
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
    {
      method: 'GET',
      path: `/ex/jira/${CLOUD_ID}/rest/api/3/search/jql`,
      reference: 'api-group-issue-search',
      answer: search,
    },
  ],
};

export const jira: ServiceFixture = {
  provider: 'jira',
  spec,
  input: { host_name: 'acme.atlassian.net', auth_type: 'api_token', email: EMAIL, apitoken: API_TOKEN },
  oauth: false,
  adhoc: {
    input: { verb: 'get', path: 'search/jql', input: { data: { jql: 'project = OPS', maxResults: '1' } } },
    check: (body) => {
      if ((body as { issues: Array<{ key: string }> }).issues[0]?.key !== 'OPS-1')
        throw new Error(JSON.stringify(body));
    },
  },
};
