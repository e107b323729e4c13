// Polling triggers over Switchboard's own stores (polls.ts runs them as it runs rest/new_poll_event):
// data tables' `new_records_polling` and `updated_records_polling`, and the file store's `new_file`,
// `new_csv_file` and `new_lines_in_csv_file`. Each poll reads what is after the trigger's cursor,
// makes the events (one per item, or one per batch of items for the batch triggers) and the next
// cursor; polls.ts stores the jobs and moves the cursor in one transaction.
//
// Where the cursor starts (the first poll of a recipe): `since` (an ISO date-time, or `beginning`)
// makes what was written from then on new; without it, only what is written after the first poll.
// On PostgreSQL rows commit out of id order, so items younger than STORE_POLL_SETTLE_MS (2 s by
// default) wait for the next poll (src/db/dialect.ts, commitsInIdOrder).
import type { ServiceContext } from '../context.ts';
import type { RecipeRow } from '../db/types.ts';
import { commitsInIdOrder } from '../db/dialect.ts';
import { findTableByRef, storedRecord } from '../api/data_tables/data_tables.service.ts';
import { maxRecordIdBefore, recordsAfter } from '../api/data_tables/data_tables.store.ts';
import { fileToApi, normalizePath as normalizeFilePath, readFile } from '../api/files/files.service.ts';
import { AppError } from '../errors.ts';
import { filesAfter, maxFileIdBefore } from '../api/files/files.store.ts';
import { toStored } from '../time.ts';
import { csvParser } from './connectors/csv_parser.ts';
import { StepError, type ActionDef } from './connectors/types.ts';
import { recordPlain, tableRefOf } from './connectors/workato_db_table.ts';
import { fromPlain, hashGet, isTrue, newHash, toRubyString, type Hash, type Value } from '../recipe/formula/values.ts';

/** Items read per poll; a batch trigger makes one job per `batch_size` of them. */
const MAX_ITEMS = 1000;
const SINGLE_ITEMS = 100;
const DEFAULT_BATCH = 100;
const MAX_BATCH = 1000;
/** File content one poll reads (at least one file, whatever its size). */
const MAX_POLL_BYTES = 16 * 1024 * 1024;

export interface StorePoll {
  events: Hash[];
  /** The cursor after these events (JSON of trigger_closure); null when nothing moved. */
  next: string | null;
}

type Cursor = { id: number; at?: string; lines?: number };

function batchSizeOf(input: Hash): number {
  const raw = hashGet(input, 'batch_size');
  if (raw === null || raw === '') return DEFAULT_BATCH;
  const n = Number(toRubyString(raw));
  if (!Number.isInteger(n) || n < 1 || n > MAX_BATCH)
    throw new StepError('Bad request', `batch_size must be a whole number from 1 to ${MAX_BATCH}`);
  return n;
}

/** `since`: an ISO date-time, `beginning`, or nothing (from the first poll on). */
function sinceOf(input: Hash): string | 'beginning' | null {
  const raw = hashGet(input, 'since');
  if (raw === null || raw === '') return null;
  const text = toRubyString(raw).trim();
  if (text === 'beginning') return 'beginning';
  const at = Date.parse(text);
  if (Number.isNaN(at))
    throw new StepError('Bad request', `since ${JSON.stringify(text).slice(0, 60)} is not a date and time`);
  return toStored(new Date(at));
}

