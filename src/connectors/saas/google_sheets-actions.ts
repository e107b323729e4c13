// Google Sheets' named actions as the vendor's recipes store them: `add_spreadsheet_row_v4`
// (spreadsheet_id, sheet_id, data: the row's columns by header), `update_row_v4_new` (spreadsheet_id,
// sheet, row_number, data) and `search_spreadsheet_rows_v4_new` (spreadsheet_id, sheet, count; output
// rows with `col_<header>` fields). The first row of a sheet holds the headers. Over the Sheets API
// v4 values resource: get, append, update
// (https://developers.google.com/sheets/api/reference/rest/v4/spreadsheets.values).
import { StepError } from '../step-error.ts';
import type { ActionDef, Connector } from '../types.ts';
import type { ConnectorSession } from '../definition.ts';
import { countOf, objectOf, requiredText, saasAction, textOf, type Plain } from './action-inputs.ts';

/** Spreadsheet IDs as Google writes them in the sheet's URL. */
const SPREADSHEET_ID = /^[A-Za-z0-9_-]{10,200}$/;

interface SheetRef {
  spreadsheetId: string;
  sheet: string;
}

function sheetOf(input: Plain): SheetRef {
  const spreadsheetId = requiredText(input, 'Spreadsheet', 'spreadsheet_id', 'spreadsheet');
  if (!SPREADSHEET_ID.test(spreadsheetId))
    throw new StepError(
      'Bad request',
      `Spreadsheet ${JSON.stringify(spreadsheetId.slice(0, 60))} is not a spreadsheet ID`,
    );
  const sheet = requiredText(input, 'Sheet', 'sheet', 'sheet_id', 'sheet_name');
  if (sheet.length > 100 || /[\r\n]/.test(sheet)) throw new StepError('Bad request', 'Sheet is not a sheet name');
  return { spreadsheetId, sheet };
}

/** An A1 range on the sheet: the name quoted as A1 notation says (quotes doubled). */
function range(ref: SheetRef, cells = ''): string {
  return `'${ref.sheet.replace(/'/g, "''")}'${cells ? `!${cells}` : ''}`;
}

function valuesUrl(ref: SheetRef, a1: string, verb = ''): string {
  return `spreadsheets/${ref.spreadsheetId}/values/${encodeURIComponent(a1)}${verb}`;
}

/** The column letters of a 0-based index (0 → A, 26 → AA). */
export function columnName(index: number): string {
  let name = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
  return name;
}

async function headersOf(session: ConnectorSession, ref: SheetRef): Promise<string[]> {
  const res = await session.request({ method: 'GET', url: valuesUrl(ref, range(ref, '1:1')) });
  const row = ((res.body as { values?: unknown[][] } | null)?.values?.[0] ?? []).map((v) => String(v ?? ''));
  while (row.length > 0 && row.at(-1) === '') row.pop();
  if (row.length === 0) throw new StepError('Bad request', `the sheet ${ref.sheet} has no header row`);
  return row;
}

/** The row's cells in header order; a column the sheet has not is refused. */
function cellsOf(data: Plain, headers: string[], base: string[]): string[] {
  const cells = headers.map((_, i) => base[i] ?? '');
  for (const [key, value] of Object.entries(data)) {
    const at = headers.indexOf(key);
    if (at < 0)
      throw new StepError(
        'Bad request',
        `${JSON.stringify(key.slice(0, 80))} is not a column of the sheet (its header row: ${headers.join(', ')})`,
      );
    if (value === null || value === undefined) continue;
    cells[at] = typeof value === 'object' ? JSON.stringify(value) : String(value);
  }
  return cells;
}

const byHeader = (headers: string[], cells: string[]) => Object.fromEntries(headers.map((h, i) => [h, cells[i] ?? '']));

function rowNumberOf(input: Plain): number {
  const text = requiredText(input, 'Row number', 'row_number', 'row_id');
  const n = Number(text);
  if (!Number.isInteger(n) || n < 2 || n > 10_000_000)
    throw new StepError(
      'Bad request',
      `Row number ${JSON.stringify(text.slice(0, 20))} is not a data row (2 or more: row 1 holds the headers)`,
    );
  return n;
}

const SHEET_FIELDS = [
  { name: 'spreadsheet_id', label: 'Spreadsheet' },
  { name: 'sheet', label: 'Sheet' },
];

