// POST /oauth2/token (spec "Token endpoint", contract 01): its own parsers (form, JSON,
// multipart) and its own error format, RFC 6749 §5.2 `{ error, error_description }`.
import type busboy from 'busboy';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { ServiceContext } from '../context.ts';
import type { AccessTokenSigner } from './access-token.ts';
import type { FailureLimiter } from './failure-limiter.ts';
import { createOAuthClientCache } from './client-cache.ts';
import { OAuthError } from './errors.ts';
import { storageFailureOf } from '../db/dialect.ts';
import { STORAGE_RETRY_AFTER_SECONDS } from '../errors.ts';
import { issueToken, parseBasic, type TokenRequest, type TokenResponse as IssuedToken } from './token.service.ts';

type Params = Map<string, string[]>;

const TokenResponse = Type.Object({
  access_token: Type.String(),
  token_type: Type.Literal('bearer'),
  expires_in: Type.Integer(),
});
const OAuthErrorBody = Type.Object({ error: Type.String(), error_description: Type.String() });
const MAX_BODY = 16 * 1024;

export function oauth2Routes(deps: { ctx: ServiceContext; signer: AccessTokenSigner; limiter: FailureLimiter }) {
  const clients = createOAuthClientCache(deps.ctx);
  const issueDeps = { signer: deps.signer, limiter: deps.limiter, clients };
  return async function oauth2Plugin(app: FastifyInstance): Promise<void> {
    app.removeAllContentTypeParsers();
    app.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: MAX_BODY },
      (_req, body, done) => {
        done(null, formParams(body as string));
      },
    );
    app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: MAX_BODY }, (_req, body, done) => {
      try {
        done(null, jsonParams(body as string));
      } catch (error) {
        done(error as Error, undefined);
      }
    });
    app.addContentTypeParser('multipart/form-data', { parseAs: 'buffer', bodyLimit: MAX_BODY }, (req, body, done) => {
      multipartParams(req.headers, body as Buffer).then(
        (params) => done(null, params),
        (error: Error) => done(error, undefined),
      );
    });

    app.setErrorHandler((error: FastifyError | OAuthError, request, reply) => {
      if (error instanceof OAuthError) return sendError(reply, error);
      if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return sendError(reply, new OAuthError('body_too_large'));
      if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
        return sendError(reply, new OAuthError('content_type_unsupported'));
      }
      if (typeof error.statusCode === 'number' && error.statusCode < 500)
        return sendError(reply, new OAuthError('request_unreadable'));
      if (storageFailureOf(error) !== undefined) {
        request.log.warn({ err: error }, 'storage unavailable');
        return sendError(
          reply,
          new OAuthError('storage_unavailable', { headers: { 'retry-after': String(STORAGE_RETRY_AFTER_SECONDS) } }),
        );
      }
      request.log.error({ err: error }, 'token endpoint failed');
      return sendError(reply, new OAuthError('server_error'));
    });

    app.post(
      '/oauth2/token',
      {
        config: { public: true },
        schema: {
          tags: ['OAuth 2.0'],
          summary:
            "Client credentials grant: exchange an access profile's client ID and secret for a bearer token (3600 s)",
          description:
            'Four formats: Basic header + form body; JSON body; form body with all three; multipart/form-data with three parts. The Content-Type must match the body.',
          response: {
            200: TokenResponse,
            400: OAuthErrorBody,
            401: OAuthErrorBody,
            413: OAuthErrorBody,
            429: OAuthErrorBody,
          },
        },
      },
      (request, reply) => {
        const query = request.query as Record<string, unknown>;
        if (['grant_type', 'client_id', 'client_secret'].some((k) => k in query)) {
          throw new OAuthError('parameters_in_url');
        }
        const tokenRequest: TokenRequest = {
          params: request.body instanceof Map ? (request.body as Params) : new Map(),
          basic: parseBasic(request.headers.authorization),
          sourceAddress: request.ip,
        };
        noStore(reply);
        reply.type('application/json; charset=utf-8');
        // A token, or a promise of one when the client had to be read from the database.
        const issued = issueToken(deps.ctx, issueDeps, tokenRequest);
        return issued instanceof Promise ? issued.then(tokenJson) : tokenJson(issued);
      },
    );

    // Other methods: 405 with Allow: POST (contract 01 §6).
    app.route({
      method: ['GET', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
      url: '/oauth2/token',
      config: { public: true },
      schema: { hide: true },
      handler: async (_request, reply) =>
        sendError(reply, new OAuthError('method_not_allowed', { headers: { allow: 'POST' } })),
    });
  };
}

