// What a client sent to the data tables API, read and checked: fields, names, columns, values; each problem named by its field.
import { randomUUID } from 'node:crypto';
import { invalid, type FieldErrors } from '../../errors.ts';
import {
  COLUMN_TYPES,
  MAX_COLUMNS,
  MAX_NAME_LENGTH,
  SYSTEM_FIELDS,
  coerce,
  columnByKey,
  fieldIdOf,
  typeOf,
  type Column,
  type Stored,
} from './columns.ts';

export function checkName(raw: unknown, errors: FieldErrors, field = 'name'): string | undefined {
  if (typeof raw !== 'string' || raw.trim() === '') {
    errors[field] = ['is required: the name of the table'];
    return undefined;
  }
  const name = raw.trim();
  if (name.length > MAX_NAME_LENGTH) errors[field] = [`is too long (at most ${MAX_NAME_LENGTH} characters)`];
  return name;
}

/**
 * The columns of a definition. `existing`: the table's columns before an update; a column given
 * with the field_id of one of them keeps its values (it may be renamed, not retyped).
 */
export function checkSchema(
  raw: unknown,
  errors: FieldErrors,
  existing: readonly Column[] | null,
): Column[] | undefined {
  if (!Array.isArray(raw) || raw.length === 0) {
    errors.schema = ['is required: a list of columns, e.g. [{"name": "email", "type": "string"}]'];
    return undefined;
  }
  if (raw.length > MAX_COLUMNS) {
    errors.schema = [`has ${raw.length} columns; at most ${MAX_COLUMNS}`];
    return undefined;
  }
  const out: Column[] = [];
  const names = new Set<string>();
  const ids = new Set<string>();
  const system = new Set(SYSTEM_FIELDS.map((f) => f.name.toLowerCase()));
  raw.forEach((item: unknown, i) => {
    const at = `schema.${i}`;
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      errors[at] = ['must be an object {name, type, optional, default_value, hint}'];
      return;
    }
    const c = item as Record<string, unknown>;
    const problems: string[] = [];
    const name = typeof c.name === 'string' ? c.name.trim() : '';
    if (name === '') errors[`${at}.name`] = ['is required'];
    else if (name.length > MAX_NAME_LENGTH)
      errors[`${at}.name`] = [`is too long (at most ${MAX_NAME_LENGTH} characters)`];
    else if (system.has(name.toLowerCase()))
      errors[`${at}.name`] = [`is the name of a system column (${SYSTEM_FIELDS.map((f) => f.name).join(', ')})`];
    else if (names.has(name.toLowerCase()))
      errors[`${at}.name`] = ['is given twice (names are compared ignoring case)'];
    else if (name === '__proto__') errors[`${at}.name`] = ['is not allowed'];
    names.add(name.toLowerCase());
    const type = typeOf(c.type);
    if (!type)
      errors[`${at}.type`] = [`must be one of ${COLUMN_TYPES.join(', ')} (got ${JSON.stringify(c.type ?? null)})`];
    let fieldId: string | null = null;
    if (c.field_id !== undefined && c.field_id !== null && c.field_id !== '') {
      fieldId = typeof c.field_id === 'string' ? fieldIdOf(c.field_id) : null;
      if (!fieldId || SYSTEM_FIELDS.some((f) => f.field_id === fieldId))
        errors[`${at}.field_id`] = ['must be a UUID, and not one of a system column'];
      else if (ids.has(fieldId)) errors[`${at}.field_id`] = ['is given twice'];
      else ids.add(fieldId);
    }
    const before = fieldId && existing ? existing.find((e) => e.field_id === fieldId) : undefined;
    if (before && type && before.type !== type)
      errors[`${at}.type`] = [`cannot change from ${before.type} to ${type}: add a new column instead`];
    if (c.optional !== undefined && typeof c.optional !== 'boolean')
      errors[`${at}.optional`] = ['must be true or false'];
    let defaultValue: Stored = null;
    if (type && c.default_value !== undefined) {
      const coerced = coerce(type, c.default_value);
      if ('problem' in coerced) errors[`${at}.default_value`] = [coerced.problem];
      else defaultValue = coerced.value;
    }
    if (c.hint !== undefined && typeof c.hint !== 'string') problems.push('hint must be text');
    if (problems.length > 0) errors[at] = problems;
    if (name && type) {
      out.push({
        field_id: fieldId ?? randomUUID(),
        name,
        type,
        optional: c.optional === undefined ? true : c.optional === true,
        default_value: defaultValue,
        hint: typeof c.hint === 'string' ? c.hint.slice(0, 1000) : '',
      });
    }
  });
  return out;
}

/** The columns of a definition (a package's table file), field_ids kept; a 400 naming the column at fault. */
export function columnsFromDefinition(raw: unknown): Column[] {
  const errors: FieldErrors = {};
  const columns = checkSchema(raw, errors, null);
  if (Object.keys(errors).length > 0 || !columns) throw invalid(errors);
  return columns;
}

// ---- records ----

/** Column values given by name or UUID, checked against the columns' types; errors name the column. */
export function parseValues(columns: readonly Column[], data: unknown, field: string): Record<string, Stored> {
  if (typeof data !== 'object' || data === null || Array.isArray(data))
    throw invalid({ [field]: ['must be an object of column values'] });
  const out: Record<string, Stored> = {};
  const errors: FieldErrors = {};
  for (const [key, value] of Object.entries(data)) {
    const column = columnByKey(columns, key);
    if (!column) {
      if (SYSTEM_FIELDS.some((f) => f.field_id === fieldIdOf(key) || f.name.toLowerCase() === key.trim().toLowerCase()))
        continue;
      errors[`${field}.${key}`] = [
        `is not a column of this table (columns: ${columns
          .map((c) => c.name)
          .join(', ')
          .slice(0, 500)})`,
      ];
      continue;
    }
    if (column.field_id in out) {
      errors[`${field}.${key}`] = [`names the column ${column.name} a second time`];
      continue;
    }
    const coerced = coerce(column.type, value);
    if ('problem' in coerced) errors[`${field}.${column.name}`] = [coerced.problem];
    else out[column.field_id] = coerced.value;
  }
  if (Object.keys(errors).length > 0) throw invalid(errors);
  return out;
}

/** The values kept: only the table's columns (a dropped column's values go at the next write), no nulls. */
export function compact(columns: readonly Column[], values: Record<string, Stored>): Record<string, Stored> {
  const out: Record<string, Stored> = {};
  for (const column of columns) {
    const v = values[column.field_id];
    if (v !== null && v !== undefined) out[column.field_id] = v;
  }
  return out;
}

export function requireColumns(columns: readonly Column[], values: Record<string, Stored>, field: string): void {
  const missing = columns.filter(
    (c) => !c.optional && (values[c.field_id] === null || values[c.field_id] === undefined),
  );
  if (missing.length > 0)
    throw invalid(Object.fromEntries(missing.map((c) => [`${field}.${c.name}`, ['is required']])));
}
