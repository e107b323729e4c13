// An import: read the zip in a worker thread (reader.ts; limits checked as it inflates), check every
// file (entries.ts), then create or update the assets in one transaction — all or nothing. Assets
// are matched in the target by folder path, name and type (contract 15 §12 rule 5); connections keep
// the target's credentials; running recipes that change are restarted only with restart_recipes.
import { startRun } from './appliers/run.ts';
import { applyConnections } from './appliers/connections.ts';
import { applyTopics } from './appliers/topics.ts';
import { applyLookupTables } from './appliers/lookup-tables.ts';
import { applyDataTables } from './appliers/data-tables.ts';
import { applyProperties } from './appliers/properties.ts';
import { applyApiCollections } from './appliers/api-collections.ts';
import { applyRecipes } from './appliers/recipes.ts';
import { applyApiEndpoints } from './appliers/api-endpoints.ts';
import { applyCustomAdapters } from './appliers/custom-adapters.ts';
import { applyTags } from './appliers/tags.ts';
import { applyKeptFiles } from './appliers/kept-files.ts';
import { applyTemplates } from './appliers/templates.ts';
import { applyProjectFile } from './appliers/project.ts';
import { ADAPTER_CODE, ADAPTER_JSON, type FileOutcome, type ParsedPackage } from './entries.ts';
import type { ServiceContext } from '../../context.ts';
import type { Db, PackageRow } from '../../db/types.ts';
import type { StepErrors } from '../../recipe/document.ts';
import { toStored } from '../../time.ts';
import { type RecipeRuntime } from '../recipes/recipes.service.ts';
import { findRecipeById, markRecipeReleaseStopped, markRecipeRunning } from '../recipes/recipes.store.ts';
import { PackageFailure } from './export.ts';
import { finishPackage } from './packages.store.ts';
import type { ZipLimits } from './zip.ts';
import { openPackageReader, type PackageReader } from './reader.ts';
import { type ImportOptions, type Applied } from './appliers/run.ts';
import type { AppliedRecord } from './import.store.ts';
import { recordApplied, topicIdsOf } from './import.store.ts';

/** Apply every entry in one transaction. */
async function apply(
  ctx: ServiceContext,
  trx: Db,
  pkg: PackageRow,
  options: ImportOptions,
  parsed: ParsedPackage,
  reader: PackageReader,
): Promise<Applied> {
  const run = await startRun(ctx, trx, pkg, options, parsed.entries, reader, parsed.kept);
  for (const entry of parsed.entries) for (const note of entry.notes ?? []) run.warn(entry.path, note);
  // In this order: connections name custom connectors; recipes name connections; endpoints name collections and recipes.
  await applyCustomAdapters(run);
  await applyConnections(run);
  await applyTopics(run);
  await applyLookupTables(run);
  await applyDataTables(run);
  await applyProperties(run);
  await applyTemplates(run);
  await applyProjectFile(run);
  await applyApiCollections(run);
  await applyRecipes(run);
  await applyTags(run);
  await applyApiEndpoints(run);
  await applyKeptFiles(run);
  const { failures, recipeStatus, restart, warnings, failedFiles, changes } = run;
  if (failures.length > 0)
    throw new PackageFailure(
      `${failures.length} asset(s) could not be imported; nothing was imported`,
      failures.slice(0, 100),
    );
  for (const { path, reason } of parsed.failed) failedFiles.set(path, reason);
  if (parsed.kept.length === 0 && parsed.entries.every((e) => failedFiles.has(e.path)))
    throw new PackageFailure(
      'No file of the package could be imported; nothing was imported',
      [...failedFiles].slice(0, 100).map(([path, why]) => `${path}: ${why}`),
    );
  for (const [path, why] of failedFiles) warnings.push(`${path}: not imported: ${why}`);
  return { recipeStatus, restart, warnings, failedFiles, changes };
}

const KEPT_REASON = 'kept as it came: not used by this server, exported again with its folder';

