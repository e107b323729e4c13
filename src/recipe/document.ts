// The recipe document (contract 20 §1-2): the export form `{name, code, config, concurrency}`,
// the API read form `{recipe_id, code, version: {config: "<json>", worker_concurrency, ...}}`, the
// developer API form (code as a JSON string) and the wrapped `{result: <code>}` form all come
// down to one step tree and one config array.

export interface Step {
  number?: number;
  keyword?: unknown;
  provider?: unknown;
  name?: unknown;
  as?: unknown;
  uuid?: unknown;
  input?: unknown;
  block?: unknown;
  skip?: unknown;
  filter?: unknown;
  source?: unknown;
  repeat_mode?: unknown;
  batch_size?: unknown;
  clear_scope?: unknown;
  mask_data?: unknown;
  extended_input_schema?: unknown;
  extended_output_schema?: unknown;
  [key: string]: unknown;
}

export interface ConfigEntry {
  keyword: 'application';
  name: string;
  provider: string;
  skip_validation: boolean;
  /** A connection id, null, or (in exports) a reference object {zip_name, name, folder}. */
  account_id: number | null | Record<string, unknown>;
  [key: string]: unknown;
}

export class DocumentError extends Error {
  override name = 'DocumentError';
  readonly field: string;
  constructor(field: string, message: string) {
    super(message);
    this.field = field;
  }
}

/**
 * Largest recipe document accepted (code or config), in characters: exported recipes reach
 * megabytes and the vendor takes code of tens of MB. A request is bounded first by its body limit
 * (RECIPE_BODY_LIMIT_BYTES, 32 MiB by default).
 */
export const MAX_DOCUMENT_CHARS = 64 * 1024 * 1024;

/**
 * Deepest JSON nesting accepted in a recipe's code, in levels of objects and arrays. The vendor's
 * real exports stay under 20; the engine refuses blocks past 100 levels (about 200 here) and
 * inputs past 64 at start, so this bound only stops documents no recipe can be, before they are
 * stored and walked.
 */
export const MAX_CODE_DEPTH = 256;

/** Whether a parsed JSON value nests deeper than `limit` objects and arrays (walked without recursion). */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop() as [unknown, number];
    if (typeof node !== 'object' || node === null) continue;
    if (depth > limit) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}

