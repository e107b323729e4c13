// Datapills (contract 20 §5.2): the structured `_dp('<json>')` form, and the legacy dotted
// `_('data.<provider>.<as>.<path>')` form, translated into the structured form when a recipe is
// compiled (never when it is saved: the stored code stays as sent).

export type PathElement = string | { kind: 'current_item' } | { kind: 'size' };

export type Pill =
  | { type: 'output'; provider: string; line: string; path: PathElement[] }
  | { type: 'job_context'; path: string[] }
  | { type: 'account_property'; name: string };

export class PillError extends Error {
  override name = 'PillError';
}

const MAX_PATH = 50;

/** The pill described by the JSON argument of `_dp(...)`. */
export function parseStructuredPill(json: string): Pill {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    throw new PillError('datapill is not valid JSON');
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new PillError('datapill must be a JSON object');
  const pill = raw as Record<string, unknown>;
  const type = pill.pill_type;
  // Project properties are read the same way: the job's properties are the environment's, overridden by the project's.
  if (type === 'account_property' || type === 'project_property') {
    if (typeof pill.property_name !== 'string' || pill.property_name === '')
      throw new PillError(`${type} datapill needs property_name`);
    return { type: 'account_property', name: pill.property_name };
  }
  const path = pathOf(pill.path);
  if (type === 'job_context') {
    if (path.some((e) => typeof e !== 'string')) throw new PillError('job_context datapill path must be keys');
    return { type: 'job_context', path: path as string[] };
  }
  if (type === 'output' || type === undefined) {
    if (typeof pill.line !== 'string' || pill.line === '')
      throw new PillError('datapill needs a line (the step alias)');
    if (typeof pill.provider !== 'string' || pill.provider === '') throw new PillError('datapill needs a provider');
    return { type: 'output', provider: pill.provider, line: pill.line, path };
  }
  throw new PillError(`unknown pill_type ${JSON.stringify(type).slice(0, 40)}`);
}

function pathOf(raw: unknown): PathElement[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) throw new PillError('datapill path must be an array');
  if (raw.length > MAX_PATH) throw new PillError('datapill path is too long');
  return raw.map((element): PathElement => {
    if (typeof element === 'string') return element;
    if (typeof element === 'object' && element !== null) {
      const kind = (element as Record<string, unknown>).path_element_type;
      if (kind === 'current_item') return { kind: 'current_item' };
      if (kind === 'size') return { kind: 'size' };
      throw new PillError(`unsupported path element ${JSON.stringify(kind).slice(0, 40)}`);
    }
    throw new PillError('Invalid path element');
  });
}

/**
 * The legacy dotted form: `_('data.rest.3f9a0c11.body.id')`, `_('data.workato.job_context.job_id')`,
 * and the list-size form `_('…____Size', 'list_meta', '____Size', 'data.<p>.<as>.<list>')`.
 * `.first` means the first item (current_item outside an iteration); `____Size` the list size.
 */
export function translateLegacyPill(args: readonly string[]): Pill {
  const [first, kind, , listPath] = args;
  if (first === undefined) throw new PillError('legacy datapill needs a path');
  const dotted = kind === 'list_meta' && listPath !== undefined ? `${listPath}.____Size` : first;
  const parts = dotted.split('.');
  const metadata = metadataPill(parts);
  if (metadata) return metadata;
  if (parts[0] !== 'data' || parts.length < 3)
    throw new PillError(
      `legacy datapill ${JSON.stringify(first).slice(0, 60)} does not start with data.<provider>.<step>`,
    );
  const provider = parts[1] as string;
  if (provider === 'workato' && parts[2] === 'job_context') return { type: 'job_context', path: parts.slice(3) };
  const line = parts[2] as string;
  const path = parts.slice(3).map((p): PathElement => {
    if (p === 'first') return { kind: 'current_item' };
    if (p === '____Size') return { kind: 'size' };
    return p;
  });
  if (path.length > MAX_PATH) throw new PillError('datapill path is too long');
  return { type: 'output', provider, line, path };
}

/**
 * Job and recipe metadata in the legacy form, without `data.`: `_('job.started_at')`,
 * `_('recipe.name')`, `_('user.id')`. Each is one of the job_context pills; an unknown key is refused
 * when the recipe compiles, and so are `_('connections.…')` pills: credentials never flow into steps.
 */
const METADATA_PILLS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  job: {
    id: 'job_id',
    handle: 'job_id',
    url: 'job_url',
    started_at: 'job_started_at',
    created_at: 'job_created_at',
    is_test: 'is_test',
    is_repeat: 'is_repeat',
    repeat_count: 'repeat_count',
    root_job_id: 'root_job_id',
    calling_job_id: 'calling_job_id',
  },
  recipe: {
    id: 'recipe_id',
    name: 'recipe_name',
    url: 'recipe_url',
    root_recipe_id: 'root_recipe_id',
    calling_recipe_id: 'calling_recipe_id',
  },
  user: { id: 'user_id' },
};

function metadataPill(parts: readonly string[]): Pill | null {
  const [scope, key, ...rest] = parts;
  if (scope === 'connections' || scope === 'connection')
    throw new PillError('connection credentials cannot be read by datapills');
  if (scope === undefined || !Object.hasOwn(METADATA_PILLS, scope)) return null;
  const table = METADATA_PILLS[scope] as Readonly<Record<string, string>>;
  if (key === undefined || rest.length > 0 || !Object.hasOwn(table, key))
    throw new PillError(
      `${JSON.stringify(parts.join('.')).slice(0, 60)} is not a ${scope} datapill (known: ${Object.keys(table)
        .map((k) => `${scope}.${k}`)
        .join(', ')})`,
    );
  return { type: 'job_context', path: [table[key] as string] };
}

/** A stable text key for "the list at this point", used to bind current_item inside iterations. */
export function listKey(line: string, path: readonly PathElement[]): string {
  return JSON.stringify([line, path.map((e) => (typeof e === 'string' ? e : `#${e.kind}`))]);
}
