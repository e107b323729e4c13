// Type coercion of a step's evaluated input by its extended_input_schema (20 §5.6, P): "200" for
// an integer field becomes 200, "false" for a boolean field false. Fields the schema does not
// declare, and values that do not read as the declared type, are left as they are.
import { RFloat, hashGet, hashSet, isHash, isTrue, type Hash, type Value } from '../recipe/formula/values.ts';

export interface FieldDef {
  name: string;
  type: string;
  properties?: FieldDef[];
  of?: string;
}

/** The field definitions of a schema (an array, or its JSON text); anything else is no schema. */
export function fieldDefs(raw: unknown, depth = 0): FieldDef[] {
  let parsed = raw;
  if (typeof raw === 'string') {
    try {
      parsed = JSON.parse(raw);
    } catch {
      return [];
    }
  }
  if (!Array.isArray(parsed) || depth > 20) return [];
  return parsed
    .filter(
      (f): f is Record<string, unknown> =>
        typeof f === 'object' && f !== null && typeof (f as Record<string, unknown>).name === 'string',
    )
    .map((f) => ({
      name: f.name as string,
      type: typeof f.type === 'string' ? f.type : 'string',
      ...(Array.isArray(f.properties) ? { properties: fieldDefs(f.properties, depth + 1) } : {}),
      ...(typeof f.of === 'string' ? { of: f.of } : {}),
    }));
}

const INTEGER = /^\s*-?\d{1,15}\s*$/;
const NUMBER = /^\s*-?\d+(\.\d+)?([eE][-+]?\d+)?\s*$/;
const BOOLEAN_WORDS = new Set(['true', 'false', 't', 'f', 'yes', 'no', 'y', 'n', '1', '0']);

function coerceValue(value: Value, def: FieldDef): Value {
  if (typeof value === 'string') {
    if (def.type === 'integer' && INTEGER.test(value)) return Number(value);
    if (def.type === 'number' && NUMBER.test(value))
      return value.includes('.') || /e/i.test(value) ? new RFloat(Number(value)) : Number(value);
    if (def.type === 'boolean' && BOOLEAN_WORDS.has(value.trim().toLowerCase())) return isTrue(value);
    return value;
  }
  if (def.type === 'object' && def.properties && isHash(value)) return coerceHash(value, def.properties);
  if (def.type === 'array' && Array.isArray(value) && def.properties) {
    const props = def.properties;
    return value.map((item) => (isHash(item) ? coerceHash(item, props) : item));
  }
  return value;
}

export function coerceHash(input: Hash, defs: readonly FieldDef[]): Hash {
  for (const def of defs) {
    if (!Object.hasOwn(input, def.name)) continue;
    hashSet(input, def.name, coerceValue(hashGet(input, def.name), def));
  }
  return input;
}
