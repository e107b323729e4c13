// What a client sent to the lookup tables API, read and checked: fields, names, columns, values; each problem named by its field.
import { AppError, invalid, type FieldErrors } from '../../errors.ts';
import { CELL_COLUMNS, type CellColumn, type CellFilter, type Cells } from './lookup_tables.store.ts';

// ---- input rules ----

/** Position of a column by its label, or by its positional key col1..col10 (labels win). */
function columnOf(labels: readonly string[], key: string): CellColumn | undefined {
  const index = labels.indexOf(key);
  if (index >= 0) return CELL_COLUMNS[index];
  const positional = /^col([1-9]|10)$/.exec(key);
  if (positional && Number(positional[1]) <= labels.length) return CELL_COLUMNS[Number(positional[1]) - 1];
  return undefined;
}

function describeColumns(labels: readonly string[]): string {
  return labels.join(', ');
}

const FILTER_KEY = /^by\[(.*)\]$/s;

/** `by[<column>]=value` query parameters as cell filters; other parameters are not filters. */
export function parseFilters(labels: readonly string[], query: Record<string, unknown>): CellFilter[] {
  const errors: FieldErrors = {};
  const filters: CellFilter[] = [];
  const seen = new Map<CellColumn, string>();
  for (const [key, raw] of Object.entries(query)) {
    if (key === 'by') {
      errors.by = ['name the column in brackets: by[<column>]=<value>'];
      continue;
    }
    const match = FILTER_KEY.exec(key);
    if (!match) continue;
    const label = match[1] as string;
    const column = columnOf(labels, label);
    if (!column) {
      errors[key] = [`is not a column of this table (columns: ${describeColumns(labels)})`];
      continue;
    }
    if (typeof raw !== 'string') {
      errors[key] = ['is given more than once'];
      continue;
    }
    const earlier = seen.get(column);
    if (earlier !== undefined) {
      errors[key] = [`names the same column as by[${earlier}]`];
      continue;
    }
    seen.set(column, label);
    filters.push({ column, value: raw === '' ? null : raw });
  }
  if (Object.keys(errors).length > 0) {
    const unknown = Object.entries(errors)
      .filter(([, messages]) => messages[0]?.startsWith('is not a column'))
      .map(([key]) => key);
    throw unknownColumns(errors, unknown);
  }
  return filters;
}

/**
 * Row data as cells: keys are column labels (or col1..col10); values are strings, numbers and
 * booleans are stored as their string form, null and '' empty the cell, objects and arrays are refused.
 */
export function parseCells(labels: readonly string[], data: unknown): Cells {
  if (typeof data !== 'object' || data === null || Array.isArray(data))
    throw invalid({ data: ['must be an object of column values'] });
  const errors: FieldErrors = {};
  const cells: Cells = {};
  const seen = new Map<CellColumn, string>();
  const unknown: string[] = [];
  for (const [key, value] of Object.entries(data)) {
    const field = `data.${key}`;
    const column = columnOf(labels, key);
    if (!column) {
      unknown.push(key);
      errors[field] = [`is not a column of this table (columns: ${describeColumns(labels)})`];
      continue;
    }
    const earlier = seen.get(column);
    if (earlier !== undefined) {
      errors[field] = [`names the same column as ${earlier}`];
      continue;
    }
    seen.set(column, key);
    const cell = toCell(value);
    if (typeof cell === 'object' && cell !== null) errors[field] = [cell.error];
    else cells[column] = cell;
  }
  if (Object.keys(errors).length > 0) throw unknownColumns(errors, unknown);
  return cells;
}

/** A 400 for refused fields; named after the unknown columns when there are any. */
function unknownColumns(errors: FieldErrors, unknown: readonly string[]): AppError {
  if (unknown.length === 1) return new AppError('unknown_column', { params: { column: unknown[0] as string }, errors });
  if (unknown.length > 1) return new AppError('unknown_columns', { params: { columns: unknown.join(', ') }, errors });
  return invalid(errors);
}

