// An import's applier of custom connectors (`<name>.custom_adapter.json` with its `.rb`): matched by
// title in the environment (a new released version when the code differs), else created with the
// code released; then the provider names the package's recipes and connections use for them
// (`<slug>_connector_<account>_<stamp>`) are recorded as their aliases, so recipes find them.
import { randomBytes } from 'node:crypto';
import { connectorName } from '../../custom_connectors/custom_connectors.service.ts';
import {
  connectorsOfEnvironment,
  findConnectorByProvider,
  findConnectorsByTitle,
  insertAliasUnlessTaken,
  insertConnector,
  insertVersion,
  latestReleasedVersion,
  latestVersion,
  updateConnector,
} from '../../custom_connectors/custom_connectors.store.ts';
import { isObj, zipNameMatches, type Entry, type ImportRun, type ImportedAdapter } from './run.ts';

function snakeCase(text: string): string {
  return text
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
}

export async function applyCustomAdapters(run: ImportRun): Promise<void> {
  const { trx, pkg, options, now, fail, byType } = run;
  for (const e of byType('custom_adapter')) {
    const title = String(e.body.title).trim().slice(0, 255);
    const code = e.code ?? '';
    const note = typeof e.body.note === 'string' && e.body.note !== '' ? e.body.note.slice(0, 10_000) : null;
    const description = typeof e.body.description === 'string' && e.body.description !== '' ? e.body.description : null;
    const stem = e.path.slice(e.path.lastIndexOf('/') + 1, -'.custom_adapter.json'.length);
    const [existing] = await findConnectorsByTitle(trx, pkg.environment_id, title);
    let id: number;
    let name: string;
    if (existing) {
      id = existing.id;
      name = existing.name;
      const released = await latestReleasedVersion(trx, id);
      if (released?.code !== code) {
        if (options.restricted) {
          fail(
            e.path,
            `the custom connector "${title}" is shared by the environment; an administrator must import its new code`,
          );
          continue;
        }
        const latest = await latestVersion(trx, id);
        await insertVersion(trx, {
          connector_id: id,
          version: (latest?.version ?? 0) + 1,
          code,
          note,
          created_at: now,
          released_at: now,
        });
        await updateConnector(trx, id, { updated_at: now });
      }
    } else {
      if (options.restricted) {
        fail(
          e.path,
          `the custom connector "${title}" would be created for the whole environment; an administrator must import it`,
        );
        continue;
      }
      id = await insertConnector(trx, {
        workspace_id: pkg.workspace_id,
        environment_id: pkg.environment_id,
        name: `pending_${randomBytes(8).toString('hex')}`,
        title,
        description,
        oem_shared_version: null,
        oem_shared_at: null,
        static_webhook_url: null,
        created_at: now,
        updated_at: now,
      });
      name = connectorName(title, id, new Date(now));
      await updateConnector(trx, id, { name });
      await insertVersion(trx, { connector_id: id, version: 1, code, note, created_at: now, released_at: now });
    }
    run.adapters.push({ path: e.path, id, name, slug: snakeCase(title), stemSlug: snakeCase(stem) });
  }
  await recordProviderAliases(run);
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

/** Provider names of custom connectors (`<slug>_connector_<account>_<stamp>`) that recipes and connections use. */
function customProviderNames(run: ImportRun): Set<string> {
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
  for (const e of run.byType('recipe')) {
    visit(typeof e.body.code === 'string' ? safeJson(e.body.code) : e.body.code, 0);
    visit(e.body.config, 0);
  }
  for (const e of run.byType('connection'))
    if (typeof e.body.provider === 'string') visit({ provider: e.body.provider }, 0);
  return names;
}

/**
 * Each provider name is kept as an alias of the connector it means: one imported with the package
 * whose title (or file name) begins the name, else one already in the environment whose title does.
 */
async function recordProviderAliases(run: ImportRun): Promise<void> {
  const { trx, env, now, adapters } = run;
  let existing: Array<{ id: number; slug: string }> | null = null;
  for (const provider of customProviderNames(run)) {
    if (await findConnectorByProvider(trx, env, provider)) continue;
    const slug = provider.replace(/_connector_\d+_\d+$/, '');
    let id = adapters.find((a) => a.slug === slug || a.stemSlug === slug)?.id;
    if (id === undefined) {
      existing ??= (await connectorsOfEnvironment(trx, env)).map((row) => ({ id: row.id, slug: snakeCase(row.title) }));
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
  for (const recipe of run.byType('recipe')) {
    if (!Array.isArray(recipe.body.config)) continue;
    for (const slot of recipe.body.config) {
      if (!isObj(slot) || !isObj(slot.account_id) || typeof slot.provider !== 'string') continue;
      if (typeof slot.account_id.zip_name === 'string' && zipNameMatches(e.path, slot.account_id.zip_name))
        return slot.provider;
    }
  }
  return adapter?.name ?? String(ref.name ?? ref.zip_name);
}

export type { ImportedAdapter };
