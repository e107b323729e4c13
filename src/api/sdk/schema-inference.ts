// Schema inference for POST /api/sdk/generate_schema/json and /csv (contract 04 Part 3): a
// sample document in, a Workato schema (an array of field definitions) out. Pure functions, no
// I/O; errors are the catalog's sample_* codes so the routes only pass them through.
import { csvParse } from '../../csv.ts';
import { AppError, invalid } from '../../errors.ts';

export type FieldType = 'string' | 'number' | 'boolean' | 'date_time' | 'object' | 'array';

/** One field of a Workato schema. Keys are created in the order observed in generated schemas. */
export interface SchemaField {
  control_type?: 'text' | 'number' | 'checkbox';
  label: string;
  render_input?: string;
  parse_output?: string;
  toggle_hint?: string;
  toggle_field?: SchemaField;
  type: FieldType;
  of?: string;
  name: string;
  properties?: SchemaField[];
}

/** Largest sample accepted, in UTF-8 bytes (contract 04 §3.6: 10 MB). */
export const MAX_SAMPLE_BYTES = 10 * 1024 * 1024;

/**
 * Deepest nesting of objects and arrays that is inferred (P). Real documents stay far below;
 * the limit keeps a hostile sample from exhausting the stack while walking or serialising.
 */
export const MAX_SAMPLE_DEPTH = 100;

// ---------------------------------------------------------------------------------------------
// Shapes: what a value (or several values merged) looks like, before it becomes fields.

type Shape =
  | { kind: 'null' }
  | { kind: 'string' }
  | { kind: 'date_time' }
  | { kind: 'number' }
  | { kind: 'boolean' }
  /** Values of different kinds were seen under one key: rendered as a string field. */
  | { kind: 'mixed' }
  | { kind: 'object'; fields: Map<string, Shape> }
  /** `of` is null while no non-null element has been seen (an empty array). */
  | { kind: 'array'; of: Shape | null };

const NULL: Shape = { kind: 'null' };

/**
 * Most fields a generated schema holds, counted over every level (P). Inference keeps one entry
 * per distinct field, so this bounds its memory and the size of the reply whatever the sample.
 */
export const MAX_SCHEMA_FIELDS = 10_000;

/** Fields created so far while inferring one sample. */
interface Budget {
  fields: number;
}

/**
 * Fold one value into the shape seen so far under the same key (or as an element of the same
 * array): null yields to anything; objects gain the fields they lack (first appearance keeps its
 * place); arrays fold their elements; a date-time and a plain string make a string; any other
 * disagreement is `mixed` (a string). Containers of the accumulator are updated in place, so the
 * work is linear in the size of the sample whatever the number of distinct keys.
 */
function absorb(acc: Shape | null, value: unknown, depth: number, budget: Budget): Shape {
  if (value === null || value === undefined) return acc ?? NULL;
  if (typeof value !== 'object') return mergeLeaf(acc, leafShape(value));
  if (depth > MAX_SAMPLE_DEPTH) throw tooDeep();
  if (Array.isArray(value)) {
    const target: Shape = acc === null || acc.kind === 'null' ? { kind: 'array', of: null } : acc;
    if (target.kind !== 'array') return mixedWith(value, depth);
    for (const element of value) {
      if (element === null || element === undefined) continue;
      target.of = absorb(target.of, element, depth + 1, budget);
    }
    return target;
  }
  const target: Shape = acc === null || acc.kind === 'null' ? { kind: 'object', fields: new Map() } : acc;
  if (target.kind !== 'object') return mixedWith(value, depth);
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const existing = target.fields.get(key);
    if (existing === undefined && ++budget.fields > MAX_SCHEMA_FIELDS) throw tooManyFields('fields');
    target.fields.set(key, absorb(existing ?? null, record[key], depth + 1, budget));
  }
  return target;
}

function leafShape(value: unknown): Shape {
  switch (typeof value) {
    case 'string':
      return isDateTime(value) ? { kind: 'date_time' } : { kind: 'string' };
    case 'number':
    case 'bigint':
      return { kind: 'number' };
    case 'boolean':
      return { kind: 'boolean' };
    default:
      return { kind: 'string' };
  }
}

function mergeLeaf(acc: Shape | null, leaf: Shape): Shape {
  if (acc === null || acc.kind === 'null') return leaf;
  if (acc.kind === leaf.kind) return acc;
  if (TEXTUAL.has(acc.kind) && TEXTUAL.has(leaf.kind)) return { kind: 'string' };
  return { kind: 'mixed' };
}

const TEXTUAL: ReadonlySet<Shape['kind']> = new Set(['string', 'date_time']);

/** A container under a key that already holds something else: a string field, still depth-checked. */
function mixedWith(value: object, depth: number): Shape {
  assertDepth(value, depth);
  return { kind: 'mixed' };
}

/** Nesting beyond MAX_SAMPLE_DEPTH is refused even where it does not shape the schema. */
function assertDepth(value: unknown, depth: number): void {
  if (value === null || typeof value !== 'object') return;
  if (depth > MAX_SAMPLE_DEPTH) throw tooDeep();
  for (const inner of Array.isArray(value) ? value : Object.values(value)) assertDepth(inner, depth + 1);
}

