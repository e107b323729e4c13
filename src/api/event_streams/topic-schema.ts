// Topic schemas (contract 13 §4, §7): a list of fields in the Workato schema format, checked when
// a topic is defined and compiled (Ajv) into the check every published message goes through.
// Required fields (`optional: false`) must be present and non-null, scalar types must match,
// nested objects and arrays are checked recursively, and fields the schema does not name are
// dropped before the message is stored.
import type { ErrorObject, ValidateFunction } from 'ajv';
import { addFieldError, type FieldErrors } from '../../errors.ts';
import { ajvWithFormats } from '../../ajv.ts';

const SCALAR_TYPES = ['string', 'integer', 'number', 'boolean', 'date_time', 'timestamp', 'date'] as const;
const TYPES: readonly string[] = [...SCALAR_TYPES, 'object', 'array'];

/** Limits of a schema definition: enough for real event payloads, bounded for the validator. */
export const SCHEMA_LIMITS = { fields: 1000, depth: 10, nameLength: 255 };

export interface SchemaField {
  name: string;
  type?: string;
  optional?: boolean;
  of?: string;
  properties?: SchemaField[];
  [key: string]: unknown;
}

/** A schema as sent, checked; the field list is kept verbatim (labels, hints and control types round-trip). */
export function checkTopicSchema(input: unknown): { fields: SchemaField[] } | { errors: FieldErrors } {
  const problems: string[] = [];
  let count = 0;
  const walk = (fields: unknown, path: string, depth: number) => {
    if (!Array.isArray(fields)) {
      problems.push(`${path || 'schema'} must be a list of fields`);
      return;
    }
    if (depth > SCHEMA_LIMITS.depth) {
      problems.push(`${path} is nested deeper than ${SCHEMA_LIMITS.depth} levels`);
      return;
    }
    const names = new Set<string>();
    fields.forEach((field: unknown, index) => {
      count += 1;
      const at = `${path ? `${path}.` : ''}${index}`;
      if (typeof field !== 'object' || field === null || Array.isArray(field)) {
        problems.push(`field ${at} must be an object`);
        return;
      }
      const f = field as Record<string, unknown>;
      if (typeof f.name !== 'string' || f.name.trim() === '' || f.name.length > SCHEMA_LIMITS.nameLength) {
        problems.push(`field ${at} needs a name (1 to ${SCHEMA_LIMITS.nameLength} characters)`);
        return;
      }
      const label = `field ${path ? `${path}.` : ''}${f.name}`;
      if (names.has(f.name)) problems.push(`${label} is defined twice`);
      names.add(f.name);
      if (f.type !== undefined && (typeof f.type !== 'string' || !TYPES.includes(f.type)))
        problems.push(`${label} has an unknown type (use one of ${TYPES.join(', ')})`);
      if (f.optional !== undefined && typeof f.optional !== 'boolean')
        problems.push(`${label}: optional must be true or false`);
      if (
        f.type === 'array' &&
        f.of !== undefined &&
        (typeof f.of !== 'string' || !TYPES.includes(f.of) || f.of === 'array')
      )
        problems.push(`${label}: of must be object or a scalar type`);
      if (f.properties !== undefined) {
        if (f.type !== 'object' && !(f.type === 'array' && f.of === 'object'))
          problems.push(`${label}: properties belong to object fields and arrays of objects`);
        else walk(f.properties, `${path ? `${path}.` : ''}${f.name}`, depth + 1);
      }
    });
  };
  if (Array.isArray(input) && input.length === 0)
    return { errors: { schema: ['must list at least one field (send null for a topic without a schema)'] } };
  walk(input, '', 1);
  if (count > SCHEMA_LIMITS.fields) problems.push(`has more than ${SCHEMA_LIMITS.fields} fields`);
  if (problems.length > 0) return { errors: { schema: problems.slice(0, 20) } };
  return { fields: input as SchemaField[] };
}

export type MessageCheck = (payload: Record<string, unknown>) => { ok: true } | { ok: false; errors: FieldErrors };

