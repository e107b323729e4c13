// Salesforce's polling triggers as the vendor names them: `new_sobject` (records created, by
// CreatedDate) and `updated_sobject` (records created or changed, by SystemModstamp), over SOQL
// through the query resource
// (https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/resources_query.htm):
// `SELECT FIELDS(ALL) FROM <object> WHERE <time field> >= <cursor> ORDER BY <time field> ASC, Id ASC
// LIMIT 200` (FIELDS(ALL) allows 200). The cursor is the time of the last record taken; records at
// the cursor's own time come again and are dropped by their dedup key (Id, or Id and
// SystemModstamp for updates). A full page asks for the next at once.
import { stepSession } from '../connections.ts';
import { StepError } from '../step-error.ts';
import type { Connector, TriggerDef } from '../types.ts';
import { fromPlain, type Hash } from '../../recipe/formula/values.ts';
import { closureOf, requiredText, startOf } from './trigger-helpers.ts';

const PAGE = 200;
const NAME = /^[A-Za-z][A-Za-z0-9_]{0,79}$/;

/** Salesforce's `2026-01-01T00:00:00.000+0000` as a SOQL dateTime literal (UTC, whole seconds). */
function soqlTime(value: string | Date): string {
  const at = value instanceof Date ? value.getTime() : Date.parse(value.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
  if (Number.isNaN(at))
    throw new StepError('Bad response', `Salesforce sent ${JSON.stringify(String(value).slice(0, 40))} as a time`);
  return new Date(Math.floor(at / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

function recordTrigger(kind: 'new' | 'updated', self: () => Connector): TriggerDef {
  const timeField = kind === 'new' ? 'CreatedDate' : 'SystemModstamp';
  return {
    title: kind === 'new' ? 'New record' : 'New/updated record',
    kind: 'poll',
    description:
      kind === 'new'
        ? 'Triggers when a record of the chosen object is created in Salesforce'
        : 'Triggers when a record of the chosen object is created or updated in Salesforce',
    inputFields: [
      { name: 'sobject_name', label: 'Object', hint: 'The API name: Lead, Account, Invoice__c' },
      {
        name: 'since',
        label: 'When first started, this recipe should pick up events from',
        type: 'timestamp',
        optional: true,
      },
    ],
    outputFields: [
      { name: 'Id' },
      { name: 'CreatedDate', type: 'date_time' },
      { name: 'LastModifiedDate', type: 'date_time' },
      { name: 'SystemModstamp', type: 'date_time' },
    ],
    output: (event) => event,
    async poll(input: Hash, closure, tc) {
      const sobject = requiredText(input, 'sobject_name', 'Object');
      if (!NAME.test(sobject))
        throw new StepError('Bad request', `Object ${JSON.stringify(sobject.slice(0, 80))} is not an API name`);
      const state = closureOf(closure);
      const since = typeof state.since === 'string' ? state.since : soqlTime(startOf(input, tc.ctx.clock.now()));
      const q = `SELECT FIELDS(ALL) FROM ${sobject} WHERE ${timeField} >= ${since} ORDER BY ${timeField} ASC, Id ASC LIMIT ${PAGE}`;
      const session = await stepSession(tc, self());
      const body = (await session.request({ method: 'GET', url: 'query', query: { q } })).body as {
        records?: Array<Record<string, unknown>>;
      };
      const records = (body.records ?? []).map(({ attributes: _attributes, ...rest }) => rest);
      const last = records.at(-1);
      const next = last && typeof last[timeField] === 'string' ? soqlTime(last[timeField]) : since;
      return {
        events: records.map((r) => ({
          event: fromPlain(r) as Hash,
          dedup: kind === 'new' ? String(r.Id) : `${String(r.Id)}@${String(r.SystemModstamp)}`,
        })),
        closure: { since: next },
        // A full page whose records all share the cursor's second cannot move on: the rest wait.
        canPollMore: records.length === PAGE && next !== since,
      };
    },
  };
}

export function salesforceTriggers(self: () => Connector): Record<string, TriggerDef> {
  return { new_sobject: recordTrigger('new', self), updated_sobject: recordTrigger('updated', self) };
}
