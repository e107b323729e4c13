// The custom action `__adhoc_http_action` (contract 22 §2) of every SaaS connector: a request to
// the service's API with the connection's authentication, as the vendor's recipes store it:
// `verb`, `path` (relative to the connection's base URL, or absolute within the service's hosts),
// `input.data` as the query (get, delete) or the body (`request_type` json, url_encoded_form,
// multipart, raw), `input.schema` typing the data, `response_type` json or raw, `response_headers`
// naming the headers to keep. Output: a JSON object answer's fields, as the vendor's recipes read them
// (an array, a scalar or a raw answer as `body`), and `headers` when asked for.
import { stepSession } from './connections.ts';
import type { ConnectorRequest, SchemaField } from './definition.ts';
import { resolveUrl } from './http/session.ts';
import { StepError } from './step-error.ts';
import type { ActionDef, Connector } from './types.ts';
import { fromPlain, hashGet, isHash, toPlain, toRubyString, type Hash, type Value } from '../recipe/formula/values.ts';

const VERBS = new Set(['get', 'post', 'put', 'patch', 'delete', 'head', 'options']);
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;

export const ADHOC_ACTION = '__adhoc_http_action';

/** The custom action of a connector (its session comes from the step's connection of that connector). */
export function adhocAction(connector: () => Connector): ActionDef {
  return {
    title: 'Custom action',
    description: "An HTTP request to the service's API with the connection's authentication",
    required: [
      { path: 'verb', label: 'Method' },
      { path: 'path', label: 'Path' },
    ],
    inputFields: [
      { name: 'mnemonic', label: 'Action name', type: 'string', optional: true },
      {
        name: 'verb',
        label: 'Method',
        type: 'string',
        control_type: 'select',
        pick_list: [...VERBS].map((v) => [v.toUpperCase(), v] as const),
      },
      { name: 'path', label: 'Path', type: 'string' },
      { name: 'request_type', label: 'Request type', type: 'string', optional: true },
      { name: 'response_type', label: 'Response type', type: 'string', optional: true },
      {
        name: 'input',
        label: 'Input',
        type: 'object',
        optional: true,
        properties: [
          { name: 'schema', type: 'string', optional: true },
          { name: 'data', type: 'object', optional: true },
        ],
      },
      { name: 'output', label: 'Response body', type: 'string', optional: true },
      { name: 'response_headers', label: 'Response headers', type: 'string', optional: true },
    ],
    // The output's fields are the step's own: its `output` schema (the response body) and
    // `response_headers`; `body` holds an answer that is not a JSON object.
    outputFields: [
      { name: 'body', label: 'Body', type: 'object', optional: true },
      { name: 'headers', label: 'Headers', type: 'object', optional: true },
    ],
    async run(input, sc) {
      const self = connector();
      const session = await stepSession(sc, self);
      const verb = toRubyString(hashGet(input, 'verb')).trim().toLowerCase();
      if (!VERBS.has(verb)) throw new StepError('Bad request', `verb must be one of ${[...VERBS].join(', ')}`);
      const path = toRubyString(hashGet(input, 'path')).trim();
      const target = resolveUrl(session.baseUrl, path);
      const hosts = self.connection?.hosts?.(session.state) ?? [session.baseUrl.host];
      if (target.host !== session.baseUrl.host && !hosts.includes(target.host))
        throw new StepError(
          'Bad request',
          `${target.origin} is outside the ${self.provider} connection's hosts (${[session.baseUrl.host, ...hosts.filter((h) => h !== session.baseUrl.host)].join(', ')})`,
        );
      const inner = hashGet(input, 'input');
      const schema = fieldsOf(isHash(inner) ? hashGet(inner, 'schema') : null);
      const rawData = isHash(inner) ? hashGet(inner, 'data') : null;
      const data = isHash(rawData) ? typed(rawData, schema) : {};
      const method = verb.toUpperCase() as ConnectorRequest['method'];
      const request: ConnectorRequest = { method, url: target.toString() };
      const headers = headersOf(hashGet(input, 'headers') ?? hashGet(input, 'request_headers'));
      if (Object.keys(headers).length > 0) request.headers = headers;
      if (method === 'GET' || method === 'DELETE' || method === 'HEAD' || method === 'OPTIONS') {
        const query: Record<string, string | string[]> = {};
        for (const [key, value] of Object.entries(data)) {
          if (value === null || value === undefined) continue;
          query[key] = Array.isArray(value) ? value.map((v) => scalarText(v)) : scalarText(value);
        }
        request.query = query;
      } else {
        request.body = bodyOf(toRubyString(hashGet(input, 'request_type') ?? 'json').toLowerCase(), data);
      }
      const responseType = toRubyString(hashGet(input, 'response_type') ?? 'json').toLowerCase();
      request.responseType = responseType === 'json' || responseType === '' ? 'json' : 'text';
      const res = await session.request(request);
      // As the vendor's recipes read it: a JSON object's fields are the step's output (datapills such
      // as `data.0.id`); an array, a scalar or a raw answer is its `body`.
      const body = bodyValue(res.body);
      const out: Record<string, unknown> = isPlainObject(body) ? { ...body } : { body };
      const wanted = fieldsOf(hashGet(input, 'response_headers'));
      if (wanted.length > 0) {
        const picked: Record<string, string> = {};
        for (const field of wanted) {
          const value = res.headers[field.name.toLowerCase()];
          if (value !== undefined) picked[field.name] = value;
        }
        out.headers = picked;
      }
      return fromPlain(out);
    },
  };
}