// Made at the first topic schema compiled: an idle server compiles none.
let ajv: ReturnType<typeof ajvWithFormats> | undefined;

/** The check of a topic's messages; it drops fields the schema does not name (in place). */
export function compileMessageCheck(fields: readonly SchemaField[] | null): MessageCheck {
  if (fields === null) return () => ({ ok: true });
  const schema = objectSchema(fields, false);
  ajv ??= ajvWithFormats(
    { allErrors: true, removeAdditional: true, coerceTypes: false, useDefaults: false, strict: false },
    ['iso-date-time', 'date'],
  );
  const validate: ValidateFunction = ajv.compile(schema);
  // Compiled functions stay usable; the instance's cache must not grow with every schema change.
  ajv.removeSchema(schema);
  return (payload) => (validate(payload) ? { ok: true } : { ok: false, errors: messageErrors(validate.errors ?? []) });
}

/** "amount must be a number, lines.0.sku is required": the one-line form of a batch item's errors. */
export function describeErrors(errors: FieldErrors): string {
  return Object.entries(errors)
    .flatMap(([field, list]) => list.map((m) => `${field} ${m}`))
    .join(', ');
}

function objectSchema(fields: readonly SchemaField[], nullable: boolean): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const field of fields) {
    properties[field.name] = fieldSchema(field);
    if (field.optional === false) required.push(field.name);
  }
  return { type: nullable ? ['object', 'null'] : 'object', properties, required, additionalProperties: false };
}

function fieldSchema(field: SchemaField): Record<string, unknown> {
  const nullable = field.optional !== false;
  const type = field.type ?? 'string';
  if (type === 'object')
    return field.properties ? objectSchema(field.properties, nullable) : { type: withNull('object', nullable) };
  if (type === 'array') {
    const items =
      field.of === 'object'
        ? field.properties
          ? objectSchema(field.properties, false)
          : { type: 'object' }
        : field.of
          ? scalarSchema(field.of, false)
          : {};
    return { type: withNull('array', nullable), items };
  }
  return scalarSchema(type, nullable);
}

function scalarSchema(type: string, nullable: boolean): Record<string, unknown> {
  switch (type) {
    case 'integer':
      return { type: withNull('integer', nullable) };
    case 'number':
      return { type: withNull('number', nullable) };
    case 'boolean':
      return { type: withNull('boolean', nullable) };
    case 'date_time':
    case 'timestamp':
      return { type: withNull('string', nullable), format: 'iso-date-time' };
    case 'date':
      return { type: withNull('string', nullable), format: 'date' };
    default:
      return { type: withNull('string', nullable) };
  }
}

function withNull(type: string, nullable: boolean): string | string[] {
  return nullable ? [type, 'null'] : type;
}

function messageErrors(errors: readonly ErrorObject[]): FieldErrors {
  const out: FieldErrors = {};
  const add = (field: string, message: string) => addFieldError(out, field, message);
  for (const e of errors) {
    const base = e.instancePath
      .split('/')
      .filter((p) => p !== '')
      .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
      .join('.');
    const params = e.params as Record<string, unknown>;
    if (e.keyword === 'required')
      add(base ? `${base}.${String(params.missingProperty)}` : String(params.missingProperty), 'is required');
    else if (e.keyword === 'type')
      add(
        base || 'payload',
        `must be ${typeWords(
          [params.type]
            .flat()
            .map(String)
            .filter((t) => t !== 'null'),
        )}`,
      );
    else if (e.keyword === 'format')
      add(
        base || 'payload',
        params.format === 'date' ? 'must be a date (YYYY-MM-DD)' : 'must be an ISO 8601 date-time',
      );
    else add(base || 'payload', e.message ?? 'is invalid');
  }
  return out;
}

function typeWords(types: string[]): string {
  return (
    types
      .map((t) =>
        t === 'integer' ? 'an integer' : t === 'object' ? 'an object' : t === 'array' ? 'an array' : `a ${t}`,
      )
      .join(' or ') || 'null'
  );
}
