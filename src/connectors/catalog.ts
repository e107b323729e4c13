// The connector catalog: every connector this server runs, by the provider name recipes and
// connections use. The engine compiles and validates steps against `findConnector`; the console
// and `/api/integrations` list `listConnectors()`. Built-in connectors live in the engine
// (src/engine/connectors/), SaaS services in saas/; custom connectors of a workspace are found
// through the lookup the engine passes to the compiler (docs/adr/0019).
import { CONNECTORS as BUILT_IN } from '../engine/connectors/index.ts';
import type { Connector } from './types.ts';
import { SAAS_CONNECTORS } from './saas/index.ts';

const CATALOG: ReadonlyMap<string, Connector> = new Map<string, Connector>([
  ...Object.entries(BUILT_IN),
  ...SAAS_CONNECTORS.map((c): [string, Connector] => [c.provider, c]),
]);

/** Finds a connector by provider name, as a recipe step or a connection names it. */
export type ConnectorLookup = (provider: string) => Connector | undefined;

/** The connector of this provider name (exact, as the vendor's exports spell it), or undefined. */
export const findConnector: ConnectorLookup = (provider) => CATALOG.get(provider);

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

/** Every connector of the catalog, by name; the alias `http` of `rest` is listed once, as `rest`. */
export function listConnectors(): ConnectorSummary[] {
  const seen = new Set<Connector>();
  const out: ConnectorSummary[] = [];
  for (const connector of CATALOG.values()) {
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
