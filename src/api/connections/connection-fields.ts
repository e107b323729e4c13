// A provider's connection fields as a form shows them (the console's connection forms): the
// connector's own definition (a SaaS service's, a released custom connector's, the built-in HTTP
// and model connections), which fields hold secrets, and what a stored connection has of each
// field: a value that is not a secret, or only whether a secret is set. No secret leaves here.
import type { ServiceContext } from '../../context.ts';
import { allFields, secretFieldNames, usesRedirect } from '../../connectors/auth/kinds.ts';
import { connectionDefinitionOf } from '../../connectors/connection-rules.ts';
import { loadCustomConnector, usesRedirectFor } from '../../connectors/custom.ts';
import type { SchemaField } from '../../connectors/definition.ts';
import { isSecretReference, openInput } from './connection-input.ts';
import type { ConnectionScope } from './connections.store.ts';
import { isModelProvider, isRestProvider, MODEL_PROVIDER } from './providers.ts';

export interface ConnectionFormField {
  name: string;
  label: string;
  hint: string | null;
  /** `password`: a secret, never shown again once stored; `select`: one of `options`. */
  kind: 'text' | 'password' | 'select' | 'textarea';
  /** Pick list entries as `[label, value]`. */
  options: readonly (readonly [string, string])[];
  optional: boolean;
  default: string | null;
}

export interface ConnectionFormSpec {
  provider: string;
  fields: readonly ConnectionFormField[];
  /**
   * Whether the fields alone make a test (every required field typed first); false for a SaaS
   * service, whose required fields depend on the way of authenticating and are checked by the service.
   */
  requiredChecked: boolean;
  /** Whether a connection with these values is connected through the provider's redirect (Connect). */
  redirect(values: Record<string, string>): Promise<boolean>;
}

/** What a stored connection holds of a field: its value when it is not a secret, else only that it is set. */
export type StoredField = { set: false } | { set: true; value: string | null };

const REST_FIELDS: readonly SchemaField[] = [
  { name: 'base_url', label: 'Base URL', hint: 'Absolute http(s) URL every request starts from.' },
  {
    name: 'auth_type',
    label: 'Authentication',
    control_type: 'select',
    optional: true,
    default: 'none',
    pick_list: [
      ['None', 'none'],
      ['Basic (user name and password)', 'basic'],
      ['Bearer token', 'bearer'],
      ['API key in a header', 'api_key'],
    ],
  },
  { name: 'username', label: 'User name', optional: true, hint: 'Basic authentication.' },
  { name: 'password', label: 'Password', control_type: 'password', optional: true, hint: 'Basic authentication.' },
  { name: 'token', label: 'Bearer token', control_type: 'password', optional: true },
  { name: 'api_key', label: 'API key', control_type: 'password', optional: true },
  { name: 'api_key_header', label: 'API key header', optional: true, hint: 'X-API-Key when empty.' },
];

const MODEL_FIELDS: readonly SchemaField[] = [
  {
    name: 'base_url',
    label: 'Base URL',
    hint: 'The Chat Completions base URL, e.g. http://127.0.0.1:11434/v1',
  },
  { name: 'api_key', label: 'API key', control_type: 'password', optional: true, hint: 'Empty for a local server.' },
  { name: 'model', label: 'Model' },
];

/** A field name that reads as a credential, whatever its connector says of it. */
const SECRET_NAME = /(password|passphrase|secret|token|api_?key|private_?key|credentials?)$/i;

function formField(f: SchemaField, secret: boolean): ConnectionFormField {
  const options = f.pick_list ?? [];
  const kind = secret
    ? 'password'
    : options.length > 0 || f.control_type === 'select'
      ? 'select'
      : f.control_type === 'text-area'
        ? 'textarea'
        : 'text';
  return {
    name: f.name,
    label: f.label ?? labelOf(f.name),
    hint: f.hint ?? null,
    kind,
    options:
      kind === 'select' && f.type === 'boolean' && options.length === 0
        ? [
            ['Yes', 'true'],
            ['No', 'false'],
          ]
        : options,
    optional: f.optional === true,
    default: f.default ?? null,
  };
}

const ACRONYMS: Readonly<Record<string, string>> = { api: 'API', url: 'URL', uri: 'URI', id: 'ID', oauth: 'OAuth' };

/** `api_key` reads as "API key", `base_url` as "Base URL": a field without a label. */
function labelOf(name: string): string {
  const words = name
    .split(/[_\s]+/)
    .filter((w) => w !== '')
    .map((w) => ACRONYMS[w.toLowerCase()] ?? w.toLowerCase());
  const text = words.join(' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function specOf(
  provider: string,
  fields: readonly SchemaField[],
  secrets: ReadonlySet<string>,
  requiredChecked: boolean,
  redirect: ConnectionFormSpec['redirect'],
): ConnectionFormSpec {
  const seen = new Set<string>();
  const unique = fields.filter(
    (f) => typeof f.name === 'string' && f.name !== '' && !seen.has(f.name) && seen.add(f.name),
  );
  return {
    provider,
    fields: unique.map((f) =>
      formField(f, f.control_type === 'password' || secrets.has(f.name) || SECRET_NAME.test(f.name)),
    ),
    requiredChecked,
    redirect,
  };
}

/**
 * The connection form of a provider of the environment's catalog: a SaaS service, the built-in
 * HTTP or model connection, or a released custom connector. Undefined: no such connector here (or
 * a custom connector with no released version).
 */
export async function connectionFormOf(
  ctx: ServiceContext,
  scope: ConnectionScope,
  provider: string,
): Promise<ConnectionFormSpec | undefined> {
  const definition = connectionDefinitionOf(provider);
  if (definition) {
    const secrets = new Set(secretFieldNames(definition, {}));
    if (definition.auth.type === 'multi')
      for (const key of Object.keys(definition.auth.options))
        for (const name of secretFieldNames(definition, { auth_type: key })) secrets.add(name);
    return specOf(provider, allFields(definition), secrets, false, async (values) => usesRedirect(definition, values));
  }
  if (isRestProvider(provider)) return specOf(provider, REST_FIELDS, new Set(), true, async () => false);
  if (isModelProvider(provider)) return specOf(MODEL_PROVIDER, MODEL_FIELDS, new Set(), true, async () => false);
  const custom = await loadCustomConnector(ctx, scope.environmentId, scope.workspaceId, provider);
  if (!custom) return undefined;
  return specOf(provider, custom.connector.connection?.fields ?? [], new Set(), true, (values) =>
    usesRedirectFor(custom, values),
  );
}

/**
 * What a stored connection holds of each of its fields: a value that is not a secret (by the form's
 * fields: a field the form does not know counts as a secret), or only that one is set. A secret
 * reference is shown as set, without its name.
 */
export function storedFieldsOf(
  ctx: Pick<ServiceContext, 'secretBox'>,
  sealed: string | null,
  spec: ConnectionFormSpec | undefined,
): Record<string, StoredField> {
  const input = openInput(ctx.secretBox, sealed);
  const out: Record<string, StoredField> = {};
  for (const [name, value] of Object.entries(input)) {
    const field = spec?.fields.find((f) => f.name === name);
    const shown = field !== undefined && field.kind !== 'password' && !isSecretReference(value);
    out[name] = { set: true, value: shown ? String(value) : null };
  }
  return out;
}
