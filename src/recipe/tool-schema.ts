// What a recipe looks like to an agent: a tool with a name, a description and the JSON Schema of
// its parameters, read from the recipe's trigger. Skill recipes (`workato_skill` or the older
// `workato_genie` start_workflow) declare their parameters in `parameters_schema_json` (older
// exports: `input_schema`); recipe-backed API endpoints in the request schema of their trigger.
// Workato schema fields ({name, type, optional, label, hint, properties, of}) become JSON Schema.

/** Triggers whose recipes are skills: an agent's call runs them with `parameters`. */
export const SKILL_TRIGGERS: ReadonlySet<string> = new Set(['workato_skill', 'workato_genie']);
export const ENDPOINT_TRIGGER = 'workato_api_platform';

export type ToolKind = 'skill' | 'endpoint';

export interface JsonSchema {
  type?: string;
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  format?: string;
  additionalProperties?: boolean;
}

export interface RecipeTool {
  kind: ToolKind;
  /** The trigger's description (skills), or '' when it has none. */
  description: string;
  inputSchema: JsonSchema & { type: 'object' };
}

/** Fields and nesting read from user data: bounded so a huge or deep schema cannot stall a listing. */
const MAX_FIELDS = 500;
const MAX_DEPTH = 8;

/** The tool a recipe is, or null when its trigger makes it neither a skill nor an API endpoint. */
export function recipeTool(recipe: { trigger_application: string | null; code: string }): RecipeTool | null {
  const provider = recipe.trigger_application ?? '';
  const kind: ToolKind | null = SKILL_TRIGGERS.has(provider)
    ? 'skill'
    : provider === ENDPOINT_TRIGGER
      ? 'endpoint'
      : null;
  if (kind === null) return null;
  let input: Record<string, unknown> = {};
  try {
    const code = JSON.parse(recipe.code) as { input?: unknown };
    if (code && typeof code.input === 'object' && code.input !== null) input = code.input as Record<string, unknown>;
  } catch {
    // A stored recipe always parses; an unreadable one offers a tool without parameters.
  }
  const raw =
    kind === 'skill'
      ? (input.parameters_schema_json ?? input.input_schema)
      : (input.request as Record<string, unknown> | undefined)?.schema;
  const description = kind === 'skill' && typeof input.description === 'string' ? input.description : '';
  return { kind, description, inputSchema: objectSchema(parseFields(raw), { count: 0 }, 0) };
}

/** A schema given as JSON text or as a list of fields. */
export function parseFields(raw: unknown): unknown[] {
  let value = raw;
  if (typeof value === 'string') {
    if (value.trim() === '') return [];
    try {
      value = JSON.parse(value);
    } catch {
      return [];
    }
  }
  return Array.isArray(value) ? value : [];
}

function objectSchema(fields: unknown[], budget: { count: number }, depth: number): JsonSchema & { type: 'object' } {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const field of fields) {
    if (budget.count >= MAX_FIELDS) break;
    if (typeof field !== 'object' || field === null) continue;
    const f = field as Record<string, unknown>;
    if (typeof f.name !== 'string' || f.name === '' || Object.hasOwn(properties, f.name)) continue;
    budget.count += 1;
    properties[f.name] = fieldSchema(f, budget, depth + 1);
    if (f.optional === false || f.optional === 'false') required.push(f.name);
  }
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
}

function fieldSchema(f: Record<string, unknown>, budget: { count: number }, depth: number): JsonSchema {
  const text = [f.label, f.hint].filter((v): v is string => typeof v === 'string' && v.trim() !== '').join(': ');
  const described = (s: JsonSchema): JsonSchema => (text === '' ? s : { ...s, description: text.slice(0, 1000) });
  const nested = Array.isArray(f.properties) && depth < MAX_DEPTH ? (f.properties as unknown[]) : null;
  switch (f.type) {
    case 'integer':
      return described({ type: 'integer' });
    case 'number':
      return described({ type: 'number' });
    case 'boolean':
      return described({ type: 'boolean' });
    case 'date':
      return described({ type: 'string', format: 'date' });
    case 'date_time':
    case 'timestamp':
      return described({ type: 'string', format: 'date-time' });
    case 'object':
      return described(nested ? objectSchema(nested, budget, depth) : { type: 'object' });
    case 'array': {
      const of = f.of;
      const items: JsonSchema =
        of === 'object'
          ? nested
            ? objectSchema(nested, budget, depth)
            : { type: 'object' }
          : of === 'integer' || of === 'number' || of === 'boolean'
            ? { type: of }
            : { type: 'string' };
      return described({ type: 'array', items });
    }
    default:
      return described({ type: 'string' });
  }
}

/** An MCP / function-calling tool name: letters, digits, `_` and `-`, at most 64 characters. */
export function toolNameOf(name: string): string {
  const cleaned = name
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/[^A-Za-z0-9_-]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 64);
  return cleaned === '' ? 'tool' : cleaned;
}

/** Names made unique within one list: a later duplicate gets `_<n>` (its id). */
export function uniqueNames<T>(items: T[], nameOf: (item: T) => string, idOf: (item: T) => number): Map<T, string> {
  const seen = new Set<string>();
  const out = new Map<T, string>();
  for (const item of items) {
    let name = toolNameOf(nameOf(item));
    if (seen.has(name)) name = `${name.slice(0, 50)}_${idOf(item)}`;
    seen.add(name);
    out.set(item, name);
  }
  return out;
}

/** What is wrong with a call's arguments, top level only: required fields present, scalar types right. */
export function argumentProblems(schema: JsonSchema, args: Record<string, unknown>): string | null {
  for (const name of schema.required ?? []) {
    if (args[name] === undefined || args[name] === null) return `parameter "${name}" is required`;
  }
  for (const [name, value] of Object.entries(args)) {
    const expected = schema.properties?.[name]?.type;
    if (expected === undefined || value === null) continue;
    const ok =
      expected === 'integer'
        ? Number.isInteger(value)
        : expected === 'number'
          ? typeof value === 'number'
          : expected === 'boolean'
            ? typeof value === 'boolean'
            : expected === 'string'
              ? typeof value === 'string'
              : expected === 'array'
                ? Array.isArray(value)
                : expected === 'object'
                  ? typeof value === 'object' && !Array.isArray(value)
                  : true;
    if (!ok) return `parameter "${name.slice(0, 100)}" must be of type ${expected}`;
  }
  return null;
}
