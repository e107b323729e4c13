// csv_parser (20 §10.1): parse CSV text into lines, and compose CSV text from lines, with the
// well-kept csv-parse / csv-stringify (sync APIs over one step's text). Broken quoting and rows
// of the wrong width are the step's error.
import { csvParse, csvStringify } from '../../csv.ts';
import { hashGet, newHash, toPlain, toRubyString, type Value } from '../../recipe/formula/values.ts';
import { StepError, type Connector } from './types.ts';

/** Text a step may parse, and lines it may produce. */
const MAX_CSV_CHARS = 10_000_000;
const MAX_LINES = 100_000;

const SEPARATORS: Record<string, string> = { comma: ',', semicolon: ';', tab: '\t', pipe: '|', space: ' ', colon: ':' };

function separatorOf(value: Value): string {
  if (value === null || value === '') return ',';
  const text = toRubyString(value);
  const named = SEPARATORS[text.toLowerCase()];
  if (named) return named;
  if (text === '\\t') return '\t';
  if ([...text].length !== 1 || /[\r\n"]/.test(text))
    throw new StepError(
      'Bad request',
      `col_sep must be one character or comma, semicolon, tab, pipe, space, colon; got ${JSON.stringify(text).slice(0, 40)}`,
    );
  return text;
}

function flag(value: Value, fallback: boolean): boolean {
  if (value === null || value === '') return fallback;
  return value === true || value === 'true' || value === 'yes';
}

export const csvParser: Connector = {
  provider: 'csv_parser',
  title: 'CSV parser',
  needsConnection: false,
  reachesOutside: false,
  triggers: {},
  actions: {
    parse_csv: {
      title: 'Parse CSV',
      required: [{ path: 'csv_content', label: 'CSV content' }],
      run(input) {
        const content = toRubyString(hashGet(input, 'csv_content'));
        if (content.length > MAX_CSV_CHARS)
          throw new StepError('Bad request', `csv_content is longer than ${MAX_CSV_CHARS} characters`);
        const delimiter = separatorOf(hashGet(input, 'col_sep'));
        const headers = flag(hashGet(input, 'header_row'), true);
        const givenNames = hashGet(input, 'column_names');
        const names =
          typeof givenNames === 'string' && givenNames.trim() !== ''
            ? givenNames.split(',').map((n) => n.trim())
            : null;
        let rows: string[][];
        try {
          rows = csvParse().parse(content, {
            delimiter,
            bom: true,
            relax_column_count: false,
            skip_empty_lines: true,
            to_line: MAX_LINES + 1,
          }) as string[][];
        } catch (error) {
          throw new StepError('CSV error', (error as Error).message.slice(0, 500));
        }
        const header = names ?? (headers ? (rows.shift() ?? []) : (rows[0] ?? []).map((_, i) => `column_${i + 1}`));
        if (new Set(header).size !== header.length)
          throw new StepError('CSV error', `the header names a column twice: ${header.join(', ').slice(0, 200)}`);
        if (rows.length > MAX_LINES) throw new StepError('Bad request', `the CSV holds more than ${MAX_LINES} lines`);
        const lines = rows.map((row, i) => {
          if (row.length !== header.length)
            throw new StepError(
              'CSV error',
              `line ${i + (headers && !names ? 2 : 1)} has ${row.length} fields; the header has ${header.length}`,
            );
          return newHash(header.map((name, c) => [name, row[c] ?? null] as [string, Value]));
        });
        return newHash([
          ['lines', lines],
          ['line_count', lines.length],
          ['columns', header],
        ]);
      },
    },
    create_csv_lines: {
      title: 'Compose CSV',
      required: [{ path: 'lines', label: 'Lines' }],
      run(input) {
        const raw = hashGet(input, 'lines');
        if (!Array.isArray(raw)) throw new StepError('Bad request', 'lines must be a list of objects (or of lists)');
        if (raw.length > MAX_LINES) throw new StepError('Bad request', `lines holds more than ${MAX_LINES} lines`);
        const delimiter = separatorOf(hashGet(input, 'col_sep'));
        const plain = raw.map((line) => toPlain(line));
        const columnsGiven = hashGet(input, 'columns');
        const columns = Array.isArray(columnsGiven)
          ? columnsGiven.map((c) => toRubyString(c))
          : [
              ...new Set(
                plain.flatMap((l) => (l !== null && typeof l === 'object' && !Array.isArray(l) ? Object.keys(l) : [])),
              ),
            ];
        const cell = (v: unknown) =>
          v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
        const records = plain.map((l, i) => {
          if (Array.isArray(l)) return l.map(cell);
          if (l === null || typeof l !== 'object')
            throw new StepError('Bad request', `lines[${i}] must be an object or a list`);
          return columns.map((c) => cell((l as Record<string, unknown>)[c]));
        });
        const withHeader = flag(hashGet(input, 'header_row'), true) && columns.length > 0;
        const text = csvStringify().stringify(withHeader ? [columns, ...records] : records, {
          delimiter,
          record_delimiter: '\n',
        });
        return newHash([
          ['csv_content', text],
          ['line_count', records.length],
        ]);
      },
    },
  },
};
