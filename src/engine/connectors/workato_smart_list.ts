// workato_smart_list ("SQL Collection by Workato"): named lists of records, durable, per
// environment (src/api/smart_lists/). `create_list` makes a list from a list of records (replacing
// one of that name), `insert_rows` adds records (creating the list with
// `create_table_if_not_exist`), `query_list` runs one SQL SELECT over the lists it names, in an
// in-memory SQLite database in a worker thread that can only read (src/engine/sandbox/sql-worker.ts).
import {
  deleteSmartList,
  findSmartList,
  findSmartLists,
  insertSmartList,
  insertSmartListRows,
  smartListRows,
  updateSmartList,
} from '../../api/smart_lists/smart_lists.store.ts';
import { runSqlQuery } from '../sandbox/sql-sandbox.ts';
import type { SqlTable } from '../sandbox/sql-worker.ts';
import { csvStringify } from '../../csv.ts';
import { csvParser } from './csv_parser.ts';
import { StepError, type ActionDef, type Connector, type StepContext } from './types.ts';
import {
  fromPlain,
  hashGet,
  isHash,
  isTrue,
  newHash,
  toPlain,
  toRubyString,
  type Hash,
  type Value,
} from '../../recipe/formula/values.ts';
import { toStored } from '../../time.ts';

export const SMART_LIST_LIMITS = {
  rowsPerList: 100_000,
  rowsPerStep: 100_000,
  rowBytes: 100_000,
  columns: 200,
  /** Rows a query returns (more: `truncated`). */
  queryRows: 10_000,
  /** Characters of JSON a query's rows may hold together (an HTTP step's answer: 10 MiB); more fails the step. */
  queryResultChars: 10 * 1024 * 1024,
  queryTimeoutMs: 10_000,
  sqlChars: 100_000,
};

type ColumnType = 'integer' | 'number' | 'boolean' | 'string' | 'json';
interface Column {
  name: string;
  type: ColumnType;
}

/** The table name a list has in queries: letters, digits and _. */
export function tableNameOf(raw: Value): string {
  const name = toRubyString(raw)
    .trim()
    .replace(/[^A-Za-z0-9_]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 100);
  if (name === '') throw new StepError('Bad request', 'list_name must have letters or digits');
  return /^[0-9]/.test(name) ? `l_${name}`.slice(0, 100) : name;
}

function typeOf(v: unknown): ColumnType | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'boolean') return 'boolean';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  if (typeof v === 'string') return 'string';
  return 'json';
}

function merge(a: ColumnType, b: ColumnType): ColumnType {
  if (a === b) return a;
  if ((a === 'integer' && b === 'number') || (a === 'number' && b === 'integer')) return 'number';
  return 'string';
}

/** The records of list_source as JSON objects, checked. */
function recordsOf(raw: Value): Array<Record<string, unknown>> {
  if (raw === null || raw === undefined || raw === '') return [];
  if (!Array.isArray(raw)) throw new StepError('Bad request', 'list_source must be a list of records');
  if (raw.length > SMART_LIST_LIMITS.rowsPerStep)
    throw new StepError('Bad request', `list_source has more than ${SMART_LIST_LIMITS.rowsPerStep} records`);
  return raw.map((item, i) => {
    if (!isHash(item)) throw new StepError('Bad request', `record ${i + 1} of list_source is not an object`);
    return toPlain(item) as Record<string, unknown>;
  });
}

function columnsWith(columns: Column[], records: Array<Record<string, unknown>>): Column[] {
  const out = columns.map((c) => ({ ...c }));
  const byName = new Map(out.map((c) => [c.name, c]));
  for (const record of records) {
    for (const [key, value] of Object.entries(record)) {
      const type = typeOf(value);
      const known = byName.get(key);
      if (!known) {
        if (out.length >= SMART_LIST_LIMITS.columns)
          throw new StepError('Bad request', `a list has at most ${SMART_LIST_LIMITS.columns} columns`);
        const column = { name: key.slice(0, 200), type: type ?? 'string' };
        out.push(column);
        byName.set(key, column);
      } else if (type !== null) known.type = merge(known.type, type);
    }
  }
  return out;
}

