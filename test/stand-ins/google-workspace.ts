// The Gmail, Sheets and Drive routes the named actions call, over one stand-in's data (seeded by
// the test, read back to check what a job did). Endpoints follow:
// - Gmail users.messages.send / get / list, users.messages.attachments.get:
//   https://developers.google.com/gmail/api/reference/rest/v1/users.messages (send takes `raw`,
//   an RFC 2822 message in base64url; a message without a To header is refused: "Invalid To header")
// - Sheets spreadsheets.values get / append / update:
//   https://developers.google.com/sheets/api/reference/rest/v4/spreadsheets.values (A1 ranges,
//   `valueInputOption` required on writes, trailing empty rows and cells left out of answers)
// - Drive files.create multipart upload (https://developers.google.com/drive/api/guides/manage-uploads#multipart),
//   files.get with alt=media, files.list with `q` (https://developers.google.com/drive/api/guides/search-files:
//   name, parents, mimeType, trashed, createdTime/modifiedTime compared with an RFC 3339 time) and `orderBy`
//   and nextPageToken pages
// - Errors: {"error": {"code", "message", "status"}} (https://cloud.google.com/apis/design/errors)
import { parseJson, type Answer, type Route, type StandIn, type StandInRequest } from './stand-in.ts';

export interface GmailMessage {
  id: string;
  threadId: string;
  from: string;
  to: string;
  subject: string;
  date: string;
  text: string;
  attachments: Array<{ attachmentId: string; filename: string; mimeType: string; data: Buffer }>;
}

export interface DriveFile {
  id: string;
  name: string;
  mimeType: string;
  parents: string[];
  content: Buffer;
  createdTime: string;
}

export interface GoogleData {
  messages: GmailMessage[];
  /** Raw messages sent through users.messages.send, decoded. */
  sent: string[];
  /** Spreadsheet id → sheet name → rows of cells. */
  sheets: Map<string, Map<string, string[][]>>;
  files: DriveFile[];
}

const data = new WeakMap<StandIn, GoogleData>();

export function googleData(standIn: StandIn): GoogleData {
  let d = data.get(standIn);
  if (!d) {
    d = {
      messages: [
        {
          id: 'm1',
          threadId: 't1',
          from: 'Billing <billing@vendor.example>',
          to: 'ana@example.com',
          subject: 'Invoice 42',
          date: 'Mon, 6 Jan 2025 10:00:00 +0000',
          text: 'Your invoice is attached.',
          attachments: [
            {
              attachmentId: 'ANGjdJ8-invoice-42',
              filename: 'invoice-42.txt',
              mimeType: 'text/plain',
              data: Buffer.from('Invoice 42: 100.00 EUR\n', 'utf8'),
            },
          ],
        },
      ],
      sent: [],
      sheets: new Map([
        [
          'sheet-1',
          new Map([
            [
              'Sheet1',
              [
                ['Name', 'Amount'],
                ['Acme', '10'],
              ],
            ],
          ]),
        ],
      ]),
      files: [
        {
          id: 'f1',
          name: 'report.pdf',
          mimeType: 'application/pdf',
          parents: ['root'],
          content: Buffer.from('%PDF-1.4 report'),
          createdTime: '2025-01-01T00:00:00.000Z',
        },
        {
          id: 'folder-invoices',
          name: 'Invoices',
          mimeType: 'application/vnd.google-apps.folder',
          parents: ['root'],
          content: Buffer.alloc(0),
          createdTime: '2025-01-01T00:00:00.000Z',
        },
      ],
    };
    data.set(standIn, d);
  }
  return d;
}

const googleError = (code: number, message: string, status: string): Answer => ({
  status: code,
  json: { error: { code, message, status } },
});
const notFound = () => googleError(404, 'Requested entity was not found.', 'NOT_FOUND');
const invalid = (message: string) => googleError(400, message, 'INVALID_ARGUMENT');

// ---- Gmail