/** A JSON string or an already-parsed value; a string that is not JSON is a DocumentError. */
export function parseJsonField(value: unknown, field: string): unknown {
  if (typeof value !== 'string') return value;
  if (value.length > MAX_DOCUMENT_CHARS)
    throw new DocumentError(field, `is too large (maximum is ${MAX_DOCUMENT_CHARS} characters)`);
  try {
    return JSON.parse(value);
  } catch {
    throw new DocumentError(field, 'is invalid JSON');
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export interface UnwrappedCode {
  /** The step tree. */
  code: Record<string, unknown>;
  /** Whether `code` came out of a wrapper (then it is re-serialised, not stored verbatim). */
  wrapped: boolean;
  /** What the wrapper carried besides the code. */
  config?: unknown;
  name?: string;
  description?: string;
  concurrency?: number;
}

/** The step tree inside any accepted wrapper. */
export function unwrapCode(parsed: unknown): UnwrappedCode {
  if (!isObject(parsed)) throw new DocumentError('code', 'must be a JSON object (the trigger step)');
  if ('keyword' in parsed || 'block' in parsed || 'provider' in parsed) return { code: parsed, wrapped: false };
  if (isObject(parsed.result) && !('code' in parsed)) return { ...unwrapCode(parsed.result), wrapped: true };
  if ('code' in parsed) {
    const inner = parseJsonField(parsed.code, 'code');
    const out: UnwrappedCode = { ...unwrapCode(inner), wrapped: true };
    const version = isObject(parsed.version) ? parsed.version : {};
    const config = parsed.config ?? version.config;
    if (config !== undefined) out.config = config;
    const name =
      typeof parsed.name === 'string' ? parsed.name : typeof version.name === 'string' ? version.name : undefined;
    if (name !== undefined) out.name = name;
    const description =
      typeof parsed.description === 'string'
        ? parsed.description
        : typeof version.description === 'string'
          ? version.description
          : undefined;
    if (description !== undefined) out.description = description;
    const concurrency = parsed.concurrency ?? version.worker_concurrency;
    if (typeof concurrency === 'number' && Number.isInteger(concurrency)) out.concurrency = concurrency;
    return out;
  }
  throw new DocumentError('code', 'must be a step tree with a trigger (keyword, provider, block)');
}

/** Providers of a step tree in first-use order, trigger first. */
export function providersOf(code: unknown): { trigger: string | null; actions: string[] } {
  let trigger: string | null = null;
  const actions: string[] = [];
  let seen = 0;
  const visit = (node: unknown, depth: number) => {
    if (!isObject(node) || depth > 200 || ++seen > 100_000) return;
    const provider =
      typeof node.provider === 'string' && node.provider !== '' && node.provider !== 'catch' ? node.provider : null;
    if (node.keyword === 'trigger' && trigger === null) trigger = provider;
    else if (provider !== null && !actions.includes(provider)) actions.push(provider);
    if (Array.isArray(node.block)) for (const child of node.block) visit(child, depth + 1);
  };
  visit(code, 0);
  return { trigger, actions };
}

/** The config array: as given (array or JSON string), else one slot per provider of the code. */
export function normaliseConfig(raw: unknown, code: unknown): ConfigEntry[] {
  const parsed = parseJsonField(raw, 'config');
  const providers = providersOf(code);
  const used = [
    ...(providers.trigger ? [providers.trigger] : []),
    ...providers.actions.filter((p) => p !== providers.trigger),
  ];
  if (parsed === undefined || parsed === null) {
    return used.map((provider) => ({
      keyword: 'application',
      name: provider,
      provider,
      skip_validation: false,
      account_id: null,
    }));
  }
  if (!Array.isArray(parsed)) throw new DocumentError('config', 'must be an array of application entries');
  if (parsed.length > 1000) throw new DocumentError('config', 'has too many entries');
  return parsed.map((entry, i): ConfigEntry => {
    if (!isObject(entry)) throw new DocumentError('config', `entry ${i} must be an object`);
    const provider =
      typeof entry.provider === 'string' ? entry.provider : typeof entry.name === 'string' ? entry.name : '';
    if (provider === '') throw new DocumentError('config', `entry ${i} needs a provider`);
    const account = entry.account_id;
    let accountId: ConfigEntry['account_id'] = null;
    if (typeof account === 'number' && Number.isInteger(account)) accountId = account;
    else if (typeof account === 'string' && /^\d{1,15}$/.test(account)) accountId = Number(account);
    else if (isObject(account)) accountId = account;
    return {
      ...entry,
      keyword: 'application',
      name: typeof entry.name === 'string' && entry.name !== '' ? entry.name : provider,
      provider,
      skip_validation: entry.skip_validation === true,
      account_id: accountId,
    };
  });
}

/**
 * The config of a recipe whose code changed and whose config was not sent: each application the
 * new code still uses keeps its entry (and its connection); one it starts using gets an empty
 * entry; one it no longer uses is dropped. A field not sent is a field not changed.
 */
export function carryConfig(current: unknown, code: unknown): ConfigEntry[] {
  const kept = normaliseConfig(current, code);
  const providers = providersOf(code);
  const used = new Set([...(providers.trigger ? [providers.trigger] : []), ...providers.actions]);
  const have = new Set(kept.map((entry) => entry.provider));
  const fresh = normaliseConfig(undefined, code).filter((entry) => !have.has(entry.provider));
  return [...kept.filter((entry) => used.has(entry.provider)), ...fresh];
}

export type ErrorDetail = [string, unknown, string, (string | Record<string, string>)?];
export type StepErrors = Array<[number, ErrorDetail[]]>;

/** The event name part of the URL: the trigger's webhook_suffix, else `event`. */
export function webhookEventName(input: Record<string, unknown>): string {
  const suffix = typeof input.webhook_suffix === 'string' ? input.webhook_suffix.trim() : '';
  return /^[A-Za-z0-9_.~-]{1,100}$/.test(suffix) ? suffix : 'event';
}

/** A field of a workflow task's form. */
export interface TaskFormField {
  name: string;
  label: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  optional: boolean;
}
