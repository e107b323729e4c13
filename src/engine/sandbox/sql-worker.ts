// The smart lists' query process: one query per child process, on an in-memory SQLite database
// built from the lists it names. A process, not a worker thread: a query runs inside SQLite's
// native code, which a thread's termination cannot interrupt; SIGKILL ends it at the deadline. The database has nothing of the server's: it is created here,
// filled, then an authorizer allows only reading (SELECT, column reads and a list of functions:
// no ATTACH, PRAGMA, writes, recursive CTEs or extensions), with SQLite's own limits on string
// length, SQL length and expression depth, and a cap on the process's SQLite memory.
import { DatabaseSync, constants } from 'node:sqlite';

export interface SqlTable {
  name: string;
  columns: Array<{ name: string; type: string }>;
  rows: unknown[][];
}

export interface SqlRequest {
  tables: SqlTable[];
  sql: string;
  maxRows: number;
  /** Most characters of JSON the rows that come back may hold (the server parses none, but keeps them all). */
  maxChars: number;
}

export type SqlReply =
  { ok: true; rows: Array<Record<string, unknown>>; truncated: boolean } | { ok: false; message: string };

const FUNCTIONS = new Set([
  'count',
  'sum',
  'total',
  'avg',
  'min',
  'max',
  'group_concat',
  'string_agg',
  'lower',
  'upper',
  'length',
  'substr',
  'substring',
  'trim',
  'ltrim',
  'rtrim',
  'replace',
  'instr',
  'abs',
  'round',
  'coalesce',
  'ifnull',
  'nullif',
  'iif',
  'typeof',
  'like',
  'glob',
  'date',
  'time',
  'datetime',
  'julianday',
  'strftime',
  'unixepoch',
  'json_extract',
  'json',
  'json_array_length',
  'cast',
  'hex',
  'quote',
  'sign',
  'ceil',
  'floor',
  'mod',
]);

function quote(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

function run(request: SqlRequest): SqlReply {
  const db = new DatabaseSync(':memory:', {
    limits: {
      length: 1_000_000,
      sqlLength: 200_000,
      exprDepth: 100,
      compoundSelect: 20,
      attach: 0,
      functionArg: 20,
      likePatternLength: 1000,
      variableNumber: 100,
    },
  } as never);
  try {
    for (const table of request.tables) {
      const columns = table.columns.map(
        (c) =>
          `${quote(c.name)} ${c.type === 'integer' || c.type === 'boolean' ? 'INTEGER' : c.type === 'number' ? 'REAL' : 'TEXT'}`,
      );
      db.exec(`CREATE TABLE ${quote(table.name)} (${columns.join(', ') || '"_" TEXT'})`);
      if (table.columns.length === 0) continue;
      const insert = db.prepare(`INSERT INTO ${quote(table.name)} VALUES (${table.columns.map(() => '?').join(', ')})`);
      db.exec('BEGIN');
      for (const row of table.rows) insert.run(...(row as Array<string | number | null>));
      db.exec('COMMIT');
    }
    // SQLite's memory in this process (its own: the server's database is elsewhere).
    db.exec('PRAGMA hard_heap_limit = 268435456');
    db.setAuthorizer((action, arg1, arg2) => {
      if (action === constants.SQLITE_SELECT || action === constants.SQLITE_READ) return constants.SQLITE_OK;
      if (action === constants.SQLITE_FUNCTION && FUNCTIONS.has(String(arg2 ?? arg1 ?? '').toLowerCase()))
        return constants.SQLITE_OK;
      return constants.SQLITE_DENY;
    });
    const statement = db.prepare(request.sql);
    const rows: Array<Record<string, unknown>> = [];
    let truncated = false;
    let chars = 0;
    for (const row of statement.iterate()) {
      if (rows.length >= request.maxRows) {
        truncated = true;
        break;
      }
      const copy = { ...(row as Record<string, unknown>) };
      chars += JSON.stringify(copy).length;
      if (chars > request.maxChars)
        return {
          ok: false,
          message: `the result holds more than ${request.maxChars} characters of data: select fewer rows or columns`,
        };
      rows.push(copy);
    }
    return { ok: true, rows, truncated };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message.slice(0, 500) : 'the query failed' };
  } finally {
    db.close();
  }
}

process.once('message', (request: SqlRequest) => {
  process.send?.(run(request), () => process.exit(0));
});
