import { createHmac, randomBytes } from 'node:crypto';
// The authentication kinds of a connection definition: which one a connection uses, the fields it
// needs, and how it marks a request (basic, API key in a header or the query, bearer, an OAuth 2.0
// access token). Token requests are in oauth2.ts.
import type {
  AuthDefinition,
  ConnectionDefinition,
  ConnectionState,
  FieldValues,
  MultiAuth,
  OAuth1TokenBased,
  SchemaField,
} from '../definition.ts';

/** The way this connection authenticates: the definition's, or the option its `auth_type` picks. */
export function selectAuth(
  definition: ConnectionDefinition,
  values: FieldValues,
): { key: string | null; auth: AuthDefinition; fields: readonly SchemaField[] } {
  const auth = definition.auth;
  if (auth.type !== 'multi') return { key: null, auth, fields: definition.fields };
  const key = optionKey(auth, values);
  const option = auth.options[key]!;
  return { key, auth: option.auth, fields: [...definition.fields, ...option.fields] };
}

function optionKey(auth: MultiAuth, values: FieldValues): string {
  const chosen = values.auth_type;
  return typeof chosen === 'string' && Object.hasOwn(auth.options, chosen) ? chosen : auth.default;
}

/** Every field a connection of the definition may have (all options'), for the catalog and the console. */
export function allFields(definition: ConnectionDefinition): SchemaField[] {
  const out = [...definition.fields];
  const auth = definition.auth;
  if (auth.type === 'multi') {
    out.unshift({
      name: 'auth_type',
      label: 'Auth type',
      control_type: 'select',
      optional: true,
      default: auth.default,
      pick_list: Object.entries(auth.options).map(([key, option]) => [option.title, key] as const),
    });
    for (const option of Object.values(auth.options))
      for (const field of option.fields) if (!out.some((f) => f.name === field.name)) out.push(field);
  }
  return out;
}

/** The fields a connection must have before it can be tested (missing ones: 400 at create). */
export function missingFields(definition: ConnectionDefinition, values: FieldValues): string[] {
  const { auth, fields } = selectAuth(definition, values);
  const required = fields.filter((f) => f.optional !== true).map((f) => f.name);
  if (auth.type === 'custom') required.push(...auth.requiredFields(values));
  return [...new Set(required)].filter((name) => values[name] === undefined || String(values[name]).trim() === '');
}

/** Whether the connection is authorized through the provider's redirect (OAuth 2.0 authorization code). */
export function usesRedirect(definition: ConnectionDefinition, values: FieldValues): boolean {
  const { auth } = selectAuth(definition, values);
  if (auth.type === 'oauth2_authorization_code') {
    const given = auth.refreshTokenField === undefined ? undefined : values[auth.refreshTokenField];
    return given === undefined || String(given).trim() === '';
  }
  return auth.type === 'custom' && auth.oauth !== undefined;
}

/** Field names whose values are secrets (password fields, and the fields an auth kind names as keys). */
export function secretFieldNames(definition: ConnectionDefinition, values: FieldValues): string[] {
  const { auth, fields } = selectAuth(definition, values);
  const names = fields.filter((f) => f.control_type === 'password').map((f) => f.name);
  if (auth.type === 'basic' && typeof auth.password === 'string') names.push(auth.password);
  if (auth.type === 'basic' && typeof auth.password !== 'string') names.push(auth.username);
  if (auth.type === 'oauth1_tba') names.push(auth.consumerSecret, auth.tokenSecret);
  if (auth.type === 'oauth2_authorization_code' && auth.refreshTokenField) names.push(auth.refreshTokenField);
  if (auth.type === 'api_key' || auth.type === 'bearer') names.push(auth.field);
  if (auth.type === 'oauth2_client_credentials') names.push(auth.clientSecret);
  names.push('client_secret');
  return [...new Set(names)];
}

/** The values that must never be logged: secret fields and tokens. */
export function secretValues(definition: ConnectionDefinition, state: ConnectionState): string[] {
  const out: string[] = [];
  for (const name of secretFieldNames(definition, state.values)) {
    const value = state.values[name];
    if (value !== undefined && String(value) !== '') out.push(String(value));
  }
  if (state.auth.accessToken) out.push(state.auth.accessToken);
  if (state.auth.refreshToken) out.push(state.auth.refreshToken);
  return out;
}

/** Adds the connection's authentication to a request's headers or URL. */
export function applyAuth(
  auth: AuthDefinition,
  state: ConnectionState,
  headers: Record<string, string>,
  url: URL,
  method: string,
): void {
  const value = (field: string) => String(state.values[field] ?? '');
  switch (auth.type) {
    case 'none':
    case 'custom':
      return;
    case 'basic': {
      const user = `${value(auth.username)}${auth.usernameSuffix ?? ''}`;
      const password = typeof auth.password === 'string' ? value(auth.password) : auth.password.fixed;
      headers.authorization = `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;
      return;
    }
    case 'oauth1_tba':
      headers.authorization = oauth1Header(auth, state.values, method, url);
      return;
    case 'api_key':
      if (auth.in === 'header') headers[auth.name.toLowerCase()] = `${auth.prefix ?? ''}${value(auth.field)}`;
      else url.searchParams.set(auth.name, `${auth.prefix ?? ''}${value(auth.field)}`);
      return;
    case 'bearer':
      headers.authorization = `Bearer ${value(auth.field)}`;
      return;
    case 'oauth2_client_credentials':
    case 'oauth2_authorization_code':
      if (state.auth.accessToken) headers.authorization = `Bearer ${state.auth.accessToken}`;
      return;
  }
}

/** RFC 5849 with HMAC-SHA256 and a realm, over the method, the URL and its query (bodies are JSON). */
function oauth1Header(auth: OAuth1TokenBased, values: FieldValues, method: string, url: URL): string {
  const value = (field: string) => String(values[field] ?? '');
  const oauth: Record<string, string> = {
    oauth_consumer_key: value(auth.consumerKey),
    oauth_token: value(auth.tokenId),
    oauth_signature_method: 'HMAC-SHA256',
    oauth_timestamp: String(Math.floor(Date.now() / 1000)),
    oauth_nonce: randomBytes(16).toString('hex'),
    oauth_version: '1.0',
  };
  const params = [...Object.entries(oauth), ...url.searchParams.entries()]
    .map(([k, v]) => [rfc3986(k), rfc3986(v)] as const)
    .sort(([a, av], [b, bv]) => (a === b ? (av < bv ? -1 : av > bv ? 1 : 0) : a < b ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const base = [method.toUpperCase(), rfc3986(`${url.origin}${url.pathname}`), rfc3986(params)].join('&');
  const key = `${rfc3986(value(auth.consumerSecret))}&${rfc3986(value(auth.tokenSecret))}`;
  oauth.oauth_signature = createHmac('sha256', key).update(base).digest('base64');
  const realm = fromValues(auth.realm, values);
  return `OAuth realm="${rfc3986(realm)}", ${Object.entries(oauth)
    .map(([k, v]) => `${k}="${rfc3986(v)}"`)
    .join(', ')}`;
}

function rfc3986(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** A text that may depend on the connection's values. */
export function fromValues(text: string | ((values: FieldValues) => string), values: FieldValues): string {
  return typeof text === 'function' ? text(values) : text;
}
