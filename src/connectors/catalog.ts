// The connector catalog: every connector this server runs, by the provider name recipes and
// connections use. SaaS services live in saas/; built-in connectors live in the engine
// (src/engine/connectors/), which builds the whole catalog with `createCatalog` (src/engine/catalog.ts)
// and compiles and validates steps against it; custom connectors of a workspace are found through
// the lookup the engine passes to the compiler (docs/adr/0019). The connections area asks only
// about SaaS services (`findSaasConnector`): built-in connectors have no connection definition.
//
// The connectors' modules load at the first lookup, not at start: an idle server names no
// connector, and their code and definitions are several megabytes of its memory
// (docs/performance.md, What idle memory is). require() of our ES modules is synchronous, so a
// lookup stays a plain function call for the compiler and the validators.
import { createRequire } from 'node:module';
import type { Connector } from './types.ts';
import type * as SaasModule from './saas/index.ts';

const load = createRequire(import.meta.url);
let saas: { list: readonly Connector[]; byProvider: ReadonlyMap<string, Connector> } | undefined;

function loadSaas(): NonNullable<typeof saas> {
  if (saas) return saas;
  const { SAAS_CONNECTORS: list } = load('./saas/index.ts') as typeof SaasModule;
  saas = { list, byProvider: new Map(list.map((c): [string, Connector] => [c.provider, c])) };
  return saas;
}

/** Every SaaS service (src/connectors/saas/), in the catalog's order; loaded at the first call. */
export function saasConnectors(): readonly Connector[] {
  return loadSaas().list;
}

/** Finds a connector by provider name, as a recipe step or a connection names it. */
export type ConnectorLookup = (provider: string) => Connector | undefined;

/** The SaaS connector of this provider name (exact, as the vendor's exports spell it), or undefined. */
export const findSaasConnector: ConnectorLookup = (provider) => loadSaas().byProvider.get(provider);

export interface Catalog {
  /** The connector of this provider name (exact, as the vendor's exports spell it), or undefined. */
  find: ConnectorLookup;
  /** Every connector, by name; the alias `http` of `rest` is listed once, as `rest`. */
  list(): ConnectorSummary[];
}

/** The catalog of these built-in connectors (by provider name, loaded at the first lookup) and every SaaS service. */
export function createCatalog(loadBuiltIns: () => Readonly<Record<string, Connector>>): Catalog {
  let all: ReadonlyMap<string, Connector> | undefined;
  const connectors = () =>
    (all ??= new Map<string, Connector>([...Object.entries(loadBuiltIns()), ...loadSaas().byProvider]));
  return { find: (provider) => connectors().get(provider), list: () => listOf(connectors()) };
}

/** An operation of a connector as the vendor's connector metadata lists it (`GET /api/integrations`). */
export interface OperationSummary {
  name: string;
  title: string;
  deprecated: boolean;
  bulk: boolean;
  batch: boolean;
}

export interface ConnectorSummary {
  name: string;
  title: string;
  description: string | null;
  categories: string[];
  /** Whether connections of it can authorize through the provider's OAuth 2.0 redirect. */
  oauth: boolean;
  deprecated: boolean;
  secondary: boolean;
  triggers: OperationSummary[];
  actions: OperationSummary[];
}

function listOf(all: ReadonlyMap<string, Connector>): ConnectorSummary[] {
  const seen = new Set<Connector>();
  const out: ConnectorSummary[] = [];
  for (const connector of all.values()) {
    if (connector.provider === 'http') continue;
    if (seen.has(connector)) continue;
    seen.add(connector);
    out.push(summarize(connector));
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

export function summarize(connector: Connector): ConnectorSummary {
  const operations = (defs: Record<string, { title: string }>): OperationSummary[] =>
    Object.entries(defs)
      .map(([name, def]) => ({ name, title: def.title, deprecated: false, bulk: false, batch: false }))
      .sort((a, b) => a.name.localeCompare(b.name));
  return {
    name: connector.provider,
    title: connector.title,
    description: connector.description ?? null,
    categories: [...(connector.categories ?? [])],
    oauth: usesOAuthRedirect(connector),
    deprecated: false,
    secondary: false,
    triggers: operations(connector.triggers),
    actions: operations(connector.actions),
  };
}

function usesOAuthRedirect(connector: Connector): boolean {
  const auth = connector.connection?.auth;
  if (!auth) return false;
  if (auth.type === 'multi')
    return Object.values(auth.options).some((o) => o.auth.type === 'oauth2_authorization_code');
  return auth.type === 'oauth2_authorization_code' || (auth.type === 'custom' && auth.oauth !== undefined);
}
