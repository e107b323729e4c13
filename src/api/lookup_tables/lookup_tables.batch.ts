// Lookups of one remembered table by one column that arrive together (the `get_entry` steps of a
// recipe's concurrent jobs) go to the database as one statement, where each statement is a round
// trip (readsShareStatements: PostgreSQL): the lookups of a turn of the event loop, and those that
// arrive while the table's statements are out, gather for the next (findFirstRowsOfRemembered).
// Never stale: the statement is sent after every lookup it answers was asked, so it reads what a
// statement of each lookup's own would have read, and it proves the remembered table current in
// itself, as a single lookup's statement does. On SQLite a lookup is its own statement, a call in
// the process.
import { readsShareStatements } from '../../db/dialect.ts';
import type { Db, LookupRowRecord } from '../../db/types.ts';
import {
  findFirstRowOfRemembered,
  findFirstRowsOfRemembered,
  type CellColumn,
  type RememberedTable,
} from './lookup_tables.store.ts';

export type FirstRowFound = LookupRowRecord | undefined | 'changed';

export interface FirstRowLookups {
  /**
   * The first row (lowest id) of a remembered table whose `column` holds `value`; 'changed' as
   * findFirstRowOfRemembered. A lookup in a transaction (`db` not the one the lookups were made
   * for) is a statement of its own in it.
   */
  find(db: Db, table: RememberedTable, column: CellColumn, value: string): Promise<FirstRowFound>;
}

/** Statements out at once for one table and column: one is answered while the next gathers. */
const MAX_IN_FLIGHT = 2;
/** Values in one statement, so that one statement stays short; more wait for the next. */
const MAX_VALUES = 200;

interface Pending {
  value: string;
  resolve: (found: FirstRowFound) => void;
  reject: (error: unknown) => void;
}

interface Group {
  table: RememberedTable;
  column: CellColumn;
  queue: Pending[];
  inFlight: number;
  scheduled: boolean;
}

export function createFirstRowLookups(root: Db): FirstRowLookups {
  const alone = (db: Db, table: RememberedTable, column: CellColumn, value: string) =>
    findFirstRowOfRemembered(db, table, [{ column, value }]);
  if (!readsShareStatements(root)) return { find: alone };
  /** By the remembered facts and the column: lookups gather only with those of the same facts. */
  const groups = new Map<string, Group>();

  const send = async (group: Group, batch: Pending[]): Promise<void> => {
    try {
      const found = await findFirstRowsOfRemembered(
        root,
        group.table,
        group.column,
        batch.map((pending) => pending.value),
      );
      batch.forEach((pending, i) => pending.resolve(found === 'changed' ? 'changed' : found[i]));
    } catch (error) {
      for (const pending of batch) pending.reject(error);
    }
  };

  const schedule = (key: string, group: Group): void => {
    if (group.scheduled || group.queue.length === 0 || group.inFlight >= MAX_IN_FLIGHT) return;
    group.scheduled = true;
    // One turn of the event loop: the lookups of jobs running together join the statement.
    setImmediate(() => {
      group.scheduled = false;
      while (group.queue.length > 0 && group.inFlight < MAX_IN_FLIGHT) {
        const batch = group.queue.splice(0, MAX_VALUES);
        group.inFlight++;
        void send(group, batch).finally(() => {
          group.inFlight--;
          if (group.queue.length === 0 && group.inFlight === 0 && !group.scheduled) groups.delete(key);
          else schedule(key, group);
        });
      }
    });
  };

  return {
    find: (db, table, column, value) => {
      if (db !== root) return alone(db, table, column, value);
      return new Promise<FirstRowFound>((resolve, reject) => {
        const key = JSON.stringify([table.id, table.name_key, table.columns, table.project_id, column]);
        let group = groups.get(key);
        if (!group) {
          group = { table, column, queue: [], inFlight: 0, scheduled: false };
          groups.set(key, group);
        }
        group.queue.push({ value, resolve, reject });
        schedule(key, group);
      });
    },
  };
}
