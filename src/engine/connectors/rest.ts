// rest (HTTP): send a request and read the answer (20 §10.4). With a `rest` connection in the
// recipe's config, relative URLs go to its base URL with its credentials; without one, the URL
// must be absolute. A non-2xx answer fails the step (message starting with the status code)
// unless response.ignore_http_errors is true.
import { jsonShape, MAX_EVENT_CONTAINERS } from '../../json-shape.ts';
import type { Dispatcher, request } from 'undici';
import { OutboundRefusedError } from '../../outbound/policy.ts';
import { StepError, type ActionDef, type ConnectionValues, type Connector, type EngineLimits } from './types.ts';
import {
  fromPlain,
  hashGet,
  isHash,
  MAX_EVENT_DEPTH,
  newHash,
  toPlain,
  isTrue,
  toRubyString,
  type Hash,
  type Value,
} from '../../recipe/formula/values.ts';
import { undici } from '../../outbound/undici.ts';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'];
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;
const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE']);

const ERROR_TYPES: Record<number, string> = {
  400: 'Bad request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not found',
  409: 'Conflict',
  422: 'Unprocessable entity',
  429: 'Too many requests',
};

function headersOf(raw: Value): Record<string, string> {
  const out: Record<string, string> = {};
  const add = (name: string, value: Value) => {
    if (!HEADER_NAME.test(name))
      throw new StepError('Bad request', `${JSON.stringify(name).slice(0, 60)} is not a header name`);
    const v = toRubyString(value);
    if (/[\r\n\0]/.test(v)) throw new StepError('Bad request', `header ${name} contains a line break`);
    out[name.toLowerCase()] = v;
  };
  if (Array.isArray(raw)) {
    for (const item of raw)
      if (isHash(item)) add(toRubyString(hashGet(item, 'header') ?? hashGet(item, 'name')), hashGet(item, 'value'));
  } else if (isHash(raw)) {
    for (const key of Object.keys(raw)) add(key, raw[key] as Value);
  }
  return out;
}

function bodyOf(contentType: string, body: Value, headers: Record<string, string>): string | undefined {
  if (body === null) return undefined;
  if (contentType === 'json' || contentType === '') {
    headers['content-type'] ??= 'application/json';
    return typeof body === 'string' ? body : JSON.stringify(toPlain(body));
  }
  if (contentType === 'application/x-www-form-urlencoded' || contentType === 'form') {
    headers['content-type'] ??= 'application/x-www-form-urlencoded';
    if (!isHash(body)) return toRubyString(body);
    return new URLSearchParams(
      Object.keys(body).map((k): [string, string] => [k, toRubyString(body[k] as Value)]),
    ).toString();
  }
  headers['content-type'] ??= contentType;
  return typeof body === 'string' ? body : JSON.stringify(toPlain(body));
}

const makeRequest: ActionDef = {
  title: 'Send request',
  required: [{ path: 'request.url', label: 'Request/URL' }],
  async run(input, sc) {
    return sendRequest(input, await sc.connection(), sc.limits, sc.ctx.outbound.dispatcher, (url) =>
      sc.ctx.outbound.checkUrl(url),
    );
  },
};