function gmailResource(m: GmailMessage, format: string, wanted: string[]): Record<string, unknown> {
  const headers = [
    { name: 'From', value: m.from },
    { name: 'To', value: m.to },
    { name: 'Subject', value: m.subject },
    { name: 'Date', value: m.date },
  ].filter((h) => format !== 'metadata' || wanted.length === 0 || wanted.includes(h.name));
  const parts = [
    {
      partId: '0',
      mimeType: 'text/plain',
      filename: '',
      headers: [],
      body: { size: m.text.length, data: Buffer.from(m.text).toString('base64url') },
    },
    ...m.attachments.map((a, i) => ({
      partId: String(i + 1),
      mimeType: a.mimeType,
      filename: a.filename,
      headers: [],
      body: { attachmentId: a.attachmentId, size: a.data.length },
    })),
  ];
  return {
    id: m.id,
    threadId: m.threadId,
    labelIds: ['INBOX'],
    snippet: m.text.slice(0, 100),
    sizeEstimate: 1000,
    historyId: '100',
    internalDate: String(Date.parse(m.date)),
    payload: {
      partId: '',
      mimeType: 'multipart/mixed',
      filename: '',
      headers,
      ...(format === 'metadata' ? {} : { parts }),
    },
  };
}

/** The few search words the stand-in knows (`from:`, `subject:`, `has:attachment`); others match all. */
function matches(m: GmailMessage, q: string): boolean {
  for (const word of q.split(/\s+/).filter(Boolean)) {
    const [key, ...rest] = word.split(':');
    const value = rest.join(':').replace(/^"|"$/g, '').toLowerCase();
    if (key === 'from' && !m.from.toLowerCase().includes(value)) return false;
    if (key === 'subject' && !m.subject.toLowerCase().includes(value)) return false;
    if (key === 'has' && value === 'attachment' && m.attachments.length === 0) return false;
  }
  return true;
}

function decodeBase64Url(text: string): Buffer | null {
  return /^[A-Za-z0-9_-]*={0,2}$/.test(text) ? Buffer.from(text, 'base64url') : null;
}

export const gmailRoutes: Route[] = [
  {
    method: 'GET',
    path: '/gmail/v1/users/me/messages',
    reference: 'https://developers.google.com/gmail/api/reference/rest/v1/users.messages/list',
    answer: (req, s) => {
      const max = Number(req.query.get('maxResults') ?? 100);
      if (!Number.isInteger(max) || max < 1 || max > 500) return invalid('Invalid maxResults');
      const start = Number(req.query.get('pageToken') ?? 0);
      const all = googleData(s).messages.filter((m) => matches(m, req.query.get('q') ?? ''));
      const page = all.slice(start, start + max);
      return {
        json: {
          messages: page.map((m) => ({ id: m.id, threadId: m.threadId })),
          ...(start + max < all.length ? { nextPageToken: String(start + max) } : {}),
          resultSizeEstimate: all.length,
        },
      };
    },
  },
  {
    method: 'POST',
    path: '/gmail/v1/users/me/messages/send',
    reference: 'https://developers.google.com/gmail/api/reference/rest/v1/users.messages/send',
    answer: (req, s) => {
      const body = parseJson(req) as { raw?: unknown } | undefined;
      if (typeof body?.raw !== 'string')
        return invalid("'raw' RFC822 payload message string or uploading message via /upload/* URL required");
      const raw = decodeBase64Url(body.raw);
      if (raw === null) return invalid('Invalid value for ByteString');
      const text = raw.toString('utf8');
      const head = text.split('\r\n\r\n')[0] ?? '';
      if (!/^To: .*@/m.test(head)) return invalid('Invalid To header');
      const d = googleData(s);
      d.sent.push(text);
      return { json: { id: `sent-${d.sent.length}`, threadId: `thread-sent-${d.sent.length}`, labelIds: ['SENT'] } };
    },
  },
  {
    method: 'GET',
    path: /^\/gmail\/v1\/users\/me\/messages\/[^/]+$/,
    reference: 'https://developers.google.com/gmail/api/reference/rest/v1/users.messages/get',
    answer: (req, s) => {
      const id = req.path.split('/').pop();
      const m = googleData(s).messages.find((x) => x.id === id);
      if (!m) return notFound();
      return { json: gmailResource(m, req.query.get('format') ?? 'full', req.query.getAll('metadataHeaders')) };
    },
  },
  {
    method: 'GET',
    path: /^\/gmail\/v1\/users\/me\/messages\/[^/]+\/attachments\/[^/]+$/,
    reference: 'https://developers.google.com/gmail/api/reference/rest/v1/users.messages.attachments/get',
    answer: (req, s) => {
      const [, , , , , , id, , attachmentId] = req.path.split('/');
      const a = googleData(s)
        .messages.find((m) => m.id === id)
        ?.attachments.find((x) => x.attachmentId === attachmentId);
      if (!a) return notFound();
      return { json: { attachmentId: a.attachmentId, size: a.data.length, data: a.data.toString('base64url') } };
    },
  },
];

