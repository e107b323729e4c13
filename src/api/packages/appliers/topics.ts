// An import's applier of topics (import.ts runs one per asset type, in one transaction).
import { insertImportedTopic, topicNamed, updateImportedTopic } from '../import.store.ts';
import { isWithin } from '../../folders/folders.store.ts';
import { DEFAULT_RETENTION_SECONDS } from '../../event_streams/event_streams.service.ts';
import { type ImportRun } from './run.ts';

// Topics: names are unique in an environment.
export async function applyTopics(run: ImportRun): Promise<void> {
  const { trx, pkg, options, env, target, now, fail, placeOf, byType, name } = run;
  for (const e of byType('topic')) {
    const key = name(e).toLowerCase();
    const schema = Array.isArray(e.body.schema) ? JSON.stringify(e.body.schema) : null;
    const description = typeof e.body.description === 'string' ? e.body.description : null;
    const retention = typeof e.body.retention === 'number' ? e.body.retention : DEFAULT_RETENTION_SECONDS;
    const existing = await topicNamed(trx, env, key);
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
        await updateImportedTopic(trx, existing.id, schema, description, retention, now);
        run.changes.set(e.path, 'updated');
      } else run.changes.set(e.path, 'unchanged');
      continue;
    }
    await insertImportedTopic(
      trx,
      pkg.workspace_id,
      env,
      await placeOf(e),
      name(e),
      key,
      description,
      schema,
      retention,
      now,
    );
    run.changes.set(e.path, 'created');
  }
}
