// An import's applier of lookup tables (import.ts runs one per asset type, in one transaction).
import { clearRowCount, lookupTableNamed, setLookupTableColumns } from '../import.store.ts';
import { deleteAllRows, insertRows, insertTable } from '../../lookup_tables/lookup_tables.store.ts';
import type { ImportRun, Obj } from './run.ts';

// Lookup tables: names are unique in an environment; rows replaced when the file carries data.
export async function applyLookupTables(run: ImportRun): Promise<void> {
  const { ctx, trx, pkg, options, env, projectId, now, fail, byType, name, reader } = run;
  for (const e of byType('lookup_table')) {
    const labels = (e.body.schema as Obj[]).map((c) => String(c.label).trim());
    if (new Set(labels.map((l) => l.toLowerCase())).size !== labels.length) {
      fail(e.path, 'two columns have the same label');
      continue;
    }
    const key = name(e).toLowerCase();
    let table = await lookupTableNamed(trx, env, key);
    if (table && options.restricted && table.project_id !== projectId) {
      fail(
        e.path,
        `a lookup table named "${name(e)}" exists outside the target's project, beyond the projects you can reach`,
      );
      continue;
    }
    const columnsChange = table !== undefined && table.columns !== JSON.stringify(labels);
    const change = !table ? 'created' : columnsChange || e.data ? 'updated' : 'unchanged';
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
    else if (columnsChange) await setLookupTableColumns(trx, table.id, labels, now);
    if (e.data) {
      if (e.data.rows > ctx.config.lookupTableMaxRows) {
        fail(e.path, `holds ${e.data.rows} rows; a lookup table holds at most ${ctx.config.lookupTableMaxRows}`);
        continue;
      }
      await deleteAllRows(trx, table.id, now);
      await clearRowCount(trx, table.id);
      // Converted to cells in the reader's worker, a batch at a time.
      for await (const batch of reader.lookupRows(e.path, labels.length))
        await insertRows(trx, table.id, labels.length, batch, now);
    }
    run.changes.set(e.path, change);
  }
}