// ---- Sheets

interface A1 {
  sheet: string;
  /** 0-based first row and column; last ones inclusive, or null for open ends. */
  row0: number;
  col0: number;
  row1: number | null;
  col1: number | null;
}

const colIndex = (letters: string) => [...letters].reduce((n, c) => n * 26 + c.charCodeAt(0) - 64, 0) - 1;

/** An A1 range (`'My sheet'!A2:C2`, `Sheet1!1:1`, `'Sheet'`), or null when it does not parse. */
export function parseA1(text: string): A1 | null {
  const m = /^(?:'((?:[^']|'')+)'|([^'!:]+))(?:!(.+))?$/.exec(text);
  if (!m) return null;
  const sheet = m[1] !== undefined ? m[1].replace(/''/g, "'") : (m[2] as string);
  const cells = m[3];
  if (cells === undefined) return { sheet, row0: 0, col0: 0, row1: null, col1: null };
  const rows = /^(\d+):(\d+)$/.exec(cells);
  if (rows) return { sheet, row0: Number(rows[1]) - 1, col0: 0, row1: Number(rows[2]) - 1, col1: null };
  const box = /^([A-Z]+)(\d+)(?::([A-Z]+)(\d+))?$/.exec(cells);
  if (!box) return null;
  const row0 = Number(box[2]) - 1;
  const col0 = colIndex(box[1] as string);
  return {
    sheet,
    row0,
    col0,
    row1: box[4] ? Number(box[4]) - 1 : row0,
    col1: box[3] ? colIndex(box[3]) : col0,
  };
}

function trimmed(rows: string[][]): string[][] {
  const out = rows.map((r) => {
    const c = [...r];
    while (c.length > 0 && c.at(-1) === '') c.pop();
    return c;
  });
  while (out.length > 0 && out.at(-1)?.length === 0) out.pop();
  return out;
}

/** The spreadsheet and the A1 range of a values URL, or the error Google answers. */
function valuesTarget(
  req: StandInRequest,
  s: StandIn,
  verb: string,
): { rows: string[][]; a1: A1; id: string } | Answer {
  const m = /^\/v4\/spreadsheets\/([^/]+)\/values\/([^/]+)$/.exec(req.path);
  if (!m) return notFound();
  let range = decodeURIComponent(m[2] as string);
  if (verb) {
    if (!range.endsWith(verb)) return notFound();
    range = range.slice(0, -verb.length);
  }
  const book = googleData(s).sheets.get(m[1] as string);
  if (!book) return notFound();
  const a1 = parseA1(range);
  const rows = a1 ? book.get(a1.sheet) : undefined;
  if (!a1 || !rows) return invalid(`Unable to parse range: ${range}`);
  return { rows, a1, id: m[1] as string };
}

function writeOption(req: StandInRequest): Answer | null {
  const option = req.query.get('valueInputOption');
  return option === 'RAW' || option === 'USER_ENTERED'
    ? null
    : invalid(`Invalid valueInputOption: ${option ?? 'INPUT_VALUE_OPTION_UNSPECIFIED'}`);
}

function writtenValues(req: StandInRequest): string[][] | Answer {
  const body = parseJson(req) as { values?: unknown } | undefined;
  if (!Array.isArray(body?.values) || !body.values.every((r) => Array.isArray(r)))
    return invalid(
      'Invalid JSON payload received. Unknown name "values": Proto field is not repeating, cannot start list.',
    );
  return (body.values as unknown[][]).map((r) => r.map((v) => (v === null || v === undefined ? '' : String(v))));
}

