// Columns of a data table and the values they hold: the types, how a value given by a client or a
// recipe becomes the stored value (or the message that names what is wrong), and filters.

/** The Record ID column: the same UUID in every table (the vendor's). */
export const RECORD_ID_FIELD = '11fbe9a6-a16d-4d7e-86ea-afe42ec03005';
/** The system columns "Created at" and "Updated at" (fixed UUIDs here too). */
export const CREATED_AT_FIELD = 'a5612739-5401-4ae7-bd07-782c1a6fb2d1';
export const UPDATED_AT_FIELD = '61aae604-a95e-4519-9091-bb0bf754a67f';
export const SYSTEM_FIELDS = [
  { field_id: RECORD_ID_FIELD, name: 'Record ID' },
  { field_id: CREATED_AT_FIELD, name: 'Created at' },
  { field_id: UPDATED_AT_FIELD, name: 'Updated at' },
] as const;

export const COLUMN_TYPES = ['string', 'integer', 'decimal', 'boolean', 'date', 'date_time'] as const;
export type ColumnType = (typeof COLUMN_TYPES)[number];

/** Other spellings clients and exports use for the same types. */
const TYPE_ALIASES: Record<string, ColumnType> = {
  string: 'string',
  text: 'string',
  short_text: 'string',
  long_text: 'string',
  integer: 'integer',
  int: 'integer',
  decimal: 'decimal',
  number: 'decimal',
  float: 'decimal',
  boolean: 'boolean',
  date: 'date',
  date_time: 'date_time',
  datetime: 'date_time',
  timestamp: 'date_time',
};

export interface Column {
  field_id: string;
  name: string;
  type: ColumnType;
  optional: boolean;
  default_value: Stored;
  hint: string;
}

export type Stored = string | number | boolean | null;

/** A value's text in UTF-8 bytes. */
export const MAX_VALUE_BYTES = 10 * 1024;
export const MAX_COLUMNS = 100;
export const MAX_NAME_LENGTH = 255;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** `5d420ed4-eafd-...` or `5d420ed4_eafd_...` (as recipes write it) to the dashed form; null when not a UUID. */
export function fieldIdOf(key: string): string | null {
  const dashed = key.trim().toLowerCase().replaceAll('_', '-');
  return UUID.test(dashed) ? dashed : null;
}

export function typeOf(raw: unknown): ColumnType | undefined {
  return typeof raw === 'string' ? TYPE_ALIASES[raw.trim().toLowerCase()] : undefined;
}

export function parseColumns(text: string): Column[] {
  const parsed: unknown = JSON.parse(text);
  return Array.isArray(parsed) ? (parsed as Column[]) : [];
}

/** The column a key names: its UUID (dashes or underscores) or its name (ignoring case). */
export function columnByKey(columns: readonly Column[], key: string): Column | undefined {
  const id = fieldIdOf(key);
  if (id) {
    const byId = columns.find((c) => c.field_id === id);
    if (byId) return byId;
  }
  const lower = key.trim().toLowerCase();
  return columns.find((c) => c.name.toLowerCase() === lower);
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function validDate(text: string): boolean {
  const m = DATE.exec(text);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.getUTCFullYear() === Number(m[1]) && d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]);
}

/**
 * A value for a column as stored, or the problem with it ("must be an integer"). null and ""
 * empty the value. Text of numbers and booleans is accepted for those types (recipes pass text).
 */
export function coerce(type: ColumnType, value: unknown): { value: Stored } | { problem: string } {
  if (value === null || value === undefined || value === '') return { value: null };
  switch (type) {
    case 'string': {
      if (typeof value === 'object') return { problem: 'must be text, not a list or an object' };
      const text = typeof value === 'string' ? value : String(value);
      if (Buffer.byteLength(text) > MAX_VALUE_BYTES) return { problem: `is longer than ${MAX_VALUE_BYTES} bytes` };
      return { value: text };
    }
    case 'integer': {
      const n =
        typeof value === 'number'
          ? value
          : typeof value === 'string' && /^\s*[-+]?\d{1,16}\s*$/.test(value)
            ? Number(value)
            : NaN;
      if (!Number.isSafeInteger(n)) return { problem: `must be an integer (got ${describe(value)})` };
      return { value: n };
    }
    case 'decimal': {
      const n =
        typeof value === 'number'
          ? value
          : typeof value === 'string' && /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/.test(value)
            ? Number(value)
            : NaN;
      if (!Number.isFinite(n)) return { problem: `must be a number (got ${describe(value)})` };
      return { value: n };
    }
    case 'boolean': {
      if (typeof value === 'boolean') return { value };
      const text = String(value).trim().toLowerCase();
      if (['true', 'yes', '1', 't'].includes(text)) return { value: true };
      if (['false', 'no', '0', 'f'].includes(text)) return { value: false };
      return { problem: `must be true or false (got ${describe(value)})` };
    }
    case 'date': {
      if (typeof value !== 'string') return { problem: `must be a date YYYY-MM-DD (got ${describe(value)})` };
      const text = value.trim();
      if (validDate(text)) return { value: text };
      const head = text.slice(0, 10);
      if (text.length > 10 && validDate(head) && !Number.isNaN(Date.parse(text))) return { value: head };
      return { problem: `must be a date YYYY-MM-DD (got ${describe(value)})` };
    }
    case 'date_time': {
      if (typeof value !== 'string') return { problem: `must be a date and time, ISO 8601 (got ${describe(value)})` };
      const text = value.trim();
      const at = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(text)
        ? Date.parse(text)
        : NaN;
      if (Number.isNaN(at)) return { problem: `must be a date and time, ISO 8601 (got ${describe(value)})` };
      return { value: new Date(at).toISOString() };
    }
  }
}

function describe(value: unknown): string {
  const text =
    typeof value === 'string'
      ? JSON.stringify(value)
      : typeof value === 'object'
        ? Array.isArray(value)
          ? 'a list'
          : 'an object'
        : String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

// ---- filters ----

export const FILTER_OPERATORS = [
  'eq',
  'ne',
  'lt',
  'gt',
  'lte',
  'gte',
  'starts_with',
  'in',
  'isnull',
  'isnotnull',
  'istrue',
  'isfalse',
] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number];

export interface Filter {
  /** A column's UUID, or one of the system fields. */
  fieldId: string;
  type: ColumnType | 'id';
  op: FilterOperator;
  /** The compared value(s), coerced to the column's type. */
  values: Stored[];
}

function compare(a: Stored, b: Stored): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

export function matches(filter: Filter, value: Stored): boolean {
  const v = value === undefined ? null : value;
  const target = filter.values[0] ?? null;
  switch (filter.op) {
    case 'isnull':
      return v === null;
    case 'isnotnull':
      return v !== null;
    case 'istrue':
      return v === true;
    case 'isfalse':
      return v === false;
    case 'eq':
      return target === null ? v === null : v !== null && compare(v, target) === 0;
    case 'ne':
      return target === null ? v !== null : v === null || compare(v, target) !== 0;
    case 'in':
      return filter.values.some((t) => (t === null ? v === null : v !== null && compare(v, t) === 0));
    case 'starts_with':
      return v !== null && target !== null && String(v).startsWith(String(target));
    case 'lt':
      return v !== null && target !== null && compare(v, target) < 0;
    case 'gt':
      return v !== null && target !== null && compare(v, target) > 0;
    case 'lte':
      return v !== null && target !== null && compare(v, target) <= 0;
    case 'gte':
      return v !== null && target !== null && compare(v, target) >= 0;
  }
}

export { compare as compareStored };
