// An import: read the zip (limits checked before anything is inflated), check every file, then
// create or update the assets in one transaction — all or nothing. Assets are matched in the
// target by folder path, name and type (contract 15 §12 rule 5); connections keep the target's
// credentials; running recipes that change are restarted only with restart_recipes.
import { startRun } from './appliers/run.ts';
import { applyConnections } from './appliers/connections.ts';
import { applyCustomAdapters } from './appliers/custom-adapters.ts';
import { applyTopics } from './appliers/topics.ts';
import { applyLookupTables } from './appliers/lookup-tables.ts';
import { applyDataTables } from './appliers/data-tables.ts';
import { applyProperties } from './appliers/properties.ts';
import { applyApiCollections } from './appliers/api-collections.ts';
import { applyRecipes } from './appliers/recipes.ts';
import { applyApiEndpoints } from './appliers/api-endpoints.ts';
import type { ServiceContext } from '../../context.ts';
import type { Db, PackageRow } from '../../db/types.ts';
import { AppError } from '../../errors.ts';
import { toStored } from '../../time.ts';
import { CELL_COLUMNS } from '../lookup_tables/lookup_tables.store.ts';
import { columnsFromDefinition } from '../data_tables/data_tables.input.ts';
import { RETENTION_LIMITS } from '../event_streams/event_streams.service.ts';
import { type RecipeRuntime } from '../recipes/recipes.service.ts';
import { findRecipeById, markRecipeRunning } from '../recipes/recipes.store.ts';
import { PackageFailure } from './export.ts';
import { finishPackage } from './packages.store.ts';
import { zipFiles, ZipError, type ZipLimits } from './zip.ts';
import {
  type ImportOptions,
  type FileType,
  FILE_TYPES,
  type Entry,
  type Obj,
  isObj,
  zipNameMatches,
  type Applied,
} from './appliers/run.ts';
import { MAX_CODE_BYTES } from '../custom_connectors/custom_connectors.service.ts';

/** A custom connector's Ruby source, beside its `<name>.custom_adapter.json`. */
const ADAPTER_CODE = '.custom_adapter.rb';
import type { AppliedRecord } from './import.store.ts';
import { recordApplied, topicIdsOf } from './import.store.ts';

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

/** Parse and check every file; every problem is listed before anything changes. */
export async function parseEntries(files: AsyncIterable<[string, Buffer]>): Promise<Entry[]> {
  const problems: string[] = [];
  const out: Entry[] = [];
  const adapterCode = new Map<string, string>();
  for await (const [path, content] of files) {
    const base = path.slice(path.lastIndexOf('/') + 1);
    if (base.startsWith('.') || path.startsWith('__MACOSX/')) continue;
    if (base.endsWith(ADAPTER_CODE)) {
      const code = content.toString('utf8');
      if (!Buffer.from(code, 'utf8').equals(content)) problems.push(`${path}: the connector's code is not UTF-8`);
      else if (content.length > MAX_CODE_BYTES) problems.push(`${path}: the connector's code is larger than 10 MB`);
      else adapterCode.set(path.slice(0, -ADAPTER_CODE.length), code);
      continue;
    }
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
    // A custom adapter's metadata has a title, no name: its file names it.
    if (type === 'custom_adapter' && body.name === undefined) body.name = base.slice(0, -'.custom_adapter.json'.length);
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
    if (type === 'connection' && !(isObj(body.provider) && typeof body.provider.zip_name === 'string'))
      str(body, 'provider', problems, path);
    if (type === 'custom_adapter') {
      const title = str(body, 'title', problems, path);
      if (title !== undefined && title.trim() === '') problems.push(`${path}: title is blank`);
    }
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
  for (const entry of out) {
    if (entry.type !== 'custom_adapter') continue;
    const stem = entry.path.slice(0, -'.custom_adapter.json'.length);
    const code = adapterCode.get(stem);
    if (code === undefined) problems.push(`${entry.path}: the connector's code ${stem}${ADAPTER_CODE} is missing`);
    else entry.code = code;
    adapterCode.delete(stem);
  }
  for (const stem of adapterCode.keys())
    problems.push(`${stem}${ADAPTER_CODE}: no ${stem}.custom_adapter.json beside it (the connector's title)`);
  for (const entry of out) {
    const provider = entry.type === 'connection' ? entry.body.provider : undefined;
    if (
      isObj(provider) &&
      !out.some((e) => e.type === 'custom_adapter' && zipNameMatches(e.path, String(provider.zip_name)))
    )
      problems.push(`${entry.path}: its provider names ${String(provider.zip_name)}, which the package does not hold`);
  }
  if (problems.length > 0)
    throw new PackageFailure(
      `${problems.length} file(s) of the package are not valid; nothing was imported`,
      problems.slice(0, 100),
    );
  if (out.length === 0) throw new PackageFailure('The package holds no asset files; nothing was imported');
  return out;
}

/** Apply every entry in one transaction. */
async function apply(
  ctx: ServiceContext,
  trx: Db,
  pkg: PackageRow,
  options: ImportOptions,
  entries: Entry[],
  readFile: (path: string) => Promise<Buffer>,
): Promise<Applied> {
  const run = await startRun(ctx, trx, pkg, options, entries, readFile);
  // In this order: recipes name connections; endpoints name collections and recipes.
  await applyCustomAdapters(run);
  await applyConnections(run);
  await applyTopics(run);
  await applyLookupTables(run);
  await applyDataTables(run);
  await applyProperties(run);
  await applyApiCollections(run);
  await applyRecipes(run);
  await applyApiEndpoints(run);
  const { failures, recipeStatus, restart } = run;
  if (failures.length > 0)
    throw new PackageFailure(
      `${failures.length} asset(s) could not be imported; nothing was imported`,
      failures.slice(0, 100),
    );
  return { recipeStatus, restart };
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
