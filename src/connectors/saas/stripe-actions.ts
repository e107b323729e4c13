// Stripe's named actions as the vendor's recipes store them (contract 22 §3): `create_customer`,
// `update_customer`, `create_invoice`, `create_invoice_item`, `create_charge`, `get_object_by_id`
// and `list_objects`, over the API's resources (https://docs.stripe.com/api/customers,
// /api/invoices, /api/invoiceitems, /api/charges). Inputs carry Stripe's own parameter names
// (`email`, `customer`, `amount` in the currency's smallest unit, `currency`...); `metadata` is a
// list of `{key, value}` pairs as the vendor's steps store it (an object is taken too). The body is
// a form with nested keys in brackets (the connection's `jsonBodyAsForm`). Output: the Stripe
// object as the API answers it.
import type { ConnectorSession } from '../definition.ts';
import { collect, stripeList } from '../http/pagination.ts';
import { stepSession } from '../connections.ts';
import { StepError } from '../step-error.ts';
import type { ActionDef, Connector } from '../types.ts';
import { fromPlain, hashGet, toPlain, toRubyString, type Hash } from '../../recipe/formula/values.ts';

const ID = /^[a-z]{2,6}_[A-Za-z0-9]{1,250}$/;
const CURRENCY = /^[a-z]{3}$/;
/** The objects `get_object_by_id` and `list_objects` reach, by the vendor's names, and their paths. */
const OBJECTS: Record<string, string> = {
  customer: 'customers',
  invoice: 'invoices',
  invoice_item: 'invoiceitems',
  charge: 'charges',
  payment_intent: 'payment_intents',
  refund: 'refunds',
  product: 'products',
  price: 'prices',
  subscription: 'subscriptions',
};
const LIST_MAX = 1000;

function textOf(input: Hash, key: string): string {
  const value = hashGet(input, key);
  return value === null || value === undefined ? '' : toRubyString(value).trim();
}

function idOf(input: Hash, key: string, label = key): string {
  const id = textOf(input, key);
  if (!ID.test(id))
    throw new StepError('Bad request', `${label} ${JSON.stringify(id.slice(0, 60))} is not a Stripe ID`);
  return id;
}

/** `[{key, value}]` (the vendor's form) or an object, as Stripe's `metadata[key]=value`. */
function metadataOf(input: Hash): Record<string, string> | undefined {
  const raw = toPlain(hashGet(input, 'metadata') ?? null);
  if (raw === null || raw === '') return undefined;
  const out: Record<string, string> = {};
  const pairs = Array.isArray(raw)
    ? raw.map((p) => [(p as { key?: unknown })?.key, (p as { value?: unknown })?.value] as const)
    : typeof raw === 'object'
      ? Object.entries(raw as Record<string, unknown>)
      : null;
  if (pairs === null) throw new StepError('Bad request', 'metadata must be a list of {key, value} or an object');
  for (const [key, value] of pairs) {
    if (typeof key !== 'string' || key === '' || key.length > 40)
      throw new StepError('Bad request', 'each metadata key must be text of 1 to 40 characters');
    out[key] = value === null || value === undefined ? '' : String(value);
  }
  return out;
}

/** The given inputs among `names`, blank ones left out. */
function pick(input: Hash, names: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of names) {
    const value = toPlain(hashGet(input, name) ?? null);
    if (value === null || value === '') continue;
    out[name] = value;
  }
  return out;
}

function amountOf(input: Hash, required: boolean): number | undefined {
  const raw = textOf(input, 'amount');
  if (raw === '') {
    if (required) throw new StepError('Bad request', "amount can't be blank");
    return undefined;
  }
  const amount = Number(raw);
  if (!Number.isInteger(amount) || amount < 0)
    throw new StepError('Bad request', 'amount must be a whole number of the currency’s smallest unit (cents)');
  return amount;
}

function currencyOf(input: Hash, required: boolean): string | undefined {
  const currency = textOf(input, 'currency').toLowerCase();
  if (currency === '') {
    if (required) throw new StepError('Bad request', "currency can't be blank");
    return undefined;
  }
  if (!CURRENCY.test(currency)) throw new StepError('Bad request', 'currency must be a three-letter ISO code');
  return currency;
}

const CUSTOMER_FIELDS = [
  'email',
  'name',
  'description',
  'phone',
  'balance',
  'preferred_locales',
  'address',
  'shipping',
];
const INVOICE_FIELDS = [
  'description',
  'collection_method',
  'days_until_due',
  'due_date',
  'auto_advance',
  'currency',
  'footer',
  'pending_invoice_items_behavior',
];
const CHARGE_FIELDS = ['description', 'receipt_email', 'source', 'statement_descriptor', 'capture'];