function describe(name: string, columns: Column[], rowCount: number): Hash {
  return newHash([
    ['list_name', name],
    // Column names quoted as SQL identifiers, for SQL text built with datapills (`SELECT #{columns.x} FROM #{list_name}`).
    ['columns', newHash(columns.map((c) => [c.name, `"${c.name.replace(/"/g, '""')}"`]))],
    ['column_types', newHash(columns.map((c) => [c.name, c.type]))],
    ['row_count', rowCount],
  ]);
}

function rowTexts(records: Array<Record<string, unknown>>): string[] {
  return records.map((record, i) => {
    const text = JSON.stringify(record);
    if (Buffer.byteLength(text) > SMART_LIST_LIMITS.rowBytes)
      throw new StepError('Bad request', `record ${i + 1} is larger than ${SMART_LIST_LIMITS.rowBytes} bytes`);
    return text;
  });
}

/**
 * The records of a CSV text (`csv_content`, or `file_content`), parsed as the CSV parser's
 * `parse_csv` does (`col_sep`, `header_row`, `column_names`): each line a record of text cells.
 */
function csvRecords(input: Hash): Value {
  const content = hashGet(input, 'csv_content') ?? hashGet(input, 'file_content');
  if (content === null || toRubyString(content).trim() === '')
    throw new StepError('Bad request', 'csv_content is required');
  const parsed = (csvParser.actions.parse_csv as ActionDef).run(
    newHash([
      ['csv_content', content],
      ['col_sep', hashGet(input, 'col_sep')],
      ['header_row', hashGet(input, 'header_row')],
      ['column_names', hashGet(input, 'column_names')],
    ]),
    undefined as never,
  ) as Hash;
  return hashGet(parsed, 'lines');
}

async function writeRows(sc: StepContext, input: Hash, replace: boolean, fromCsv = false): Promise<Value> {
  const name = tableNameOf(hashGet(input, 'list_name'));
  const records = recordsOf(fromCsv ? csvRecords(input) : hashGet(input, 'list_source'));
  const texts = rowTexts(records);
  const { db, clock } = sc.ctx;
  const env = sc.recipe.environmentId;
  const now = toStored(clock.now());
  const primary = hashGet(input, 'primary_index');
  return db.transaction().execute(async (trx) => {
    let list = await findSmartList(trx, env, name);
    if (list && replace) {
      await deleteSmartList(trx, list.id);
      list = undefined;
    }
    if (!list && !replace && !isTrue(hashGet(input, 'create_table_if_not_exist')))
      throw new StepError('Not found', `no list named ${name}: create it first, or set create_table_if_not_exist`);
    const before = list ? (JSON.parse(list.columns) as Column[]) : [];
    const columns = columnsWith(before, records);
    const count = (list?.row_count ?? 0) + texts.length;
    if (count > SMART_LIST_LIMITS.rowsPerList)
      throw new StepError('Bad request', `a list holds at most ${SMART_LIST_LIMITS.rowsPerList} rows`);
    const id = list
      ? list.id
      : await insertSmartList(trx, {
          workspace_id: sc.recipe.workspaceId,
          environment_id: env,
          name,
          columns: JSON.stringify(columns),
          primary_index: primary === null || primary === undefined ? null : toRubyString(primary).slice(0, 255),
          row_count: count,
          created_at: now,
          updated_at: now,
        });
    await insertSmartListRows(trx, id, list?.row_count ?? 0, texts);
    if (list) await updateSmartList(trx, id, { columns: JSON.stringify(columns), row_count: count, updated_at: now });
    return describe(name, columns, count);
  });
}

function sqlValue(type: ColumnType, v: unknown): string | number | null {
  if (v === null || v === undefined) return null;
  if (type === 'boolean' && typeof v === 'boolean') return v ? 1 : 0;
  if ((type === 'integer' || type === 'number') && typeof v === 'number') return v;
  if (typeof v === 'string') return v;
  return JSON.stringify(v);
}

