// utility (Utilities by Workato): the vendor's helpers that older recipes still use. `log_message`
// as the logger's; `format_name` (Merge name components); `parse_json` as the JSON parser's;
// `parse_csv` and `create_csv_lines` as the CSV parser's; `parse_xml`; `create_list` (a list from
// its items); `read_file` (Download file from URL) as File tools' `read_file`; `column_chart` and
// `pie_chart` (Generate column chart, Generate pie chart) in images/charts.ts.
import { csvParser } from './csv_parser.ts';
import { columnChart, pieChart } from './images/charts.ts';
import { readFileFromUrl } from './file_connector.ts';
import { jsonParser } from './json_parser.ts';
import { logger } from './logger.ts';
import { StepError, type ActionDef, type Connector } from './types.ts';
import { parseXml } from './xml.ts';
import { hashGet, isHash, newHash, toRubyString, type Hash, type Value } from '../../recipe/formula/values.ts';

const MAX_LIST = 100_000;

function text(input: Hash, ...keys: string[]): string {
  for (const key of keys) {
    const v = hashGet(input, key);
    if (v !== null && v !== undefined) {
      if (isHash(v) || Array.isArray(v)) throw new StepError('Bad request', `${key} must be text`);
      const s = toRubyString(v).trim();
      if (s !== '') return s;
    }
  }
  return '';
}

/** Merge name components: the parts that are present, in order, one space apart. */
const formatName: ActionDef = {
  title: 'Merge name components',
  run(input) {
    const parts = [
      text(input, 'salutation', 'prefix', 'title'),
      text(input, 'first_name', 'firstname'),
      text(input, 'middle_name', 'middlename'),
      text(input, 'last_name', 'lastname'),
      text(input, 'suffix'),
    ];
    const name = parts.filter((p) => p !== '').join(' ');
    if (name.length > 10_000) throw new StepError('Bad request', 'the name is longer than 10000 characters');
    return newHash([
      ['full_name', name],
      ['name', name],
    ]);
  },
};

const parseXmlAction: ActionDef = {
  title: 'Parse XML document',
  required: [{ path: 'document', label: 'Document' }],
  run(input) {
    const document = hashGet(input, 'document');
    if (typeof document !== 'string') throw new StepError('Bad request', 'document must be XML text');
    const type = text(input, 'xml_type', 'type').toLowerCase();
    const mode =
      type === '' || type === 'simple' || type.startsWith('simple')
        ? 'simple'
        : type.startsWith('full')
          ? 'full'
          : null;
    if (mode === null) throw new StepError('Bad request', 'xml_type must be simple or full');
    const tree = parseXml(document, mode);
    return isHash(tree) ? tree : newHash([['document', tree]]);
  },
};

const createList: ActionDef = {
  title: 'Create list',
  run(input) {
    const raw: Value = hashGet(input, 'list_items') ?? hashGet(input, 'list') ?? hashGet(input, 'items');
    const list: Value[] = raw === null ? [] : Array.isArray(raw) ? raw : [raw];
    if (list.length > MAX_LIST) throw new StepError('Bad request', `a list holds at most ${MAX_LIST} items`);
    return newHash([
      ['list', list],
      ['list_size', list.length],
    ]);
  },
};

export const utility: Connector = {
  provider: 'utility',
  title: 'Utilities',
  needsConnection: false,
  reachesOutside: false,
  triggers: {},
  actions: {
    log_message: logger.actions.log_message as ActionDef,
    format_name: formatName,
    parse_json: jsonParser.actions.parse_json as ActionDef,
    parse_csv: csvParser.actions.parse_csv as ActionDef,
    create_csv_lines: csvParser.actions.create_csv_lines as ActionDef,
    parse_xml: parseXmlAction,
    create_list: createList,
    read_file: readFileFromUrl,
    column_chart: columnChart,
    pie_chart: pieChart,
  },
};