/** A path of the trigger's input, normalised as the file store does; a bad one is the poll's error. */
function normalizePath(raw: string, field: string, directory = false): string {
  try {
    return normalizeFilePath(raw, field, directory);
  } catch (error) {
    if (error instanceof AppError) throw new StepError('Bad request', `${field}: ${error.message}`);
    throw error;
  }
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

function tableScope(row: RecipeRow) {
  return { workspaceId: row.workspace_id, environmentId: row.environment_id, allFolders: true, folderIds: [] };
}

async function pollRecords(
  ctx: ServiceContext,
  row: RecipeRow,
  name: string,
  input: Hash,
  cursor: Cursor | null,
  before: string,
): Promise<StorePoll> {
  const ref = tableRefOf(input);
  const table = ref === null ? undefined : await findTableByRef(ctx, tableScope(row), ref);
  if (!table)
    throw new StepError(
      'Not found',
      `Data table ${JSON.stringify(String(ref)).slice(0, 100)} not found in this environment`,
    );
  const order = name === 'updated_records_polling' ? 'updated' : 'created';
  const size = batchSizeOf(input);
  const since = sinceOf(input);
  let from: Cursor;
  if (cursor) from = cursor;
  else if (since === 'beginning') from = { id: 0, at: '' };
  else {
    // The first poll: from `since`, or from now (the cursor is set, nothing is new yet).
    const start = since ?? toStored(new Date(ctx.clock.now().getTime()));
    if (order === 'updated') from = { id: 0, at: start };
    else {
      from = { id: await maxRecordIdBefore(ctx.db, table.id, start) };
    }
    if (since === null) return { events: [], next: JSON.stringify({ cursor: from }) };
  }
  const rows = await recordsAfter(ctx.db, table.id, order, { at: from.at ?? '', id: from.id }, before, MAX_ITEMS);
  if (rows.length === 0) return { events: [], next: cursor ? null : JSON.stringify({ cursor: from }) };
  const last = rows[rows.length - 1] as (typeof rows)[number];
  const events = chunks(rows, size).map((batch) =>
    newHash([
      ['records', batch.map((r) => fromPlain(recordPlain(table, storedRecord(r), 'field_hash_to_value')))],
      ['count', batch.length],
      ['table_id', table.id],
    ]),
  );
  return {
    events,
    next: JSON.stringify({ cursor: { id: last.id, at: order === 'updated' ? last.updated_at : undefined } }),
  };
}

function csvLines(content: Buffer, input: Hash): { lines: Value; columns: Value } {
  const parsed = (csvParser.actions.parse_csv as ActionDef).run(
    newHash([
      ['csv_content', content.toString('utf8')],
      ['col_sep', hashGet(input, 'col_sep')],
      ['header_row', hashGet(input, 'header_row')],
      ['column_names', hashGet(input, 'column_names')],
    ]),
    undefined as never,
  ) as Hash;
  return { lines: hashGet(parsed, 'lines'), columns: hashGet(parsed, 'columns') };
}

async function pollFiles(
  ctx: ServiceContext,
  row: RecipeRow,
  name: string,
  input: Hash,
  cursor: Cursor | null,
  before: string,
): Promise<StorePoll> {
  const scope = { workspaceId: row.workspace_id, environmentId: row.environment_id };
  if (name === 'new_lines_in_csv_file') {
    const path = normalizePath(toRubyString(hashGet(input, 'file_path')), 'file_path');
    const { info, content } = await readFile(ctx, scope, path).catch(() => {
      throw new StepError('Not found', `File ${path} not found`);
    });
    const { lines, columns } = csvLines(content, input);
    const all = Array.isArray(lines) ? lines : [];
    // A file that became shorter was replaced: its lines are read again from the first.
    const seen = cursor?.lines !== undefined && cursor.lines <= all.length ? cursor.lines : cursor ? 0 : null;
    if (seen === null && sinceOf(input) !== 'beginning')
      return { events: [], next: JSON.stringify({ cursor: { id: 0, lines: all.length } }) };
    const fresh = all.slice(seen ?? 0, (seen ?? 0) + MAX_ITEMS);
    if (fresh.length === 0)
      return { events: [], next: cursor ? null : JSON.stringify({ cursor: { id: 0, lines: 0 } }) };
    let first = (seen ?? 0) + 1;
    const events = chunks(fresh, batchSizeOf(input)).map((batch) => {
      const event = newHash([
        ['lines', batch],
        ['line_count', batch.length],
        ['first_line_number', first],
        ['columns', columns],
        ['file', fromPlain({ ...info })],
      ]);
      first += batch.length;
      return event;
    });
    return { events, next: JSON.stringify({ cursor: { id: 0, lines: (seen ?? 0) + fresh.length } }) };
  }
  const directory = normalizePath(
    toRubyString(hashGet(input, 'file_path') ?? hashGet(input, 'directory') ?? '/') || '/',
    'file_path',
    true,
  );
  const recursive = isTrue(hashGet(input, 'include_sub_directories') ?? hashGet(input, 'recursive'));
  const since = sinceOf(input);
  let from = cursor?.id ?? 0;
  if (!cursor && since !== 'beginning') {
    from = await maxFileIdBefore(ctx.db, row.environment_id, since ?? toStored(ctx.clock.now()));
    if (since === null) return { events: [], next: JSON.stringify({ cursor: { id: from } }) };
  }
  const csvOnly = name === 'new_csv_file';
  const found = await filesAfter(
    ctx.db,
    row.environment_id,
    directory,
    recursive,
    from,
    before,
    csvOnly ? MAX_ITEMS : SINGLE_ITEMS,
  );
  let lastId = from;
  let bytes = 0;
  const events: Hash[] = [];
  for (const file of found) {
    // Other files than CSV ones are passed over (the cursor moves past them).
    if (csvOnly && !/\.csv$/i.test(file.name)) {
      lastId = file.id;
      continue;
    }
    // The files a poll reads are bounded in bytes too: the rest come at the next poll.
    bytes += Number(file.size);
    if (events.length > 0 && bytes > MAX_POLL_BYTES) break;
    lastId = file.id;
    const { content } = await readFile(ctx, scope, file.path);
    const info = fromPlain({ ...fileToApi(file) }) as Hash;
    if (csvOnly) {
      const { lines, columns } = csvLines(content, input);
      events.push(
        newHash([
          ['file', info],
          ['lines', lines],
          ['line_count', Array.isArray(lines) ? lines.length : 0],
          ['columns', columns],
        ]),
      );
    } else events.push(newHash([...Object.entries(info), ['content', content.toString('utf8')]]));
  }
  if (lastId === from && cursor) return { events, next: null };
  return { events, next: JSON.stringify({ cursor: { id: lastId } }) };
}

/** One poll of a store trigger: the events after `previous` (the stored closure) and the next cursor. */
export async function pollStore(
  ctx: ServiceContext,
  row: RecipeRow,
  name: string,
  input: Hash,
  previous: string | null,
): Promise<StorePoll> {
  let cursor: Cursor | null = null;
  if (previous !== null) {
    try {
      const parsed = (JSON.parse(previous) as { cursor?: Cursor }).cursor;
      cursor = parsed && typeof parsed.id === 'number' ? parsed : null;
    } catch {
      cursor = null;
    }
  }
  const settle = commitsInIdOrder(ctx.db) ? 0 : ctx.config.storePollSettleMs;
  const before = toStored(new Date(ctx.clock.now().getTime() - settle + 1));
  if (row.trigger_application === 'workato_db_table') return pollRecords(ctx, row, name, input, cursor, before);
  if (row.trigger_application === 'workato_files') return pollFiles(ctx, row, name, input, cursor, before);
  throw new StepError('Bad request', `no polling trigger ${name} in ${row.trigger_application ?? 'this recipe'}`);
}