/** Send the request a step's (or a polling trigger's) input describes; its status, headers and body. */
export async function sendRequest(
  input: Hash,
  connection: ConnectionValues | null,
  limits: Pick<EngineLimits, 'httpTimeoutMs' | 'httpMaxResponseBytes'>,
  /** The outbound policy's dispatcher (src/outbound/): every address is checked before it is reached. */
  dispatcher: Dispatcher,
  checkUrl: (url: URL) => void,
): Promise<Hash> {
  const sc = { limits };
  const req = hashGet(input, 'request');
  const requestInput: Hash = isHash(req) ? req : newHash();
  const resp = hashGet(input, 'response');
  const responseInput: Hash = isHash(resp) ? resp : newHash();
  const method = toRubyString(hashGet(requestInput, 'method') ?? 'GET').toUpperCase() || 'GET';
  if (!METHODS.includes(method)) throw new StepError('Bad request', `method must be one of ${METHODS.join(', ')}`);
  const rawUrl = toRubyString(hashGet(requestInput, 'url')).trim();
  let url: URL;
  try {
    if (connection?.rest) {
      const base = connection.rest.baseUrl;
      url = /^https?:\/\//i.test(rawUrl)
        ? new URL(rawUrl)
        : new URL(`${base.toString().replace(/\/+$/, '')}/${rawUrl.replace(/^\/+/, '')}`);
    } else url = new URL(rawUrl);
  } catch {
    throw new StepError(
      'Bad request',
      `${JSON.stringify(rawUrl).slice(0, 100)} is not an absolute URL (or a path under the connection's base URL)`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new StepError('Bad request', 'the URL must be http or https');
  const query = hashGet(requestInput, 'query') ?? hashGet(requestInput, 'query_params');
  if (isHash(query))
    for (const key of Object.keys(query)) url.searchParams.append(key, toRubyString(query[key] as Value));
  const headers = headersOf(hashGet(requestInput, 'headers'));
  Object.assign(headers, connection?.rest?.headers ?? {});
  const contentType = toRubyString(hashGet(requestInput, 'content_type') ?? 'json');
  const body =
    method === 'GET' || method === 'HEAD' ? undefined : bodyOf(contentType, hashGet(requestInput, 'body'), headers);
  const retries = IDEMPOTENT.has(method) && !isTrue(hashGet(input, 'disable_retries')) ? 1 : 0;
  try {
    checkUrl(url);
  } catch (error) {
    if (error instanceof OutboundRefusedError) throw new StepError('Connection error', error.message);
    throw error;
  }

  let attempt = 0;
  for (;;) {
    try {
      const res = await undici().request(url, {
        method: method as 'GET',
        headers,
        body: body ?? null,
        headersTimeout: sc.limits.httpTimeoutMs,
        bodyTimeout: sc.limits.httpTimeoutMs,
        dispatcher,
      } as Parameters<typeof request>[1]);
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.body) {
        size += (chunk as Buffer).length;
        if (size > sc.limits.httpMaxResponseBytes) {
          res.body.destroy();
          throw new StepError(
            'Response too large',
            `the response is larger than ${sc.limits.httpMaxResponseBytes} bytes`,
          );
        }
        chunks.push(chunk as Buffer);
      }
      const text = Buffer.concat(chunks).toString('utf8');
      const responseHeaders: Hash = newHash(
        Object.entries(res.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? null)]),
      );
      const outputType = toRubyString(hashGet(responseInput, 'output_type') ?? 'json');
      let parsed: Value = text;
      const shape = outputType === 'json' ? jsonShape(text) : undefined;
      if (shape && shape.containers > MAX_EVENT_CONTAINERS)
        throw new StepError(
          'Response too large',
          `the JSON response holds ${shape.containers} objects and lists; at most ${MAX_EVENT_CONTAINERS} are read`,
        );
      if (shape && text.trim() !== '' && shape.depth <= MAX_EVENT_DEPTH) {
        try {
          parsed = fromPlain(JSON.parse(text));
        } catch {
          parsed = text;
        }
      }
      if ((res.statusCode < 200 || res.statusCode >= 300) && !isTrue(hashGet(responseInput, 'ignore_http_errors'))) {
        const type = ERROR_TYPES[res.statusCode] ?? (res.statusCode >= 500 ? 'Server error' : `HTTP ${res.statusCode}`);
        throw new StepError(type, `${res.statusCode} ${type}: ${text.slice(0, 500)}`, text.slice(0, 2000));
      }
      return newHash([
        ['status_code', res.statusCode],
        ['statusCode', res.statusCode],
        ['headers', responseHeaders],
        ['body', parsed],
      ]);
    } catch (error) {
      if (error instanceof StepError) throw error;
      const refused = error instanceof OutboundRefusedError ? error : (error as { cause?: unknown }).cause;
      if (refused instanceof OutboundRefusedError) throw new StepError('Connection error', refused.message);
      const code = (error as { code?: string }).code ?? '';
      const timeout =
        code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT';
      if (timeout && attempt < retries) {
        attempt++;
        continue;
      }
      if (timeout) throw new StepError('Timeout', `no answer from ${url.host} within ${sc.limits.httpTimeoutMs} ms`);
      throw new StepError('Connection error', `cannot reach ${url.host}: ${code || (error as Error).message}`);
    }
  }
}

