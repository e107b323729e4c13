// workato_db_table: data tables in recipes (20 §10.1, §10.9), through the data tables service (the
// same types, limits and scope as the API). Columns are addressed by UUID, `-` written `_`
// (`parameters.<uuid>`); records come out under `record` keyed the same way, with the Record ID
// (11fbe9a6_a16d_4d7e_86ea_afe42ec03005), Created at and Updated at. A value of the wrong type
// is the step's error, naming the column. Real-time triggers are armed by the engine
// (src/engine/data-table-triggers.ts); this module gives their output.
import { AppError } from '../../errors.ts';
import {
  addRecords,
  changeRecord,
  columnsOf,
  deleteRecord,
  filterFor,
  findTableByRef,
  MAX_SEARCH_LIMIT,
  searchRecords,
  systemValue,
  truncateTable,
  upsertRecord,
  type StoredRecord,
  type TableScope,
  type VisibleTable,
} from '../../api/data_tables/data_tables.service.ts';
import { columnByKey, fieldIdOf, SYSTEM_FIELDS, type Filter } from '../../api/data_tables/columns.ts';
import { FormulaError } from '../../recipe/formula/errors.ts';
import {
  fromPlain,
  hashGet,
  isHash,
  newHash,
  RFloat,
  toPlain,
  toRubyString,
  type Hash,
  type Value,
} from '../../recipe/formula/values.ts';
import {
  StepError,
  type ActionDef,
  type Connector,
  type RecipeRef,
  type StepContext,
  type TriggerDef,
} from './types.ts';

/** Records in one batch action. */
export const MAX_BATCH_RECORDS = 1000;
/** Records get_records returns when no limit is given. */
const DEFAULT_LIMIT = 100;

type OutputFormat = 'field_hash_to_value' | 'field_name_to_value';

/** Every table of the recipe's environment, whichever folder or project it is in. */
function scopeOf(recipe: RecipeRef): TableScope {
  return { workspaceId: recipe.workspaceId, environmentId: recipe.environmentId, allFolders: true, folderIds: [] };
}

/** `table_id`: an id (number or digits), a name, or an export reference `{name, ...}`; null when it names nothing. */
export function tableRefOf(input: Hash): string | number | null {
  const raw = hashGet(input, 'table_id');
  const ref = isHash(raw) ? hashGet(raw, 'name') : raw;
  if (typeof ref === 'number') return ref;
  if (typeof ref === 'string' && ref.trim() !== '') return ref.trim();
  return null;
}

async function tableOf(sc: StepContext, input: Hash): Promise<VisibleTable> {
  const ref = tableRefOf(input);
  if (ref === null)
    throw new StepError(
      'Bad request',
      'table_id must name a data table (its id, its name, or a reference with its name)',
    );
  const table = await findTableByRef(sc.ctx, scopeOf(sc.recipe), ref);
  if (!table)
    throw new StepError(
      'Not found',
      `Data table ${JSON.stringify(String(ref)).slice(0, 200)} not found in this environment`,
    );
  return table;
}

/** A record as recipes see it: by column UUID with `_` (default) or by column name. */
export function recordPlain(
  table: Pick<VisibleTable, 'columns'>,
  record: StoredRecord,
  format: OutputFormat,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const key = (fieldId: string, name: string) =>
    format === 'field_name_to_value' ? name : fieldId.replaceAll('-', '_');
  for (const f of SYSTEM_FIELDS) out[key(f.field_id, f.name)] = systemValue(record, f.field_id);
  for (const column of columnsOf(table))
    out[key(column.field_id, column.name)] = record.values[column.field_id] ?? null;
  return out;
}

export function recordHash(table: Pick<VisibleTable, 'columns'>, record: StoredRecord, format: OutputFormat): Value {
  return fromPlain(recordPlain(table, record, format));
}

function formatOf(input: Hash): OutputFormat {
  return toRubyString(hashGet(input, 'output_format')).trim() === 'field_name_to_value'
    ? 'field_name_to_value'
    : 'field_hash_to_value';
}

