// The fields of a code step's input and output (Python and Ruby steps): `code_input.schema` types the
// input (a number field given as text arrives as a number, as the vendor passes it), and the output
// schema (`code_output_schema_json`) shapes what the code returned.
import { StepError } from './types.ts';

export interface Field {
  name: string;
  type?: string;
  properties?: Field[];
  of?: string;
}

export function parseSchema(text: unknown, what: string): Field[] | null {
  if (text === null || text === undefined || text === '') return null;
  let fields: unknown = text;
  if (typeof text === 'string') {
    try {
      fields = JSON.parse(text);
    } catch {
      throw new StepError('Bad request', `${what} must be a JSON list of fields`);
    }
  }
  if (!Array.isArray(fields)) throw new StepError('Bad request', `${what} must be a JSON list of fields`);
  return fields.filter((f): f is Field => typeof f === 'object' && f !== null && typeof (f as Field).name === 'string');
}

/** An input value as its schema field's type asks: numbers and booleans given as text are converted. */
function typed(value: unknown, field: Field): unknown {
  if (typeof value === 'string') {
    const text = value.trim();
    if ((field.type === 'number' || field.type === 'integer') && text !== '' && Number.isFinite(Number(text)))
      return Number(text);
    if (field.type === 'boolean' && /^(true|false)$/i.test(text)) return text.toLowerCase() === 'true';
    return value;
  }
  if (field.type === 'object' && field.properties && isPlainObject(value)) return typedObject(value, field.properties);
  if (field.type === 'array' && field.properties && Array.isArray(value))
    return value.map((v) => (isPlainObject(v) ? typedObject(v, field.properties!) : v));
  return value;
}

export function typedObject(value: Record<string, unknown>, fields: Field[]): Record<string, unknown> {
  const out = { ...value };
  for (const field of fields) if (field.name in out) out[field.name] = typed(out[field.name], field);
  return out;
}

/** The output as the output schema declares it: its fields (null when main left one out), nested objects and lists of objects shaped alike. */
export function shaped(value: Record<string, unknown>, fields: Field[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    const v = value[field.name];
    if (field.type === 'object' && field.properties && isPlainObject(v)) out[field.name] = shaped(v, field.properties);
    else if (field.type === 'array' && field.properties && Array.isArray(v))
      out[field.name] = v.map((item) => (isPlainObject(item) ? shaped(item, field.properties!) : item));
    else out[field.name] = v === undefined ? null : v;
  }
  return out;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
