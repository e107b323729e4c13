// Request validation. Bodies are validated strictly (a wrong type is a 400, never silently
// coerced; unknown fields are refused where a schema closes the object); path and query
// strings are coerced to the declared types, since everything there arrives as text.
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { ValidatorFactory } from '@fastify/ajv-compiler';
import type { FastifySchemaCompiler } from 'fastify';
import { addFieldError, type FieldErrors } from '../errors.ts';
import { ajvWithFormats } from '../ajv.ts';

// Made at the first compile (Ajv itself loads then, src/ajv.ts): an idle server validates nothing.
let bodyAjv: ReturnType<typeof ajvWithFormats> | undefined;
let textAjv: ReturnType<typeof ajvWithFormats> | undefined;
const shared = { allErrors: true, removeAdditional: false, useDefaults: true, strict: false } as const;

/**
 * A route's validator is compiled at the route's first request, not when the route is registered:
 * a server has hundreds of routes and a process uses a few of them, so compiling every schema at
 * start-up cost most of the start time and tens of megabytes of generated code.
 * `test/schemas-compile.test.ts` compiles every route's schemas, so a broken one still fails CI.
 */
export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  let compiled: ValidateFunction | undefined;
  const validate = (data: unknown): boolean => {
    compiled ??= compileValidator(schema, httpPart);
    const valid = compiled(data) as boolean;
    validate.errors = compiled.errors;
    return valid;
  };
  validate.errors = null as ValidateFunction['errors'];
  return validate;
};

/**
 * `schemaController.compilersFactory.buildValidator` for Fastify: every route's compiler is
 * validatorCompiler. Named so that Fastify does not load its default (Ajv's) at start; Fastify calls
 * the compiler with the route's schema definition, which is what validatorCompiler reads.
 */
export const buildLazyValidator = (() => validatorCompiler) as unknown as ValidatorFactory;

/** A part's validator, compiled now: bodies strictly, path, query and headers with coercion. */
export function compileValidator(schema: unknown, httpPart: string | undefined): ValidateFunction {
  const ajv =
    httpPart === 'body'
      ? (bodyAjv ??= ajvWithFormats({ ...shared, coerceTypes: false }))
      : (textAjv ??= ajvWithFormats({ ...shared, coerceTypes: 'array' }));
  return ajv.compile(schema as object);
}

/** Ajv errors in the contract's `errors` shape: field -> list of problems. */
export function fieldErrors(errors: readonly Partial<ErrorObject>[], context: string | undefined): FieldErrors {
  const out: FieldErrors = {};
  const add = (field: string, message: string) => addFieldError(out, field, message);
  for (const e of errors) {
    const params = (e.params ?? {}) as Record<string, unknown>;
    const base = pointerToField(e.instancePath ?? '');
    switch (e.keyword) {
      case 'required':
        add(join(base, String(params.missingProperty)), 'is required');
        break;
      case 'additionalProperties':
        add(join(base, String(params.additionalProperty)), 'is not a permitted field');
        break;
      case 'anyOf':
      case 'oneOf':
        // The branches already reported why; keep one readable line for the field.
        add(base || (context ?? 'body'), 'has an invalid type or format');
        break;
      case 'type':
        add(base || (context ?? 'body'), `must be ${article(String(params.type))}`);
        break;
      default:
        add(base || (context ?? 'body'), e.message ?? 'is invalid');
    }
  }
  // anyOf reports each failed branch too; when a field has a summary, drop the branch noise.
  for (const list of Object.values(out)) {
    if (list.includes('has an invalid type or format') && list.length > 1)
      list.splice(0, list.length, 'has an invalid type or format');
  }
  return out;
}

function pointerToField(pointer: string): string {
  return pointer
    .split('/')
    .filter((p) => p !== '')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
}

function join(base: string, name: string): string {
  return base ? `${base}.${name}` : name;
}

function article(type: string): string {
  const names = type.split(',');
  const words = names.map((t) =>
    t === 'integer' ? 'an integer' : t === 'object' ? 'an object' : t === 'array' ? 'an array' : `a ${t}`,
  );
  return words.join(' or ');
}