export function googleSheetsActions(self: () => Connector): Record<string, ActionDef> {
  return {
    add_spreadsheet_row_v4: saasAction(
      'Add row',
      self,
      {
        required: [{ path: 'spreadsheet_id', label: 'Spreadsheet' }],
        inputFields: [...SHEET_FIELDS, { name: 'data', type: 'object', label: 'Row data' }],
        outputFields: [
          { name: 'row_number', type: 'integer' },
          { name: 'data', type: 'object' },
        ],
      },
      async (input, session) => {
        const ref = sheetOf(input);
        const s = await session();
        const headers = await headersOf(s, ref);
        const cells = cellsOf(objectOf(input, 'data'), headers, []);
        const res = await s.request({
          method: 'POST',
          url: valuesUrl(ref, range(ref, 'A1'), ':append'),
          query: { valueInputOption: 'USER_ENTERED', insertDataOption: 'INSERT_ROWS' },
          body: { json: { range: range(ref, 'A1'), majorDimension: 'ROWS', values: [cells] } },
        });
        const updated = String(
          (res.body as { updates?: { updatedRange?: unknown } } | null)?.updates?.updatedRange ?? '',
        );
        const row = /![A-Z]+(\d+)/.exec(updated)?.[1];
        return { row_number: row === undefined ? null : Number(row), data: byHeader(headers, cells) };
      },
    ),
    update_row_v4_new: saasAction(
      'Update row',
      self,
      {
        required: [
          { path: 'spreadsheet_id', label: 'Spreadsheet' },
          { path: 'row_number', label: 'Row number' },
        ],
        inputFields: [...SHEET_FIELDS, { name: 'row_number', type: 'integer' }, { name: 'data', type: 'object' }],
        outputFields: [
          { name: 'row_number', type: 'integer' },
          { name: 'data', type: 'object' },
        ],
      },
      async (input, session) => {
        const ref = sheetOf(input);
        const n = rowNumberOf(input);
        const s = await session();
        const headers = await headersOf(s, ref);
        const cellsRange = range(ref, `A${n}:${columnName(headers.length - 1)}${n}`);
        const current = await s.request({ method: 'GET', url: valuesUrl(ref, cellsRange) });
        const base = ((current.body as { values?: unknown[][] } | null)?.values?.[0] ?? []).map((v) => String(v ?? ''));
        const cells = cellsOf(objectOf(input, 'data'), headers, base);
        await s.request({
          method: 'PUT',
          url: valuesUrl(ref, cellsRange),
          query: { valueInputOption: 'USER_ENTERED' },
          body: { json: { range: cellsRange, majorDimension: 'ROWS', values: [cells] } },
        });
        return { row_number: n, data: byHeader(headers, cells) };
      },
    ),
    search_spreadsheet_rows_v4_new: saasAction(
      'Search rows',
      self,
      {
        required: [{ path: 'spreadsheet_id', label: 'Spreadsheet' }],
        inputFields: [
          ...SHEET_FIELDS,
          { name: 'count', type: 'integer', optional: true, default: '200' },
          { name: 'data', type: 'object', optional: true, hint: 'Columns the rows must equal' },
        ],
        outputFields: [{ name: 'rows', type: 'array', of: 'object' }],
      },
      async (input, session) => {
        const ref = sheetOf(input);
        const count = countOf(input, 'count', 200, 5000);
        const where = Object.entries(objectOf(input, 'data')).filter(
          ([, v]) => v !== null && v !== undefined && v !== '',
        );
        const res = await (
          await session()
        ).request({ method: 'GET', url: valuesUrl(ref, range(ref)), query: { majorDimension: 'ROWS' } });
        const values = ((res.body as { values?: unknown[][] } | null)?.values ?? []).map((r) =>
          r.map((v) => String(v ?? '')),
        );
        const headers = values[0] ?? [];
        for (const [key] of where)
          if (!headers.includes(key))
            throw new StepError('Bad request', `${JSON.stringify(key.slice(0, 80))} is not a column of the sheet`);
        const rows: Plain[] = [];
        for (let i = 1; i < values.length && rows.length < count; i++) {
          const cells = values[i] ?? [];
          if (cells.every((c) => c === '')) continue;
          if (!where.every(([key, want]) => (cells[headers.indexOf(key)] ?? '') === textOf({ want }, 'want'))) continue;
          const row: Plain = { row_number: i + 1 };
          headers.forEach((h, at) => {
            if (h !== '') row[`col_${h}`] = cells[at] ?? '';
          });
          rows.push(row);
        }
        return { rows };
      },
    ),
  };
}
