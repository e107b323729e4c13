// workato_variable: job-scoped variables and lists (20 §10.7, D-vars). The declare step's output
// holds the current values; later datapills to it read them as they are when evaluated.
import { StepError, type Connector, type StepContext } from './types.ts';
import {
  hashGet,
  hashSet,
  isHash,
  isNumeric,
  newHash,
  numOf,
  RFloat,
  isTrue,
  toRubyString,
  type Hash,
  type Value,
} from '../../recipe/formula/values.ts';

const MAX_LIST = 100_000;

interface VariableField {
  name: string;
  type: string;
}

function schemaOf(raw: Value): VariableField[] {
  let parsed: unknown = raw;
  if (typeof raw === 'string') {
    try {
      parsed = JSON.parse(raw);
    } catch {
      throw new StepError('Bad request', 'variables.schema is not valid JSON');
    }
  }
  if (!Array.isArray(parsed)) return [];
  return parsed
    .filter(
      (f): f is Record<string, unknown> =>
        typeof f === 'object' && f !== null && typeof (f as Record<string, unknown>).name === 'string',
    )
    .map((f) => ({ name: f.name as string, type: typeof f.type === 'string' ? f.type : 'string' }));
}

/** A value as the declared type: "12" -> 12 for integers, "true" -> true for booleans; blank -> nil. */
export function coerce(value: Value, type: string): Value {
  if (value === null || value === '') return null;
  switch (type) {
    case 'integer': {
      if (isNumeric(value)) return Math.trunc(numOf(value));
      const n = Number(toRubyString(value).trim());
      if (!Number.isFinite(n))
        throw new StepError('Bad request', `${JSON.stringify(toRubyString(value)).slice(0, 40)} is not an integer`);
      return Math.trunc(n);
    }
    case 'number': {
      if (isNumeric(value)) return value;
      const n = Number(toRubyString(value).trim());
      if (!Number.isFinite(n))
        throw new StepError('Bad request', `${JSON.stringify(toRubyString(value)).slice(0, 40)} is not a number`);
      return Number.isInteger(n) && !toRubyString(value).includes('.') ? n : new RFloat(n);
    }
    case 'boolean':
      return typeof value === 'boolean' ? value : isTrue(value);
    default:
      return value;
  }
}

/** "<uuid>:<as>:<var>" or "<as>:<var>" (and "<uuid>:<as>" for lists). */
function reference(text: string, withVariable: boolean): { as: string; variable: string | null } {
  const parts = text.trim().split(':');
  if (withVariable) {
    if (parts.length < 2)
      throw new StepError(
        'Bad request',
        `variable reference ${JSON.stringify(text).slice(0, 80)} must be "<step uuid>:<step as>:<variable>"`,
      );
    return { as: parts[parts.length - 2] as string, variable: parts[parts.length - 1] as string };
  }
  if (parts.length < 1 || parts[parts.length - 1] === '')
    throw new StepError(
      'Bad request',
      `list reference ${JSON.stringify(text).slice(0, 80)} must be "<step uuid>:<step as>"`,
    );
  return { as: parts[parts.length - 1] as string, variable: null };
}

function declared(sc: StepContext, as: string): Hash {
  const current = sc.outputs.get(as);
  if (!isHash(current ?? null))
    throw new StepError('Bad request', `the variables of step "${as}" were not declared before this step`);
  return current as Hash;
}

function listOf(sc: StepContext, name: Value): Value[] {
  const { as } = reference(toRubyString(name), false);
  const holder = declared(sc, as);
  const items = hashGet(holder, 'list_items');
  if (!Array.isArray(items)) throw new StepError('Bad request', `step "${as}" is not a list`);
  return items;
}

function itemsFrom(value: Value): Value[] {
  if (value === null) return [];
  return Array.isArray(value) ? value : [value];
}

function grow(list: Value[], added: number): void {
  if (list.length + added > MAX_LIST) throw new StepError('Bad request', `a list holds at most ${MAX_LIST} items`);
}

function clone(v: Value): Value {
  if (Array.isArray(v)) return v.map(clone);
  if (isHash(v)) return newHash(Object.keys(v).map((k) => [k, clone(v[k] as Value)]));
  return v;
}

export const workatoVariable: Connector = {
  provider: 'workato_variable',
  title: 'Variables by Workato',
  needsConnection: false,
  reachesOutside: false,
  jobMemoryOnly: true,
  triggers: {},
  actions: {
    declare_variable: {
      title: 'Create variables',
      run(input) {
        const variables = hashGet(input, 'variables');
        const holder = isHash(variables) ? variables : newHash();
        const schema = schemaOf(hashGet(holder, 'schema'));
        const data = hashGet(holder, 'data');
        const out = newHash();
        for (const field of schema)
          hashSet(out, field.name, coerce(isHash(data) ? clone(hashGet(data, field.name)) : null, field.type));
        return out;
      },
    },
    update_variables: {
      title: 'Update variables',
      required: [{ path: 'name', label: 'Variables' }],
      run(input, sc) {
        const names = toRubyString(hashGet(input, 'name'))
          .split(/\r?\n/)
          .map((l) => l.trim())
          .filter((l) => l !== '');
        for (const line of names) {
          const { as, variable } = reference(line, true);
          const holder = declared(sc, as);
          if (!Object.hasOwn(input, variable as string)) continue;
          hashSet(holder, variable as string, clone(input[variable as string] as Value));
        }
        return null;
      },
    },
    update_variable: {
      title: 'Update variable (deprecated)',
      required: [{ path: 'name', label: 'Variable' }],
      run(input, sc) {
        const { as, variable } = reference(toRubyString(hashGet(input, 'name')), true);
        hashSet(declared(sc, as), variable as string, clone(hashGet(input, 'value')));
        return null;
      },
    },
    declare_list: {
      title: 'Create list',
      run(input) {
        const items = itemsFrom(hashGet(input, 'list_items')).map(clone);
        if (items.length > MAX_LIST) throw new StepError('Bad request', `a list holds at most ${MAX_LIST} items`);
        return newHash([
          ['name', hashGet(input, 'name')],
          ['list_items', items],
        ]);
      },
    },
    insert_to_list: {
      title: 'Add item to list',
      required: [{ path: 'name', label: 'List' }],
      run(input, sc) {
        const list = listOf(sc, hashGet(input, 'name'));
        grow(list, 1);
        const item = clone(hashGet(input, 'list_item'));
        const location = toRubyString(hashGet(input, 'location') ?? 'end');
        if (location === 'start' || location === 'beginning') list.unshift(item);
        else if (/^\d+$/.test(location)) list.splice(Number(location), 0, item);
        else list.push(item);
        return newHash([['list_size', list.length]]);
      },
    },
    insert_to_list_batch: {
      title: 'Add items to list',
      required: [{ path: 'name', label: 'List' }],
      run(input, sc) {
        const list = listOf(sc, hashGet(input, 'name'));
        const items = itemsFrom(hashGet(input, 'list_items')).map(clone);
        grow(list, items.length);
        list.push(...items);
        return newHash([['list_size', list.length]]);
      },
    },
    clear_list: {
      title: 'Clear list',
      required: [{ path: 'name', label: 'List' }],
      run(input, sc) {
        listOf(sc, hashGet(input, 'name')).length = 0;
        return null;
      },
    },
  },
};