/** A service error as the step's error: a validation names the column ("Amount must be an integer"). */
function asStepError(error: unknown, table: VisibleTable | null): unknown {
  if (!(error instanceof AppError)) return error;
  const columns = table ? columnsOf(table) : [];
  const details = Object.entries(error.errors ?? {})
    .map(([field, messages]) => {
      const key = field.replace(/^(data|records)(\[\d+\])?\./, '');
      const prefix = /^records\[(\d+)\]/.exec(field)?.[1];
      const column = columnByKey(columns, key);
      const name = column ? `${column.name} (${column.field_id.replaceAll('-', '_')})` : key;
      return `${prefix === undefined ? '' : `records[${prefix}]: `}${name} ${messages.join(', ')}`;
    })
    .join('; ');
  const errorType = error.status === 404 ? 'Not found' : 'Bad request';
  return new StepError(
    errorType,
    details ? `${error.code === 'validation_failed' ? 'Invalid record' : error.message}: ${details}` : error.message,
  );
}

async function service<T>(table: VisibleTable | null, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw asStepError(error, table);
  }
}

/** A recipe value as a cell value: formula numbers and times as plain values, the service checks types. */
function cellValue(v: Value): unknown {
  if (v === null || typeof v === 'string' || typeof v === 'boolean' || typeof v === 'number') return v;
  if (v instanceof RFloat) return v.v;
  if (Array.isArray(v) || isHash(v)) return toPlain(v);
  return toRubyString(v);
}

function valuesOf(raw: Value, label: string): Record<string, unknown> {
  if (raw === null) return {};
  if (!isHash(raw)) throw new StepError('Bad request', `${label} must be an object of column values (by column UUID)`);
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(raw)) out[key] = cellValue(v);
  return out;
}

function parametersOf(input: Hash): Record<string, unknown> {
  return valuesOf(hashGet(input, 'parameters'), 'parameters');
}

function recordIdOf(input: Hash, key = 'record_id'): string {
  const id = toRubyString(hashGet(input, key)).trim();
  if (id === '') throw new StepError('Bad request', `${key} must be the Record ID of a record`);
  return id;
}

/** Column keys given as UUIDs (dashes or underscores), names, a list, or comma-separated. */
function fieldListOf(raw: Value): string[] {
  const list = Array.isArray(raw) ? raw.map((v) => toRubyString(v)) : toRubyString(raw).split(',');
  return list.map((v) => v.trim()).filter((v) => v !== '');
}

/**
 * The filters of get_records: `filters: [{field_id, op_default|op_<type>, value_default|value_<type>}]`
 * and columns given flat in the input (equality), as real recipes write them.
 */
function filtersOf(table: VisibleTable, input: Hash): Filter[] {
  const columns = columnsOf(table);
  const out: Filter[] = [];
  const add = (key: string, op: string, value: unknown, at: string) => {
    const filter = filterFor(columns, key, op, value);
    if ('problem' in filter) throw new StepError('Bad request', `${at}: ${filter.problem}`);
    out.push(filter);
  };
  const raw = hashGet(input, 'filters');
  if (raw !== null) {
    const list = Array.isArray(raw) ? raw : isHash(raw) ? Object.values(raw) : null;
    if (!list) throw new StepError('Bad request', 'filters must be a list of {field_id, op_default, value_default}');
    list.forEach((item, i) => {
      if (!isHash(item))
        throw new StepError('Bad request', `filters[${i}] must be an object {field_id, op_default, value_default}`);
      const fieldId = toRubyString(hashGet(item, 'field_id')).trim();
      if (fieldId === '') throw new StepError('Bad request', `filters[${i}].field_id can't be blank`);
      const opKey = Object.keys(item).find((k) => k.startsWith('op_'));
      const valueKey = Object.keys(item).find((k) => k.startsWith('value_'));
      const op = opKey ? toRubyString(hashGet(item, opKey)).trim() : 'eq';
      add(fieldId, op, valueKey ? cellValue(hashGet(item, valueKey)) : null, `filters[${i}]`);
    });
  }
  for (const [key, v] of Object.entries(input)) {
    const id = fieldIdOf(key);
    if (!id || (!columns.some((c) => c.field_id === id) && !SYSTEM_FIELDS.some((f) => f.field_id === id))) continue;
    if (v === null || v === '') continue;
    add(key, 'eq', cellValue(v), key);
  }
  return out;
}