/**
 * The older HTTP actions named by their method (`http` `get`, `post`, ...): the request is flat in
 * the input (`url`, `headers`, `query` or `params`, the body in `payload`, `body` or `request_body`,
 * `content_type` or `request_format`), or under `request` as make_request_v2's. The output is the
 * one of make_request_v2, and, as those actions showed the answer's fields as datapills of the step,
 * the fields of a JSON object answer at the top level too (the status, headers and body win a clash).
 */
function methodAction(method: string): ActionDef {
  return {
    title: `${method} request`,
    async run(input, sc) {
      const nested = hashGet(input, 'request');
      const flat: Hash = isHash(nested) ? { ...input, ...nested } : input;
      const url = hashGet(flat, 'url') ?? hashGet(flat, 'request_url');
      if (url === null || toRubyString(url).trim() === '')
        throw new StepError('Bad request', 'the request needs a url');
      const request: Hash = newHash([
        ['method', method],
        ['url', url],
        ['headers', hashGet(flat, 'headers')],
        ['query', hashGet(flat, 'query') ?? hashGet(flat, 'params') ?? hashGet(flat, 'query_params')],
        ['content_type', hashGet(flat, 'content_type') ?? hashGet(flat, 'request_format') ?? 'json'],
        ['body', hashGet(flat, 'payload') ?? hashGet(flat, 'body') ?? hashGet(flat, 'request_body')],
      ]);
      const response = hashGet(flat, 'response');
      const output = await sendRequest(
        newHash([
          ['request', request],
          [
            'response',
            isHash(response) ? response : newHash([['output_type', hashGet(flat, 'response_type') ?? 'json']]),
          ],
          ['disable_retries', hashGet(flat, 'disable_retries')],
        ]),
        await sc.connection(),
        sc.limits,
        sc.ctx.outbound.dispatcher,
        (url) => sc.ctx.outbound.checkUrl(url),
      );
      const body = hashGet(output, 'body');
      return isHash(body) ? { ...body, ...output } : output;
    },
  };
}

const METHOD_ACTIONS: Record<string, ActionDef> = Object.fromEntries(
  METHODS.map((m) => [m.toLowerCase(), methodAction(m)]),
);

export const rest: Connector = {
  provider: 'rest',
  title: 'HTTP',
  needsConnection: false,
  reachesOutside: true,
  triggers: {
    new_poll_event: {
      title: 'New records (polling)',
      kind: 'poll',
      required: [
        { path: 'request.url', label: 'Request/URL' },
        { path: 'cursor_field', label: 'Cursor field' },
      ],
      check(input) {
        const field = hashGet(input, 'cursor_field');
        if (field !== null && field !== undefined && !/^[A-Za-z0-9_.-]{1,200}$/.test(toRubyString(field)))
          return [['Cursor field', field, 'must be a field name (letters, digits, _ . -)', 'cursor_field']];
        return [];
      },
      output: (event) => event,
    },
  },
  actions: { make_request_v2: makeRequest, make_request: makeRequest, ...METHOD_ACTIONS },
};

/** The older generic provider name (20 §10.4): same executor. */
export const http: Connector = { ...rest, provider: 'http' };
