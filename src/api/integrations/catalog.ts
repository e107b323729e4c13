// The connector catalog: every connector a recipe of an environment can name, from each source
// that provides connectors. A source is one function; the catalog is the list of them, so another
// kind of connector joins by adding its source to catalogSources.
import type { ServiceContext } from '../../context.ts';
import { listConnectors } from '../custom_connectors/custom_connectors.store.ts';
import { saasConnectors } from '../../connectors/catalog.ts';

export type ConnectorSource = 'built_in' | 'saas' | 'custom';

export interface CatalogConnector {
  /** The provider key recipes and connections use (`clock`, `rest`, a custom connector's name). */
  name: string;
  title: string;
  description: string | null;
  source: ConnectorSource;
}

export interface CatalogScope {
  readonly workspaceId: number;
  readonly environmentId: number;
}

export type CatalogSource = (
  ctx: Pick<ServiceContext, 'db'>,
  scope: CatalogScope,
) => Promise<readonly CatalogConnector[]> | readonly CatalogConnector[];

/**
 * What the catalog reads of a built-in connector. The engine's connectors (src/engine/connectors/)
 * have this shape; buildApp passes them in, so this area does not reach into the engine.
 */
export interface BuiltInConnector {
  readonly title: string;
  readonly triggers: Readonly<Record<string, { readonly title: string }>>;
  readonly actions: Readonly<Record<string, { readonly title: string }>>;
}

export type BuiltInConnectors = Readonly<Record<string, BuiltInConnector>>;

/** Gives the built-in connectors when first asked (the engine loads their modules then). */
export type LoadBuiltInConnectors = () => BuiltInConnectors;

/** What a built-in connector offers, in a line: its triggers and actions by title. */
export function describeBuiltIn(connector: BuiltInConnector): string {
  const names = (defs: Record<string, { title: string }>) =>
    [...new Set(Object.values(defs).map((d) => d.title))].join(', ');
  const parts = ['Built-in connector.'];
  if (Object.keys(connector.triggers).length > 0) parts.push(`Triggers: ${names(connector.triggers)}.`);
  if (Object.keys(connector.actions).length > 0) parts.push(`Actions: ${names(connector.actions)}.`);
  return parts.join(' ');
}

/** The engine's connectors, the same in every environment. */
export const builtInSource =
  (connectors: LoadBuiltInConnectors): CatalogSource =>
  () =>
    Object.entries(connectors()).map(([name, connector]) => ({
      name,
      title: connector.title,
      description: describeBuiltIn(connector),
      source: 'built_in' as const,
    }));

/** The SaaS services (src/connectors/saas/), the same in every environment. */
export const saasSource: CatalogSource = () =>
  saasConnectors().map((connector) => ({
    name: connector.provider,
    title: connector.title,
    description: connector.description ?? null,
    source: 'saas' as const,
  }));

/** The environment's custom connectors (POST /api/custom_connectors), released or not. */
export const customConnectors: CatalogSource = async (ctx, scope) =>
  (await listConnectors(ctx.db, scope)).map((row) => ({
    name: row.name,
    title: row.title,
    description: row.description,
    source: 'custom' as const,
  }));

/** Every source of the catalog, built-in connectors first. */
export const catalogSources = (builtIn: LoadBuiltInConnectors): readonly CatalogSource[] => [
  builtInSource(builtIn),
  saasSource,
  customConnectors,
];

/**
 * The catalog of an environment, by name; a name two sources give is listed once, from the first
 * source (built-in connectors win). `names` keeps exactly those connectors (unknown names are left out).
 */
export async function connectorCatalog(
  ctx: Pick<ServiceContext, 'db'>,
  scope: CatalogScope,
  sources: readonly CatalogSource[],
  names?: readonly string[],
): Promise<CatalogConnector[]> {
  const byName = new Map<string, CatalogConnector>();
  for (const source of sources)
    for (const connector of await source(ctx, scope))
      if (!byName.has(connector.name)) byName.set(connector.name, connector);
  const wanted = names === undefined ? undefined : new Set(names);
  return [...byName.values()]
    .filter((c) => wanted === undefined || wanted.has(c.name))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
