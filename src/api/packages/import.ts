// An import: read the zip (limits checked before anything is inflated), check every file, then
// create or update the assets in one transaction — all or nothing. Assets are matched in the
// target by folder path, name and type (contract 15 §12 rule 5); connections keep the target's
// credentials; running recipes that change are restarted only with restart_recipes.
import { randomUUID } from 'node:crypto';
import type { ServiceContext } from '../../context.ts';
import type { Db, PackageRow, RecipeRow } from '../../db/types.ts';
import { AppError, type FieldErrors } from '../../errors.ts';
import { checkDoc, stepIndex } from '../test_cases/test-case-doc.ts';
import { replaceTestCases } from '../test_cases/test_cases.store.ts';
import { toStored } from '../../time.ts';
import { isUniqueViolation } from '../../db/dialect.ts';
import { uniqueSlug } from '../api_collections/api_collections.service.ts';
import { findFolder } from '../folders/folder-scope.ts';
import { findHomeFolder, folderNameKey, insertFolder, insertProject, isWithin } from '../folders/folders.store.ts';
import {
  deleteAllRows,
  insertRows,
  insertTable,
  type Cells,
  CELL_COLUMNS,
} from '../lookup_tables/lookup_tables.store.ts';
import {
  deleteAllRecords,
  insertRecord,
  insertTable as insertDataTable,
  updateTableDefinition,
} from '../data_tables/data_tables.store.ts';
import { columnsFromDefinition } from '../data_tables/data_tables.service.ts';
import { coerce, type Stored } from '../data_tables/columns.ts';
import { upsertProperties } from '../properties/properties.store.ts';
import { RETENTION_LIMITS, DEFAULT_RETENTION_SECONDS } from '../event_streams/event_streams.service.ts';
import { authorOf, checkFields, newRecipeState, versionOf, type RecipeRuntime } from '../recipes/recipes.service.ts';
import {
  findRecipeById,
  insertRecipe,
  insertVersion,
  markRecipeRunning,
  markRecipeStopped,
  updateRecipe,
} from '../recipes/recipes.store.ts';
import { PackageFailure } from './export.ts';
import { attachTags, findTagByTitle, insertTag, newTagHandle, titleKey } from '../tags/tags.store.ts';
import { MAX_TITLE } from '../tags/tags.service.ts';
import { finishPackage, type ImportResult } from './packages.store.ts';
import { zipFiles, ZipError, type ZipLimits } from './zip.ts';

export interface ImportOptions {
  /** The target folder; null for a deployment, which names its project instead. */
  folderId: number | null;
  /** Deployments: the project to update, or to create, by name. */
  project?: { name: string; description: string };
  restartRecipes: boolean;
  includeTags: boolean;
  homeFolderId: number | null;
  /** The caller is limited to some projects: nothing outside the target's project may change. */
  restricted?: boolean;
  /** Deployments: every connection of the package must exist in the target (name and provider); none is created. */
  connectionsMustExist?: boolean;
  /** Deployments: the zip is the one of this package (the build's export). */
  sourcePackageId?: number;
  /** What a committed apply did (set in its transaction): after a restart, only the restarts run again. */
  applied?: AppliedRecord;
}

type FileType =
  | 'recipe'
  | 'connection'
  | 'lookup_table'
  | 'workato_db_table'
  | 'topic'
  | 'api_group'
  | 'api_endpoint'
  | 'account_property'
  | 'project_property';
const FILE_TYPES: readonly FileType[] = [
  'recipe',
  'connection',
  'lookup_table',
  'workato_db_table',
  'topic',
  'api_group',
  'api_endpoint',
  'account_property',
  'project_property',
];

interface Entry {
  path: string;
  dir: string;
  type: FileType;
  body: Record<string, unknown>;
  /**
   * A lookup table's rows: how many, checked when the files are; the rows themselves are read
   * from the zip again when the table is written, one table at a time. Holding every table's
   * file, or its parsed rows, until then would multiply the memory a large import takes.
   */
  data?: { rows: number };
}

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
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
 * Rows are converted and written this many at a time. Small enough that the insert statement is
 * short and the database layer keeps it prepared for the next batch: a statement prepared anew
 * for each batch of thousands of bound values holds native memory until the garbage collector
 * gets to it, which at 100,000 rows a table added hundreds of megabytes to the server.
 */
const ROWS_PER_BATCH = 200;

