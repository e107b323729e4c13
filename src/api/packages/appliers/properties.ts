// An import's applier of properties (import.ts runs one per asset type, in one transaction).
import { listProperties, upsertProperties, type PropertyLevel } from '../../properties/properties.store.ts';
import { type Entry, type FileChange, type ImportRun } from './run.ts';

// Properties. A package carries each property's name and a value for a target that has none; a
// property the target already holds keeps its value there (each environment keeps its settings).
// The vendor's own zips carry null values: the property is created empty. Properties come from
// the vendor's files (account_properties.properties.json, <project>.project_properties.json) or
// from one file a property (<name>.account_property.json, {name, value}), as earlier exports wrote.
function valueOf(value: unknown): string {
  return value === null || value === undefined ? '' : String(value);
}

/**
 * What the import does to each property file's properties at this level, recorded per file before it
 * is applied: `created` when every property in it is new, `unchanged` when each one the target
 * holds keeps its value (or already had the package's), `updated` otherwise.
 */
async function recordChanges(run: ImportRun, level: PropertyLevel, entries: Entry[]): Promise<void> {
  const held = new Map((await listProperties(run.trx, level)).map((p) => [p.name, p.value] as const));
  const perFile = new Map<string, FileChange[]>();
  for (const e of entries) {
    const name = run.name(e);
    const value = valueOf(e.body.value);
    const had = held.get(name);
    const change: FileChange = had === undefined ? 'created' : had === '' && value !== '' ? 'updated' : 'unchanged';
    if (change !== 'unchanged') held.set(name, value);
    perFile.set(e.path, [...(perFile.get(e.path) ?? []), change]);
  }
  for (const [path, changes] of perFile)
    run.changes.set(
      path,
      changes.every((c) => c === 'created')
        ? 'created'
        : changes.every((c) => c === 'unchanged')
          ? 'unchanged'
          : 'updated',
    );
}

export async function applyProperties(run: ImportRun): Promise<void> {
  const { trx, pkg, options, env, projectId, now, failFile, byType, name } = run;
  // The vendor's packages carry the environment's property names: for a client limited to some
  // projects that file fails alone, and the rest of the package imports.
  if (options.restricted)
    for (const e of byType('account_property'))
      failFile(
        e.path,
        'environment properties apply to every project: importing them needs a client with access to all projects',
      );
  const envProperties = options.restricted
    ? []
    : byType('account_property').map((e) => [name(e), valueOf(e.body.value)] as const);
  if (envProperties.length > 0) {
    const level = { workspaceId: pkg.workspace_id, environmentId: env, projectId: null };
    await recordChanges(run, level, byType('account_property'));
    await upsertProperties(trx, level, envProperties, now, 'keep');
  }
  if (projectId === null)
    for (const e of byType('project_property'))
      failFile(e.path, 'project properties need a target folder inside a project; import it into a project');
  const projectProperties = byType('project_property').map((e) => [name(e), valueOf(e.body.value)] as const);
  if (projectProperties.length > 0) {
    if (projectId !== null) {
      const level = { workspaceId: pkg.workspace_id, environmentId: env, projectId };
      await recordChanges(run, level, byType('project_property'));
      await upsertProperties(trx, level, projectProperties, now, 'keep');
    }
  }
}