const TABLE = { path: 'table_id', label: 'Table' };
const RECORD_ID = { path: 'record_id', label: 'Record ID' };

function batchOf(input: Hash, key: string): Value[] {
  const raw = hashGet(input, key);
  if (!Array.isArray(raw)) throw new StepError('Bad request', `${key} must be a list`);
  if (raw.length > MAX_BATCH_RECORDS)
    throw new StepError('Bad request', `${key} holds ${raw.length} items; at most ${MAX_BATCH_RECORDS} a batch`);
  return raw;
}

/** A batch item's column values: `{parameters: {...}}` or the values themselves. */
function itemValues(item: Value, at: string): Record<string, unknown> {
  if (isHash(item) && isHash(hashGet(item, 'parameters')))
    return valuesOf(hashGet(item, 'parameters'), `${at}.parameters`);
  return valuesOf(item, at);
}

const actions: Record<string, ActionDef> = {
  add_record: {
    title: 'Create record',
    required: [TABLE],
    async run(input, sc) {
      const table = await tableOf(sc, input);
      const { records } = await service(table, () =>
        addRecords(sc.ctx, scopeOf(sc.recipe), table.id, [parametersOf(input)], { listener: sc.dataTables ?? null }),
      );
      return newHash([['record', recordHash(table, records[0] as StoredRecord, formatOf(input))]]);
    },
  },
  update_record: {
    title: 'Update record',
    required: [TABLE, RECORD_ID],
    async run(input, sc) {
      const table = await tableOf(sc, input);
      const id = recordIdOf(input);
      const { change } = await service(table, () =>
        changeRecord(sc.ctx, scopeOf(sc.recipe), table.id, id, { data: parametersOf(input) }, sc.dataTables ?? null),
      );
      return newHash([['record', recordHash(table, change.record, formatOf(input))]]);
    },
  },
  upsert_record: {
    title: 'Upsert record',
    required: [TABLE, { path: 'primary_field_id', label: 'Primary key column' }],
    async run(input, sc) {
      const table = await tableOf(sc, input);
      const primary = toRubyString(hashGet(input, 'primary_field_id')).trim();
      const result = await service(table, () =>
        upsertRecord(sc.ctx, scopeOf(sc.recipe), table.id, primary, parametersOf(input), sc.dataTables ?? null),
      );
      return newHash([
        ['record', recordHash(table, result.record, formatOf(input))],
        ['created', result.created],
      ]);
    },
  },
  delete_record: {
    title: 'Delete record',
    required: [TABLE, RECORD_ID],
    async run(input, sc) {
      const table = await tableOf(sc, input);
      const id = recordIdOf(input);
      await service(table, () => deleteRecord(sc.ctx, scopeOf(sc.recipe), table.id, id)).catch((error: unknown) => {
        if (error instanceof StepError && error.errorType === 'Not found')
          throw new StepError(
            'Not found',
            `Record ${id.slice(0, 64)} not found in data table ${JSON.stringify(table.name)}`,
          );
        throw error;
      });
      return newHash([['success', true]]);
    },
  },
  get_records: {
    title: 'Search records',
    required: [TABLE],
    async run(input, sc) {
      const table = await tableOf(sc, input);
      const limitText = toRubyString(hashGet(input, 'limit')).trim();
      const limit = limitText === '' ? DEFAULT_LIMIT : Number(limitText);
      if (!Number.isInteger(limit) || limit < 1 || limit > MAX_SEARCH_LIMIT)
        throw new StepError('Bad request', `limit must be a whole number from 1 to ${MAX_SEARCH_LIMIT}`);
      const tokenText = toRubyString(hashGet(input, 'continuation_token')).trim();
      const offset = tokenText === '' ? 0 : Number(tokenText);
      if (!Number.isInteger(offset) || offset < 0)
        throw new StepError('Bad request', 'continuation_token must be the continuation_token of a previous search');
      const orderText = toRubyString(hashGet(input, 'order_by_field_id')).trim();
      let orderBy: { fieldId: string; direction: 'asc' | 'desc' } | undefined;
      if (orderText !== '') {
        const filter = filterFor(columnsOf(table), orderText, 'isnotnull', null);
        if ('problem' in filter) throw new StepError('Bad request', `order_by_field_id: ${filter.problem}`);
        orderBy = {
          fieldId: filter.fieldId,
          direction: toRubyString(hashGet(input, 'order_direction')).trim().toLowerCase() === 'desc' ? 'desc' : 'asc',
        };
      }
      const filters = filtersOf(table, input);
      const found = await service(table, () =>
        searchRecords(sc.ctx, scopeOf(sc.recipe), table.id, {
          filters,
          limit,
          offset,
          ...(orderBy ? { orderBy } : {}),
        }),
      );
      const format = formatOf(input);
      return newHash([
        ['records', found.records.map((r) => recordHash(table, r, format))],
        ['count', found.records.length],
        ['continuation_token', found.next === null ? null : String(found.next)],
      ]);
    },
  },
  create_records_batch: {
    title: 'Create records',
    required: [TABLE, { path: 'records', label: 'Records' }],
    async run(input, sc) {
      const table = await tableOf(sc, input);
      const list = batchOf(input, 'records').map((item, i) => itemValues(item, `records[${i}]`));
      const { records } = await service(table, () =>
        addRecords(sc.ctx, scopeOf(sc.recipe), table.id, list, { listener: sc.dataTables ?? null, field: 'records' }),
      );
      const format = formatOf(input);
      return newHash([
        ['records', records.map((r) => recordHash(table, r, format))],
        ['count', records.length],
      ]);
    },
  },
  update_records_batch: {
    title: 'Update records',
    required: [TABLE, { path: 'records', label: 'Records' }],
    async run(input, sc) {
      const table = await tableOf(sc, input);
      const items = batchOf(input, 'records');
      const format = formatOf(input);
      const out: Value[] = [];
      // Each record is updated as update_record updates one; a record refused fails the step, those before it stay.
      for (const [i, item] of items.entries()) {
        if (!isHash(item))
          throw new StepError('Bad request', `records[${i}] must be an object {record_id, parameters}`);
        const id = recordIdOf(item);
        const data = valuesOf(hashGet(item, 'parameters'), `records[${i}].parameters`);
        const { change } = await service(table, () =>
          changeRecord(sc.ctx, scopeOf(sc.recipe), table.id, id, { data }, sc.dataTables ?? null),
        ).catch((error: unknown) => {
          if (error instanceof StepError) throw new StepError(error.errorType, `records[${i}]: ${error.message}`);
          throw error;
        });
        out.push(recordHash(table, change.record, format));
      }
      return newHash([
        ['records', out],
        ['count', out.length],
      ]);
    },
  },
  delete_records_batch: {
    title: 'Delete records',
    required: [TABLE],
    async run(input, sc) {
      const table = await tableOf(sc, input);
      const raw = hashGet(input, 'record_ids') ?? hashGet(input, 'records');
      const ids = (Array.isArray(raw) ? raw : fieldListOf(raw))
        .map((v) =>
          (isHash(v)
            ? toRubyString(hashGet(v, 'record_id') ?? hashGet(v, '11fbe9a6_a16d_4d7e_86ea_afe42ec03005'))
            : toRubyString(v)
          ).trim(),
        )
        .filter((v) => v !== '');
      if (ids.length === 0) throw new StepError('Bad request', 'record_ids must list the Record IDs to delete');
      if (ids.length > MAX_BATCH_RECORDS)
        throw new StepError('Bad request', `record_ids holds ${ids.length} ids; at most ${MAX_BATCH_RECORDS} a batch`);
      let deleted = 0;
      for (const id of ids) {
        try {
          await service(table, () => deleteRecord(sc.ctx, scopeOf(sc.recipe), table.id, id));
          deleted += 1;
        } catch (error) {
          if (!(error instanceof StepError) || error.errorType !== 'Not found') throw error;
        }
      }
      return newHash([['deleted_count', deleted]]);
    },
  },
  truncate_table: {
    title: 'Truncate table',
    required: [TABLE],
    async run(input, sc) {
      const table = await tableOf(sc, input);
      const deleted = await service(table, () => truncateTable(sc.ctx, scopeOf(sc.recipe), table.id));
      return newHash([['deleted_count', deleted]]);
    },
  },
  remove_values_from_record: {
    title: 'Remove values from a record',
    required: [TABLE, RECORD_ID, { path: 'values_to_be_removed', label: 'Values to be removed' }],
    async run(input, sc) {
      const table = await tableOf(sc, input);
      const id = recordIdOf(input);
      const columns = columnsOf(table);
      const remove = fieldListOf(hashGet(input, 'values_to_be_removed')).map((key) => {
        const column = columnByKey(columns, key);
        if (!column)
          throw new StepError(
            'Bad request',
            `values_to_be_removed: ${key.slice(0, 100)} is not a column of data table ${JSON.stringify(table.name)}`,
          );
        return column.field_id;
      });
      const { change } = await service(table, () =>
        changeRecord(sc.ctx, scopeOf(sc.recipe), table.id, id, { remove }, sc.dataTables ?? null),
      );
      return newHash([['record', recordHash(table, change.record, formatOf(input))]]);
    },
  },
};

