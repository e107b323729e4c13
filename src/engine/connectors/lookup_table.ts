// lookup_table: the rows of the lookup tables of the recipe's environment (20 §10.8), through the
// lookup tables service: the same validation, limits and indexed lookups as the API. Recipes name
// columns positionally (`parameters.col1`..`col10`, column labels are accepted too) and read
// entries as `{id, entry: {col1, ...}}`. Also the store behind the `lookup()` formula (§8.2).
import type { ServiceContext } from '../../context.ts';
import { AppError } from '../../errors.ts';
import {
  addRow,
  deleteRow,
  findFirstMatchingRowByRef,
  findTableByRef,
  listRowsByRef,
  truncateRows,
  updateRow,
  type TableFinder,
} from '../../api/lookup_tables/lookup_tables.service.ts';
import type { TableFacts } from '../../api/lookup_tables/lookup_tables.cache.ts';
import type { LookupRowApi, TableScope } from '../../api/lookup_tables/lookup_tables.store.ts';
import { FormulaError } from '../../recipe/formula/errors.ts';
import {
  hashGet,
  isHash,
  newHash,
  RFloat,
  toPlain,
  toRubyString,
  type Hash,
  type Value,
} from '../../recipe/formula/values.ts';
import { StepError, type ActionDef, type Connector, type RecipeRef } from './types.ts';

/** Rows `search_entries` and `get_entries` return at most (the vendor's get-all limit, 20 §10.8). */
export const MAX_ENTRIES = 10_000;

/** Every table of the recipe's environment, whichever project it belongs to (P). */
function scopeOf(recipe: RecipeRef): TableScope {
  return { workspaceId: recipe.workspaceId, environmentId: recipe.environmentId, allFolders: true, folderIds: [] };
}

/** A service error as the step's error: the field messages name the column, not the API's query key. */
function asStepError(error: unknown): unknown {
  if (!(error instanceof AppError)) return error;
  const details = Object.entries(error.errors ?? {})
    .map(([field, messages]) => `${field.replace(/^by\[(.*)\]$/s, '$1').replace(/^data\./, '')} ${messages.join(', ')}`)
    .join('; ');
  const message = details ? `${error.message}: ${details}` : error.message;
  return new StepError(error.status === 404 ? 'Not found' : 'Bad request', message);
}

async function service<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw asStepError(error);
  }
}

/** `lookup_table_id`: an id (number or digits) or an export reference `{name, ...}`, or a table name (P). */
function refOf(input: Hash): string | number {
  const raw = hashGet(input, 'lookup_table_id');
  const ref = isHash(raw) ? hashGet(raw, 'name') : raw;
  if (typeof ref !== 'string' && typeof ref !== 'number')
    throw new StepError(
      'Bad request',
      'lookup_table_id must name a lookup table (its id, or a reference with its name)',
    );
  return ref;
}

function tableNotFound(ref: string | number): StepError {
  return new StepError(
    'Not found',
    `Lookup table ${JSON.stringify(String(ref)).slice(0, 200)} not found in this environment`,
  );
}

/** The step's table, remembered or read (see findTableByRef). */
async function tableOf(ctx: ServiceContext, recipe: RecipeRef, input: Hash): Promise<TableFacts> {
  const ref = refOf(input);
  const table = await findTableByRef(ctx, scopeOf(recipe), ref, false);
  if (!table) throw tableNotFound(ref);
  return table;
}

/** How a lookup finds the step's table: the row's statement then proves it current (findFirstMatchingRowByRef). */
function finderOf(ctx: ServiceContext, recipe: RecipeRef, ref: string | number, preferName: boolean): TableFinder {
  return (fresh) => findTableByRef(ctx, scopeOf(recipe), ref, preferName, fresh);
}

/** Filters from the step's input; a bad input names a missing table first, as the table is looked up first. */
async function filtersOrTableError(
  ctx: ServiceContext,
  recipe: RecipeRef,
  input: Hash,
  criteria: () => Hash,
): Promise<Record<string, unknown>> {
  try {
    return filtersOf(criteria());
  } catch (error) {
    await tableOf(ctx, recipe, input);
    throw error;
  }
}

