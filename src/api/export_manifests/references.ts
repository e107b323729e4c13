// What a recipe's code and config name of other assets: the connections of its config slots,
// and, in its steps' inputs, lookup tables (`lookup_table_id`), data tables (`table_id`), topics
// (`topic_id`) and called recipes (`flow_id`). Each may be an id, a name, or a package reference {zip_name, name, folder}.
// The walk over the step tree uses an explicit stack: no recursion over user data.

type Ref = number | string;

export interface CodeReferences {
  connectionIds: number[];
  lookupTables: Ref[];
  dataTables: Ref[];
  topics: Ref[];
  recipes: Ref[];
}

/** Which input field of which provider names which kind of asset. */
export const REFERENCE_FIELDS = [
  { provider: 'lookup_table', field: 'lookup_table_id', kind: 'lookup_table' },
  { provider: 'workato_db_table', field: 'table_id', kind: 'workato_db_table' },
  { provider: 'workato_pub_sub', field: 'topic_id', kind: 'topic' },
  { provider: 'workato_recipe_function', field: 'flow_id', kind: 'recipe' },
  { provider: 'workato_service', field: 'flow_id', kind: 'recipe' },
] as const;

export type ReferenceKind = (typeof REFERENCE_FIELDS)[number]['kind'];

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An id or a name from a reference value; undefined when it names nothing usable. */
export function refOf(value: unknown): Ref | undefined {
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'string') {
    const text = value.trim();
    if (/^\d{1,15}$/.test(text)) return Number(text);
    return text === '' || text.startsWith('=') || text.includes('#{') ? undefined : text;
  }
  if (isObject(value) && typeof value.name === 'string' && value.name !== '') return value.name;
  return undefined;
}

/** The code tree from stored text (a wrapper {code: ...} unwrapped); undefined when it does not parse. */
export function parseCode(code: string): unknown {
  try {
    const parsed: unknown = JSON.parse(code);
    if (isObject(parsed) && isObject(parsed.code) && parsed.keyword === undefined) return parsed.code;
    if (isObject(parsed) && typeof parsed.code === 'string' && parsed.keyword === undefined)
      return JSON.parse(parsed.code);
    return parsed;
  } catch {
    return undefined;
  }
}

/** Every step object of a code tree (the trigger, actions, and the steps of every block). */
export function stepsOf(tree: unknown): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  const stack: unknown[] = [tree];
  while (stack.length > 0 && out.length < 1_000_000) {
    const node = stack.pop();
    if (!isObject(node)) continue;
    out.push(node);
    if (Array.isArray(node.block)) for (let i = node.block.length - 1; i >= 0; i -= 1) stack.push(node.block[i]);
  }
  return out;
}

export function codeReferences(code: string, config: string): CodeReferences {
  const out: CodeReferences = { connectionIds: [], lookupTables: [], dataTables: [], topics: [], recipes: [] };
  try {
    const entries: unknown = JSON.parse(config);
    if (Array.isArray(entries)) {
      for (const entry of entries) {
        if (!isObject(entry)) continue;
        const id = entry.account_id;
        if (typeof id === 'number' && Number.isInteger(id)) out.connectionIds.push(id);
        else if (typeof id === 'string' && /^\d{1,15}$/.test(id)) out.connectionIds.push(Number(id));
      }
    }
  } catch {
    // A config that does not parse names nothing.
  }
  for (const step of stepsOf(parseCode(code))) {
    const input = step.input;
    if (!isObject(input)) continue;
    for (const { provider, field, kind } of REFERENCE_FIELDS) {
      if (step.provider !== provider) continue;
      const ref = refOf(input[field]);
      if (ref === undefined) continue;
      if (kind === 'lookup_table') out.lookupTables.push(ref);
      else if (kind === 'workato_db_table') out.dataTables.push(ref);
      else if (kind === 'topic') out.topics.push(ref);
      else out.recipes.push(ref);
    }
  }
  return out;
}
