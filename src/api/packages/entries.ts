// The files of a package, checked before anything is imported: each file's name says its asset
// type, its JSON is measured before it is parsed, and the fields the appliers read are checked.
// Run in the reader's worker thread (reader-worker.ts), one file at a time.
import { AppError } from '../../errors.ts';
import { CELL_COLUMNS } from '../lookup_tables/lookup_tables.store.ts';
import { columnsFromDefinition } from '../data_tables/data_tables.input.ts';
import { RETENTION_LIMITS } from '../event_streams/event_streams.service.ts';
import { jsonShape } from '../../json-shape.ts';
import { PackageFailure } from './export.ts';
import { MAX_CODE_BYTES } from '../custom_connectors/custom_connectors.service.ts';

export type FileType =
  | 'recipe'
  | 'connection'
  | 'lookup_table'
  | 'workato_db_table'
  | 'topic'
  | 'api_group'
  | 'api_endpoint'
  | 'account_property'
  | 'project_property'
  | 'custom_adapter';
export const FILE_TYPES: readonly FileType[] = [
  'recipe',
  'connection',
  'lookup_table',
  'workato_db_table',
  'topic',
  'api_group',
  'api_endpoint',
  'account_property',
  'project_property',
  'custom_adapter',
];

export interface Entry {
  path: string;
  dir: string;
  type: FileType;
  body: Record<string, unknown>;
  /**
   * A table's rows: how many, checked when the files are; the rows themselves are read from the
   * zip again (reader.ts) when the table is written, one table at a time, a batch at a time.
   */
  data?: { rows: number };
  /** A custom adapter's Ruby source (its `.custom_adapter.rb`). */
  code?: string;
  /** A recipe's test cases, checked against its steps when the file was (reader-worker.ts), as they are stored. */
  testCases?: PreparedTestCase[];
}

/** A test case of a recipe file, checked, in the form test_cases stores. */
export interface PreparedTestCase {
  name: string;
  description: string;
  body: string;
}

export type Obj = Record<string, unknown>;

export function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The asset type a file name says (`<stem>.<type>.json`; `api_collection.json` is an API collection file). */
export function typeOfEntry(path: string): FileType | undefined {
  const base = path.slice(path.lastIndexOf('/') + 1);
  if (base === 'api_collection.json') return 'api_group';
  const match = /\.([a-z_]+)\.json$/.exec(base);
  const type = match?.[1];
  return (FILE_TYPES as readonly string[]).includes(type ?? '') ? (type as FileType) : undefined;
}

function str(body: Obj, key: string, problems: string[], path: string, required = true): string | undefined {
  const v = body[key];
  if (v === undefined || v === null) {
    if (required) problems.push(`${path}: ${key} is missing`);
    return undefined;
  }
  if (typeof v !== 'string') {
    problems.push(`${path}: ${key} must be a string`);
    return undefined;
  }
  return v;
}

