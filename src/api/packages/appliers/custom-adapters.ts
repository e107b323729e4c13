// An import's applier of custom connectors (import.ts runs one per asset type, in one transaction):
// `<name>.custom_adapter.json` (title, description, note) with its Ruby source beside it in
// `<name>.custom_adapter.rb`. Matched by title in the environment (a new released version when the
// code differs), else created with the code released; then the provider names the package's
// recipes and connections use for them are recorded as their aliases.
import { connectorName, declaresWebhookKeys } from '../../custom_connectors/custom_connectors.service.ts';
import {
  connectorTitles,
  findConnectorByProvider,
  findConnectorsByTitle,
  insertAliasUnlessTaken,
  insertConnector,
  insertVersion as insertConnectorVersion,
  latestReleasedVersion,
  latestVersion as latestConnectorVersion,
  staticWebhookUrl,
  updateConnector,
} from '../../custom_connectors/custom_connectors.store.ts';
import { isObj, type Entry, type FileChange, type ImportedAdapter, type ImportRun } from './run.ts';
import { ADAPTER_JSON, zipNameMatches } from '../entries.ts';

function snakeCase(text: string): string {
  return text
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
}

function randomHex(): string {
  return crypto.getRandomValues(new Uint8Array(16)).reduce((s, b) => s + b.toString(16).padStart(2, '0'), '');
}

/** The package's custom connectors, then the aliases of the provider names its recipes and connections use. */
export async function applyCustomAdapters(run: ImportRun): Promise<void> {
  for (const e of run.byType('custom_adapter')) {
    const adapter = await importAdapter(run, e);
    if (adapter) run.adapters.push(adapter);
  }
  await recordProviderAliases(run);
}

async function importAdapter(run: ImportRun, e: Entry): Promise<ImportedAdapter | undefined> {
  const { trx, pkg, options, now, fail } = run;
  const title = String(e.body.title).trim().slice(0, 255);
  const code = e.code ?? '';
  const note = typeof e.body.note === 'string' && e.body.note !== '' ? e.body.note.slice(0, 10_000) : null;
  const description = typeof e.body.description === 'string' && e.body.description !== '' ? e.body.description : null;
  const stem = e.path.slice(e.path.lastIndexOf('/') + 1, -ADAPTER_JSON.length);
  const adapter = (id: number, name: string, change: FileChange) => {
    run.changes.set(e.path, change);
    return {
      path: e.path,
      id,
      name,
      slug: snakeCase(title),
      stemSlug: snakeCase(stem),
    };
  };
  const [existing] = await findConnectorsByTitle(trx, pkg.environment_id, title);
  if (existing) {
    const released = await latestReleasedVersion(trx, existing.id);
    if (released?.code === code) return adapter(existing.id, existing.name, 'unchanged');
    if (options.restricted) {
      fail(
        e.path,
        `the custom connector "${title}" is shared by the environment; an administrator must import its new code`,
      );
      return undefined;
    }
    const latest = await latestConnectorVersion(trx, existing.id);
    await insertConnectorVersion(trx, {
      connector_id: existing.id,
      version: (latest?.version ?? 0) + 1,
      code,
      note,
      created_at: now,
      released_at: now,
    });
    await updateConnector(trx, existing.id, {
      static_webhook_url: await webhookUrlOf(run, existing.id, title, code),
      updated_at: now,
    });
    return adapter(existing.id, existing.name, 'updated');
  }
  if (options.restricted) {
    fail(
      e.path,
      `the custom connector "${title}" would be created for the whole environment; an administrator must import it`,
    );
    return undefined;
  }
  const id = await insertConnector(trx, {
    workspace_id: pkg.workspace_id,
    environment_id: pkg.environment_id,
    name: `pending_${randomHex()}`,
    title,
    description,
    oem_shared_version: null,
    oem_shared_at: null,
    static_webhook_url: null,
    created_at: now,
    updated_at: now,
  });
  const name = connectorName(title, id, new Date(now));
  await updateConnector(trx, id, { name, static_webhook_url: await webhookUrlOf(run, id, title, code) });
  await insertConnectorVersion(trx, { connector_id: id, version: 1, code, note, created_at: now, released_at: now });
  return adapter(id, name, 'created');
}

/** The static webhook URL of a connector whose imported source declares `webhook_keys`, else null. */
async function webhookUrlOf(run: ImportRun, id: number, title: string, code: string): Promise<string | null> {
  const declares = await declaresWebhookKeys(run.ctx, run.pkg.workspace_id, title, code);
  return declares ? staticWebhookUrl(run.ctx.config.publicBaseUrl, id) : null;
}

/** Provider names of custom connectors (`<slug>_connector_<account>_<stamp>`) that recipes and connections use. */
function customProviderNames(entries: Entry[]): Set<string> {
  const names = new Set<string>();
  const visit = (value: unknown, depth: number): void => {
    if (depth > 200) return;
    if (Array.isArray(value)) for (const v of value) visit(v, depth + 1);
    else if (isObj(value))
      for (const [k, v] of Object.entries(value)) {
        if (k === 'provider' && typeof v === 'string' && /_connector_\d+_\d+$/.test(v)) names.add(v);
        else visit(v, depth + 1);
      }
  };
  for (const e of entries) {
    if (e.type === 'recipe') {
      visit(typeof e.body.code === 'string' ? safeJson(e.body.code) : e.body.code, 0);
      visit(e.body.config, 0);
    }
    if (e.type === 'connection' && typeof e.body.provider === 'string') visit({ provider: e.body.provider }, 0);
  }
  return names;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

/**
 * Each provider name is kept as an alias of the connector it means: one imported with the package
 * whose title (or file name) begins the name, else one already in the environment whose title does.
 */
async function recordProviderAliases(run: ImportRun): Promise<void> {
  const { trx, env, entries, adapters, now } = run;
  let existing: Array<{ id: number; slug: string }> | null = null;
  for (const provider of customProviderNames(entries)) {
    if (await findConnectorByProvider(trx, env, provider)) continue;
    const slug = provider.replace(/_connector_\d+_\d+$/, '');
    let id = adapters.find((a) => a.slug === slug || a.stemSlug === slug)?.id;
    if (id === undefined) {
      existing ??= (await connectorTitles(trx, env)).map((row) => ({ id: row.id, slug: snakeCase(row.title) }));
      id = existing.find((c) => c.slug === slug)?.id;
    }
    if (id !== undefined)
      await insertAliasUnlessTaken(trx, { environment_id: env, name: provider, connector_id: id, created_at: now });
  }
}

/**
 * A connection's provider: its string, or for a reference to a custom adapter of the package, the
 * provider name the recipes use for it (so steps and their connection agree), else the connector's own.
 */
export function connectionProvider(run: ImportRun, e: Entry): string {
  const ref = e.body.provider;
  if (!isObj(ref)) return String(ref);
  const adapter = run.adapters.find((a) => zipNameMatches(a.path, String(ref.zip_name)));
  for (const recipe of run.entries) {
    if (recipe.type !== 'recipe' || !Array.isArray(recipe.body.config)) continue;
    for (const slot of recipe.body.config) {
      if (!isObj(slot) || !isObj(slot.account_id) || typeof slot.provider !== 'string') continue;
      if (typeof slot.account_id.zip_name === 'string' && zipNameMatches(e.path, slot.account_id.zip_name))
        return slot.provider;
    }
  }
  return adapter?.name ?? String(ref.name ?? ref.zip_name);
}
