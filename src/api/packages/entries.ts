// The files of a package, checked before anything is imported: each file's name says its asset
// type, its JSON is measured before it is parsed, and the fields the appliers read are checked.
// Run in the reader's worker thread (reader-worker.ts), one file at a time.
import { CELL_COLUMNS } from '../lookup_tables/lookup_tables.store.ts';
import { RETENTION_LIMITS } from '../event_streams/event_streams.service.ts';
import { jsonShape } from '../../json-shape.ts';
import { PackageFailure } from './export.ts';
import { MAX_CODE_BYTES } from '../custom_connectors/custom_connectors.service.ts';
import { checkPropertyName, checkPropertyValue, PROPERTY_LIMITS } from '../properties/property-checks.ts';
import { checkDataTableFile } from './data-table-file.ts';
import { PROJECT_FILE } from '../export_manifests/asset-types.ts';

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
  | 'custom_adapter'
  | 'workato_template'
  | 'project';
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
  'workato_template',
  'project',
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
  /** What is imported differently from the file, and why (a data table's columns of a type not held here). */
  notes?: string[];
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

export type { FileOutcome } from './packages.store.ts';

/** A file this server does not use, kept as it came (migration 0061) and exported again with its folder. */
export interface KeptFile {
  path: string;
  dir: string;
  name: string;
  content: Uint8Array;
}

/** The files of a package as read: the assets to apply, the files kept, and those set aside with their reason. */
export interface ParsedPackage {
  entries: Entry[];
  kept: KeptFile[];
  /** Files that fail alone (a property file, a data table): the rest of the package imports. */
  failed: Array<{ path: string; type: string; reason: string }>;
  skipped: Array<{ path: string; reason: string }>;
}

/** A kept file's bytes, and all of a package's kept files together, at most. */
export const KEPT_FILE_MAX_BYTES = 16 * 1024 * 1024;
export const KEPT_TOTAL_MAX_BYTES = 64 * 1024 * 1024;