// ---------------------------------------------------------------------------------------------
// Fields: the observed output form of each shape (contract 04 §3.3, §3.4).

function fieldFor(name: string, shape: Shape): SchemaField {
  const label = labelFor(name);
  switch (shape.kind) {
    case 'null':
    case 'string':
    case 'mixed':
      return { control_type: 'text', label, type: 'string', name };
    case 'date_time':
      return {
        control_type: 'text',
        label,
        render_input: 'date_time_conversion',
        parse_output: 'date_time_conversion',
        type: 'date_time',
        name,
      };
    case 'number':
      return { control_type: 'number', label, parse_output: 'float_conversion', type: 'number', name };
    case 'boolean':
      return {
        control_type: 'checkbox',
        label,
        render_input: 'boolean_conversion',
        parse_output: 'boolean_conversion',
        toggle_hint: 'Select from option list',
        toggle_field: { control_type: 'text', label, toggle_hint: 'Use custom value', type: 'boolean', name },
        type: 'boolean',
        name,
      };
    case 'object':
      return { label, type: 'object', name, properties: fieldsOf(shape.fields) };
    case 'array':
      return arrayField(name, label, shape.of);
  }
}

function arrayField(name: string, label: string, of: Shape | null): SchemaField {
  if (of === null) return { label, type: 'array', of: 'string', name };
  switch (of.kind) {
    case 'object':
      return { label, type: 'array', of: 'object', name, properties: fieldsOf(of.fields) };
    case 'array':
      // Workato schemas have no notation for the elements of an inner array (P).
      return { label, type: 'array', of: 'array', name };
    case 'number':
    case 'boolean':
    case 'date_time':
      return { control_type: 'text', label, type: 'array', of: of.kind, name };
    default:
      return { control_type: 'text', label, type: 'array', of: 'string', name };
  }
}

function fieldsOf(fields: ReadonlyMap<string, Shape>): SchemaField[] {
  return [...fields].map(([name, shape]) => fieldFor(name, shape));
}

// ---------------------------------------------------------------------------------------------
// JSON samples.

/**
 * The document a JSON sample holds. The contract's form is a string; a sample that is already
 * an object or array (the SDK gem sends `{}` when no file is given) is used as it is.
 */
export function parseJsonSample(sample: unknown): unknown {
  if (typeof sample !== 'string') return sample;
  // A UTF-8 byte order mark (files saved by some Windows editors) is not part of the document.
  const text = sample.charCodeAt(0) === 0xfeff ? sample.slice(1) : sample;
  try {
    return JSON.parse(text);
  } catch (error) {
    if (error instanceof RangeError) throw tooDeep();
    const detail = error instanceof Error ? error.message : 'is not valid JSON';
    throw new AppError('sample_not_json', { errors: { sample: [truncate(detail, 300)] } });
  }
}

/**
 * The schema of a JSON document: the fields of an object, or the union of the fields of the
 * objects of a top-level array (not wrapped). Nulls in a top-level array are skipped; any other
 * primitive at the top is refused.
 */
export function inferJsonSchema(document: unknown): SchemaField[] {
  const shape = absorb(null, document, 1, { fields: 0 });
  if (shape.kind === 'object') return fieldsOf(shape.fields);
  if (shape.kind === 'array') {
    if (shape.of === null) return [];
    if (shape.of.kind === 'object') return fieldsOf(shape.of.fields);
    throw new AppError('sample_not_object', { errors: { sample: ['must be a JSON object, or an array of objects'] } });
  }
  throw new AppError('sample_not_object', { errors: { sample: ['must be a JSON object, or an array of objects'] } });
}

// ---------------------------------------------------------------------------------------------
// CSV samples.

/** The separators the vendor names (contract 04 §3.2). */
export const COLUMN_SEPARATORS = { comma: ',', semicolon: ';', space: ' ', tab: '\t', colon: ':', pipe: '|' } as const;

const MAX_CUSTOM_SEPARATOR_LENGTH = 16;

/**
 * The column separator: `col_sep` by name (or, leniently, as a literal single character);
 * otherwise `custom_col_sep` as a literal; otherwise a comma. null and '' count as absent.
 */
export function resolveColumnSeparator(input: {
  col_sep?: string | null | undefined;
  custom_col_sep?: string | null | undefined;
}): string {
  const named = input.col_sep;
  if (named !== undefined && named !== null && named !== '') {
    const key = named.trim().toLowerCase();
    if (Object.hasOwn(COLUMN_SEPARATORS, key)) return COLUMN_SEPARATORS[key as keyof typeof COLUMN_SEPARATORS];
    if (Array.from(named).length === 1 && usableSeparator(named)) return named;
    throw invalid({ col_sep: [`must be one of ${Object.keys(COLUMN_SEPARATORS).join(', ')}, or a single character`] });
  }
  const custom = input.custom_col_sep;
  if (custom !== undefined && custom !== null && custom !== '') {
    if (custom.length > MAX_CUSTOM_SEPARATOR_LENGTH)
      throw invalid({ custom_col_sep: [`is too long (maximum is ${MAX_CUSTOM_SEPARATOR_LENGTH} characters)`] });
    if (!usableSeparator(custom))
      throw invalid({ custom_col_sep: ['must not contain a double quote or a line break'] });
    return custom;
  }
  return COLUMN_SEPARATORS.comma;
}