async function query(sc: StepContext, input: Hash): Promise<Value> {
  const sql = toRubyString(hashGet(input, 'sql')).trim();
  if (sql === '') throw new StepError('Bad request', 'sql is required');
  if (sql.length > SMART_LIST_LIMITS.sqlChars)
    throw new StepError('Bad request', `sql is longer than ${SMART_LIST_LIMITS.sqlChars} characters`);
  // The lists the query names: every word of it that is a list's name.
  const words = [...new Set(sql.match(/[A-Za-z_][A-Za-z0-9_]{0,99}/g) ?? [])].slice(0, 1000);
  const lists = await findSmartLists(sc.ctx.db, sc.recipe.environmentId, words);
  const tables: SqlTable[] = [];
  for (const list of lists) {
    const columns = JSON.parse(list.columns) as Column[];
    const rows = (await smartListRows(sc.ctx.db, list.id, SMART_LIST_LIMITS.rowsPerList)).map((text) => {
      const record = JSON.parse(text) as Record<string, unknown>;
      return columns.map((c) => sqlValue(c.type, record[c.name]));
    });
    tables.push({ name: list.name, columns, rows });
  }
  const reply = await runSqlQuery(
    { tables, sql, maxRows: SMART_LIST_LIMITS.queryRows, maxChars: SMART_LIST_LIMITS.queryResultChars },
    Math.min(sc.limits.codeTimeoutMs, SMART_LIST_LIMITS.queryTimeoutMs),
  );
  if (!reply.ok) {
    if ('timeout' in reply) throw new StepError('Timeout', reply.message);
    throw new StepError(
      'SQL error',
      /not authorized/i.test(reply.message) ? 'the query may only read the lists (SELECT)' : reply.message,
    );
  }
  const out = newHash([
    ['rows', fromPlain(reply.rows)],
    ['row_count', reply.rows.length],
    ['truncated', reply.truncated],
  ]);
  // The CSV form of the answer: a header of the columns, then the rows.
  const format = toRubyString(hashGet(input, 'output_format') ?? '')
    .trim()
    .toLowerCase();
  if (format === 'csv') {
    const columns = [...new Set(reply.rows.flatMap((r) => Object.keys(r as Record<string, unknown>)))];
    const cell = (v: unknown) =>
      v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
    out.csv_content = csvStringify().stringify(
      [columns, ...reply.rows.map((r) => columns.map((c) => cell((r as Record<string, unknown>)[c])))],
      { record_delimiter: '\n' },
    );
  } else if (format !== '' && format !== 'json' && format !== 'rows')
    throw new StepError('Bad request', 'output_format must be rows or csv');
  return out;
}

export const workatoSmartList: Connector = {
  provider: 'workato_smart_list',
  title: 'SQL Collection by Workato',
  needsConnection: false,
  reachesOutside: false,
  triggers: {},
  actions: {
    create_list: {
      title: 'Create list',
      required: [{ path: 'list_name', label: 'List name' }],
      run: (input, sc) => writeRows(sc, input, true),
    },
    insert_rows: {
      title: 'Insert rows',
      required: [{ path: 'list_name', label: 'List name' }],
      run: (input, sc) => writeRows(sc, input, false),
    },
    create_list_from_csv: {
      title: 'Create list from CSV file',
      required: [{ path: 'list_name', label: 'List name' }],
      run: (input, sc) => writeRows(sc, input, true, true),
    },
    insert_rows_from_csv: {
      title: 'Insert rows from CSV file',
      required: [{ path: 'list_name', label: 'List name' }],
      run: (input, sc) => writeRows(sc, input, false, true),
    },
    query_list: {
      title: 'Query lists',
      required: [{ path: 'sql', label: 'SQL' }],
      run: (input, sc) => query(sc, input),
    },
  },
};
