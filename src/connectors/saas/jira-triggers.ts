// Jira's `new_issue` polling trigger over the JQL search
// (https://developer.atlassian.com/cloud/jira/platform/rest/v3/api-group-issue-search/#api-rest-api-3-search-jql-get):
// `created >= "yyyy/MM/dd HH:mm" ORDER BY created ASC, id ASC`, pages of 100 with `nextPageToken`.
// JQL reads dates in the connection user's time zone (`myself`'s `timeZone`, read on the first
// poll and kept in the closure) and to the minute: issues of the cursor's minute come again and
// are dropped by their id (the dedup key). `project` narrows to a project key.
import { stepSession } from '../connections.ts';
import { StepError } from '../step-error.ts';
import type { Connector, TriggerDef } from '../types.ts';
import { fromPlain, hashGet, toRubyString, type Hash } from '../../recipe/formula/values.ts';
import { closureOf, startOf } from './trigger-helpers.ts';

const PAGE = 100;
const PROJECT_KEY = /^[A-Z][A-Z0-9_]{0,254}$/;

/** A time as JQL writes it in a time zone: `2026/01/02 13:05`. */
function jqlTime(at: number, timeZone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
    })
      .formatToParts(new Date(at))
      .map((p) => [p.type, p.value]),
  );
  return `${parts.year}/${parts.month}/${parts.day} ${parts.hour}:${parts.minute}`;
}

/** Jira's `2026-01-02T13:05:00.000+0100` in milliseconds. */
function timeOf(value: unknown): number {
  const at = Date.parse(String(value).replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
  if (Number.isNaN(at))
    throw new StepError('Bad response', `Jira sent ${JSON.stringify(String(value).slice(0, 40))} as a time`);
  return at;
}

function validZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

export function jiraTriggers(self: () => Connector): Record<string, TriggerDef> {
  return {
    new_issue: {
      title: 'New issue',
      kind: 'poll',
      description: 'Triggers when an issue is created in Jira',
      inputFields: [
        { name: 'project', label: 'Project key', optional: true, hint: 'OPS; blank: every project' },
        {
          name: 'since',
          label: 'When first started, this recipe should pick up events from',
          type: 'timestamp',
          optional: true,
        },
      ],
      outputFields: [
        { name: 'id' },
        { name: 'key' },
        { name: 'self' },
        {
          name: 'fields',
          type: 'object',
          properties: [{ name: 'summary' }, { name: 'created', type: 'date_time' }, { name: 'status', type: 'object' }],
        },
      ],
      output: (event) => event,
      async poll(input: Hash, closure, tc) {
        const project = toRubyString(hashGet(input, 'project') ?? '').trim();
        if (project !== '' && !PROJECT_KEY.test(project))
          throw new StepError(
            'Bad request',
            `project ${JSON.stringify(project.slice(0, 80))} is not a Jira project key`,
          );
        const session = await stepSession(tc, self());
        const state = closureOf(closure);
        let zone = typeof state.time_zone === 'string' ? state.time_zone : '';
        if (zone === '') {
          const me = (await session.request({ method: 'GET', url: 'myself' })).body as { timeZone?: unknown };
          zone = typeof me.timeZone === 'string' && validZone(me.timeZone) ? me.timeZone : 'UTC';
        }
        const since = typeof state.since === 'number' ? state.since : startOf(input, tc.ctx.clock.now()).getTime();
        const jql = `${project !== '' ? `project = "${project}" AND ` : ''}created >= "${jqlTime(since, zone)}" ORDER BY created ASC, id ASC`;
        const query: Record<string, string | number> = { jql, fields: '*all', maxResults: PAGE };
        if (typeof state.page_token === 'string') query.nextPageToken = state.page_token;
        const page = (await session.request({ method: 'GET', url: 'search/jql', query })).body as {
          issues?: Array<Record<string, unknown> & { id?: unknown; fields?: { created?: unknown } }>;
          nextPageToken?: unknown;
          isLast?: boolean;
        };
        const issues = page.issues ?? [];
        // The cursor moves once the last page of this search is read (the pages share its JQL).
        const newest = Math.max(
          typeof state.newest === 'number' ? state.newest : since,
          ...issues.map((i) => timeOf(i.fields?.created)),
        );
        const more = page.isLast === false && typeof page.nextPageToken === 'string';
        return {
          events: issues.map((i) => ({ event: fromPlain(i) as Hash, dedup: String(i.id) })),
          closure: more
            ? { since, time_zone: zone, page_token: page.nextPageToken, newest }
            : { since: newest, time_zone: zone },
          canPollMore: more,
        };
      },
    },
  };
}