/** A value as a cell: text, numbers and booleans as text, nil empties; lists and hashes go to the service, which refuses them. */
function cellValue(v: Value): unknown {
  if (v === null || typeof v === 'string' || typeof v === 'boolean' || typeof v === 'number') return v;
  if (v instanceof RFloat) return toRubyString(v);
  if (Array.isArray(v) || isHash(v)) return toPlain(v);
  return toRubyString(v);
}

function parametersOf(input: Hash): Hash {
  const raw = hashGet(input, 'parameters');
  if (raw === null) return newHash();
  if (!isHash(raw))
    throw new StepError('Bad request', 'parameters must be an object of column values (col1, col2, ...)');
  return raw;
}

function cellsOf(input: Hash): Record<string, unknown> {
  const out: Record<string, unknown> = Object.create(null);
  for (const [key, v] of Object.entries(parametersOf(input))) out[key] = cellValue(v);
  return out;
}

/** Criteria as the service's `by[column]` filters; a value is compared as text, nil matches an empty cell. */
function filtersOf(criteria: Hash): Record<string, unknown> {
  const out: Record<string, unknown> = Object.create(null);
  for (const [key, v] of Object.entries(criteria)) {
    if (Array.isArray(v) || isHash(v))
      throw new StepError('Bad request', `${key} must be a single value to compare with, not a list or an object`);
    out[`by[${key}]`] = v === null ? '' : toRubyString(v);
  }
  return out;
}

/** A row as recipes see it: `{id, entry: {col1, ...}}`, columns by position. */
function entryOf(row: LookupRowApi, labels: readonly string[]): Hash {
  const entry = newHash();
  labels.forEach((label, i) => {
    entry[`col${i + 1}`] = row.data[label] ?? null;
  });
  return newHash([
    ['id', row.id],
    ['entry', entry],
  ]);
}

function rowIdOf(input: Hash): number {
  const raw = hashGet(input, 'id');
  const text = typeof raw === 'number' ? String(raw) : typeof raw === 'string' ? raw.trim() : '';
  if (!/^[1-9][0-9]{0,15}$/.test(text))
    throw new StepError('Bad request', 'id must be the id of an entry (a positive integer)');
  return Number(text);
}

function flag(v: Value): boolean {
  return v === true || ['true', 't', 'yes', '1'].includes(toRubyString(v).toLowerCase());
}

const TABLE = { path: 'lookup_table_id', label: 'Lookup table' };
const ENTRY_ID = { path: 'id', label: 'Entry ID' };
/** Rows in one batch action (20 §10.8: batch 10,000). */
const MAX_BATCH = 10_000;

const NO_ENTRY = (): Hash =>
  newHash([
    ['id', null],
    ['entry', null],
  ]);

async function entries(input: Hash, ctx: ServiceContext, recipe: RecipeRef, criteria: () => Hash): Promise<Hash> {
  const ref = refOf(input);
  const filters = await filtersOrTableError(ctx, recipe, input, criteria);
  const found = await service(() =>
    listRowsByRef(ctx, finderOf(ctx, recipe, ref, false), filters, { offset: 0, perPage: MAX_ENTRIES }),
  );
  if (!found) throw tableNotFound(ref);
  return newHash([
    ['entries', found.rows.map((row) => entryOf(row, found.table.labels))],
    ['count', found.rows.length],
  ]);
}

/**
 * An entry that is not there: `orElse` when the step asks to ignore it (`ignore_not_found`),
 * else a Not found error naming the entry and its table. Any other error goes on as it is.
 */
function ifIgnoredNotFound(error: unknown, input: Hash, tableName: string, id: number, orElse: Hash): Hash {
  if (!(error instanceof StepError) || error.errorType !== 'Not found') throw error;
  if (flag(hashGet(input, 'ignore_not_found'))) return orElse;
  throw new StepError('Not found', `Entry ${id} not found in lookup table ${JSON.stringify(tableName)}`);
}

