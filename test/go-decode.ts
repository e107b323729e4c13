// Decoding a reply as the vendor's Go CLI does (encoding/json into its structs; contract 23 §0):
// unknown keys are ignored, `null` leaves the zero value, a missing key too; a non-null value of
// the wrong JSON type fails the whole decode, and a `time.Time` field takes only RFC 3339 text.
// `goDecode` returns what the struct would hold (zero values filled in) or throws naming the path.

export type GoType =
  | 'int'
  | 'float'
  | 'string'
  | 'bool'
  | 'time'
  | 'any'
  | { readonly ptr: GoType }
  | { readonly slice: GoType }
  | { readonly struct: Readonly<Record<string, GoType>> }
  | { readonly map: GoType };

export const ptr = (t: GoType): GoType => ({ ptr: t });
export const slice = (t: GoType): GoType => ({ slice: t });
export const struct = (fields: Record<string, GoType>): GoType => ({ struct: fields });

export class GoDecodeError extends Error {
  override name = 'GoDecodeError';
}

/** Go's time.Time UnmarshalJSON: RFC 3339 with an optional fraction, `T` and an offset or `Z`. */
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;
export const GO_ZERO_TIME = '0001-01-01T00:00:00Z';

function zero(t: GoType): unknown {
  if (t === 'int' || t === 'float') return 0;
  if (t === 'string') return '';
  if (t === 'bool') return false;
  if (t === 'time') return GO_ZERO_TIME;
  if (t === 'any') return null;
  if ('ptr' in t || 'slice' in t || 'map' in t) return null;
  return Object.fromEntries(Object.entries(t.struct).map(([k, v]) => [k, zero(v)]));
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

export function goDecode(value: unknown, t: GoType, path = '$'): unknown {
  if (value === null) return zero(t);
  const fail = (want: string) => {
    throw new GoDecodeError(`json: cannot unmarshal ${kindOf(value)} into ${want} at ${path}`);
  };
  if (t === 'any') return value;
  if (t === 'int') {
    if (typeof value !== 'number' || !Number.isInteger(value)) fail('int');
    return value;
  }
  if (t === 'float') {
    if (typeof value !== 'number') fail('float64');
    return value;
  }
  if (t === 'string') {
    if (typeof value !== 'string') fail('string');
    return value;
  }
  if (t === 'bool') {
    if (typeof value !== 'boolean') fail('bool');
    return value;
  }
  if (t === 'time') {
    if (typeof value !== 'string') fail('time.Time');
    if (!RFC3339.test(value as string) || Number.isNaN(Date.parse(value as string)))
      throw new GoDecodeError(`parsing time ${JSON.stringify(value)} as RFC 3339 failed at ${path}`);
    return value;
  }
  if ('ptr' in t) return goDecode(value, t.ptr, path);
  if ('slice' in t) {
    if (!Array.isArray(value)) fail('slice');
    return (value as unknown[]).map((item, i) => goDecode(item, t.slice, `${path}[${i}]`));
  }
  if ('map' in t) {
    if (kindOf(value) !== 'object') fail('map');
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, goDecode(v, t.map, `${path}.${k}`)]),
    );
  }
  if (kindOf(value) !== 'object') fail('struct');
  const record = value as Record<string, unknown>;
  // encoding/json matches keys to field names without regard to case, an exact match first.
  const keyFor = (name: string) =>
    name in record ? name : Object.keys(record).find((k) => k.toLowerCase() === name.toLowerCase());
  return Object.fromEntries(
    Object.entries(t.struct).map(([name, fieldType]) => {
      const key = keyFor(name);
      return [name, key === undefined ? zero(fieldType) : goDecode(record[key], fieldType, `${path}.${name}`)];
    }),
  );
}
