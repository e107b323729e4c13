// Custom connectors (contract 04 part 2): create, update (a new unreleased version), release,
// code, and the list/search with the title and oem_shared filters. Connectors belong to the
// caller's environment. The code is stored as sent; it is not run or parsed here.
import { randomUUID } from 'node:crypto';
import type { ServiceContext } from '../../context.ts';
import type { CustomConnectorRow } from '../../db/types.ts';
import { AppError, assertFound, invalid, type FieldErrors } from '../../errors.ts';
import { toStored } from '../../time.ts';
import {
  connectorToApi,
  findConnector,
  insertConnector,
  insertVersion,
  latestVersion,
  listConnectors as listConnectorRows,
  markReleased,
  staticWebhookUrl,
  updateConnector,
  versionSummaries,
  type ConnectorScope,
  type CustomConnectorApi,
} from './custom_connectors.store.ts';

export interface ConnectorInput {
  title?: string;
  code?: string;
  description?: string | null;
  note?: string | null;
}

export interface ConnectorFilters {
  title?: string;
  oemShared?: boolean;
}

const MAX_TITLE = 255;
const MAX_DESCRIPTION = 10_000;
const MAX_NOTE = 10_000;
/** 10 MB (contract 04 §2.1); the request body limit (BODY_LIMIT_BYTES) applies first. */
export const MAX_CODE_BYTES = 10 * 1024 * 1024;

export async function listConnectors(
  ctx: ServiceContext,
  scope: ConnectorScope,
  filters: ConnectorFilters,
): Promise<CustomConnectorApi[]> {
  const needle = filters.title?.toLowerCase();
  // Case-insensitive substring match done here, the same on every database (the list is short).
  const rows = (await listConnectorRows(ctx.db, scope)).filter(
    (row) =>
      (needle === undefined || row.title.toLowerCase().includes(needle)) &&
      (filters.oemShared === undefined || (row.oem_shared_version !== null) === filters.oemShared),
  );
  const versions = await versionSummaries(
    ctx.db,
    rows.map((r) => r.id),
  );
  return rows.map((row) =>
    connectorToApi(
      row,
      versions.filter((v) => v.connector_id === row.id),
      ctx.config.publicBaseUrl,
    ),
  );
}

export async function createConnector(
  ctx: ServiceContext,
  scope: ConnectorScope,
  input: ConnectorInput,
): Promise<CustomConnectorApi> {
  const errors: FieldErrors = {};
  const title = input.title?.trim();
  if (title === undefined || title === '') errors.title = ["can't be blank"];
  else if (title.length > MAX_TITLE) errors.title = [`is too long (maximum is ${MAX_TITLE} characters)`];
  checkCode(input.code, errors, true);
  checkLength(input.description, 'description', MAX_DESCRIPTION, errors);
  checkLength(input.note, 'note', MAX_NOTE, errors);
  if (Object.keys(errors).length > 0) throw invalid(errors);
  const webhookKeys = await checkSyntax(ctx, scope, title as string, input.code as string);

  const now = ctx.clock.now();
  return ctx.db.transaction().execute(async (trx) => {
    // The name embeds the id, so the row is written first under a provisional unique name.
    const id = await insertConnector(trx, {
      workspace_id: scope.workspaceId,
      environment_id: scope.environmentId,
      name: `pending_${randomUUID()}`,
      title: title as string,
      description: emptyToNull(input.description),
      oem_shared_version: null,
      oem_shared_at: null,
      static_webhook_url: null,
      created_at: toStored(now),
      updated_at: toStored(now),
    });
    await updateConnector(trx, id, {
      name: connectorName(title as string, id, now),
      static_webhook_url: webhookKeys ? staticWebhookUrl(ctx.config.publicBaseUrl, id) : null,
    });
    await insertVersion(trx, {
      connector_id: id,
      version: 1,
      code: input.code as string,
      note: emptyToNull(input.note),
      created_at: toStored(now),
      released_at: null,
    });
    return loadApi(trx, ctx, scope, id);
  });
}

/** New code makes a new unreleased version (with `note`); description alone changes the connector. */
export async function updateConnectorCode(
  ctx: ServiceContext,
  scope: ConnectorScope,
  id: number,
  input: ConnectorInput,
): Promise<CustomConnectorApi> {
  if (input.code === undefined && input.description === undefined && input.note === undefined) {
    throw new AppError('nothing_to_update', {
      errors: { body: ['must contain at least one of code, description, note'] },
    });
  }
  const errors: FieldErrors = {};
  checkCode(input.code, errors, false);
  checkLength(input.description, 'description', MAX_DESCRIPTION, errors);
  checkLength(input.note, 'note', MAX_NOTE, errors);
  if (input.note != null && input.code === undefined) errors.note = ['needs code: a note describes a new version'];
  if (Object.keys(errors).length > 0) throw invalid(errors);
  const webhookKeys =
    input.code === undefined ? undefined : await checkSyntax(ctx, scope, `custom connector ${id}`, input.code);

  const now = toStored(ctx.clock.now());
  return ctx.db.transaction().execute(async (trx) => {
    assertFound(await findConnector(trx, scope, id));
    if (input.code !== undefined) {
      const latest = await latestVersion(trx, id);
      await insertVersion(trx, {
        connector_id: id,
        version: (latest?.version ?? 0) + 1,
        code: input.code,
        note: emptyToNull(input.note),
        created_at: now,
        released_at: null,
      });
    }
    await updateConnector(trx, id, {
      ...(input.description !== undefined ? { description: emptyToNull(input.description) } : {}),
      ...(webhookKeys !== undefined
        ? { static_webhook_url: webhookKeys ? staticWebhookUrl(ctx.config.publicBaseUrl, id) : null }
        : {}),
      updated_at: now,
    });
    return loadApi(trx, ctx, scope, id);
  });
}

