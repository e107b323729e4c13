// Jira's named actions as the vendor's recipes store them (contract 22 §3): `create_issue`,
// `update_issue`, `get_issue`, `search_issues` and `search_issues_by_JQL`, over the REST API v3
// (https://developer.atlassian.com/cloud/jira/platform/rest/v3/api-group-issues/ and
// api-group-issue-search/#api-rest-api-3-search-jql-get). Inputs: `project_key`, `issue_type`,
// `summary`, `description` (plain text, sent as an Atlassian Document), `priority`, `assignee`
// (an account ID), `labels`, and custom fields by ID (`customfield_10010`); `issue_key` for one
// issue; `jql` and `max_results` for a search. An issue in the output carries `id`, `key`, `self`,
// `fields`, and each field at the top as well (`summary`, `status`), so both datapill forms resolve.
import type { ConnectorSession } from '../definition.ts';
import { collect, cursorInBody } from '../http/pagination.ts';
import { stepSession } from '../connections.ts';
import { StepError } from '../step-error.ts';
import type { ActionDef, Connector } from '../types.ts';
import { fromPlain, hashGet, toPlain, toRubyString, type Hash } from '../../recipe/formula/values.ts';

const ISSUE_KEY = /^([A-Z][A-Z0-9_]{0,49}-\d{1,12}|\d{1,18})$/;
const PROJECT_KEY = /^[A-Z][A-Z0-9_]{0,49}$/;
const CUSTOM_FIELD = /^customfield_\d{1,12}$/;
/** The vendor's search default, and Jira's page size at most (search/jql caps maxResults at 5,000 for ids). */
const SEARCH_DEFAULT = 100;
const SEARCH_MAX = 1000;
const PAGE_SIZE = 100;
/** Fields a search asks for when the step names none (search/jql returns only ids unless told). */
const DEFAULT_FIELDS = '*navigable';

function textOf(input: Hash, key: string): string {
  const value = hashGet(input, key);
  return value === null || value === undefined ? '' : toRubyString(value).trim();
}

/** Plain text as an Atlassian Document (a paragraph per line), which REST API v3 requires. */
export function atlassianDocument(text: string): unknown {
  return {
    type: 'doc',
    version: 1,
    content: text.split(/\r?\n/).map((line) => ({
      type: 'paragraph',
      content: line === '' ? [] : [{ type: 'text', text: line }],
    })),
  };
}

/** The `fields` object of a create or update, from the step's inputs. */
function issueFields(input: Hash, creating: boolean): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  const project = textOf(input, 'project_key') || textOf(input, 'project');
  if (creating) {
    if (!PROJECT_KEY.test(project))
      throw new StepError('Bad request', `project_key ${JSON.stringify(project.slice(0, 60))} is not a project key`);
    fields.project = { key: project };
    const type = textOf(input, 'issue_type') || textOf(input, 'issuetype');
    if (type === '') throw new StepError('Bad request', "issue_type can't be blank");
    fields.issuetype = /^\d+$/.test(type) ? { id: type } : { name: type };
    if (textOf(input, 'summary') === '') throw new StepError('Bad request', "summary can't be blank");
  }
  const summary = textOf(input, 'summary');
  if (summary !== '') fields.summary = summary;
  const description = hashGet(input, 'description');
  if (description !== null && description !== undefined && toRubyString(description) !== '') {
    const plain = toPlain(description);
    fields.description = typeof plain === 'object' && plain !== null ? plain : atlassianDocument(String(plain));
  }
  const priority = textOf(input, 'priority');
  if (priority !== '') fields.priority = /^\d+$/.test(priority) ? { id: priority } : { name: priority };
  const assignee = textOf(input, 'assignee');
  if (assignee !== '') fields.assignee = { accountId: assignee };
  const labels = toPlain(hashGet(input, 'labels') ?? null);
  if (labels !== null && labels !== '')
    fields.labels = (Array.isArray(labels) ? labels.map(String) : String(labels).split(','))
      .map((l) => l.trim())
      .filter((l) => l !== '');
  const due = textOf(input, 'duedate');
  if (due !== '') fields.duedate = due;
  for (const [key, value] of Object.entries((toPlain(input) ?? {}) as Record<string, unknown>))
    if (CUSTOM_FIELD.test(key) && value !== null && value !== '') fields[key] = value;
  return fields;
}

