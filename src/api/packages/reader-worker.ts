// The package reader's worker thread (reader.ts): every byte of an import's zip is inflated, parsed
// and checked here, off the server's event loop and in a heap of its own with a bound, so a zip
// whose files parse into gigabytes of objects ends this thread, never the server. What goes back
// to the server is small: each file's checked fields with its code and test cases as text, then a
// table's rows a batch at a time, already turned into the cells and values stored.
import { parentPort } from 'node:worker_threads';
import { checkDoc, stepIndex } from '../test_cases/test-case-doc.ts';
import type { Column, Stored } from '../data_tables/columns.ts';
import { coerceRecord } from './data-table-file.ts';
import { CELL_COLUMNS, type Cells } from '../lookup_tables/lookup_tables.store.ts';
import type { FieldErrors } from '../../errors.ts';
import { PackageFailure } from './export.ts';
import { parseEntries } from './entries.ts';
import type { Entry, ParsedPackage, PreparedTestCase } from './entries.ts';
import { openZip, ZipError, type OpenZip, type ZipLimits } from './zip.ts';

export type ReaderRequest =
  | { id: number; kind: 'open'; zip: ArrayBuffer; limits: ZipLimits }
  | { id: number; kind: 'entries' }
  | { id: number; kind: 'lookup_rows'; path: string; columns: number; from: number; count: number }
  | { id: number; kind: 'data_records'; path: string; columns: Column[]; from: number; count: number }
  | { id: number; kind: 'close' };

export type DataRecord = { values: Record<string, Stored>; problems: string[] };

export type ReaderReply =
  | { reading: string }
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; failure: { message: string; parts: string[] } | null; message: string };

/** What a file may keep besides its code, test cases and rows: the fields the import reads. */
export const MAX_KEPT_FIELD_BYTES = 1024 * 1024;

let zip: OpenZip | null = null;
/** The rows of the table file read last: a table is written a batch at a time, in order. */
let table: { path: string; rows: unknown[] } | null = null;

function say(reply: ReaderReply): void {
  parentPort?.postMessage(reply);
}

async function rowsOf(path: string): Promise<unknown[]> {
  if (table?.path === path) return table.rows;
  table = null;
  if (!zip) throw new Error('no archive is open');
  say({ reading: path });
  const parsed = JSON.parse((await zip.read(path)).toString('utf8')) as { data?: unknown };
  table = { path, rows: Array.isArray(parsed.data) ? parsed.data : [] };
  return table.rows;
}

/**
 * A recipe's code as text and its test cases checked against its steps, stored as they will be;
 * every other field is kept as it is, within MAX_KEPT_FIELD_BYTES.
 */
function compact(entry: Entry, problems: string[]): void {
  const { body } = entry;
  if (entry.type === 'recipe') {
    const code = typeof body.code === 'string' ? body.code : JSON.stringify(body.code);
    body.code = code;
    if (Array.isArray(body.test_cases)) {
      const index = stepIndex(code);
      const cases: PreparedTestCase[] = [];
      for (const [i, raw] of (body.test_cases as Array<Record<string, unknown>>).entries()) {
        const errors: FieldErrors = {};
        const doc = checkDoc(raw, index, errors);
        if (Object.keys(errors).length > 0) {
          problems.push(
            `${entry.path}: test case ${i} ("${String(raw.name)}"): ${Object.entries(errors)
              .map(([k, v]) => `${k} ${v.join(', ')}`)
              .join('; ')}`,
          );
          continue;
        }
        cases.push({
          name: String(raw.name).trim().slice(0, 255),
          description: typeof raw.description === 'string' ? raw.description : '',
          body: JSON.stringify(doc),
        });
      }
      if (new Set(cases.map((c) => c.name)).size !== cases.length)
        problems.push(`${entry.path}: two test cases have the same name`);
      entry.testCases = cases;
    }
    delete body.test_cases;
  }
  const kept = JSON.stringify({ ...body, code: undefined }).length;
  if (kept > MAX_KEPT_FIELD_BYTES)
    problems.push(
      `${entry.path}: its fields besides code, test cases and data hold ${kept} bytes; at most ${MAX_KEPT_FIELD_BYTES} are accepted`,
    );
}

async function entries(): Promise<ParsedPackage> {
  const open = zip;
  if (!open) throw new Error('no archive is open');
  async function* files(): AsyncGenerator<[string, Buffer]> {
    for (const name of open!.names) {
      say({ reading: name });
      yield [name, await open!.read(name)];
    }
  }
  const out = await parseEntries(files());
  const problems: string[] = [];
  for (const entry of out.entries) compact(entry, problems);
  if (problems.length > 0)
    throw new PackageFailure(
      `${problems.length} problem(s) in the files of the package; nothing was imported`,
      problems.slice(0, 100),
    );
  return out;
}

function lookupRows(rows: unknown[], columns: number, from: number, count: number): Cells[] {
  return rows.slice(from, from + count).map((row) => {
    const cells: Cells = {};
    for (let i = 0; i < columns; i += 1) {
      const col = CELL_COLUMNS[i]!;
      const v = (row as Record<string, unknown>)[col];
      cells[col] = v === undefined || v === null ? null : String(v);
    }
    return cells;
  });
}

function dataRecords(rows: unknown[], columns: Column[], from: number, count: number): DataRecord[] {
  return rows
    .slice(from, from + count)
    .map((raw, offset) => coerceRecord(raw as Record<string, unknown>, columns, from + offset));
}

async function handle(request: ReaderRequest): Promise<unknown> {
  switch (request.kind) {
    case 'open':
      zip?.close();
      table = null;
      zip = await openZip(Buffer.from(request.zip), request.limits);
      return null;
    case 'entries':
      return entries();
    case 'lookup_rows':
      return lookupRows(await rowsOf(request.path), request.columns, request.from, request.count);
    case 'data_records':
      return dataRecords(await rowsOf(request.path), request.columns, request.from, request.count);
    case 'close':
      zip?.close();
      zip = null;
      table = null;
      return null;
  }
}

parentPort?.on('message', (request: ReaderRequest) => {
  handle(request).then(
    (value) => say({ id: request.id, ok: true, value }),
    (error: unknown) => {
      const failure =
        error instanceof PackageFailure
          ? { message: error.message, parts: error.parts }
          : error instanceof ZipError
            ? { message: error.message, parts: [] }
            : null;
      say({ id: request.id, ok: false, failure, message: String((error as Error)?.message ?? error).slice(0, 500) });
    },
  );
});