/** What became of each file of the zip, in path order. */
function fileOutcomes(parsed: ParsedPackage, done: Applied): FileOutcome[] {
  const out = new Map<string, FileOutcome>();
  const notes = new Map<string, string[]>();
  for (const w of done.warnings) {
    const at = w.indexOf(': ');
    if (at > 0) notes.set(w.slice(0, at), [...(notes.get(w.slice(0, at)) ?? []), w.slice(at + 2)]);
  }
  for (const entry of parsed.entries) {
    if (out.has(entry.path)) continue;
    const failed = done.failedFiles.get(entry.path);
    const reason = failed ?? notes.get(entry.path)?.join('; ');
    out.set(entry.path, {
      path: entry.path,
      type: entry.type,
      result: failed === undefined ? 'imported' : 'failed',
      ...(failed === undefined && done.changes.has(entry.path) ? { change: done.changes.get(entry.path) } : {}),
      ...(reason ? { reason } : {}),
    });
    if (entry.type === 'custom_adapter' && entry.path.endsWith(ADAPTER_JSON)) {
      const code = `${entry.path.slice(0, -ADAPTER_JSON.length)}${ADAPTER_CODE}`;
      // The Ruby source is listed with its JSON: both say what happened to the connector.
      const change = done.changes.get(entry.path);
      out.set(code, {
        path: code,
        type: 'custom_adapter',
        result: failed === undefined ? 'imported' : 'failed',
        ...(failed === undefined && change ? { change } : {}),
        reason: `the code of ${entry.path}`,
      });
    }
  }
  for (const f of parsed.failed)
    out.set(f.path, { path: f.path, type: f.type === 'unknown' ? null : f.type, result: 'failed', reason: f.reason });
  for (const k of parsed.kept) out.set(k.path, { path: k.path, type: null, result: 'kept', reason: KEPT_REASON });
  for (const s of parsed.skipped) out.set(s.path, { path: s.path, type: null, result: 'skipped', reason: s.reason });
  return [...out.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
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
    // The zip is inflated, parsed and checked in a worker thread, one file at a time (reader.ts).
    const reader = await openPackageReader(await zip(), limits);
    try {
      const parsed = await reader.entries();
      record = await ctx.db.transaction().execute(async (trx) => {
        const done = await apply(ctx, trx, pkg, options, parsed, reader);
        const rec: AppliedRecord = {
          recipeStatus: done.recipeStatus,
          restart: done.restart,
          warnings: done.warnings,
          files: fileOutcomes(parsed, done),
        };
        await recordApplied(trx, pkg.id, rec);
        return rec;
      });
    } finally {
      await reader.close();
    }
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
        if (row) await markRecipeReleaseStopped(ctx.db, id);
        const first = validation ? [...validation.codeErrors, ...validation.configErrors][0] : undefined;
        problems.push(
          `recipe ${id}${row ? ` ("${row.name}")` : ''} cannot start${first ? ` (${describeStepError(first)})` : ''} and was left stopped on its new version`,
        );
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
      await markRecipeReleaseStopped(ctx.db, id);
      problems.push(
        `recipe ${id}${row ? ` ("${row.name}")` : ''} could not be started and was left stopped on its new version`,
      );
    }
  }
  const now = toStored(ctx.clock.now());
  if (problems.length > 0) {
    await finishPackage(ctx.db, pkg.id, {
      status: 'failed',
      error: `The package was applied, but ${problems.length === 1 ? 'a recipe' : `${problems.length} recipes`} that ran before could not be started again`,
      error_parts: problems,
      recipe_status: statuses,
      now,
    });
  } else {
    await finishPackage(ctx.db, pkg.id, { status: 'completed', recipe_status: statuses, now });
  }
}

/** The first error of a recipe step, as a user reads it. */
function describeStepError([step, details]: StepErrors[number]): string {
  const [field, , message] = details[0] ?? [];
  return `step ${step}${field ? ` ${field}` : ''}: ${message ?? 'invalid'}`;
}