/** Release the latest version; releasing an already released latest version changes nothing. */
export async function releaseConnector(
  ctx: ServiceContext,
  scope: ConnectorScope,
  id: number,
): Promise<CustomConnectorApi> {
  const now = toStored(ctx.clock.now());
  return ctx.db.transaction().execute(async (trx) => {
    assertFound(await findConnector(trx, scope, id));
    const latest = assertFound(await latestVersion(trx, id));
    if (latest.released_at === null) {
      await markReleased(trx, latest.id, now);
      await updateConnector(trx, id, { updated_at: now });
    }
    return loadApi(trx, ctx, scope, id);
  });
}

export async function connectorCode(ctx: ServiceContext, scope: ConnectorScope, id: number): Promise<string> {
  assertFound(await findConnector(ctx.db, scope, id));
  return assertFound(await latestVersion(ctx.db, id)).code;
}

async function loadApi(
  db: Parameters<typeof findConnector>[0],
  ctx: Pick<ServiceContext, 'config'>,
  scope: ConnectorScope,
  id: number,
): Promise<CustomConnectorApi> {
  const row: CustomConnectorRow = assertFound(await findConnector(db, scope, id));
  return connectorToApi(row, await versionSummaries(db, [id]), ctx.config.publicBaseUrl);
}

/** `<title in snake case>_connector_<id>_<unix seconds>`, as the vendor names them. */
export function connectorName(title: string, id: number, at: Date): string {
  const slug =
    title
      .normalize('NFKD')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')
      .replace(/^_+|_+$/g, '')
      .slice(0, 100) || 'connector';
  return `${slug}_connector_${id}_${Math.floor(at.getTime() / 1000)}`;
}

/**
 * The code must look like a connector definition, a Ruby hash literal `{ ... }`. It is not parsed
 * further: a Ruby parser is out of scope, and a wrong refusal would be worse than a late error.
 */
function checkCode(code: string | undefined, errors: FieldErrors, required: boolean): void {
  if (code === undefined) {
    if (required) errors.code = ["can't be blank"];
    return;
  }
  const body = code.replace(/^\s*(#[^\n]*\n\s*)*/, '').trim();
  if (body === '') errors.code = ["can't be blank"];
  else if (Buffer.byteLength(code, 'utf8') > MAX_CODE_BYTES) errors.code = ['is too large (maximum is 10 MB)'];
  else if (!body.startsWith('{') || !body.endsWith('}'))
    errors.code = ['must be a connector definition: a hash literal { ... }'];
}

/**
 * Whether a source declares a `webhook_keys` lambda (its connector then has a static webhook URL).
 * A source that never names it cannot, so most sources need no runtime call.
 */
export async function declaresWebhookKeys(
  ctx: Pick<ServiceContext, 'rubyConnectors'>,
  workspaceId: number,
  name: string,
  code: string,
): Promise<boolean> {
  if (!code.includes('webhook_keys')) return false;
  const outcome = await ctx.rubyConnectors.get().describe({ source: code, connectorName: name, workspaceId });
  return outcome.ok && (outcome.value as { webhook_keys?: unknown } | null)?.webhook_keys === true;
}

/**
 * Ruby that does not parse is refused with its line (the runtime parses it off the event loop);
 * other problems (a missing title, a lambda that raises) show when the connector runs. Answers
 * whether the source declares `webhook_keys` (false when it does not load).
 */
async function checkSyntax(ctx: ServiceContext, scope: ConnectorScope, name: string, code: string): Promise<boolean> {
  const outcome = await ctx.rubyConnectors
    .get()
    .describe({ source: code, connectorName: name, workspaceId: scope.workspaceId });
  if (!outcome.ok && outcome.error.kind === 'syntax') {
    const line = outcome.error.line === null ? '' : `line ${outcome.error.line}: `;
    throw invalid({ code: [`does not parse: ${line}${outcome.error.detail}`.slice(0, 1000)] });
  }
  return outcome.ok && (outcome.value as { webhook_keys?: unknown } | null)?.webhook_keys === true;
}

function checkLength(value: string | null | undefined, field: string, max: number, errors: FieldErrors): void {
  if (typeof value === 'string' && value.length > max) errors[field] = [`is too long (maximum is ${max} characters)`];
}

function emptyToNull(value: string | null | undefined): string | null {
  return value === undefined || value === null || value === '' ? null : value;
}