const actions: Record<string, ActionDef> = {
  get_entry: {
    title: 'Lookup entry',
    required: [TABLE],
    async run(input, sc) {
      const ref = refOf(input);
      const filters = await filtersOrTableError(sc.ctx, sc.recipe, input, () => parametersOf(input));
      const found = await service(() =>
        findFirstMatchingRowByRef(sc.ctx, finderOf(sc.ctx, sc.recipe, ref, false), filters),
      );
      if (!found) throw tableNotFound(ref);
      return found.row ? entryOf(found.row, found.table.labels) : NO_ENTRY();
    },
  },
  search_entries: {
    title: 'Search entries',
    required: [TABLE],
    run: (input, sc) => entries(input, sc.ctx, sc.recipe, () => parametersOf(input)),
  },
  get_entries: {
    title: 'Get entries',
    required: [TABLE],
    run: (input, sc) => entries(input, sc.ctx, sc.recipe, () => newHash()),
  },
  add_entry: {
    title: 'Add entry',
    required: [TABLE],
    async run(input, sc) {
      const table = await tableOf(sc.ctx, sc.recipe, input);
      const row = await service(() => addRow(sc.ctx, scopeOf(sc.recipe), table.id, cellsOf(input)));
      return entryOf(row, table.labels);
    },
  },
  update_entry: {
    title: 'Update entry',
    required: [TABLE, ENTRY_ID],
    async run(input, sc) {
      const table = await tableOf(sc.ctx, sc.recipe, input);
      const id = rowIdOf(input);
      try {
        const row = await service(() => updateRow(sc.ctx, scopeOf(sc.recipe), table.id, id, cellsOf(input)));
        return entryOf(row, table.labels);
      } catch (error) {
        return ifIgnoredNotFound(error, input, table.name, id, NO_ENTRY());
      }
    },
  },
  delete_entry: {
    title: 'Delete entry',
    required: [TABLE, ENTRY_ID],
    async run(input, sc) {
      const table = await tableOf(sc.ctx, sc.recipe, input);
      const id = rowIdOf(input);
      try {
        await service(() => deleteRow(sc.ctx, scopeOf(sc.recipe), table.id, id));
      } catch (error) {
        return ifIgnoredNotFound(error, input, table.name, id, newHash([['id', null]]));
      }
      return newHash([['id', id]]);
    },
  },
  add_batch_of_entries: {
    title: 'Add batch of entries',
    required: [TABLE, { path: 'entries', label: 'Entries' }],
    async run(input, sc) {
      const table = await tableOf(sc.ctx, sc.recipe, input);
      const raw = hashGet(input, 'entries');
      if (!Array.isArray(raw))
        throw new StepError('Bad request', 'entries must be a list of rows (each an object of col1, col2, ... values)');
      if (raw.length > MAX_BATCH)
        throw new StepError('Bad request', `entries holds ${raw.length} rows; at most ${MAX_BATCH} a batch`);
      const added: Hash[] = [];
      // Each row is added as add_entry adds one; a row the table refuses fails the step, and the rows before it stay.
      for (const [i, item] of raw.entries()) {
        const cells =
          isHash(item) && isHash(hashGet(item, 'parameters')) ? (hashGet(item, 'parameters') as Hash) : item;
        if (!isHash(cells)) throw new StepError('Bad request', `entries[${i}] must be an object of column values`);
        const values: Record<string, unknown> = Object.create(null);
        for (const [key, v] of Object.entries(cells)) values[key] = cellValue(v);
        const row = await service(() => addRow(sc.ctx, scopeOf(sc.recipe), table.id, values)).catch(
          (error: unknown) => {
            if (error instanceof StepError) throw new StepError(error.errorType, `entries[${i}]: ${error.message}`);
            throw error;
          },
        );
        added.push(entryOf(row, table.labels));
      }
      return newHash([
        ['entries', added],
        ['count', added.length],
      ]);
    },
  },
  delete_entries: {
    title: 'Delete entries',
    required: [TABLE],
    async run(input, sc) {
      const table = await tableOf(sc.ctx, sc.recipe, input);
      const rawIds = hashGet(input, 'ids');
      let ids: number[];
      if (rawIds !== null) {
        const list = Array.isArray(rawIds)
          ? rawIds
          : String(toRubyString(rawIds))
              .split(',')
              .map((v) => v.trim())
              .filter((v) => v !== '');
        ids = list
          .map((v) => (isHash(v) ? hashGet(v, 'id') : v))
          .map((v) => Number(typeof v === 'string' ? v.trim() : v));
        if (ids.some((n) => !Number.isInteger(n) || n < 1))
          throw new StepError('Bad request', 'ids must be a list of entry ids');
      } else {
        const criteria = parametersOf(input);
        if (Object.keys(criteria).length === 0)
          throw new StepError(
            'Bad request',
            'give ids, or parameters to match the entries to delete (truncate deletes them all)',
          );
        const found = await service(() =>
          listRowsByRef(sc.ctx, finderOf(sc.ctx, sc.recipe, table.id, false), filtersOf(criteria), {
            offset: 0,
            perPage: MAX_BATCH,
          }),
        );
        ids = (found?.rows ?? []).map((r) => r.id);
      }
      if (ids.length > MAX_BATCH)
        throw new StepError('Bad request', `ids holds ${ids.length} entries; at most ${MAX_BATCH} a batch`);
      let deleted = 0;
      for (const id of ids) {
        try {
          await service(() => deleteRow(sc.ctx, scopeOf(sc.recipe), table.id, id));
          deleted += 1;
        } catch (error) {
          if (!(error instanceof StepError) || error.errorType !== 'Not found') throw error;
        }
      }
      return newHash([['deleted_count', deleted]]);
    },
  },
  truncate: {
    title: 'Delete all entries',
    required: [TABLE],
    async run(input, sc) {
      const table = await tableOf(sc.ctx, sc.recipe, input);
      await service(() => truncateRows(sc.ctx, scopeOf(sc.recipe), table.id));
      return newHash();
    },
  },
};