function toCell(value: unknown): string | null | { error: string } {
  if (value === null) return null;
  let text: string;
  if (typeof value === 'string') text = value;
  else if (typeof value === 'boolean') text = String(value);
  else if (typeof value === 'number') {
    // A whole number beyond 2^53 has already lost digits in JSON parsing (and 1e400 became
    // Infinity): refuse rather than store a different number.
    if (!Number.isFinite(value) || (Number.isInteger(value) && !Number.isSafeInteger(value)))
      return { error: 'is a number too large to keep exactly; send it as a string' };
    text = String(value);
  } else
    return {
      error: 'must be a string (numbers and booleans are accepted and stored as text; objects and arrays are not)',
    };
  if (Buffer.byteLength(text, 'utf8') > MAX_CELL_BYTES)
    return { error: `is too long (maximum is ${MAX_CELL_BYTES} bytes)` };
  return text === '' ? null : text;
}

export function checkTableName(name: unknown, errors: FieldErrors): string | undefined {
  if (name === undefined || name === null) {
    errors.name = ['is required'];
    return undefined;
  }
  if (typeof name !== 'string') {
    errors.name = ['must be a string'];
    return undefined;
  }
  const trimmed = name.trim();
  if (trimmed === '') errors.name = ["can't be blank"];
  else if (trimmed.length > MAX_NAME_LENGTH) errors.name = [`is too long (maximum is ${MAX_NAME_LENGTH} characters)`];
  return trimmed;
}

/** 1-10 columns `{label}` (extra keys ignored); labels unique (ignoring case), position n is col<n>. */
export function checkSchema(schema: unknown, errors: FieldErrors): string[] | undefined {
  if (schema === undefined || schema === null) {
    errors.schema = ['is required: an array of columns such as [{"label": "code"}]'];
    return undefined;
  }
  let columns = schema;
  if (typeof schema === 'string') {
    try {
      columns = JSON.parse(schema);
    } catch {
      errors.schema = ['must be an array of columns, or that array as a JSON string'];
      return undefined;
    }
  }
  if (!Array.isArray(columns)) {
    errors.schema = ['must be an array of columns such as [{"label": "code"}]'];
    return undefined;
  }
  if (columns.length === 0) {
    errors.schema = ['must have at least one column'];
    return undefined;
  }
  if (columns.length > MAX_COLUMNS) {
    errors.schema = [`has ${columns.length} columns; a lookup table has at most ${MAX_COLUMNS}`];
    return undefined;
  }
  const labels: string[] = [];
  const byKey = new Map<string, number>();
  columns.forEach((column: unknown, i) => {
    const field = `schema.${i}.label`;
    const label =
      typeof column === 'object' && column !== null && !Array.isArray(column)
        ? (column as Record<string, unknown>).label
        : undefined;
    if (typeof label !== 'string') {
      errors[field] = [label === undefined ? 'is required' : 'must be a string'];
      return;
    }
    const trimmed = label.trim();
    if (trimmed === '') errors[field] = ["can't be blank"];
    else if (trimmed.length > MAX_LABEL_LENGTH)
      errors[field] = [`is too long (maximum is ${MAX_LABEL_LENGTH} characters)`];
    else if (trimmed === '__proto__') errors[field] = ['is reserved'];
    else if (/^col([1-9]|10)$/.test(trimmed) && trimmed !== `col${i + 1}`)
      errors[field] = [`would be mistaken for the positional key of column ${trimmed.slice(3)}`];
    else {
      const earlier = byKey.get(trimmed.toLowerCase());
      if (earlier !== undefined) errors[field] = [`repeats the label of column ${earlier + 1} ("${labels[earlier]}")`];
      else byKey.set(trimmed.toLowerCase(), i);
    }
    labels[i] = trimmed;
  });
  return labels;
}

/** Columns per table (contract 11 §1.5). */
export const MAX_COLUMNS = CELL_COLUMNS.length;
/** Size of one cell in UTF-8 bytes (contract 11 §1.5: 10 KB). Ten of them stay under the 128 KB row limit. */
export const MAX_CELL_BYTES = 10 * 1024;
export const MAX_NAME_LENGTH = 255;
export const MAX_LABEL_LENGTH = 255;