/** The fields of a schema given as the vendor stores it: a JSON string (or already a list). */
function fieldsOf(raw: Value | null | undefined): SchemaField[] {
  let parsed: unknown = raw === null || raw === undefined ? [] : toPlain(raw);
  if (typeof parsed === 'string') {
    if (parsed.trim() === '') return [];
    try {
      parsed = JSON.parse(parsed);
    } catch {
      throw new StepError('Bad request', 'the schema is not valid JSON');
    }
  }
  return Array.isArray(parsed)
    ? parsed.filter(
        (f): f is SchemaField => typeof f === 'object' && f !== null && typeof (f as SchemaField).name === 'string',
      )
    : [];
}

/** The data with text values of fields the schema types as numbers or booleans converted. */
function typed(data: Hash, schema: readonly SchemaField[]): Record<string, unknown> {
  const plain = toPlain(data) as Record<string, unknown>;
  for (const field of schema) {
    const value = plain[field.name];
    if (typeof value !== 'string') continue;
    const text = value.trim();
    if ((field.type === 'integer' || field.type === 'number') && text !== '' && Number.isFinite(Number(text)))
      plain[field.name] = Number(text);
    else if (field.type === 'boolean' && (text === 'true' || text === 'false')) plain[field.name] = text === 'true';
  }
  return plain;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Bytes have no JSON form: a raw answer is text. */
function bodyValue(body: unknown): unknown {
  return Buffer.isBuffer(body) ? body.toString('utf8') : body;
}

function scalarText(value: unknown): string {
  return typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
}

function bodyOf(requestType: string, data: Record<string, unknown>): ConnectorRequest['body'] {
  switch (requestType) {
    case 'url_encoded_form':
    case 'urlencoded':
    case 'form':
    case 'www_form_urlencoded': {
      const form: Record<string, string> = {};
      for (const [key, value] of Object.entries(data))
        if (value !== null && value !== undefined) form[key] = scalarText(value);
      return { form };
    }
    case 'multipart': {
      const boundary = `----switchboard${Math.random().toString(16).slice(2)}`;
      const parts = Object.entries(data)
        .filter(([, value]) => value !== null && value !== undefined)
        .map(
          ([key, value]) =>
            `--${boundary}\r\nContent-Disposition: form-data; name="${key.replace(/["\r\n]/g, '_')}"\r\n\r\n${scalarText(value)}\r\n`,
        );
      return { text: `${parts.join('')}--${boundary}--\r\n`, contentType: `multipart/form-data; boundary=${boundary}` };
    }
    case 'raw':
    case 'text':
    case 'xml': {
      const value = Object.keys(data).length === 1 ? Object.values(data)[0] : data;
      const text = typeof value === 'string' ? value : JSON.stringify(value);
      return {
        text,
        contentType:
          requestType === 'xml' ? 'application/xml' : requestType === 'text' ? 'text/plain' : 'application/json',
      };
    }
    default:
      return { json: data };
  }
}

function headersOf(raw: Value | null | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  const add = (name: string, value: Value) => {
    if (!HEADER_NAME.test(name))
      throw new StepError('Bad request', `${JSON.stringify(name).slice(0, 60)} is not a header name`);
    const text = toRubyString(value);
    if (/[\r\n\0]/.test(text)) throw new StepError('Bad request', `header ${name} contains a line break`);
    out[name.toLowerCase()] = text;
  };
  if (Array.isArray(raw)) {
    for (const item of raw)
      if (isHash(item)) add(toRubyString(hashGet(item, 'name') ?? hashGet(item, 'header')), hashGet(item, 'value'));
  } else if (isHash(raw)) for (const key of Object.keys(raw)) add(key, raw[key] as Value);
  // The connection's authentication is the session's: a step cannot replace it.
  delete out.authorization;
  return out;
}