const quotedSheet = (sheet: string) => `'${sheet.replace(/'/g, "''")}'`;
const letters = (i: number): string =>
  i < 26 ? String.fromCharCode(65 + i) : letters(Math.floor(i / 26) - 1) + letters(i % 26);

function put(rows: string[][], row: number, col: number, values: string[][]): void {
  values.forEach((cells, r) => {
    while (rows.length <= row + r) rows.push([]);
    const target = rows[row + r] as string[];
    cells.forEach((v, c) => {
      while (target.length <= col + c) target.push('');
      target[col + c] = v;
    });
  });
}

export const sheetsRoutes: Route[] = [
  {
    method: 'GET',
    path: /^\/v4\/spreadsheets\/[^/]+\/values\/[^/]+$/,
    reference: 'https://developers.google.com/sheets/api/reference/rest/v4/spreadsheets.values/get',
    answer: (req, s) => {
      const t = valuesTarget(req, s, '');
      if (!('rows' in t)) return t;
      const { a1, rows } = t;
      const cut = rows
        .slice(a1.row0, a1.row1 === null ? undefined : a1.row1 + 1)
        .map((r) => r.slice(a1.col0, a1.col1 === null ? undefined : a1.col1 + 1));
      const values = trimmed(cut);
      return {
        json: {
          range: decodeURIComponent(req.path.split('/').pop() ?? ''),
          majorDimension: 'ROWS',
          ...(values.length > 0 ? { values } : {}),
        },
      };
    },
  },
  {
    method: 'POST',
    path: /^\/v4\/spreadsheets\/[^/]+\/values\/[^/]+$/,
    reference: 'https://developers.google.com/sheets/api/reference/rest/v4/spreadsheets.values/append',
    answer: (req, s) => {
      const t = valuesTarget(req, s, ':append');
      if (!('rows' in t)) return t;
      const refused = writeOption(req);
      if (refused) return refused;
      const values = writtenValues(req);
      if (!Array.isArray(values)) return values;
      const at = trimmed(t.rows).length;
      put(t.rows, at, t.a1.col0, values);
      const width = Math.max(...values.map((r) => r.length), 1);
      const updatedRange = `${quotedSheet(t.a1.sheet)}!${letters(t.a1.col0)}${at + 1}:${letters(t.a1.col0 + width - 1)}${at + values.length}`;
      return {
        json: {
          spreadsheetId: t.id,
          tableRange: `${quotedSheet(t.a1.sheet)}!A1:${letters(width - 1)}${at}`,
          updates: {
            spreadsheetId: t.id,
            updatedRange,
            updatedRows: values.length,
            updatedColumns: width,
            updatedCells: values.flat().length,
          },
        },
      };
    },
  },
  {
    method: 'PUT',
    path: /^\/v4\/spreadsheets\/[^/]+\/values\/[^/]+$/,
    reference: 'https://developers.google.com/sheets/api/reference/rest/v4/spreadsheets.values/update',
    answer: (req, s) => {
      const t = valuesTarget(req, s, '');
      if (!('rows' in t)) return t;
      const refused = writeOption(req);
      if (refused) return refused;
      const body = parseJson(req) as { range?: unknown } | undefined;
      const urlRange = decodeURIComponent(req.path.split('/').pop() ?? '');
      if (body?.range !== undefined && body.range !== urlRange)
        return invalid(`Requested writing within range [${String(body.range)}], but tried writing to [${urlRange}]`);
      const values = writtenValues(req);
      if (!Array.isArray(values)) return values;
      put(t.rows, t.a1.row0, t.a1.col0, values);
      return {
        json: {
          spreadsheetId: t.id,
          updatedRange: urlRange,
          updatedRows: values.length,
          updatedCells: values.flat().length,
        },
      };
    },
  },
];

// ---- Drive