/** Polling triggers (src/engine/store-polls.ts): one job per `batch_size` (default 100) records after the cursor. */
function polling(title: string): TriggerDef {
  return {
    title,
    kind: 'poll',
    required: [TABLE],
    check(input) {
      const size = hashGet(input, 'batch_size');
      const n = Number(toRubyString(size));
      return size === null || size === '' || (Number.isInteger(n) && n >= 1 && n <= 1000)
        ? []
        : [['Batch size', size, 'must be a whole number from 1 to 1000', 'batch_size']];
    },
    output: (event) =>
      newHash([
        ['records', hashGet(event, 'records') ?? []],
        ['count', hashGet(event, 'count') ?? 0],
        ['table_id', hashGet(event, 'table_id')],
      ]),
    titleFields(event) {
      return [['Records', toRubyString(hashGet(event, 'count') ?? 0)]];
    },
  };
}

function realtime(title: string, withOld: boolean): TriggerDef {
  return {
    title,
    kind: 'data_table',
    required: [TABLE],
    output(event) {
      const entries: Array<[string, Value]> = [['record', hashGet(event, 'record') ?? newHash()]];
      if (withOld) entries.push(['old_record', hashGet(event, 'old_record') ?? newHash()]);
      return newHash(entries);
    },
    titleFields(event) {
      const record = hashGet(event, 'record');
      return [
        ['Record ID', isHash(record) ? toRubyString(hashGet(record, '11fbe9a6_a16d_4d7e_86ea_afe42ec03005')) : ''],
      ];
    },
  };
}

