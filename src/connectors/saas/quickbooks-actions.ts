// QuickBooks Online's named actions (contract 22 §3: vendors, bills, invoices, accounts, and
// customers): `create_<entity>` and `search_<entities>` over the Accounting API's entities
// (https://developer.intuit.com/app/developer/qbo/docs/api/accounting/all-entities/<entity>) and its
// query endpoint (.../learn/explore-the-quickbooks-online-api/data-queries). Inputs carry the
// API's own field names at the top of the step (`DisplayName`, `PrimaryEmailAddr`, `CustomerRef`,
// `Line`...), as the vendor's dynamic fields do; a search takes fields to match (each `=`), `limit`
// and `offset`. Output: the entity as the API answers it; a search gives `{<Entity>: [...]}`, as the
// query's QueryResponse names the list. Every request names the API's minor version.
import type { ConnectorSession } from '../definition.ts';
import { stepSession } from '../connections.ts';
import { StepError } from '../step-error.ts';
import type { ActionDef, Connector } from '../types.ts';
import { fromPlain, hashGet, toPlain, toRubyString, type Hash } from '../../recipe/formula/values.ts';

export const MINOR_VERSION = '75';
const FIELD = /^[A-Z][A-Za-z0-9]{0,79}$/;
/** The query language's MAXRESULTS is at most 1,000 (data-queries, "Pagination"). */
const PAGE_MAX = 1000;
const SEARCH_DEFAULT = 100;
const SEARCH_MAX = 10_000;
const RESERVED = new Set(['limit', 'offset']);

/** The step's fields as the entity's body (blank ones left out; names as the API spells them). */
function bodyOf(input: Hash): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries((toPlain(input) ?? {}) as Record<string, unknown>)) {
    if (RESERVED.has(key) || value === null || value === undefined || value === '') continue;
    if (!FIELD.test(key))
      throw new StepError('Bad request', `${JSON.stringify(key.slice(0, 80))} is not a QuickBooks field name`);
    out[key] = value;
  }
  return out;
}

/** A query string literal: single quotes, with a quote escaped by a backslash (data-queries). */
function literal(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return `'${String(value).replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

function count(input: Hash, key: string, fallback: number, min: number, max: number): number {
  const raw = hashGet(input, key);
  const text = raw === null || raw === undefined ? '' : toRubyString(raw).trim();
  if (text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max)
    throw new StepError('Bad request', `${key} must be a whole number from ${min} to ${max}`);
  return value;
}

async function query(session: ConnectorSession, entity: string, input: Hash): Promise<unknown[]> {
  const conditions = Object.entries(bodyOf(input)).map(([field, value]) => {
    if (typeof value === 'object') throw new StepError('Bad request', `${field}: a search matches plain values only`);
    return `${field} = ${literal(value)}`;
  });
  const limit = count(input, 'limit', SEARCH_DEFAULT, 1, SEARCH_MAX);
  let start = count(input, 'offset', 0, 0, 1_000_000) + 1;
  const out: unknown[] = [];
  // STARTPOSITION is 1-based; a page shorter than asked for is the last.
  while (out.length < limit) {
    const size = Math.min(PAGE_MAX, limit - out.length);
    const q =
      `select * from ${entity}${conditions.length ? ` where ${conditions.join(' and ')}` : ''}` +
      ` startposition ${start} maxresults ${size}`;
    const res = await session.request({
      method: 'GET',
      url: 'query',
      query: { query: q, minorversion: MINOR_VERSION },
    });
    const rows = ((res.body as { QueryResponse?: Record<string, unknown> } | null)?.QueryResponse?.[entity] ??
      []) as unknown[];
    if (!Array.isArray(rows)) throw new StepError('Bad response', `the query answer has no ${entity} list`);
    out.push(...rows);
    if (rows.length < size) break;
    start += rows.length;
  }
  return out;
}

export function quickbooksActions(self: () => Connector): Record<string, ActionDef> {
  const create = (entity: string, title: string, required: ActionDef['required'] = []): ActionDef => ({
    title,
    required,
    async run(input, sc) {
      const session = await stepSession(sc, self());
      const res = await session.request({
        method: 'POST',
        url: entity.toLowerCase(),
        query: { minorversion: MINOR_VERSION },
        body: { json: bodyOf(input) },
      });
      return fromPlain((res.body as Record<string, unknown> | null)?.[entity] ?? null);
    },
  });
  const search = (entity: string, title: string): ActionDef => ({
    title,
    async run(input, sc) {
      const session = await stepSession(sc, self());
      return fromPlain({ [entity]: await query(session, entity, input) });
    },
  });
  const get = (entity: string, title: string): ActionDef => ({
    title,
    required: [{ path: 'id', label: 'ID' }],
    async run(input, sc) {
      const id = toRubyString(hashGet(input, 'id') ?? '').trim();
      if (!/^\d{1,18}$/.test(id))
        throw new StepError('Bad request', `id ${JSON.stringify(id.slice(0, 40))} is not a QuickBooks ID`);
      const session = await stepSession(sc, self());
      const res = await session.request({
        method: 'GET',
        url: `${entity.toLowerCase()}/${id}`,
        query: { minorversion: MINOR_VERSION },
      });
      return fromPlain((res.body as Record<string, unknown> | null)?.[entity] ?? null);
    },
  });
  return {
    create_customer: create('Customer', 'Create customer', [{ path: 'DisplayName', label: 'Display name' }]),
    search_customers: search('Customer', 'Search customers'),
    get_customer: get('Customer', 'Get customer by ID'),
    create_invoice: create('Invoice', 'Create invoice', [
      { path: 'CustomerRef', label: 'Customer' },
      { path: 'Line', label: 'Line items' },
    ]),
    search_invoices: search('Invoice', 'Search invoices'),
    get_invoice: get('Invoice', 'Get invoice by ID'),
    create_vendor: create('Vendor', 'Create vendor', [{ path: 'DisplayName', label: 'Display name' }]),
    search_vendors: search('Vendor', 'Search vendors'),
    create_bill: create('Bill', 'Create bill', [
      { path: 'VendorRef', label: 'Vendor' },
      { path: 'Line', label: 'Line items' },
    ]),
    search_bills: search('Bill', 'Search bills'),
    search_accounts: search('Account', 'Search accounts'),
  };
}