function fileJson(f: DriveFile, fields: string | null): Record<string, unknown> {
  const all: Record<string, unknown> = {
    kind: 'drive#file',
    id: f.id,
    name: f.name,
    mimeType: f.mimeType,
    parents: f.parents,
    size: String(f.content.length),
    createdTime: f.createdTime,
    modifiedTime: f.createdTime,
    webViewLink: `https://drive.google.com/file/d/${f.id}/view`,
  };
  if (!fields) return { kind: all.kind, id: f.id, name: f.name, mimeType: f.mimeType };
  const wanted = fields.replace(/^.*files\(|\)$/g, '').split(',');
  return Object.fromEntries(Object.entries(all).filter(([k]) => wanted.includes(k)));
}

const QUOTED = String.raw`'((?:[^'\\]|\\.)*)'`;
const unquote = (s: string) => s.replace(/\\(.)/g, '$1');

/** Splits a query on ` and ` outside quotes and parentheses. */
function conjuncts(q: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i < q.length; i++) {
    const c = q[i];
    if (c === '\\') i++;
    else if (c === "'") quoted = !quoted;
    else if (!quoted && c === '(') depth++;
    else if (!quoted && c === ')') depth--;
    else if (!quoted && depth === 0 && q.startsWith(' and ', i)) {
      out.push(q.slice(start, i));
      start = i + 5;
      i += 4;
    }
  }
  out.push(q.slice(start));
  return out.map((t) => t.trim());
}

/** Whether a file matches a query of the terms the stand-in knows; null when a term is unknown (Google's 400). */
export function driveMatch(f: DriveFile, q: string): boolean | null {
  for (const term of conjuncts(q)) {
    if (term.startsWith('(') && term.endsWith(')')) {
      const inner = driveMatch(f, term.slice(1, -1));
      if (inner !== true) return inner;
      continue;
    }
    let m: RegExpExecArray | null;
    if ((m = /^trashed = (true|false)$/.exec(term))) {
      if (m[1] === 'true') return false;
    } else if ((m = new RegExp(`^name (contains|=) ${QUOTED}$`).exec(term))) {
      const value = unquote(m[2] as string);
      if (m[1] === '=' ? f.name !== value : !f.name.includes(value)) return false;
    } else if ((m = new RegExp(`^${QUOTED} in parents$`).exec(term))) {
      if (!f.parents.includes(unquote(m[1] as string))) return false;
    } else if ((m = new RegExp(`^(createdTime|modifiedTime) (<=|<|>=|>|=) ${QUOTED}$`).exec(term))) {
      // Times are RFC 3339 (UTC by default): anything else is Google's 400.
      const at = Date.parse(unquote(m[3] as string));
      if (
        !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})?$/.test(unquote(m[3] as string)) ||
        Number.isNaN(at)
      )
        return null;
      const own = Date.parse(f.createdTime);
      const holds = { '<': own < at, '<=': own <= at, '>': own > at, '>=': own >= at, '=': own === at }[m[2] as string];
      if (!holds) return false;
    } else if ((m = new RegExp(`^mimeType (=|!=) ${QUOTED}$`).exec(term))) {
      if ((f.mimeType === unquote(m[2] as string)) !== (m[1] === '=')) return false;
    } else return null;
  }
  return true;
}

/** A multipart/related body: its parts' types and bodies (the stand-in reads bodies as UTF-8 text). */
function multipartParts(req: StandInRequest, boundary: string): Array<{ type: string; body: Buffer }> {
  const text = req.body;
  return text
    .split(`--${boundary}`)
    .slice(1, -1)
    .map((part) => {
      const [head = '', ...rest] = part.replace(/^\r\n/, '').split('\r\n\r\n');
      const body = rest.join('\r\n\r\n').replace(/\r\n$/, '');
      return { type: /content-type:\s*([^\r\n]+)/i.exec(head)?.[1] ?? '', body: Buffer.from(body, 'utf8') };
    });
}

