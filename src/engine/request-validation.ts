// `validate_request` of an API endpoint: a call's fields are checked against the request schema of
// its recipe's trigger (`workato_api_platform/receive_request`, `request.schema`) before a job is
// stored; the caller gets 400 with what is wrong, and nothing runs. A required field must be there
// and not empty; a value must read as its type (digits for an integer, a number, true/false for a
// boolean, an ISO date for a date, an object, a list). Fields the schema does not name pass.
import { isHash, isNumeric, toRubyString, type Hash, type Value } from '../recipe/formula/values.ts';

interface RequestField {
  name: string;
  type: string;
  optional: boolean;
  properties: RequestField[];
}

const MAX_PROBLEMS = 20;
const MAX_DEPTH = 10;

function fieldsOf(raw: unknown, depth = 0): RequestField[] {
  let parsed = raw;
  if (typeof raw === 'string') {
    try {
      parsed = JSON.parse(raw);
    } catch {
      return [];
    }
  }
  if (!Array.isArray(parsed) || depth > MAX_DEPTH) return [];
  return parsed
    .filter((f): f is Record<string, unknown> => isHash(f as Value) && typeof (f as Hash).name === 'string')
    .map((f) => ({
      name: f.name as string,
      type: typeof f.type === 'string' ? f.type : 'string',
      optional: f.optional === true || f.optional === 'true',
      properties: Array.isArray(f.properties) ? fieldsOf(f.properties, depth + 1) : [],
    }));
}

/** The fields of a receive_request trigger's input (`request.schema`), or none. */
export function requestSchemaOf(triggerInput: Hash): RequestField[] {
  const request = triggerInput.request;
  return isHash(request as Value) ? fieldsOf((request as Hash).schema) : [];
}

function typeProblem(value: Value, field: RequestField): string | null {
  const text = typeof value === 'string' ? value.trim() : null;
  switch (field.type) {
    case 'integer':
      return (typeof value === 'number' && Number.isInteger(value)) || (text !== null && /^-?\d{1,15}$/.test(text))
        ? null
        : 'must be an integer';
    case 'number':
      return isNumeric(value) || (text !== null && text !== '' && Number.isFinite(Number(text)))
        ? null
        : 'must be a number';
    case 'boolean':
      return typeof value === 'boolean' || (text !== null && /^(true|false)$/i.test(text))
        ? null
        : 'must be true or false';
    case 'date':
    case 'date_time':
    case 'timestamp':
      return text !== null &&
        /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(text) &&
        !Number.isNaN(Date.parse(text))
        ? null
        : `must be an ISO 8601 ${field.type === 'date' ? 'date' : 'date and time'}`;
    case 'object':
      return isHash(value) ? null : 'must be an object';
    case 'array':
      return Array.isArray(value) ? null : 'must be a list';
    default:
      return isHash(value) || Array.isArray(value) ? 'must be text' : null;
  }
}

/** What is wrong with a call's fields, as `<path> <problem>` lines; none when it matches. */
export function requestProblems(fields: readonly RequestField[], request: Hash): string[] {
  const problems: string[] = [];
  const walk = (defs: readonly RequestField[], values: Hash, prefix: string, depth: number) => {
    for (const field of defs) {
      if (problems.length >= MAX_PROBLEMS) return;
      const path = `${prefix}${field.name}`;
      const value = Object.hasOwn(values, field.name) ? (values[field.name] as Value) : null;
      const blank = value === null || (typeof value === 'string' && value.trim() === '');
      if (blank) {
        if (!field.optional) problems.push(`${path} is required`);
        continue;
      }
      const problem = typeProblem(value, field);
      if (problem) {
        problems.push(`${path} ${problem} (got ${JSON.stringify(toRubyString(value)).slice(0, 40)})`);
        continue;
      }
      if (depth < MAX_DEPTH && field.properties.length > 0) {
        if (isHash(value)) walk(field.properties, value, `${path}.`, depth + 1);
        else if (Array.isArray(value))
          value.forEach((item, i) => {
            if (isHash(item)) walk(field.properties, item, `${path}[${i}].`, depth + 1);
          });
      }
    }
  };
  walk(fields, request, '', 0);
  return problems;
}
