// An import's applier of data tables (import.ts runs one per asset type, in one transaction).
import { dataTableNamed, setRecordCount } from '../import.store.ts';
import { randomUUID } from 'node:crypto';
import { isWithin } from '../../folders/folders.store.ts';
import {
  deleteAllRecords,
  insertRecord,
  insertTable as insertDataTable,
  updateTableDefinition,
} from '../../data_tables/data_tables.store.ts';
import { columnsFromDefinition } from '../../data_tables/data_tables.input.ts';
import type { ImportRun } from './run.ts';

// Data tables: names are unique in an environment; columns keep the package's UUIDs (its
// recipes name them); records replaced when the file carries data.
export async function applyDataTables(run: ImportRun): Promise<void> {
  const { ctx, trx, pkg, options, env, target, now, fail, failFile, placeOf, byType, name, reader } = run;
  for (const e of byType('workato_db_table')) {
    // The file's schema was read into our definition and its records checked (data-table-file.ts).
    const columns = columnsFromDefinition(e.body.schema);
    if (e.data && e.data.rows > ctx.config.dataTableMaxRecords) {
      failFile(e.path, `holds ${e.data.rows} records; a data table holds at most ${ctx.config.dataTableMaxRecords}`);
      continue;
    }
    const key = name(e).toLowerCase();
    const existing = await dataTableNamed(trx, env, key);
    if (existing && options.restricted && !(await isWithin(trx, target.id, existing.folder_id))) {
      fail(
        e.path,
        `a data table named "${name(e)}" exists outside the target folder, beyond the projects you can reach`,
      );
      continue;
    }
    let tableId: number;
    if (!existing) {
      run.changes.set(e.path, 'created');
      tableId = await insertDataTable(trx, {
        workspace_id: pkg.workspace_id,
        environment_id: env,
        folder_id: await placeOf(e),
        name: name(e),
        columns: JSON.stringify(columns),
        now,
      });
    } else {
      run.changes.set(e.path, existing.columns !== JSON.stringify(columns) || e.data ? 'updated' : 'unchanged');
      tableId = existing.id;
      if (existing.columns !== JSON.stringify(columns))
        await updateTableDefinition(trx, tableId, { columns: JSON.stringify(columns), now });
    }
    if (e.data) {
      await deleteAllRecords(trx, tableId, now);
      // Coerced to the columns' types in the reader's worker, a batch at a time.
      let bad = 0;
      let count = 0;
      for await (const batch of reader.dataRecords(e.path, columns)) {
        for (const { values, problems } of batch) {
          for (const problem of problems) if (bad++ < 5) fail(e.path, problem);
          await insertRecord(trx, { table_id: tableId, record_id: randomUUID(), values, now });
          count += 1;
        }
      }
      await setRecordCount(trx, tableId, count);
    }
  }
}
