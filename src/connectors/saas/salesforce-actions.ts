// Salesforce's named actions as the vendor's recipes store them (contract 22 §3): `sobject_name`,
// the record's fields at the top of the input (`Email`, `Unique_Email__c`...), `id` for one record,
// `query_field.primary_key` for an upsert; over the REST API's sObject resources
// (https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/resources_sobject_basic_info.htm).
import { stepSession } from '../connections.ts';
import { collect, nextUrlInBody } from '../http/pagination.ts';
import { StepError } from '../step-error.ts';
import type { ConnectorSession } from '../definition.ts';
import type { ActionDef, Connector, StepContext } from '../types.ts';
import { fromPlain, hashGet, toPlain, toRubyString, type Hash, type Value } from '../../recipe/formula/values.ts';

const NAME = /^[A-Za-z][A-Za-z0-9_]{0,79}$/;
/** Inputs that are the action's own, not fields of the record. */
const RESERVED = new Set(['sobject_name', 'id', 'limit', 'query_field', 'query']);
/** At most this many records a search returns (SOQL's FIELDS(ALL) allows 200). */
const SEARCH_LIMIT = 200;
/** The vendor's SOQL search: 150 records unless told, 2,000 at most, an offset of 2,000 at most. */
const SOQL_DEFAULT_LIMIT = 150;
const SOQL_MAX_LIMIT = 2000;
const SOQL_MAX_OFFSET = 2000;
/** Salesforce refuses a SOQL statement longer than 100,000 characters. */
const SOQL_MAX_LENGTH = 100_000;

function nameOf(input: Hash, key: string, label: string): string {
  const value = toRubyString(hashGet(input, key) ?? '').trim();
  if (value === '') throw new StepError('Bad request', `${label} can't be blank`);
  if (!NAME.test(value))
    throw new StepError('Bad request', `${label} ${JSON.stringify(value.slice(0, 80))} is not an API name`);
  return value;
}

function recordId(input: Hash): string {
  const id = toRubyString(hashGet(input, 'id') ?? '').trim();
  if (!/^[A-Za-z0-9]{15}([A-Za-z0-9]{3})?$/.test(id))
    throw new StepError('Bad request', `id ${JSON.stringify(id.slice(0, 40))} is not a Salesforce record ID`);
  return id;
}

/** The record's fields given in the step (blank ones left out, as the vendor's recipes do). */
function fieldsOf(input: Hash): Record<string, unknown> {
  const plain = toPlain(input) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(plain)) {
    if (RESERVED.has(key) || value === null || value === undefined || value === '') continue;
    if (!NAME.test(key)) throw new StepError('Bad request', `${JSON.stringify(key.slice(0, 80))} is not a field name`);
    out[key] = value;
  }
  return out;
}