function isRowOfCells(row: unknown): boolean {
  if (!isObj(row)) return false;
  for (const key in row) {
    const v = row[key];
    if (v !== null && typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') return false;
  }
  return true;
}

/**
 * Deepest nesting of a package file: a recipe's blocks nest at most 100 deep (compile.ts), two
 * levels of JSON each, with their inputs inside.
 */
export const MAX_FILE_DEPTH = 512;
/**
 * Most objects and lists in a package file: what parses within the reader's heap (reader.ts), with
 * room for a lookup table of a million rows.
 */
export const MAX_FILE_CONTAINERS = 3_000_000;

/** Parse and check every file; every problem is listed before anything changes. */
export async function parseEntries(files: AsyncIterable<[string, Buffer]>): Promise<Entry[]> {
  const problems: string[] = [];
  const out: Entry[] = [];
  const adapterCode = new Map<string, string>();
  for await (const [path, content] of files) {
    const base = path.slice(path.lastIndexOf('/') + 1);
    if (base.startsWith('.') || path.startsWith('__MACOSX/')) continue;
    if (readAdapterCode(path, content, adapterCode, problems)) continue;
    const type = typeOfEntry(path);
    if (!type) {
      problems.push(
        `${path}: not a known asset file (expected <name>.<type>.json with a type of ${FILE_TYPES.join(', ')})`,
      );
      continue;
    }
    const text = content.toString('utf8');
    // Checked on the text: every walk over a parsed file recurses (JSON.stringify of a recipe's
    // code among them), and each object or list costs the heap tens of bytes.
    const shape = jsonShape(text);
    if (shape.depth > MAX_FILE_DEPTH) {
      problems.push(`${path}: nests objects and arrays more than ${MAX_FILE_DEPTH} levels deep`);
      continue;
    }
    if (shape.containers > MAX_FILE_CONTAINERS) {
      problems.push(
        `${path}: holds ${shape.containers} objects and lists; at most ${MAX_FILE_CONTAINERS} are accepted in a file`,
      );
      continue;
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (error) {
      problems.push(`${path}: not valid JSON (${(error as Error).message})`);
      continue;
    }
    if (!isObj(body)) {
      problems.push(`${path}: must hold a JSON object`);
      continue;
    }
    const before = problems.length;
    if (type === 'custom_adapter') nameAdapter(path, body);
    const name = str(body, 'name', problems, path);
    if (name !== undefined && name.trim() === '') problems.push(`${path}: name is blank`);
    if (type === 'recipe' && !isObj(body.code) && typeof body.code !== 'string')
      problems.push(`${path}: code must be an object`);
    if (
      type === 'recipe' &&
      body.test_cases !== undefined &&
      (!Array.isArray(body.test_cases) ||
        !body.test_cases.every((tc) => isObj(tc) && typeof tc.name === 'string' && tc.name.trim() !== ''))
    )
      problems.push(`${path}: test_cases must be a list of test cases, each with a name`);
    if (type === 'connection' && !namesAdapterFile(body)) str(body, 'provider', problems, path);
    if (type === 'custom_adapter') checkAdapterFields(body, path, problems);
    if (type === 'lookup_table') {
      if (
        !Array.isArray(body.schema) ||
        body.schema.length === 0 ||
        body.schema.length > CELL_COLUMNS.length ||
        !body.schema.every((c) => isObj(c) && typeof c.label === 'string' && c.label.trim() !== '')
      ) {
        problems.push(`${path}: schema must be a list of 1 to ${CELL_COLUMNS.length} columns, each with a label`);
      }
      if (
        body.data !== undefined &&
        body.data !== null &&
        (!Array.isArray(body.data) || !body.data.every(isRowOfCells))
      ) {
        problems.push(`${path}: data must be a list of rows, each an object of text cells`);
      }
    }
    if (type === 'workato_db_table') {
      try {
        columnsFromDefinition(body.schema);
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        problems.push(
          `${path}: ${Object.entries(error.errors ?? {})
            .map(([k, v]) => `${k} ${v.join(', ')}`)
            .join('; ')}`,
        );
      }
      if (body.data !== undefined && body.data !== null && (!Array.isArray(body.data) || !body.data.every(isObj))) {
        problems.push(`${path}: data must be a list of records, each an object of values by column UUID`);
      }
    }
    if (type === 'topic') {
      if (body.schema !== undefined && body.schema !== null && !Array.isArray(body.schema))
        problems.push(`${path}: schema must be a list of fields or null`);
      const r = body.retention;
      if (
        r !== undefined &&
        r !== null &&
        (typeof r !== 'number' || !Number.isInteger(r) || r < RETENTION_LIMITS.min || r > RETENTION_LIMITS.max)
      )
        problems.push(
          `${path}: retention must be a whole number of seconds from ${RETENTION_LIMITS.min} to ${RETENTION_LIMITS.max}`,
        );
    }
    if (type === 'api_endpoint') {
      const method = str(body, 'method', problems, path);
      if (method !== undefined && !['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].includes(method.toUpperCase()))
        problems.push(`${path}: method must be GET, POST, PUT, PATCH or DELETE`);
      str(body, 'path', problems, path);
    }
    if (type === 'account_property' || type === 'project_property') {
      const v = body.value;
      if (typeof v !== 'string') problems.push(`${path}: value must be a string`);
    }
    if (problems.length > before) continue;
    const entry: Entry = { path, dir: path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '', type, body };
    if ((type === 'lookup_table' || type === 'workato_db_table') && Array.isArray(body.data)) {
      entry.data = { rows: body.data.length };
      delete body.data;
    }
    out.push(entry);
  }
  pairAdapterCode(out, adapterCode, problems);
  if (problems.length > 0)
    throw new PackageFailure(
      `${problems.length} file(s) of the package are not valid; nothing was imported`,
      problems.slice(0, 100),
    );
  if (out.length === 0) throw new PackageFailure('The package holds no asset files; nothing was imported');
  return out;
}

// Custom connectors' files (their applier is appliers/custom-adapters.ts).

/** A custom connector's Ruby source, beside its `<name>.custom_adapter.json`. */
export const ADAPTER_CODE = '.custom_adapter.rb';
export const ADAPTER_JSON = '.custom_adapter.json';

/**
 * Reading the zip: a `.custom_adapter.rb` file is kept (by its stem) to be paired with its JSON;
 * false for any other file.
 */
export function readAdapterCode(
  path: string,
  content: Buffer,
  adapterCode: Map<string, string>,
  problems: string[],
): boolean {
  if (!path.endsWith(ADAPTER_CODE)) return false;
  const code = content.toString('utf8');
  if (!Buffer.from(code, 'utf8').equals(content)) problems.push(`${path}: the connector's code is not UTF-8`);
  else if (content.length > MAX_CODE_BYTES) problems.push(`${path}: the connector's code is larger than 10 MB`);
  else adapterCode.set(path.slice(0, -ADAPTER_CODE.length), code);
  return true;
}

/** A custom adapter's metadata has a title and no name: its file names it. */
export function nameAdapter(path: string, body: Obj): void {
  const base = path.slice(path.lastIndexOf('/') + 1);
  if (body.name === undefined) body.name = base.slice(0, -ADAPTER_JSON.length);
}

/** The checks of an adapter's JSON, and of a connection that names an adapter file instead of a provider. */
export function checkAdapterFields(body: Obj, path: string, problems: string[]): void {
  const title = body.title;
  if (title === undefined || title === null) problems.push(`${path}: title is missing`);
  else if (typeof title !== 'string') problems.push(`${path}: title must be a string`);
  else if (title.trim() === '') problems.push(`${path}: title is blank`);
}

/** A connection's provider as a reference to an adapter file of the package (`{zip_name}`). */
export function namesAdapterFile(body: Obj): boolean {
  return isObj(body.provider) && typeof body.provider.zip_name === 'string';
}

/** Each adapter gets its code; code without its JSON, and connections naming no adapter of the package, are problems. */
export function pairAdapterCode(out: Entry[], adapterCode: Map<string, string>, problems: string[]): void {
  for (const entry of out) {
    if (entry.type !== 'custom_adapter') continue;
    const stem = entry.path.slice(0, -ADAPTER_JSON.length);
    const code = adapterCode.get(stem);
    if (code === undefined) problems.push(`${entry.path}: the connector's code ${stem}${ADAPTER_CODE} is missing`);
    else entry.code = code;
    adapterCode.delete(stem);
  }
  for (const stem of adapterCode.keys())
    problems.push(`${stem}${ADAPTER_CODE}: no ${stem}${ADAPTER_JSON} beside it (the connector's title)`);
  for (const entry of out) {
    const provider = entry.type === 'connection' ? entry.body.provider : undefined;
    if (
      isObj(provider) &&
      !out.some((e) => e.type === 'custom_adapter' && zipNameMatches(e.path, String(provider.zip_name)))
    )
      problems.push(`${entry.path}: its provider names ${String(provider.zip_name)}, which the package does not hold`);
  }
}

/** A reference's `zip_name` names a file by its path in the zip or by its base name. */
export function zipNameMatches(path: string, zipName: string): boolean {
  return path === zipName || path.slice(path.lastIndexOf('/') + 1) === zipName;
}