function issueKey(input: Hash): string {
  const key = textOf(input, 'issue_key') || textOf(input, 'issue_id') || textOf(input, 'id');
  if (!ISSUE_KEY.test(key))
    throw new StepError('Bad request', `issue_key ${JSON.stringify(key.slice(0, 60))} is not an issue key or ID`);
  return key;
}

/** An issue with its fields also at the top (what the vendor's datapills name). */
function flatten(issue: unknown): unknown {
  if (typeof issue !== 'object' || issue === null) return issue;
  const { fields, ...rest } = issue as { fields?: Record<string, unknown> };
  return { ...(fields ?? {}), ...rest, fields: fields ?? {} };
}

async function readIssue(session: ConnectorSession, key: string): Promise<unknown> {
  const res = await session.request({ method: 'GET', url: `issue/${encodeURIComponent(key)}` });
  return flatten(res.body);
}

async function search(session: ConnectorSession, jql: string, input: Hash): Promise<{ issues: unknown[] }> {
  const raw = textOf(input, 'max_results');
  const max = raw === '' ? SEARCH_DEFAULT : Number(raw);
  if (!Number.isInteger(max) || max < 1 || max > SEARCH_MAX)
    throw new StepError('Bad request', `max_results must be a whole number from 1 to ${SEARCH_MAX}`);
  const fields = textOf(input, 'fields') || DEFAULT_FIELDS;
  const issues = await collect(
    session,
    { method: 'GET', url: 'search/jql', query: { jql, maxResults: Math.min(max, PAGE_SIZE), fields } },
    cursorInBody(['nextPageToken'], 'nextPageToken'),
    ['issues'],
    { maxItems: max },
  );
  return { issues: issues.map(flatten) };
}

/** A JQL string value, quoted as JQL's reference says (backslash and double quote escaped). */
function jqlString(value: string): string {
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

export function jiraActions(self: () => Connector): Record<string, ActionDef> {
  const run =
    (fn: (input: Hash, session: ConnectorSession) => Promise<unknown>): ActionDef['run'] =>
    async (input, sc) =>
      fromPlain(await fn(input, await stepSession(sc, self())));
  return {
    create_issue: {
      title: 'Create issue',
      required: [{ path: 'summary', label: 'Summary' }],
      run: run(async (input, session) => {
        const fields = issueFields(input, true);
        const res = await session.request({ method: 'POST', url: 'issue', body: { json: { fields } } });
        const created = (res.body ?? {}) as { id?: unknown; key?: unknown; self?: unknown };
        return { id: created.id ?? null, key: created.key ?? null, self: created.self ?? null };
      }),
    },
    update_issue: {
      title: 'Update issue',
      required: [{ path: 'issue_key', label: 'Issue key' }],
      run: run(async (input, session) => {
        const key = issueKey(input);
        const fields = issueFields(input, false);
        if (Object.keys(fields).length === 0) throw new StepError('Bad request', 'no field to update was given');
        await session.request({ method: 'PUT', url: `issue/${encodeURIComponent(key)}`, body: { json: { fields } } });
        return readIssue(session, key);
      }),
    },
    get_issue: {
      title: 'Get issue',
      required: [{ path: 'issue_key', label: 'Issue key' }],
      run: run((input, session) => readIssue(session, issueKey(input))),
    },
    search_issues_by_JQL: {
      title: 'Search issues by JQL',
      required: [{ path: 'jql', label: 'JQL' }],
      run: run(async (input, session) => {
        const jql = textOf(input, 'jql');
        if (jql === '') throw new StepError('Bad request', "jql can't be blank");
        return search(session, jql, input);
      }),
    },
    search_issues: {
      title: 'Search issues',
      run: run(async (input, session) => {
        const given = textOf(input, 'jql');
        if (given !== '') return search(session, given, input);
        const clauses: string[] = [];
        const project = textOf(input, 'project_key');
        if (project !== '') clauses.push(`project = ${jqlString(project)}`);
        for (const [name, field] of [
          ['issue_type', 'issuetype'],
          ['status', 'status'],
          ['assignee', 'assignee'],
          ['priority', 'priority'],
        ] as const) {
          const value = textOf(input, name);
          if (value !== '') clauses.push(`${field} = ${jqlString(value)}`);
        }
        const summary = textOf(input, 'summary');
        if (summary !== '') clauses.push(`summary ~ ${jqlString(summary)}`);
        if (clauses.length === 0)
          throw new StepError('Bad request', 'search by at least one of jql, project_key, issue_type, status, summary');
        return search(session, `${clauses.join(' AND ')} ORDER BY created DESC`, input);
      }),
    },
  };
}
