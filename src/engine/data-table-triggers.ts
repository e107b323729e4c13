// Real-time data table triggers (`workato_db_table` new_records_realtime, updated_records_realtime):
// each running recipe watching a table is armed here (at start, and when the recipe starts).
// A record write tells this listener inside its own transaction, which stores one job per
// watching recipe there: the record and its jobs commit together, so a write acknowledged is
// never without its jobs, across kill -9. The jobs then wake the queue.
import type { ServiceContext } from '../context.ts';
import type { Db, RecipeRow, WorkflowAppRow } from '../db/types.ts';
import {
  findTableByRef,
  type RecordChange,
  type RecordListener,
  type VisibleTable,
} from '../api/data_tables/data_tables.service.ts';
import { recordHash, tableRefOf } from './connectors/workato_db_table.ts';
import { appRefOf, requestEvent } from './connectors/workato_workflow_task.ts';
import { resolveApp } from '../api/workflow_apps/workflow_apps.service.ts';
import { fromPlain, type Hash, type Value } from '../recipe/formula/values.ts';

export interface DataTableTriggers extends RecordListener {
  /** Watch the table the trigger input names; false when it names none of the recipe's environment. */
  arm(row: RecipeRow, name: string, input: Hash): Promise<boolean>;
  disarm(recipeId: number): void;
}

interface Watch {
  row: RecipeRow;
  tableId: number;
  /** new_records_realtime: created records only; updated_records_realtime: created and updated. */
  updates: boolean;
  /** Workflow apps' request triggers: the app whose requests are the table's records. */
  app?: WorkflowAppRow;
}

/** Triggers of workato_workflow_task that watch an app's requests (its data table's records). */
const REQUEST_TRIGGERS: Readonly<Record<string, boolean>> = {
  new_requests_realtime: false,
  updated_requests_realtime: true,
};

export function createDataTableTriggers(deps: {
  ctx: ServiceContext;
  storeJob(trx: Db, row: RecipeRow, event: Hash): Promise<{ handle: string; queued: boolean } | null>;
  stored(row: RecipeRow, handles: string[]): void;
}): DataTableTriggers {
  const byRecipe = new Map<number, Watch>();
  const byTable = new Map<number, Set<number>>();

  function disarm(recipeId: number): void {
    const watch = byRecipe.get(recipeId);
    if (!watch) return;
    byRecipe.delete(recipeId);
    const set = byTable.get(watch.tableId);
    set?.delete(recipeId);
    if (set && set.size === 0) byTable.delete(watch.tableId);
  }

  return {
    async arm(row, name, input) {
      disarm(row.id);
      if (row.trigger_application === 'workato_workflow_task' && Object.hasOwn(REQUEST_TRIGGERS, name)) {
        const app = await resolveApp(deps.ctx.db, row.environment_id, appRefOf(input));
        if (!app) return false;
        byRecipe.set(row.id, { row, tableId: app.data_table_id, updates: REQUEST_TRIGGERS[name] === true, app });
        let set = byTable.get(app.data_table_id);
        if (!set) byTable.set(app.data_table_id, (set = new Set()));
        set.add(row.id);
        return true;
      }
      const ref = tableRefOf(input);
      if (ref === null) return false;
      const scope = {
        workspaceId: row.workspace_id,
        environmentId: row.environment_id,
        allFolders: true,
        folderIds: [],
      };
      const table = await findTableByRef(deps.ctx, scope, ref);
      if (!table) return false;
      byRecipe.set(row.id, { row, tableId: table.id, updates: name === 'updated_records_realtime' });
      let set = byTable.get(table.id);
      if (!set) byTable.set(table.id, (set = new Set()));
      set.add(row.id);
      return true;
    },
    disarm,
    async changed(trx: Db, table: VisibleTable, changes: readonly RecordChange[]) {
      const watchers = byTable.get(table.id);
      if (!watchers || watchers.size === 0) return null;
      const stored: Array<[RecipeRow, string[]]> = [];
      for (const recipeId of watchers) {
        const watch = byRecipe.get(recipeId);
        if (!watch) continue;
        const handles: string[] = [];
        for (const change of changes) {
          if (change.old !== null && !watch.updates) continue;
          if (watch.app) {
            const event = await requestEvent(trx, watch.app, table, change);
            const job = await deps.storeJob(trx, watch.row, event);
            if (job?.queued) handles.push(job.handle);
            continue;
          }
          const event: Record<string, Value> = { record: recordHash(table, change.record, 'field_hash_to_value') };
          if (watch.updates)
            event.old_record = change.old ? recordHash(table, change.old, 'field_hash_to_value') : fromPlain({});
          const job = await deps.storeJob(trx, watch.row, fromPlain(event) as Hash);
          if (job?.queued) handles.push(job.handle);
        }
        stored.push([watch.row, handles]);
      }
      return () => {
        for (const [row, handles] of stored) deps.stored(row, handles);
      };
    },
  };
}