export const lookupTable: Connector = {
  provider: 'lookup_table',
  title: 'Lookup tables',
  needsConnection: false,
  reachesOutside: false,
  triggers: {},
  actions,
};

/**
 * The `lookup('Table', 'Column' => value, ...)` formula (20 §8.2): the first row (lowest id) of the
 * table of the recipe's environment named `table` (or with that id) whose cells equal the values
 * (compared as text, case-sensitive), as a hash keyed by column label; null when no row matches.
 */
export async function lookupForFormula(
  ctx: ServiceContext,
  recipe: RecipeRef,
  tableRef: string,
  criteria: Hash,
): Promise<Hash | null> {
  const missing = () =>
    new FormulaError(`lookup: no lookup table ${JSON.stringify(tableRef).slice(0, 200)} in this environment`);
  let filters: Record<string, unknown>;
  try {
    filters = filtersOf(criteria);
  } catch (error) {
    if (!(await findTableByRef(ctx, scopeOf(recipe), tableRef, true))) throw missing();
    throw new FormulaError(`lookup: ${(error as Error).message}`);
  }
  let found: Awaited<ReturnType<typeof findFirstMatchingRowByRef>>;
  try {
    found = await findFirstMatchingRowByRef(ctx, finderOf(ctx, recipe, tableRef, true), filters);
  } catch (error) {
    const converted = asStepError(error);
    if (converted instanceof StepError) throw new FormulaError(`lookup: ${converted.message}`);
    throw error;
  }
  if (!found) throw missing();
  if (!found.row) return null;
  const out = newHash();
  for (const label of found.table.labels) out[label] = found.row.data[label] ?? null;
  return out;
}
