// Google Sheets' `new_spreadsheet_row` polling trigger: rows added at the bottom of a sheet, read
// with spreadsheets.values.get
// (https://developers.google.com/sheets/api/reference/rest/v4/spreadsheets.values/get): the header
// row (row 1) names the columns, then up to 500 rows after the last row seen. As the vendor's
// trigger does, the first start picks up every row already there; the cursor is the number of the
// last row read (rows inserted above it or deleted are not tracked). One job per row: its
// `row_number`, `spreadsheet_id`, `sheet` and each column by its header.
import { stepSession } from '../connections.ts';
import { StepError } from '../step-error.ts';
import type { Connector, TriggerDef } from '../types.ts';
import { fromPlain, type Hash } from '../../recipe/formula/values.ts';
import { closureOf, requiredText } from './trigger-helpers.ts';

const PAGE = 500;
const SPREADSHEET_ID = /^[A-Za-z0-9_-]{1,200}$/;

/** A sheet name as A1 notation quotes it (`'Sales 2026'!A1`). */
const quoted = (sheet: string) => `'${sheet.replace(/'/g, "''")}'`;

export function googleSheetsTriggers(self: () => Connector): Record<string, TriggerDef> {
  return {
    new_spreadsheet_row: {
      title: 'New row in sheet',
      kind: 'poll',
      description: 'Triggers when a row is added at the bottom of a sheet',
      inputFields: [
        { name: 'spreadsheet', label: 'Spreadsheet', hint: 'The spreadsheet ID from its URL' },
        { name: 'sheet', label: 'Sheet', hint: 'The sheet (tab) name; its first row holds the column names' },
      ],
      outputFields: [{ name: 'spreadsheet_id' }, { name: 'sheet' }, { name: 'row_number', type: 'integer' }],
      output: (event) => event,
      async poll(input: Hash, closure, tc) {
        const spreadsheet = requiredText(input, 'spreadsheet', 'Spreadsheet');
        if (!SPREADSHEET_ID.test(spreadsheet))
          throw new StepError(
            'Bad request',
            `Spreadsheet ${JSON.stringify(spreadsheet.slice(0, 80))} is not a spreadsheet ID`,
          );
        const sheet = requiredText(input, 'sheet', 'Sheet');
        const state = closureOf(closure);
        const last = typeof state.last_row === 'number' ? state.last_row : 1;
        const session = await stepSession(tc, self());
        const read = async (range: string) =>
          (
            (
              await session.request({
                method: 'GET',
                url: `spreadsheets/${spreadsheet}/values/${encodeURIComponent(range)}`,
                query: { majorDimension: 'ROWS' },
              })
            ).body as { values?: unknown[][] }
          ).values ?? [];
        const header = ((await read(`${quoted(sheet)}!1:1`))[0] ?? []).map((h) => String(h ?? ''));
        const rows = await read(`${quoted(sheet)}!A${last + 1}:ZZZ${last + PAGE}`);
        const events = rows.map((row, i) => {
          const event: Record<string, unknown> = { spreadsheet_id: spreadsheet, sheet, row_number: last + 1 + i };
          header.forEach((name, c) => {
            if (name !== '' && !Object.hasOwn(event, name)) event[name] = row[c] ?? '';
          });
          return { event: fromPlain(event) as Hash, dedup: null };
        });
        return { events, closure: { last_row: last + rows.length }, canPollMore: rows.length === PAGE };
      },
    },
  };
}