/** Parse and check every file; every problem is listed before anything changes. */
export async function parseEntries(files: AsyncIterable<[string, Buffer]>): Promise<Entry[]> {
  const problems: string[] = [];
  const out: Entry[] = [];
  for await (const [path, content] of files) {
    const base = path.slice(path.lastIndexOf('/') + 1);
    if (base.startsWith('.') || path.startsWith('__MACOSX/')) continue;
    const type = typeOfEntry(path);
    if (!type) {
      problems.push(
        `${path}: not a known asset file (expected <name>.<type>.json with a type of ${FILE_TYPES.join(', ')})`,
      );
      continue;
    }
    let body: unknown;
    try {
      body = JSON.parse(content.toString('utf8'));
    } catch (error) {
      problems.push(`${path}: not valid JSON (${(error as Error).message})`);
      continue;
    }
    if (!isObj(body)) {
      problems.push(`${path}: must hold a JSON object`);
      continue;
    }
    const before = problems.length;
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
    if (type === 'connection') str(body, 'provider', problems, path);
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
  if (problems.length > 0)
    throw new PackageFailure(
      `${problems.length} file(s) of the package are not valid; nothing was imported`,
      problems.slice(0, 100),
    );
  if (out.length === 0) throw new PackageFailure('The package holds no asset files; nothing was imported');
  return out;
}

interface Applied {
  recipeStatus: Array<{ id: number; import_result: ImportResult }>;
  restart: number[];
}

function refName(value: unknown): { zip_name?: string; name?: string } | undefined {
  if (isObj(value))
    return {
      ...(typeof value.zip_name === 'string' ? { zip_name: value.zip_name } : {}),
      ...(typeof value.name === 'string' ? { name: value.name } : {}),
    };
  if (typeof value === 'string' && value !== '') return { name: value };
  return undefined;
}

/** Apply every entry in one transaction. */
interface PackageTag {
  title: string;
  description: string | null;
  color: string | null;
}

/** A file's `tags`: objects with a title (as exports write them) or titles; undefined when malformed. */
function packageTags(value: unknown): PackageTag[] | undefined {
  if (!Array.isArray(value) || value.length > 1000) return undefined;
  const out: PackageTag[] = [];
  for (const item of value) {
    const raw = typeof item === 'string' ? { title: item } : isObj(item) ? item : undefined;
    const title = typeof raw?.title === 'string' ? raw.title.trim() : '';
    if (title === '' || title.length > MAX_TITLE || /[\u0000-\u001f\u007f]/.test(title)) return undefined;
    const text = (v: unknown, max: number) => (typeof v === 'string' && v !== '' ? v.slice(0, max) : null);
    const color = text(raw?.color, 32);
    out.push({
      title,
      description: text(raw?.description, 1000),
      color: color !== null && /^[A-Za-z0-9#_-]{1,32}$/.test(color) ? color : null,
    });
  }
  return out;
}

async function apply(
  ctx: ServiceContext,
  trx: Db,
  pkg: PackageRow,
  options: ImportOptions,
  entries: Entry[],
  readFile: (path: string) => Promise<Buffer>,
): Promise<Applied> {
  const now = toStored(ctx.clock.now());
  const target =
    options.folderId !== null
      ? await findFolder(trx, pkg.environment_id, options.folderId)
      : await projectFolder(trx, pkg, options.project, now);
  if (!target) throw new PackageFailure(`The target folder ${options.folderId} no longer exists; nothing was imported`);
  const env = pkg.environment_id;
  const projectId = target.project_id;
  const failures: string[] = [];
  const fail = (path: string, why: string) => failures.push(`${path}: ${why}`);

  // Folders: the zip's directories below the target, created when missing.
  const folderIds = new Map<string, number>([['', target.id]]);
  const folderOf = async (dir: string): Promise<number> => {
    const known = folderIds.get(dir);
    if (known !== undefined) return known;
    const parentDir = dir.includes('/') ? dir.slice(0, dir.lastIndexOf('/')) : '';
    const parentId = await folderOf(parentDir);
    const name = dir
      .slice(dir.lastIndexOf('/') + 1)
      .trim()
      .slice(0, 255);
    const existing = await trx
      .selectFrom('folders')
      .select('id')
      .where('parent_id', '=', parentId)
      .where('name_key', '=', folderNameKey(name))
      .executeTakeFirst();
    const id = existing
      ? existing.id
      : (
          await insertFolder(trx, {
            workspace_id: pkg.workspace_id,
            environment_id: env,
            parent_id: parentId,
            name,
            is_project: 0,
            project_id: projectId,
            created_at: now,
            updated_at: now,
          })
        ).id;
    folderIds.set(dir, id);
    return id;
  };
  const placeOf = async (entry: Entry): Promise<number> => {
    if (entry.body.root_folder === true && options.homeFolderId !== null) return options.homeFolderId;
    return folderOf(entry.dir);
  };

  const byType = (type: FileType) => entries.filter((e) => e.type === type);
  const name = (e: Entry) => String(e.body.name).trim();

  // Connections: matched by name in their folder; created as shells without credentials.
  const connectionByZip = new Map<string, number>();
  for (const e of byType('connection')) {
    const provider = String(e.body.provider);
    if (options.connectionsMustExist) {
      const match = await trx
        .selectFrom('connections')
        .select('id')
        .where('environment_id', '=', env)
        .where('name', '=', name(e))
        .where('provider', '=', provider)
        .orderBy('id')
        .executeTakeFirst();
      if (match) connectionByZip.set(e.path, match.id);
      else
        fail(
          e.path,
          `no connection named "${name(e)}" (${provider}) in the target environment: create it there, with that environment's credentials, and deploy again`,
        );
      continue;
    }
    const folderId = await placeOf(e);
    const existing = await trx
      .selectFrom('connections')
      .select(['id', 'provider'])
      .where('environment_id', '=', env)
      .where('folder_id', '=', folderId)
      .where('name', '=', name(e))
      .orderBy('id')
      .executeTakeFirst();
    if (existing) {
      if (existing.provider !== provider)
        fail(
          e.path,
          `a connection named "${name(e)}" exists in the target with provider ${existing.provider}, not ${provider}`,
        );
      connectionByZip.set(e.path, existing.id);
      continue;
    }
    const row = await trx
      .insertInto('connections')
      .values({
        workspace_id: pkg.workspace_id,
        environment_id: env,
        folder_id: folderId,
        parent_id: null,
        custom_oauth_profile_id: null,
        name: name(e),
        provider,
        description: null,
        external_id: null,
        input_sealed: null,
        input_fields: '[]',
        authorization_status: null,
        authorization_error: null,
        authorized_at: null,
        connection_lost_at: null,
        connection_lost_reason: null,
        created_at: now,
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    connectionByZip.set(e.path, Number(row.id));
  }

  // Topics: names are unique in an environment.
  for (const e of byType('topic')) {
    const key = name(e).toLowerCase();
    const schema = Array.isArray(e.body.schema) ? JSON.stringify(e.body.schema) : null;
    const description = typeof e.body.description === 'string' ? e.body.description : null;
    const retention = typeof e.body.retention === 'number' ? e.body.retention : DEFAULT_RETENTION_SECONDS;
    const existing = await trx
      .selectFrom('event_topics')
      .select(['id', 'folder_id', 'schema', 'description', 'retention_seconds'])
      .where('environment_id', '=', env)
      .where('name_key', '=', key)
      .executeTakeFirst();
    if (existing && options.restricted && !(await isWithin(trx, target.id, existing.folder_id))) {
      fail(e.path, `a topic named "${name(e)}" exists outside the target folder, beyond the projects you can reach`);
      continue;
    }
    if (existing) {
      if (
        existing.schema !== schema ||
        existing.description !== description ||
        existing.retention_seconds !== retention
      ) {
        await trx
          .updateTable('event_topics')
          .set({ schema, description, retention_seconds: retention, updated_at: now })
          .where('id', '=', existing.id)
          .execute();
      }
      continue;
    }
    await trx
      .insertInto('event_topics')
      .values({
        workspace_id: pkg.workspace_id,
        environment_id: env,
        folder_id: await placeOf(e),
        name: name(e),
        name_key: key,
        description,
        schema,
        retention_seconds: retention,
        created_at: now,
        updated_at: now,
      })
      .execute();
  }

  // Lookup tables: names are unique in an environment; rows replaced when the file carries data.
  for (const e of byType('lookup_table')) {
    const labels = (e.body.schema as Obj[]).map((c) => String(c.label).trim());
    if (new Set(labels.map((l) => l.toLowerCase())).size !== labels.length) {
      fail(e.path, 'two columns have the same label');
      continue;
    }
    const key = name(e).toLowerCase();
    let table = await trx
      .selectFrom('lookup_tables')
      .selectAll()
      .where('environment_id', '=', env)
      .where('name_key', '=', key)
      .executeTakeFirst();
    if (table && options.restricted && table.project_id !== projectId) {
      fail(
        e.path,
        `a lookup table named "${name(e)}" exists outside the target's project, beyond the projects you can reach`,
      );
      continue;
    }
    if (!table)
      table = await insertTable(trx, {
        workspace_id: pkg.workspace_id,
        environment_id: env,
        project_id: projectId,
        name: name(e),
        name_key: key,
        labels,
        now,
      });
    else if (table.columns !== JSON.stringify(labels))
      await trx
        .updateTable('lookup_tables')
        .set({ columns: JSON.stringify(labels), updated_at: now })
        .where('id', '=', table.id)
        .execute();
    if (e.data) {
      if (e.data.rows > ctx.config.lookupTableMaxRows) {
        fail(e.path, `holds ${e.data.rows} rows; a lookup table holds at most ${ctx.config.lookupTableMaxRows}`);
        continue;
      }
      await deleteAllRows(trx, table.id, now);
      await trx.updateTable('lookup_tables').set({ row_count: 0 }).where('id', '=', table.id).execute();
      const rows = (JSON.parse((await readFile(e.path)).toString('utf8')) as { data: Obj[] }).data;
      for (let start = 0; start < rows.length; start += ROWS_PER_BATCH) {
        const batch: Cells[] = [];
        for (const row of rows.slice(start, start + ROWS_PER_BATCH)) {
          const out: Cells = {};
          for (let i = 0; i < labels.length; i += 1) {
            const col = CELL_COLUMNS[i]!;
            const v = row[col];
            out[col] = v === undefined || v === null ? null : String(v);
          }
          batch.push(out);
        }
        await insertRows(trx, table.id, labels.length, batch, now);
      }
    }
  }

  // Data tables: names are unique in an environment; columns keep the package's UUIDs (its
  // recipes name them); records replaced when the file carries data.
  for (const e of byType('workato_db_table')) {
    const columns = columnsFromDefinition(e.body.schema);
    const key = name(e).toLowerCase();
    const existing = await trx
      .selectFrom('data_tables')
      .select(['id', 'folder_id', 'columns'])
      .where('environment_id', '=', env)
      .where('name_key', '=', key)
      .executeTakeFirst();
    if (existing && options.restricted && !(await isWithin(trx, target.id, existing.folder_id))) {
      fail(
        e.path,
        `a data table named "${name(e)}" exists outside the target folder, beyond the projects you can reach`,
      );
      continue;
    }
    let tableId: number;
    if (!existing)
      tableId = await insertDataTable(trx, {
        workspace_id: pkg.workspace_id,
        environment_id: env,
        folder_id: await placeOf(e),
        name: name(e),
        columns: JSON.stringify(columns),
        now,
      });
    else {
      tableId = existing.id;
      if (existing.columns !== JSON.stringify(columns))
        await updateTableDefinition(trx, tableId, { columns: JSON.stringify(columns), now });
    }
    if (e.data) {
      if (e.data.rows > ctx.config.dataTableMaxRecords) {
        fail(e.path, `holds ${e.data.rows} records; a data table holds at most ${ctx.config.dataTableMaxRecords}`);
        continue;
      }
      await deleteAllRecords(trx, tableId, now);
      const records = (JSON.parse((await readFile(e.path)).toString('utf8')) as { data: Obj[] }).data;
      let bad = 0;
      for (const [i, record] of records.entries()) {
        const values: Record<string, Stored> = {};
        for (const column of columns) {
          const raw = record[column.field_id] ?? record[column.field_id.replaceAll('-', '_')] ?? record[column.name];
          const coerced = coerce(column.type, raw);
          if ('problem' in coerced) {
            if (bad++ < 5) fail(e.path, `data[${i}]: ${column.name} ${coerced.problem}`);
          } else if (coerced.value !== null) values[column.field_id] = coerced.value;
        }
        await insertRecord(trx, { table_id: tableId, record_id: randomUUID(), values, now });
      }
      await trx.updateTable('data_tables').set({ record_count: records.length }).where('id', '=', tableId).execute();
    }
  }

  // Properties.
  if (options.restricted)
    for (const e of byType('account_property'))
      fail(
        e.path,
        'environment properties apply to every project: importing them needs a client with access to all projects',
      );
  const envProperties = options.restricted
    ? []
    : byType('account_property').map((e) => [name(e), String(e.body.value)] as const);
  if (envProperties.length > 0)
    await upsertProperties(
      trx,
      { workspaceId: pkg.workspace_id, environmentId: env, projectId: null },
      envProperties,
      now,
    );
  const projectProperties = byType('project_property').map((e) => [name(e), String(e.body.value)] as const);
  if (projectProperties.length > 0) {
    if (projectId === null)
      fail(byType('project_property')[0]!.path, 'project properties need a target folder inside a project');
    else
      await upsertProperties(
        trx,
        { workspaceId: pkg.workspace_id, environmentId: env, projectId },
        projectProperties,
        now,
      );
  }

  // API collections: matched by name in the target's project.
  const groupByZip = new Map<string, number>();
  const groupByDir = new Map<string, number>();
  for (const e of byType('api_group')) {
    const existing = await trx
      .selectFrom('api_collections')
      .select('id')
      .where('environment_id', '=', env)
      .where((eb) => (projectId === null ? eb('project_id', 'is', null) : eb('project_id', '=', projectId)))
      .where('name', '=', name(e))
      .executeTakeFirst();
    let id = existing?.id;
    if (id === undefined) {
      const version =
        typeof e.body.version === 'string' && e.body.version.trim() !== '' ? e.body.version.trim() : '1.0';
      const slug = await uniqueSlug(trx, env, name(e), version);
      const row = await trx
        .insertInto('api_collections')
        .values({
          workspace_id: pkg.workspace_id,
          environment_id: env,
          project_id: projectId,
          name: name(e),
          version,
          slug,
          proxy_connection_id: null,
          public_access: 0,
          doc_token: randomHex(),
          created_at: now,
          updated_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      id = Number(row.id);
    }
    groupByZip.set(e.path, id);
    if (!groupByDir.has(e.dir)) groupByDir.set(e.dir, id);
  }

  // Recipes: matched by name in their folder; a change makes a version; running ones need restart_recipes.
  const author = await authorOf(trx, pkg.workspace_id);
  const recipeByZip = new Map<string, number>();
  const recipeStatus: Applied['recipeStatus'] = [];
  const restart: number[] = [];
  const recipeEntries = byType('recipe');
  for (const e of recipeEntries) {
    const folderId = await placeOf(e);
    const code = typeof e.body.code === 'string' ? e.body.code : JSON.stringify(e.body.code);
    const config = Array.isArray(e.body.config)
      ? await resolveConfig(trx, env, e.body.config, connectionByZip)
      : undefined;
    let checked;
    try {
      checked = checkFields(
        {
          name: name(e),
          description: typeof e.body.description === 'string' ? e.body.description : '',
          code,
          ...(config !== undefined ? { config } : {}),
          ...(typeof e.body.concurrency === 'number'
            ? { concurrency: Math.min(Math.max(Math.trunc(e.body.concurrency), 1), 10) }
            : {}),
        },
        true,
      );
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      fail(
        e.path,
        Object.entries(error.errors ?? {})
          .map(([k, v]) => `${k} ${v.join(', ')}`)
          .join('; ') || error.message,
      );
      continue;
    }
    const existing = await trx
      .selectFrom('recipes')
      .selectAll()
      .where('environment_id', '=', env)
      .where('folder_id', '=', folderId)
      .where('name', '=', name(e))
      .orderBy('id')
      .executeTakeFirst();
    if (!existing) {
      const row: Omit<RecipeRow, 'id'> = {
        workspace_id: pkg.workspace_id,
        environment_id: env,
        folder_id: folderId,
        name: checked.name ?? name(e),
        description: checked.description ?? '',
        code: checked.code as string,
        config: checked.config ?? '[]',
        trigger_application: checked.trigger_application ?? null,
        action_applications: checked.action_applications ?? '[]',
        webhook_event: checked.webhook_event ?? null,
        concurrency: checked.concurrency ?? 1,
        ...newRecipeState(author, now),
      };
      const id = await insertRecipe(trx, row);
      await insertVersion(trx, versionOf(id, row, author, now));
      recipeByZip.set(e.path, id);
      await importTestCases(trx, e, id, row.code, now, fail);
      recipeStatus.push({ id, import_result: 'no_update_or_updated_without_restart' });
      continue;
    }
    recipeByZip.set(e.path, existing.id);
    await importTestCases(trx, e, existing.id, checked.code ?? existing.code, now, fail);
    const next = {
      name: checked.name ?? existing.name,
      description: checked.description ?? existing.description,
      code: checked.code ?? existing.code,
      config: checked.config ?? existing.config,
    };
    const changed =
      next.code !== existing.code ||
      next.config !== existing.config ||
      next.description !== existing.description ||
      (checked.concurrency ?? existing.concurrency) !== existing.concurrency;
    if (!changed) {
      recipeStatus.push({ id: existing.id, import_result: 'no_update_or_updated_without_restart' });
      continue;
    }
    if (existing.running === 1) {
      if (!options.restartRecipes) {
        fail(
          e.path,
          `recipe ${existing.id} ("${existing.name}") is running; import with restart_recipes=true to update it`,
        );
        continue;
      }
      await markRecipeStopped(trx, existing.id, now);
      restart.push(existing.id);
    }
    const values = { ...next, version_no: existing.version_no + 1, updated_at: now };
    await updateRecipe(trx, existing.id, {
      ...values,
      concurrency: checked.concurrency ?? existing.concurrency,
      trigger_application: checked.trigger_application ?? null,
      action_applications: checked.action_applications ?? '[]',
      webhook_event: checked.webhook_event ?? null,
    });
    await insertVersion(trx, versionOf(existing.id, values, author, now));
    if (existing.running !== 1)
      recipeStatus.push({ id: existing.id, import_result: 'no_update_or_updated_without_restart' });
  }

  // Tags (include_tags): a recipe's or connection's tags, by title, are added to it; a title the
  // target lacks becomes a new tag there. Without include_tags, tags in the files are dropped.
  if (options.includeTags) {
    const tagIds = new Map<string, number>();
    const tagIdOf = async (tag: PackageTag): Promise<number> => {
      const key = titleKey(tag.title);
      const known = tagIds.get(key);
      if (known !== undefined) return known;
      const found =
        (await findTagByTitle(trx, env, tag.title)) ??
        (await insertTag(trx, {
          workspace_id: pkg.workspace_id,
          environment_id: env,
          handle: newTagHandle(),
          title: tag.title,
          description: tag.description,
          color: tag.color,
          created_at: now,
          updated_at: now,
        }));
      tagIds.set(key, found.id);
      return found.id;
    };
    for (const [kind, ids] of [
      ['recipe', recipeByZip],
      ['connection', connectionByZip],
    ] as const) {
      for (const e of byType(kind)) {
        const assetId = ids.get(e.path);
        if (assetId === undefined || e.body.tags === undefined || e.body.tags === null) continue;
        const tags = packageTags(e.body.tags);
        if (tags === undefined) {
          fail(e.path, `tags must be a list of tags, each with a title of 1 to ${MAX_TITLE} characters`);
          continue;
        }
        const wanted: number[] = [];
        for (const tag of tags) wanted.push(await tagIdOf(tag));
        await attachTags(trx, kind, wanted, [assetId], now);
      }
    }
  }

  // API endpoints: their collection and recipe by reference (or, in the vendor's folder layout,
  // the folder's api_collection.json and recipe_name); matched by method and path in the collection.
  const recipeByName = async (ref: { zip_name?: string; name?: string }): Promise<number | undefined> => {
    if (ref.zip_name !== undefined && recipeByZip.has(ref.zip_name)) return recipeByZip.get(ref.zip_name);
    if (ref.name === undefined) return undefined;
    const stemMatch = recipeEntries.find(
      (r) => r.path.slice(r.path.lastIndexOf('/') + 1) === `${ref.name}.recipe.json` || name(r) === ref.name,
    );
    if (stemMatch) return recipeByZip.get(stemMatch.path);
    const row = await trx
      .selectFrom('recipes')
      .select('id')
      .where('environment_id', '=', env)
      .where('name', '=', ref.name)
      .orderBy('id')
      .executeTakeFirst();
    return row?.id;
  };
  for (const e of byType('api_endpoint')) {
    const groupRef = refName(e.body.api_group_id);
    let collectionId = groupRef?.zip_name !== undefined ? groupByZip.get(groupRef.zip_name) : undefined;
    if (collectionId === undefined && groupRef?.name !== undefined) {
      const row = await trx
        .selectFrom('api_collections')
        .select('id')
        .where('environment_id', '=', env)
        .where('name', '=', groupRef.name)
        .orderBy('id')
        .executeTakeFirst();
      collectionId = row?.id;
    }
    collectionId ??= groupByDir.get(e.dir);
    if (collectionId === undefined) {
      fail(e.path, 'names no API collection of the package or of the target');
      continue;
    }
    const recipeRef = refName(e.body.recipe_id) ?? refName(e.body.recipe_name);
    const flowId = recipeRef ? await recipeByName(recipeRef) : undefined;
    if (recipeRef && flowId === undefined) {
      fail(
        e.path,
        `names recipe "${recipeRef.name ?? recipeRef.zip_name}", which is neither in the package nor in the target`,
      );
      continue;
    }
    const method = String(e.body.method).toUpperCase();
    const path = String(e.body.path).trim().replace(/^\/+/, '');
    const description = typeof e.body.description === 'string' ? e.body.description : null;
    const existing = await trx
      .selectFrom('api_endpoints')
      .select('id')
      .where('collection_id', '=', collectionId)
      .where('method', '=', method)
      .where('path', '=', path)
      .executeTakeFirst();
    if (existing) {
      await trx
        .updateTable('api_endpoints')
        .set({ name: name(e), description, flow_id: flowId ?? null, updated_at: now })
        .where('id', '=', existing.id)
        .execute();
      continue;
    }
    try {
      await trx
        .insertInto('api_endpoints')
        .values({
          collection_id: collectionId,
          flow_id: flowId ?? null,
          name: name(e),
          method,
          path,
          description,
          active: 0,
          created_at: now,
          updated_at: now,
        })
        .execute();
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      fail(e.path, `another endpoint of the collection answers ${method} ${path}`);
    }
  }

  if (failures.length > 0)
    throw new PackageFailure(
      `${failures.length} asset(s) could not be imported; nothing was imported`,
      failures.slice(0, 100),
    );
  return { recipeStatus, restart };
}

/** A deployment's project in the target environment, by name; created (with its folder) when absent. */
async function projectFolder(db: Db, pkg: PackageRow, project: ImportOptions['project'], now: string) {
  if (!project) return undefined;
  const existing = await db
    .selectFrom('projects')
    .select('folder_id')
    .where('environment_id', '=', pkg.environment_id)
    .where('name', '=', project.name)
    .executeTakeFirst();
  if (existing) return findFolder(db, pkg.environment_id, existing.folder_id);
  const home = await findHomeFolder(db, pkg.environment_id);
  if (!home) return undefined;
  try {
    const created = await insertProject(db, {
      workspaceId: pkg.workspace_id,
      environmentId: pkg.environment_id,
      homeFolderId: home.id,
      name: project.name,
      description: project.description,
      now,
    });
    return created.folder;
  } catch (error) {
    if (isUniqueViolation(error))
      throw new PackageFailure(
        `A folder named "${project.name}" exists in the target environment and is not a project; rename it, then deploy again`,
      );
    throw error;
  }
}

/** A recipe file's test cases replace the recipe's (by name), checked against its steps; absent: untouched. */
async function importTestCases(
  db: Db,
  e: Entry,
  recipeId: number,
  code: string,
  now: string,
  fail: (path: string, why: string) => void,
): Promise<void> {
  if (!Array.isArray(e.body.test_cases)) return;
  const index = stepIndex(code);
  const cases: Array<{ name: string; description: string; body: string }> = [];
  for (const [i, raw] of (e.body.test_cases as Obj[]).entries()) {
    const errors: FieldErrors = {};
    const doc = checkDoc(raw, index, errors);
    if (Object.keys(errors).length > 0) {
      fail(
        e.path,
        `test case ${i} ("${String(raw.name)}"): ${Object.entries(errors)
          .map(([k, v]) => `${k} ${v.join(', ')}`)
          .join('; ')}`,
      );
      continue;
    }
    cases.push({
      name: String(raw.name).trim().slice(0, 255),
      description: typeof raw.description === 'string' ? raw.description : '',
      body: JSON.stringify(doc),
    });
  }
  if (new Set(cases.map((c) => c.name)).size !== cases.length) fail(e.path, 'two test cases have the same name');
  else await replaceTestCases(db, recipeId, cases, now);
}

function randomHex(): string {
  return crypto.getRandomValues(new Uint8Array(16)).reduce((s, b) => s + b.toString(16).padStart(2, '0'), '');
}

/** A config array with connection references turned into the target's connection ids where they resolve. */
async function resolveConfig(
  db: Db,
  environmentId: number,
  config: unknown[],
  byZip: ReadonlyMap<string, number>,
): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const entry of config) {
    if (!isObj(entry) || !isObj(entry.account_id)) {
      out.push(entry);
      continue;
    }
    const ref = entry.account_id;
    const provider = typeof entry.provider === 'string' ? entry.provider : '';
    let id = typeof ref.zip_name === 'string' ? byZip.get(ref.zip_name) : undefined;
    if (id === undefined && typeof ref.name === 'string') {
      const row = await db
        .selectFrom('connections')
        .select('id')
        .where('environment_id', '=', environmentId)
        .where('name', '=', ref.name)
        .where('provider', '=', provider)
        .orderBy('id')
        .executeTakeFirst();
      id = row?.id;
    }
    out.push(id === undefined ? entry : { ...entry, account_id: id });
  }
  return out;
}

/** What the apply step recorded in the package (in its transaction), so a restart resumes after it. */
export interface AppliedRecord {
  recipeStatus: Array<{ id: number; import_result: ImportResult }>;
  restart: number[];
}

/**
 * Run an import from the package's stored zip: apply it (one transaction, which also records
 * what it did in the package), restart what was running, record the outcome. After a restart
 * of the server, `applied` carries what a committed apply did, and only the restarts run again.
 */
export async function runImport(
  ctx: ServiceContext,
  engine: RecipeRuntime,
  pkg: PackageRow,
  options: ImportOptions,
  zip: () => Promise<Buffer>,
  limits: ZipLimits,
  applied?: AppliedRecord,
): Promise<void> {
  let record = applied;
  if (!record) {
    const archive = await zip();
    const entries = await asFailure(() => parseEntries(zipFiles(archive, limits)));
    const readFile = (path: string) =>
      asFailure(async () => {
        for await (const [, content] of zipFiles(archive, limits, path)) return content;
        throw new PackageFailure(`${path}: no longer in the archive`);
      });
    record = await ctx.db.transaction().execute(async (trx) => {
      const done = await apply(ctx, trx, pkg, options, entries, readFile);
      const rec: AppliedRecord = { recipeStatus: done.recipeStatus, restart: done.restart };
      await recordApplied(trx, pkg.id, rec);
      return rec;
    });
    ctx.notifier.publish('connections.changed', { workspaceId: pkg.workspace_id });
    ctx.notifier.publish('api_routes.changed', { environmentId: pkg.environment_id });
    ctx.notifier.publish('properties.changed', { environmentId: pkg.environment_id });
    ctx.notifier.publish('lookup_tables.changed', { environmentId: pkg.environment_id });
    for (const topicId of await topicIdsOf(ctx.db, pkg.environment_id))
      ctx.notifier.publish('event_topic.changed', { topicId });
  }
  const statuses = [...record.recipeStatus];
  const problems: string[] = [];
  for (const id of record.restart) {
    engine.recipeStopped(id);
    const row = await findRecipeById(ctx.db, id);
    try {
      if (row && row.running === 1) {
        statuses.push({ id, import_result: 'restarted' });
        continue;
      }
      const validation = row ? await engine.validate(row) : undefined;
      if (!row || !validation || validation.codeErrors.length > 0 || validation.configErrors.length > 0) {
        statuses.push({ id, import_result: 'stopped' });
        problems.push(`recipe ${id} was updated but has errors and was left stopped`);
        continue;
      }
      if (!(await markRecipeRunning(ctx.db, id))) throw new Error('the recipe could not be marked running');
      await engine.recipeStarted(id);
      statuses.push({ id, import_result: 'restarted' });
    } catch (error) {
      ctx.log.warn(
        { err: error, recipeId: id, packageId: pkg.id },
        'a recipe updated by an import could not be restarted',
      );
      statuses.push({ id, import_result: 'restart_failed' });
      problems.push(`recipe ${id} was updated but could not be restarted`);
    }
  }
  const now = toStored(ctx.clock.now());
  if (problems.length > 0) {
    await finishPackage(ctx.db, pkg.id, {
      status: 'failed',
      error: problems.join('; '),
      error_parts: problems,
      recipe_status: statuses,
      now,
    });
  } else {
    await finishPackage(ctx.db, pkg.id, { status: 'completed', recipe_status: statuses, now });
  }
}

/** A zip that is not valid fails the package with the reason. */
async function asFailure<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof ZipError) throw new PackageFailure(error.message);
    throw error;
  }
}

async function recordApplied(db: Db, packageId: number, record: AppliedRecord): Promise<void> {
  const row = await db.selectFrom('packages').select('options').where('id', '=', packageId).executeTakeFirstOrThrow();
  const options = JSON.parse(row.options) as Record<string, unknown>;
  await db
    .updateTable('packages')
    .set({ options: JSON.stringify({ ...options, applied: record }) })
    .where('id', '=', packageId)
    .execute();
}

async function topicIdsOf(db: Db, environmentId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('event_topics')
    .select('id')
    .where('environment_id', '=', environmentId)
    .where('deleted_at', 'is', null)
    .execute();
  return rows.map((r) => r.id);
}
