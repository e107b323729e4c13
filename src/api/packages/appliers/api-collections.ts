// An import's applier of api collections (import.ts runs one per asset type, in one transaction).
import { collectionNamedInProject, insertImportedCollection } from '../import.store.ts';
import { uniqueSlug } from '../../api_collections/api_collections.service.ts';
import { type ImportRun } from './run.ts';

// API collections: matched by name in the target's project.
export async function applyApiCollections(run: ImportRun): Promise<void> {
  const { trx, pkg, env, projectId, now, byType, name, groupByZip, groupByDir } = run;
  for (const e of byType('api_group')) {
    const existing = await collectionNamedInProject(trx, env, projectId, name(e));
    let id = existing?.id;
    if (id === undefined) {
      const version =
        typeof e.body.version === 'string' && e.body.version.trim() !== '' ? e.body.version.trim() : '1.0';
      const slug = await uniqueSlug(trx, env, name(e), version);
      const row = await insertImportedCollection(
        trx,
        pkg.workspace_id,
        env,
        projectId,
        name(e),
        version,
        slug,
        randomHex(),
        now,
      );
      id = Number(row.id);
    }
    run.changes.set(e.path, existing ? 'unchanged' : 'created');
    groupByZip.set(e.path, id);
    if (!groupByDir.has(e.dir)) groupByDir.set(e.dir, id);
  }
}

function randomHex(): string {
  return crypto.getRandomValues(new Uint8Array(16)).reduce((s, b) => s + b.toString(16).padStart(2, '0'), '');
}
