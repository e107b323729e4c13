// Pieces several SaaS definitions share: fields, the OAuth 2.0 apps of Google and Microsoft, and
// reading what an authorization left.
import type { ConnectionState, FieldValues, OAuth2AuthorizationCode, SchemaField } from '../definition.ts';
import { StepError } from '../step-error.ts';

export function field(name: string, label: string, extra: Partial<SchemaField> = {}): SchemaField {
  return { name, label, type: 'string', control_type: 'text', ...extra };
}

export function secret(name: string, label: string, extra: Partial<SchemaField> = {}): SchemaField {
  return { name, label, type: 'string', control_type: 'password', ...extra };
}

/**
 * The OAuth app of a connection without a custom OAuth profile for its provider: the profile
 * wins when there is one (contract 05), so both fields are optional.
 */
export const OAUTH_APP_FIELDS: readonly SchemaField[] = [
  field('client_id', 'Client ID', {
    optional: true,
    hint: 'Leave blank to use the custom OAuth profile of this provider',
  }),
  secret('client_secret', 'Client secret', { optional: true }),
];

/** A value the authorization must have left (Salesforce's instance URL, QuickBooks' realm id). */
export function fromAuthorization(state: ConnectionState, key: string, what: string): string {
  const value = state.auth.extra[key];
  if (value === undefined || value === '')
    throw new StepError('Connection error', `the connection has no ${what} yet: connect it through the provider`);
  return value;
}

/** A field's text, or the fallback. */
export function text(values: FieldValues, name: string, fallback = ''): string {
  const value = values[name];
  return value === undefined || String(value).trim() === '' ? fallback : String(value).trim();
}

/** A host name typed by a user, checked: no scheme, no path, no port tricks. */
export function hostName(values: FieldValues, name: string, suffix = ''): string {
  const raw = text(values, name)
    .replace(/^https?:\/\//i, '')
    .replace(/\/.*$/, '')
    .toLowerCase();
  if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(raw))
    throw new StepError('Bad request', `${name} must be a host name (letters, digits, dots and hyphens)`);
  return raw.endsWith(suffix) ? raw : `${raw}${suffix}`;
}

/** An http(s) URL field without its trailing slashes. */
export function urlField(values: FieldValues, name: string): string {
  const raw = text(values, name);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new StepError('Bad request', `${name} must be an absolute https URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new StepError('Bad request', `${name} must be an absolute https URL`);
  return url.toString().replace(/\/+$/, '');
}

/** Google's OAuth 2.0 app (offline access, so a refresh token comes back). */
export function googleOAuth(scopes: readonly string[]): OAuth2AuthorizationCode {
  return {
    type: 'oauth2_authorization_code',
    authorizationUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
    tokenUrl: 'https://oauth2.googleapis.com/token',
    scopes,
    authorizationParams: { access_type: 'offline', prompt: 'consent' },
  };
}

/** The Microsoft identity platform (v2.0 endpoints; `tenant` field, default `common`). */
export function microsoftOAuth(
  scopes: readonly string[] | ((values: FieldValues) => readonly string[]),
): OAuth2AuthorizationCode {
  const tenant = (values: FieldValues) => encodeURIComponent(text(values, 'tenant', 'common'));
  return {
    type: 'oauth2_authorization_code',
    authorizationUrl: (v) => `https://login.microsoftonline.com/${tenant(v)}/oauth2/v2.0/authorize`,
    tokenUrl: (v) => `https://login.microsoftonline.com/${tenant(v)}/oauth2/v2.0/token`,
    scopes,
  };
}

export const MICROSOFT_TENANT_FIELD = field('tenant', 'Tenant', {
  optional: true,
  hint: 'Directory (tenant) ID or domain; blank: common',
});

export const GOOGLE_HOSTS = [
  'www.googleapis.com',
  'gmail.googleapis.com',
  'sheets.googleapis.com',
  'oauth2.googleapis.com',
];