/** A SOQL string literal (backslash and quote escaped, as the SOQL reference says). */
function literal(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return `'${String(value).replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

function count(input: Hash, key: string, fallback: number, max: number): number {
  const raw = hashGet(input, key);
  if (raw === null || raw === undefined || toRubyString(raw).trim() === '') return fallback;
  const value = Number(toRubyString(raw).trim());
  if (!Number.isInteger(value) || value < 0 || value > max)
    throw new StepError('Bad request', `${key} must be a whole number from 0 to ${max}`);
  return value;
}

/** `field_list` as the vendor stores it: names separated by commas, or a list of names. */
function fieldList(input: Hash): string[] {
  const raw = toPlain(hashGet(input, 'field_list') ?? null);
  const names = (Array.isArray(raw) ? raw.map(String) : String(raw ?? '').split(','))
    .map((name) => name.trim())
    .filter((name) => name !== '');
  for (const name of names)
    if (!/^[A-Za-z][A-Za-z0-9_]{0,79}(\.[A-Za-z][A-Za-z0-9_]{0,79}){0,4}$/.test(name))
      throw new StepError('Bad request', `field_list: ${JSON.stringify(name.slice(0, 80))} is not a field name`);
  return [...new Set(names)];
}

function withoutAttributes(record: unknown): unknown {
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return record;
  const { attributes: _attributes, ...rest } = record as Record<string, unknown>;
  return rest;
}

function action(
  title: string,
  self: () => Connector,
  run: (
    input: Hash,
    request: ConnectorSession['request'],
    sc: StepContext,
    session: ConnectorSession,
  ) => Promise<unknown>,
): ActionDef {
  return {
    title,
    required: [{ path: 'sobject_name', label: 'Object' }],
    async run(input, sc): Promise<Value> {
      const session = await stepSession(sc, self());
      return fromPlain(await run(input, (r) => session.request(r), sc, session));
    },
  };
}

export function salesforceActions(self: () => Connector): Record<string, ActionDef> {
  const update = action('Update record', self, async (input, request) => {
    const sobject = nameOf(input, 'sobject_name', 'Object');
    const id = recordId(input);
    await request({ method: 'PATCH', url: `sobjects/${sobject}/${id}`, body: { json: fieldsOf(input) } });
    return { id };
  });
  return {
    search_sobjects: {
      ...action('Search records', self, async (input, request) => {
        const sobject = nameOf(input, 'sobject_name', 'Object');
        const given = Number(toRubyString(hashGet(input, 'limit') ?? SEARCH_LIMIT));
        const limit = Number.isInteger(given) && given > 0 ? Math.min(given, SEARCH_LIMIT) : SEARCH_LIMIT;
        const where = Object.entries(fieldsOf(input)).map(([k, v]) => `${k} = ${literal(v)}`);
        const soql = `SELECT FIELDS(ALL) FROM ${sobject}${where.length ? ` WHERE ${where.join(' AND ')}` : ''} LIMIT ${limit}`;
        const res = await request({ method: 'GET', url: 'query', query: { q: soql } });
        const records = ((res.body as { records?: unknown[] } | null)?.records ?? []).map(withoutAttributes);
        return { [sobject]: records };
      }),
    },
    search_sobjects_soql: action(
      'Search records using SOQL query WHERE clause',
      self,
      async (input, _request, _sc, session) => {
        const sobject = nameOf(input, 'sobject_name', 'Object');
        const where = toRubyString(hashGet(input, 'query') ?? '').trim();
        const fields = fieldList(input);
        // FIELDS(ALL) is bounded to 200 rows by Salesforce; named fields go to the vendor's 2,000.
        const max = fields.length === 0 ? SEARCH_LIMIT : SOQL_MAX_LIMIT;
        const limit = count(input, 'limit', Math.min(SOQL_DEFAULT_LIMIT, max), max);
        const offset = count(input, 'offset', 0, SOQL_MAX_OFFSET);
        const soql =
          `SELECT ${fields.length === 0 ? 'FIELDS(ALL)' : fields.join(', ')} FROM ${sobject}` +
          `${where === '' ? '' : ` WHERE ${where}`} LIMIT ${limit}${offset > 0 ? ` OFFSET ${offset}` : ''}`;
        if (soql.length > SOQL_MAX_LENGTH)
          throw new StepError('Bad request', `the SOQL query is longer than ${SOQL_MAX_LENGTH} characters`);
        if (limit === 0) return { [sobject]: [] };
        // A result larger than one batch comes in pages, each naming the next (nextRecordsUrl).
        const records = await collect(
          session,
          { method: 'GET', url: 'query', query: { q: soql } },
          nextUrlInBody(['nextRecordsUrl']),
          ['records'],
          { maxItems: limit },
        );
        return { [sobject]: records.map(withoutAttributes) };
      },
    ),
    get_sobject: action('Get record by ID', self, async (input, request) => {
      const sobject = nameOf(input, 'sobject_name', 'Object');
      const res = await request({ method: 'GET', url: `sobjects/${sobject}/${recordId(input)}` });
      return withoutAttributes(res.body);
    }),
    create_sobject: action('Create record', self, async (input, request) => {
      const sobject = nameOf(input, 'sobject_name', 'Object');
      const res = await request({ method: 'POST', url: `sobjects/${sobject}`, body: { json: fieldsOf(input) } });
      return { id: (res.body as { id?: unknown } | null)?.id ?? null };
    }),
    update_sobject: update,
    update_sobject_v2: update,
    upsert_sobject: action('Upsert record', self, async (input, request) => {
      const sobject = nameOf(input, 'sobject_name', 'Object');
      const queryField = hashGet(input, 'query_field');
      const key = toRubyString(
        (queryField && typeof queryField === 'object' ? hashGet(queryField as Hash, 'primary_key') : null) ?? '',
      ).trim();
      if (!NAME.test(key))
        throw new StepError('Bad request', 'query_field.primary_key must name the external ID field');
      const fields = fieldsOf(input);
      const value = fields[key];
      if (value === undefined) throw new StepError('Bad request', `${key} can't be blank: the upsert matches on it`);
      delete fields[key];
      const res = await request({
        method: 'PATCH',
        url: `sobjects/${sobject}/${key}/${encodeURIComponent(String(value))}`,
        body: { json: fields },
      });
      const body = (res.body ?? {}) as { id?: unknown; created?: unknown };
      return { id: body.id ?? null, created: body.created === true };
    }),
    delete_sobject: action('Delete record', self, async (input, request) => {
      const sobject = nameOf(input, 'sobject_name', 'Object');
      const id = recordId(input);
      await request({ method: 'DELETE', url: `sobjects/${sobject}/${id}` });
      return { id };
    }),
  };
}