export const driveRoutes: Route[] = [
  {
    method: 'POST',
    path: '/upload/drive/v3/files',
    reference: 'https://developers.google.com/drive/api/guides/manage-uploads#multipart',
    answer: (req, s) => {
      if (req.query.get('uploadType') !== 'multipart') return invalid('Invalid uploadType');
      const boundary = /^multipart\/related;\s*boundary=("?)([^";]+)\1/.exec(
        String(req.headers['content-type'] ?? ''),
      )?.[2];
      if (!boundary) return invalid('Bad content type. Please use multipart.');
      const parts = multipartParts(req, boundary);
      const meta = parts[0]?.type.startsWith('application/json')
        ? (JSON.parse(parts[0].body.toString('utf8')) as Partial<DriveFile>)
        : null;
      if (!meta || parts.length !== 2) return invalid('Malformed multipart body.');
      const d = googleData(s);
      for (const parent of meta.parents ?? [])
        if (parent !== 'root' && !d.files.some((f) => f.id === parent && f.mimeType.endsWith('.folder')))
          return googleError(404, `File not found: ${parent}.`, 'NOT_FOUND');
      const file: DriveFile = {
        id: `up-${d.files.length + 1}`,
        name: meta.name ?? 'Untitled',
        mimeType: meta.mimeType ?? parts[1]?.type ?? 'application/octet-stream',
        parents: meta.parents ?? ['root'],
        content: parts[1]?.body ?? Buffer.alloc(0),
        createdTime: '2025-01-02T00:00:00.000Z',
      };
      d.files.push(file);
      return { json: fileJson(file, req.query.get('fields')) };
    },
  },
  {
    method: 'GET',
    path: /^\/drive\/v3\/files\/[^/]+$/,
    reference: 'https://developers.google.com/drive/api/reference/rest/v3/files/get',
    answer: (req, s) => {
      const id = req.path.split('/').pop() as string;
      const f = googleData(s).files.find((x) => x.id === id);
      if (!f) return googleError(404, `File not found: ${id}.`, 'NOT_FOUND');
      if (req.query.get('alt') !== 'media') return { json: fileJson(f, req.query.get('fields')) };
      if (f.mimeType.startsWith('application/vnd.google-apps.'))
        return googleError(
          403,
          'Only files with binary content can be downloaded. Use Export with Docs Editors files.',
          'PERMISSION_DENIED',
        );
      return { headers: { 'content-type': f.mimeType }, text: f.content.toString('utf8') };
    },
  },
  {
    method: 'GET',
    path: '/drive/v3/files',
    reference: 'https://developers.google.com/drive/api/reference/rest/v3/files/list',
    answer: (req, s) => {
      const size = Number(req.query.get('pageSize') ?? 100);
      if (!Number.isInteger(size) || size < 1 || size > 1000) return invalid('Invalid value for pageSize');
      const q = req.query.get('q') ?? '';
      const all = [];
      for (const f of googleData(s).files) {
        const hit = q === '' ? true : driveMatch(f, q);
        if (hit === null) return invalid('Invalid Value');
        if (hit) all.push(f);
      }
      // orderBy: the keys the stand-in knows (createdTime, name, each optionally `desc`).
      const orderBy = req.query.get('orderBy');
      if (orderBy !== null) {
        const keys = orderBy.split(',').map((k) => k.trim().split(/\s+/));
        if (
          keys.some(([k, dir]) => !['createdTime', 'name'].includes(k ?? '') || (dir !== undefined && dir !== 'desc'))
        )
          return invalid('Invalid Value');
        all.sort((a, b) => {
          for (const [k, dir] of keys) {
            const x = k === 'name' ? a.name : a.createdTime;
            const y = k === 'name' ? b.name : b.createdTime;
            const c = k === 'createdTime' ? Date.parse(x) - Date.parse(y) : x.localeCompare(y);
            if (c !== 0) return dir === 'desc' ? -c : c;
          }
          return 0;
        });
      }
      const start = Number(req.query.get('pageToken') ?? 0);
      const page = all.slice(start, start + size);
      return {
        json: {
          kind: 'drive#fileList',
          ...(start + size < all.length ? { nextPageToken: String(start + size) } : {}),
          files: page.map((f) => fileJson(f, req.query.get('fields'))),
        },
      };
    },
  },
];
