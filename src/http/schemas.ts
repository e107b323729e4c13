// Schemas shared by many routes: ids, timestamps, paging, the error body.
import { Type, type Static, type TSchema } from 'typebox';

/** Path/query id: a positive whole number (text in the URL, coerced). */
export const Id = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'Numeric id' });

/** Body id: clients send either an integer or its decimal string (contract 00 §4). */
export const IdInput = Type.Union(
  [Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }), Type.String({ pattern: '^[0-9]{1,15}$' })],
  { description: 'Numeric id, as an integer or a decimal string' },
);
export type IdInput = Static<typeof IdInput>;

export function toId(value: IdInput): number {
  return typeof value === 'number' ? value : Number(value);
}

export const IdParams = Type.Object({ id: Id });

export const Timestamp = Type.String({
  description: 'ISO 8601 with milliseconds and offset, e.g. 2025-03-04T09:12:44.318+00:00',
});

/** Paging parameters are lenient: junk falls back to defaults (contract 00 §7), never a 400. */
export const PageQuery = {
  page: Type.Optional(
    Type.Unsafe<string | number>({ type: ['integer', 'string'], description: 'Page number, from 1' }),
  ),
  per_page: Type.Optional(Type.Unsafe<string | number>({ type: ['integer', 'string'], description: 'Items per page' })),
};

export const ErrorBody = Type.Object(
  {
    message: Type.String(),
    // additionalProperties rather than a Record's key pattern: '^.*$' does not match a key with a
    // newline, and the serialiser would silently drop it (property names are keys here).
    errors: Type.Optional(
      Type.Unsafe<Record<string, string[]>>({
        type: 'object',
        additionalProperties: { type: 'array', items: { type: 'string' } },
      }),
    ),
    id: Type.Optional(Type.String({ description: 'Correlation id of a server error (equals X-Request-Id)' })),
  },
  { description: 'Error' },
);

/** The error replies a route can give, for its response schema. */
export function errorResponses(...statuses: number[]): Record<number, TSchema> {
  return Object.fromEntries(statuses.map((s) => [s, ErrorBody]));
}

/** Every authenticated /api route can answer these. */
export const AUTH_ERRORS = [400, 401, 403, 413, 415] as const;

export const SuccessBody = Type.Object({ success: Type.Boolean() });
