// The `input` of a connection: connector fields whose values are either given (and sealed at rest
// as one JSON document) or references to a secret, `{"secret": "NAME" | "env:NAME" | "file:NAME"}`,
// resolved only where a credential is used. Nothing here ever puts a value into an error message.
import type { SecretBox } from '../../crypto/secret-box.ts';
import type { Db } from '../../db/types.ts';
import type { FieldErrors } from '../../errors.ts';
import type { SecretResolver, SecretScope } from '../secrets_management/secret-resolver.ts';
import { isModelProvider, isRestProvider } from './providers.ts';

export type InputValue = string | number | boolean | { secret: string };
export type ConnectionInput = Record<string, InputValue>;
/** Input as sent: null asks to remove a field (on update) or is dropped (on create). */
export type InputPatch = Record<string, InputValue | null>;
export type ResolvedInput = Record<string, string | number | boolean>;

export const MAX_INPUT_FIELDS = 100;
const MAX_FIELD_NAME = 100;

/** Auth types of the built-in `rest` connection and the fields each needs. */
export const REST_AUTH_TYPES = {
  none: [],
  basic: ['username', 'password'],
  bearer: ['token'],
  api_key: ['api_key'],
} as const satisfies Record<string, readonly string[]>;
type RestAuthType = keyof typeof REST_AUTH_TYPES;

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;

export function isSecretReference(value: unknown): value is { secret: string } {
  return typeof value === 'object' && value !== null && typeof (value as { secret?: unknown }).secret === 'string';
}

/** Apply a patch: keys sent replace, null removes, keys absent stay. */
export function mergeInput(current: ConnectionInput, patch: InputPatch): ConnectionInput {
  const out: ConnectionInput = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = value;
  }
  return out;
}

/** Problems with an input that no secret value can fix: field names, references, rest settings. */
export function inputProblems(provider: string, input: ConnectionInput, resolver: SecretResolver): FieldErrors {
  const errors: FieldErrors = {};
  const keys = Object.keys(input);
  if (keys.length > MAX_INPUT_FIELDS) errors.input = [`has too many fields (maximum is ${MAX_INPUT_FIELDS})`];
  for (const key of keys) {
    if (key.trim() === '' || key.length > MAX_FIELD_NAME) {
      errors.input = [`field names must be 1 to ${MAX_FIELD_NAME} characters`];
      continue;
    }
    const value = input[key];
    if (isSecretReference(value)) {
      const problem = resolver.check(value.secret);
      if (problem !== null) errors[`input.${key}`] = [`secret reference ${problem}`];
    }
  }
  if (isRestProvider(provider)) {
    const authType = input.auth_type;
    if (
      authType !== undefined &&
      !isSecretReference(authType) &&
      !(typeof authType === 'string' && authType in REST_AUTH_TYPES)
    ) {
      errors['input.auth_type'] = [`must be one of ${Object.keys(REST_AUTH_TYPES).join(', ')}`];
    }
    const baseUrl = input.base_url;
    if (baseUrl !== undefined && !isSecretReference(baseUrl) && httpUrl(baseUrl) === null)
      errors['input.base_url'] = ['must be an absolute http(s) URL'];
    const header = input.api_key_header;
    if (header !== undefined && !isSecretReference(header) && !(typeof header === 'string' && HEADER_NAME.test(header)))
      errors['input.api_key_header'] = ['must be an HTTP header name'];
  }
  if (isModelProvider(provider)) {
    const baseUrl = input.base_url;
    if (baseUrl !== undefined && !isSecretReference(baseUrl) && httpUrl(baseUrl) === null)
      errors['input.base_url'] = ['must be an absolute http(s) URL, e.g. http://127.0.0.1:11434/v1'];
    const model = input.model;
    if (model !== undefined && !isSecretReference(model) && (typeof model !== 'string' || model.length > 200))
      errors['input.model'] = ['must be a model name of at most 200 characters'];
  }
  return errors;
}

/** What a model connection calls: POST <base_url>/chat/completions with the key and the model. */
export interface ModelRequestSettings {
  baseUrl: URL;
  apiKey: string | null;
  model: string;
}

/** The settings of a model connection from its resolved values; IncompleteCredentialsError names what is missing. */
export function modelRequestSettings(values: ResolvedInput): ModelRequestSettings {
  const baseUrl = httpUrl(values.base_url);
  if (baseUrl === null)
    throw new IncompleteCredentialsError('base_url is required: the Chat Completions base URL (…/v1)');
  const model = typeof values.model === 'string' ? values.model.trim() : '';
  if (model === '') throw new IncompleteCredentialsError('model is required: the name of the model to call');
  const key = typeof values.api_key === 'string' && values.api_key !== '' ? values.api_key : null;
  return { baseUrl, apiKey: key, model };
}

export function sealInput(box: SecretBox, input: ConnectionInput): string | null {
  return Object.keys(input).length === 0 ? null : box.seal(JSON.stringify(input));
}

export function openInput(box: SecretBox, sealed: string | null): ConnectionInput {
  if (sealed === null) return {};
  const parsed: unknown = JSON.parse(box.open(sealed));
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as ConnectionInput) : {};
}

/** Every reference replaced by its value; throws SecretResolutionError naming the reference. */
export async function resolveInput(
  db: Db,
  resolver: SecretResolver,
  scope: SecretScope,
  input: ConnectionInput,
): Promise<ResolvedInput> {
  const out: ResolvedInput = {};
  for (const [key, value] of Object.entries(input)) {
    out[key] = isSecretReference(value) ? await resolver.resolve(db, scope, value.secret) : value;
  }
  return out;
}

/** What the built-in HTTP connection sends upstream: its base URL and the authentication headers. */
export interface RestRequestSettings {
  baseUrl: URL;
  headers: Record<string, string>;
}

export class IncompleteCredentialsError extends Error {
  override name = 'IncompleteCredentialsError';
}

export function restRequestSettings(input: ResolvedInput): RestRequestSettings {
  const baseUrl = httpUrl(input.base_url);
  if (baseUrl === null) throw new IncompleteCredentialsError('base_url is missing or not an absolute http(s) URL');
  const authType = String(input.auth_type ?? 'none');
  if (!(authType in REST_AUTH_TYPES))
    throw new IncompleteCredentialsError(`auth_type must be one of ${Object.keys(REST_AUTH_TYPES).join(', ')}`);
  const missing = REST_AUTH_TYPES[authType as RestAuthType].filter(
    (field) => input[field] === undefined || String(input[field]) === '',
  );
  if (missing.length > 0)
    throw new IncompleteCredentialsError(`${authType} authentication needs ${missing.join(' and ')}`);
  const headers: Record<string, string> = {};
  if (authType === 'basic')
    headers.authorization = `Basic ${Buffer.from(`${String(input.username)}:${String(input.password)}`, 'utf8').toString('base64')}`;
  if (authType === 'bearer') headers.authorization = `Bearer ${String(input.token)}`;
  if (authType === 'api_key') {
    const header = String(input.api_key_header ?? 'X-API-Key');
    if (!HEADER_NAME.test(header)) throw new IncompleteCredentialsError('api_key_header must be an HTTP header name');
    headers[header.toLowerCase()] = String(input.api_key);
  }
  if (Object.values(headers).some((value) => /[\r\n\0]/.test(value)))
    throw new IncompleteCredentialsError('credentials must not contain line breaks');
  return { baseUrl, headers };
}

function httpUrl(value: unknown): URL | null {
  if (typeof value !== 'string') return null;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : null;
  } catch {
    return null;
  }
}
