// An import's applier of properties (import.ts runs one per asset type, in one transaction).
import { upsertProperties } from '../../properties/properties.store.ts';
import { type ImportRun } from './run.ts';

// Properties.
export async function applyProperties(run: ImportRun): Promise<void> {
  const { trx, pkg, options, env, projectId, now, fail, byType, name } = run;
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
}