export function stripeActions(self: () => Connector): Record<string, ActionDef> {
  const run =
    (fn: (input: Hash, session: ConnectorSession) => Promise<unknown>): ActionDef['run'] =>
    async (input, sc) =>
      fromPlain(await fn(input, await stepSession(sc, self())));
  const post = async (session: ConnectorSession, path: string, body: Record<string, unknown>) =>
    (await session.request({ method: 'POST', url: path, body: { json: body } })).body;
  const withMetadata = (input: Hash, body: Record<string, unknown>) => {
    const metadata = metadataOf(input);
    return metadata ? { ...body, metadata } : body;
  };
  const updateCustomer: ActionDef = {
    title: 'Update customer',
    required: [{ path: 'id', label: 'Customer ID' }],
    run: run(async (input, session) => {
      const id = idOf(input, 'id', 'Customer ID');
      return post(session, `customers/${id}`, withMetadata(input, pick(input, CUSTOMER_FIELDS)));
    }),
  };
  return {
    create_customer: {
      title: 'Create customer',
      run: run((input, session) => post(session, 'customers', withMetadata(input, pick(input, CUSTOMER_FIELDS)))),
    },
    update_customer: updateCustomer,
    create_invoice_item: {
      title: 'Create invoice item',
      required: [{ path: 'customer', label: 'Customer' }],
      run: run(async (input, session) => {
        const body: Record<string, unknown> = {
          customer: idOf(input, 'customer'),
          ...pick(input, ['description', 'price', 'quantity']),
        };
        const amount = amountOf(input, body.price === undefined);
        if (amount !== undefined) body.amount = amount;
        const currency = currencyOf(input, amount !== undefined);
        if (currency !== undefined) body.currency = currency;
        if (textOf(input, 'invoice') !== '') body.invoice = idOf(input, 'invoice');
        return post(session, 'invoiceitems', withMetadata(input, body));
      }),
    },
    create_invoice: {
      title: 'Create invoice',
      required: [{ path: 'customer', label: 'Customer' }],
      run: run((input, session) =>
        post(
          session,
          'invoices',
          withMetadata(input, { customer: idOf(input, 'customer'), ...pick(input, INVOICE_FIELDS) }),
        ),
      ),
    },
    create_charge: {
      title: 'Create charge',
      required: [
        { path: 'amount', label: 'Amount' },
        { path: 'currency', label: 'Currency' },
      ],
      run: run(async (input, session) => {
        const body: Record<string, unknown> = {
          amount: amountOf(input, true),
          currency: currencyOf(input, true),
          ...pick(input, CHARGE_FIELDS),
        };
        if (textOf(input, 'customer') !== '') body.customer = idOf(input, 'customer');
        if (body.customer === undefined && body.source === undefined)
          throw new StepError('Bad request', 'a charge needs a customer or a source');
        return post(session, 'charges', withMetadata(input, body));
      }),
    },
    get_object_by_id: {
      title: 'Get object by ID',
      required: [
        { path: 'object', label: 'Object' },
        { path: 'id', label: 'ID' },
      ],
      run: run(async (input, session) => {
        const path = OBJECTS[textOf(input, 'object')];
        if (!path) throw new StepError('Bad request', `object must be one of ${Object.keys(OBJECTS).join(', ')}`);
        return (await session.request({ method: 'GET', url: `${path}/${idOf(input, 'id')}` })).body;
      }),
    },
    list_objects: {
      title: 'List objects',
      required: [{ path: 'object', label: 'Object' }],
      run: run(async (input, session) => {
        const object = textOf(input, 'object');
        const path = OBJECTS[object];
        if (!path) throw new StepError('Bad request', `object must be one of ${Object.keys(OBJECTS).join(', ')}`);
        const raw = textOf(input, 'limit');
        const limit = raw === '' ? 100 : Number(raw);
        if (!Number.isInteger(limit) || limit < 1 || limit > LIST_MAX)
          throw new StepError('Bad request', `limit must be a whole number from 1 to ${LIST_MAX}`);
        const query: Record<string, string | number> = { limit: Math.min(limit, 100) };
        if (textOf(input, 'customer') !== '') query.customer = idOf(input, 'customer');
        const data = await collect(session, { method: 'GET', url: path, query }, stripeList(), ['data'], {
          maxItems: limit,
        });
        return { data };
      }),
    },
  };
}