export const workatoDbTable: Connector = {
  provider: 'workato_db_table',
  title: 'Data tables',
  needsConnection: false,
  reachesOutside: false,
  triggers: {
    new_records_realtime: realtime('New record', false),
    updated_records_realtime: realtime('New/updated record', true),
    new_records_polling: polling('New records'),
    updated_records_polling: polling('New/updated records'),
  },
  actions,
};

/**
 * `data_table_lookup('Project', 'Table', 'Column': value, ...)` (20 §8): the first record (oldest)
 * of the table of the recipe's environment named `table` whose columns equal the values, as a
 * hash keyed by column name; null when none matches. The project narrows nothing here: table
 * names are unique per environment.
 */
export async function dataTableLookupForFormula(
  ctx: StepContext['ctx'],
  recipe: RecipeRef,
  tableRef: string,
  criteria: Hash,
): Promise<Hash | null> {
  const table = await findTableByRef(ctx, scopeOf(recipe), tableRef, true);
  if (!table)
    throw new FormulaError(
      `data_table_lookup: no data table ${JSON.stringify(tableRef).slice(0, 200)} in this environment`,
    );
  const columns = columnsOf(table);
  const filters: Filter[] = [];
  for (const [key, v] of Object.entries(criteria)) {
    const filter = filterFor(columns, key, 'eq', cellValue(v));
    if ('problem' in filter) throw new FormulaError(`data_table_lookup: ${filter.problem}`);
    filters.push(filter);
  }
  const found = await searchRecords(ctx, scopeOf(recipe), table.id, { filters, limit: 1 });
  const record = found.records[0];
  return record ? (fromPlain(recordPlain(table, record, 'field_name_to_value')) as Hash) : null;
}