function usableSeparator(separator: string): boolean {
  return !/["\r\n]/.test(separator);
}

/**
 * The schema of a CSV sample: one string field per header cell (CSV cells are untyped text).
 * The header is the first non-empty line; quoting follows RFC 4180 (a malformed quote is an
 * error), rows may have fewer or more cells than the header (only the header matters).
 */
export function inferCsvSchema(sample: string, separator: string): SchemaField[] {
  let header: string[] | undefined;
  try {
    csvParse().parse(sample, {
      delimiter: separator,
      bom: true,
      skip_empty_lines: true,
      relax_column_count: true,
      // Every row is parsed (a malformed quote anywhere is an error) but only the header is kept.
      on_record: (record: string[]) => {
        header ??= record;
        return null;
      },
    });
  } catch (error) {
    const detail = error instanceof Error ? error.message : 'is not valid CSV';
    throw new AppError('sample_not_csv', { errors: { sample: [truncate(detail, 300)] } });
  }
  // A first line of blanks only (' ', ',,') names no column: there is no header to read.
  if (header === undefined || header.every((cell) => cell.trim() === ''))
    throw new AppError('sample_not_csv', { errors: { sample: ['has no header row'] } });
  if (header.length > MAX_SCHEMA_FIELDS) throw tooManyFields('columns');
  return csvColumnNames(header).map((name) => ({ control_type: 'text', label: labelFor(name), type: 'string', name }));
}

/**
 * Column names from header cells: trimmed; an empty cell becomes `column_<n>` (its position,
 * from 1); a name seen before gets `_2`, `_3`... so that every field name is distinct (P).
 */
export function csvColumnNames(cells: readonly string[]): string[] {
  const base = cells.map((cell, index) => {
    const trimmed = cell.trim();
    return trimmed === '' ? `column_${index + 1}` : trimmed;
  });
  const taken = new Set(base);
  const used = new Set<string>();
  // The next suffix to try for each repeated name, so that `a,a,a,...` stays linear.
  const nextSuffix = new Map<string, number>();
  return base.map((name) => {
    if (!used.has(name)) {
      used.add(name);
      return name;
    }
    let n = nextSuffix.get(name) ?? 2;
    while (taken.has(`${name}_${n}`) || used.has(`${name}_${n}`)) n += 1;
    nextSuffix.set(name, n + 1);
    const unique = `${name}_${n}`;
    used.add(unique);
    return unique;
  });
}

// ---------------------------------------------------------------------------------------------
// Labels and date-times.

/**
 * The label the vendor's generator gives a name (contract 04 §3.5): words split at `_`, `-`,
 * spaces, lower→upper camel-case and letter→digit boundaries; lower-cased; the first word
 * capitalised; whole words `id` and `url` in capitals. A name without words keeps its text.
 */
export function labelFor(name: string): string {
  const words = name
    .replace(/([\p{Ll}\p{Nd}])(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2')
    .replace(/(\p{L})(\p{Nd})/gu, '$1 $2')
    .split(/[\s_-]+/u)
    .filter((word) => word !== '')
    .map((word) => word.toLowerCase());
  if (words.length === 0) return name.trim();
  return words
    .map((word) => (word === 'id' || word === 'url' ? word.toUpperCase() : word))
    .map((word, index) => (index === 0 ? capitalise(word) : word))
    .join(' ');
}

function capitalise(word: string): string {
  const [first = '', ...rest] = Array.from(word);
  return first.toUpperCase() + rest.join('');
}

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:[Zz]|[+-](\d{2}):?(\d{2}))?$/;

/**
 * A full ISO 8601 date and time of day: `2024-05-01T10:00:00Z`, with or without seconds,
 * fraction or offset, and a real calendar date and time (`2024-02-30T10:00:00Z` is text).
 * A date alone stays a string (contract 04 §3.4).
 */
export function isDateTime(value: string): boolean {
  const m = DATE_TIME.exec(value);
  if (!m) return false;
  const [year, month, day, hour, minute] = [m[1], m[2], m[3], m[4], m[5]].map(Number) as [
    number,
    number,
    number,
    number,
    number,
  ];
  const second = m[6] === undefined ? 0 : Number(m[6]);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return false;
  if (hour > 23 || minute > 59 || second > 60) return false;
  if (m[7] !== undefined && (Number(m[7]) > 23 || Number(m[8]) > 59)) return false;
  return true;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

function tooDeep(): AppError {
  return new AppError('sample_too_deep', {
    errors: { sample: [`nests objects and arrays deeper than ${MAX_SAMPLE_DEPTH} levels`] },
  });
}

function tooManyFields(what: 'fields' | 'columns'): AppError {
  return new AppError('sample_too_many_fields', { errors: { sample: [`has more than ${MAX_SCHEMA_FIELDS} ${what}`] } });
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