/**
 * The 200 body, written directly: its three members are ours and need no escaping (the token is
 * base64url and dots, checked by the tests), and a serializer would scan the long token for
 * characters to escape. The route's schema still documents the reply.
 */
export function tokenJson(response: IssuedToken): string {
  return `{"access_token":"${response.access_token}","token_type":"${response.token_type}","expires_in":${response.expires_in}}`;
}

function noStore(reply: FastifyReply): void {
  reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
}

function sendError(reply: FastifyReply, error: OAuthError) {
  noStore(reply);
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  return reply.status(error.status).send({ error: error.error, error_description: error.message });
}

/**
 * An application/x-www-form-urlencoded body, parsed as URLSearchParams parses it. A body with
 * nothing encoded (no `%`, no `+`), the usual `grant_type=client_credentials`, is split directly.
 */
export function formParams(text: string): Params {
  const params: Params = new Map();
  const add = (key: string, value: string) => {
    const values = params.get(key);
    if (values === undefined) params.set(key, [value]);
    else values.push(value);
  };
  if (text.includes('%') || text.includes('+')) {
    for (const [key, value] of new URLSearchParams(text)) add(key, value);
    return params;
  }
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    if (eq < 0) add(pair, '');
    else add(pair.slice(0, eq), pair.slice(eq + 1));
  }
  return params;
}

function jsonParams(text: string): Params {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new OAuthError('json_invalid');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new OAuthError('json_not_object');
  // JSON.parse keeps the last of two members with one name; a parameter may not repeat (01).
  const repeated = repeatedMember(text);
  if (repeated !== undefined) throw new OAuthError('parameter_repeated', { params: { name: repeated } });
  const params: Params = new Map();
  for (const [key, value] of Object.entries(body)) {
    if (['grant_type', 'client_id', 'client_secret', 'scope'].includes(key) && typeof value !== 'string') {
      throw new OAuthError('json_member_not_string', { params: { member: key } });
    }
    if (typeof value === 'string') params.set(key, [value]);
  }
  return params;
}

/**
 * The first member name that appears twice in the top-level object of a JSON text that parses.
 * One pass over the text: strings are skipped whole, so brackets inside them do not count.
 */
export function repeatedMember(text: string): string | undefined {
  const seen = new Set<string>();
  let depth = 0;
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let end = i + 1;
      while (text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      if (depth === 1 && expectKey) {
        const name = JSON.parse(text.slice(i, end + 1)) as string;
        if (seen.has(name)) return name;
        seen.add(name);
        expectKey = false;
      }
      i = end;
    } else if (c === '{' || c === '[') {
      depth++;
      expectKey = c === '{' && depth === 1;
    } else if (c === '}' || c === ']') {
      depth--;
    } else if (c === ',' && depth === 1) {
      expectKey = true;
    }
  }
  return undefined;
}

async function multipartParams(headers: FastifyRequest['headers'], body: Buffer): Promise<Params> {
  // The multipart parser loads at the first multipart body.
  const { default: createParser } = await import('busboy');
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = createParser({ headers, limits: { fields: 20, fieldSize: 4096, files: 0, parts: 20 } });
    } catch {
      reject(new OAuthError('multipart_no_boundary'));
      return;
    }
    const params: Params = new Map();
    let failure: OAuthError | undefined;
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) failure ??= new OAuthError('multipart_part_too_long', { params: { part: name } });
      params.set(name, [...(params.get(name) ?? []), value]);
    });
    parser.on('file', (_name, stream) => {
      stream.resume();
      failure ??= new OAuthError('multipart_file_part');
    });
    parser.on('filesLimit', () => {
      failure ??= new OAuthError('multipart_file_part');
    });
    parser.on('partsLimit', () => {
      failure ??= new OAuthError('multipart_too_many_parts');
    });
    parser.on('error', () => reject(new OAuthError('multipart_unreadable')));
    parser.on('close', () => (failure ? reject(failure) : resolve(params)));
    parser.end(body);
  });
}