/** Parse and check every file; every problem is listed before anything changes. */
export async function parseEntries(files: AsyncIterable<[string, Buffer]>): Promise<ParsedPackage> {
  const problems: string[] = [];
  const out: Entry[] = [];
  const kept: KeptFile[] = [];
  const failed: ParsedPackage['failed'] = [];
  const skipped: ParsedPackage['skipped'] = [];
  let keptBytes = 0;
  const adapterCode = new Map<string, string>();
  for await (const [path, content] of files) {
    const base = path.slice(path.lastIndexOf('/') + 1);
    const dir = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '';
    if (base.startsWith('.') || path.startsWith('__MACOSX/')) {
      skipped.push({ path, reason: 'a hidden file or folder metadata, not part of the package' });
      continue;
    }
    if (readAdapterCode(path, content, adapterCode, problems)) continue;
    const vendorProperties = propertyFileKind(base);
    if (vendorProperties) {
      const read = readPropertyFile(content.toString('utf8'), vendorProperties);
      if ('reason' in read) failed.push({ path, type: vendorProperties, reason: read.reason });
      else
        for (const [name, value] of read.properties)
          out.push({ path, dir, type: vendorProperties, body: { name, value } });
      continue;
    }
    if (path === PROJECT_FILE) {
      // The exported project's description, colour and icon: set on the target project.
      const read = readProjectFile(content.toString('utf8'));
      if ('reason' in read) failed.push({ path, type: 'project', reason: read.reason });
      else out.push({ path, dir, type: 'project', body: read.project });
      continue;
    }
    const type = typeOfEntry(path);
    if (!type) {
      // A file this server does not use (the vendor's low-code apps and pages, anything newer):
      // kept as it came and exported again; it never fails the import.
      if (content.length > KEPT_FILE_MAX_BYTES)
        failed.push({
          path,
          type: 'unknown',
          reason: `a file this server does not use is kept up to ${KEPT_FILE_MAX_BYTES} bytes; this one holds ${content.length}`,
        });
      else if (keptBytes + content.length > KEPT_TOTAL_MAX_BYTES)
        failed.push({
          path,
          type: 'unknown',
          reason: `the files this server does not use are kept up to ${KEPT_TOTAL_MAX_BYTES} bytes a package`,
        });
      else {
        keptBytes += content.length;
        kept.push({ path, dir, name: base, content: new Uint8Array(content) });
      }
      continue;
    }
    // A data table or property file that is not right fails alone; any other file fails the package.
    const alone =
      type === 'workato_db_table' ||
      type === 'workato_template' ||
      type === 'account_property' ||
      type === 'project_property';
    const fileProblems: string[] = [];
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
      (alone ? fileProblems : problems).push(`${path}: not valid JSON (${(error as Error).message})`);
      if (alone) failed.push({ path, type, reason: reasonOf(path, fileProblems) });
      continue;
    }
    if (!isObj(body)) {
      (alone ? fileProblems : problems).push(`${path}: must hold a JSON object`);
      if (alone) failed.push({ path, type, reason: reasonOf(path, fileProblems) });
      continue;
    }
    const checks = alone ? fileProblems : problems;
    const before = problems.length;
    const notes: string[] = [];
    if (type === 'custom_adapter') nameAdapter(path, body);
    const name = str(body, 'name', checks, path);
    if (name !== undefined && name.trim() === '') checks.push(`${path}: name is blank`);
    checkTypeFields(type, body, path, name, problems, fileProblems, notes);
    if (fileProblems.length > 0) {
      failed.push({ path, type, reason: reasonOf(path, fileProblems) });
      continue;
    }
    if (problems.length > before) continue;
    const entry: Entry = { path, dir, type, body };
    if (notes.length > 0) entry.notes = notes;
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
  if (out.length === 0 && kept.length === 0)
    throw new PackageFailure(
      failed.length > 0
        ? `No file of the package could be imported; nothing was imported`
        : 'The package holds no asset files; nothing was imported',
      failed.slice(0, 100).map((f) => `${f.path}: ${f.reason}`),
    );
  return { entries: out, kept, failed, skipped };
}

/** The fields each asset type's applier reads; a data table or property file's problems fail that file alone. */
function checkTypeFields(
  type: FileType,
  body: Obj,
  path: string,
  name: string | undefined,
  problems: string[],
  fileProblems: string[],
  notes: string[],
): void {
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
  if (type === 'workato_db_table') checkDataTableFile(body, path, fileProblems, notes);
  if (type === 'workato_template') checkTemplateFile(body, path, fileProblems);
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
    if (typeof v !== 'string') fileProblems.push(`${path}: value must be a string`);
    else if (name !== undefined) {
      const wrong = [...checkPropertyName(name), ...checkPropertyValue(v)];
      if (wrong.length > 0) fileProblems.push(`${path}: ${wrong.join('; ')}`);
    }
  }
}

/** A file's problems as its reason: the path, said once by the result's own `path`, left out. */
function reasonOf(path: string, problems: string[]): string {
  return problems.map((p) => (p.startsWith(`${path}: `) ? p.slice(path.length + 2) : p)).join('; ');
}

// The vendor's property files (contract 15 §13): `account_properties.properties.json` holds the
// environment's properties as `{"<name>": value, ...}`, `<project>.project_properties.json` the
// project's as `{"data": {...}}`. The vendor writes null values: names only.

/** The property level a file name says: `*.project_properties.json` or `*.properties.json`. */
export function propertyFileKind(base: string): 'account_property' | 'project_property' | undefined {
  if (base.endsWith('.project_properties.json')) return 'project_property';
  if (base.endsWith('.properties.json')) return 'account_property';
  return undefined;
}

