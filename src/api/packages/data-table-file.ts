// A data table's file in a package (`<name>.workato_db_table.json`) in the vendor's schema
// (contract 15 §13): `{name, schema: [{id, title, type, read_only, hidden, required, metadata}],
// data?}`, the first three columns the system ones (Record ID, Created time, Last modified time).
// Read into this server's column definition (data_tables.input.ts), and written back from it.
import { AppError } from '../../errors.ts';
import { columnsFromDefinition } from '../data_tables/data_tables.input.ts';
import {
  coerce,
  CREATED_AT_FIELD,
  RECORD_ID_FIELD,
  UPDATED_AT_FIELD,
  type Column,
  type ColumnType,
  type Stored,
} from '../data_tables/columns.ts';

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The vendor's system columns, as its files list them first. */
const SYSTEM_COLUMNS = [
  { id: RECORD_ID_FIELD, title: 'Record ID', type: 'short-text' },
  { id: CREATED_AT_FIELD, title: 'Created time', type: 'date-time' },
  { id: UPDATED_AT_FIELD, title: 'Last modified time', type: 'date-time' },
] as const;
const SYSTEM_IDS = new Set<string>(SYSTEM_COLUMNS.map((c) => c.id));

/** The vendor's column types and ours. `long-text` reads as text; it is written back as `short-text`. */
const FROM_VENDOR: Record<string, ColumnType> = {
  'short-text': 'string',
  'long-text': 'string',
  integer: 'integer',
  number: 'decimal',
  boolean: 'boolean',
  date: 'date',
  'date-time': 'date_time',
};
const TO_VENDOR: Record<ColumnType, string> = {
  string: 'short-text',
  integer: 'integer',
  decimal: 'number',
  boolean: 'boolean',
  date: 'date',
  date_time: 'date-time',
};
/** Vendor types this server's tables do not hold: such a column is left out, and the result says so. */
const NOT_HELD = new Set(['file', 'relation']);

/** Most problems listed for one file's records. */
const MAX_RECORD_PROBLEMS = 5;

/**
 * Check a data table file and turn its vendor schema into our definition (in `body.schema`), its
 * records checked against the columns' types. Problems fail the file alone; notes say what is
 * imported differently (a column of a type not held here).
 */
export function checkDataTableFile(body: Obj, path: string, problems: string[], notes: string[]): void {
  const raw = body.schema;
  if (!Array.isArray(raw)) {
    problems.push(`${path}: schema must be a list of columns`);
    return;
  }
  const definition: unknown[] = [];
  for (const [i, column] of raw.entries()) {
    if (!isObj(column)) {
      problems.push(`${path}: schema.${i} must be an object`);
      continue;
    }
    // Our own earlier files wrote {field_id, name, type}; the vendor's write {id, title, type}.
    if (column.title === undefined && column.id === undefined) {
      definition.push(column);
      continue;
    }
    if (typeof column.id === 'string' && SYSTEM_IDS.has(column.id.toLowerCase())) continue;
    const title = column.title;
    if (typeof title !== 'string' || title.trim() === '') {
      problems.push(`${path}: schema.${i}.title must be the column's name`);
      continue;
    }
    const vendorType = typeof column.type === 'string' ? column.type : '';
    if (NOT_HELD.has(vendorType)) {
      notes.push(
        `column "${title}" (${vendorType}) left out: this server's data tables do not hold ${vendorType} columns`,
      );
      continue;
    }
    const type = FROM_VENDOR[vendorType];
    if (!type) {
      problems.push(
        `${path}: schema.${i}.type must be one of ${[...Object.keys(FROM_VENDOR), ...NOT_HELD].join(', ')} (got ${JSON.stringify(column.type ?? null)})`,
      );
      continue;
    }
    definition.push({
      field_id: column.id,
      name: title,
      type,
      optional: column.required !== true,
      ...(column.default_value !== undefined ? { default_value: column.default_value } : {}),
      ...(typeof column.hint === 'string' ? { hint: column.hint } : {}),
    });
  }
  if (problems.length > 0) return;
  let columns: Column[];
  try {
    columns = columnsFromDefinition(definition);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    problems.push(
      `${path}: ${Object.entries(error.errors ?? {})
        .map(([k, v]) => `${k} ${v.join(', ')}`)
        .join('; ')}`,
    );
    return;
  }
  body.schema = columns;
  const data = body.data;
  if (data === undefined || data === null) return;
  if (!Array.isArray(data) || !data.every(isObj)) {
    problems.push(`${path}: data must be a list of records, each an object of values by column UUID`);
    return;
  }
  const found: string[] = [];
  for (let i = 0; i < data.length && found.length < MAX_RECORD_PROBLEMS; i += 1)
    found.push(...coerceRecord(data[i] as Obj, columns, i).problems);
  for (const p of found.slice(0, MAX_RECORD_PROBLEMS)) problems.push(`${path}: ${p}`);
}

/** A record of a file's `data` as stored (values by column UUID), with what is wrong in it. */
export function coerceRecord(
  record: Obj,
  columns: readonly Column[],
  index: number,
): { values: Record<string, Stored>; problems: string[] } {
  const values: Record<string, Stored> = {};
  const problems: string[] = [];
  for (const column of columns) {
    const given = record[column.field_id] ?? record[column.field_id.replaceAll('-', '_')] ?? record[column.name];
    const coerced = coerce(column.type, given);
    if ('problem' in coerced) problems.push(`data[${index}]: ${column.name} ${coerced.problem}`);
    else if (coerced.value !== null) values[column.field_id] = coerced.value;
  }
  return { values, problems };
}

/** A table's schema as the vendor's files hold it: the system columns first. */
export function vendorSchema(columns: readonly Column[]): Obj[] {
  return [
    ...SYSTEM_COLUMNS.map((c) => ({ ...c, read_only: true, hidden: true })),
    ...columns.map((c) => ({
      id: c.field_id,
      title: c.name,
      type: TO_VENDOR[c.type],
      read_only: false,
      hidden: false,
      required: !c.optional,
      metadata: {},
      ...(c.default_value !== null && c.default_value !== undefined ? { default_value: c.default_value } : {}),
      ...(c.hint ? { hint: c.hint } : {}),
    })),
  ];
}