/** The properties of a vendor property file (a null value: the name only), or why the file is refused. */
export function readPropertyFile(
  text: string,
  kind: 'account_property' | 'project_property',
): { properties: Array<[string, string | null]> } | { reason: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { reason: `not valid JSON (${(error as Error).message})` };
  }
  if (!isObj(parsed)) return { reason: 'must hold a JSON object of property names and values' };
  // The project file wraps its properties in `data`; the account file may too.
  const wrapped = isObj(parsed.data) && (kind === 'project_property' || Object.keys(parsed).length === 1);
  if (kind === 'project_property' && !wrapped)
    return { reason: 'must hold {"data": {...}}: an object of property names and values under "data"' };
  const map = wrapped ? (parsed.data as Obj) : parsed;
  const names = Object.keys(map);
  if (names.length > PROPERTY_LIMITS.perLevel)
    return { reason: `holds ${names.length} properties; at most ${PROPERTY_LIMITS.perLevel} fit in one level` };
  const problems: string[] = [];
  const properties: Array<[string, string | null]> = [];
  for (const name of names) {
    const raw = map[name];
    const value =
      raw === null
        ? null
        : typeof raw === 'string'
          ? raw
          : typeof raw === 'number' || typeof raw === 'boolean'
            ? JSON.stringify(raw)
            : undefined;
    const wrong =
      value === undefined
        ? ['value must be text, a number, true, false or null']
        : [...checkPropertyName(name), ...(value === null ? [] : checkPropertyValue(value))];
    if (wrong.length > 0) problems.push(`property ${JSON.stringify(name.slice(0, 100))}: ${wrong.join(', ')}`);
    else properties.push([name.trim(), value ?? null]);
  }
  if (problems.length > 0) return { reason: problems.slice(0, 5).join('; ') };
  return { properties };
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

/** The message template types the template step renders (the vendor's `content_type`). */
export const TEMPLATE_CONTENT_TYPES = ['html', 'text', 'json', 'xml'] as const;
export const TEMPLATE_MAX_BODY = 100_000;

/**
 * A message template file (`<name>.workato_template.json`, contract 15 §13): `{name, body|template,
 * content_type?, description?, schema?}`. Its problems fail the file alone.
 */
function checkTemplateFile(body: Obj, path: string, fileProblems: string[]): void {
  const text = body.body ?? body.template;
  if (typeof text !== 'string') fileProblems.push(`${path}: body must be the template's text`);
  else if (text.length > TEMPLATE_MAX_BODY)
    fileProblems.push(`${path}: body holds ${text.length} characters; a template holds at most ${TEMPLATE_MAX_BODY}`);
  const ct = body.content_type;
  if (ct !== undefined && ct !== null && !(TEMPLATE_CONTENT_TYPES as readonly unknown[]).includes(ct))
    fileProblems.push(`${path}: content_type must be one of ${TEMPLATE_CONTENT_TYPES.join(', ')}`);
  const d = body.description;
  if (d !== undefined && d !== null && typeof d !== 'string') fileProblems.push(`${path}: description must be text`);
  if (typeof body.name === 'string' && body.name.trim().length > 255)
    fileProblems.push(`${path}: name holds more than 255 characters`);
}

export const PROJECT_DESCRIPTION_MAX = 1000;

/** A project file's fields (each optional; null or absent: not set), or why the file is refused. */
export function readProjectFile(text: string): { project: Obj } | { reason: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { reason: `not valid JSON (${(error as Error).message})` };
  }
  if (!isObj(parsed)) return { reason: 'must hold a JSON object {"description", "color", "icon"}' };
  const problems: string[] = [];
  const limits: Array<[string, number]> = [
    ['description', PROJECT_DESCRIPTION_MAX],
    ['color', 40],
    ['icon', 100],
  ];
  const project: Obj = {};
  for (const [key, max] of limits) {
    const v = parsed[key];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'string') problems.push(`${key} must be text or null`);
    else if (v.length > max) problems.push(`${key} holds more than ${max} characters`);
    else project[key] = v;
  }
  if (problems.length > 0) return { reason: problems.join('; ') };
  return { project };
}
