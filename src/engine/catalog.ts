// The catalog the engine compiles and validates steps against: its built-in connectors
// (./connectors/) and every SaaS service of src/connectors/saas/. The management API lists it
// through the RecipeRuntime that buildApp passes down (`GET /api/integrations`). Both load at the
// first lookup, not at start (src/connectors/catalog.ts says why and how).
import { createRequire } from 'node:module';
import { createCatalog, type ConnectorLookup, type ConnectorSummary } from '../connectors/catalog.ts';
import type { Connector } from '../connectors/types.ts';
import type * as BuiltInModule from './connectors/index.ts';

const load = createRequire(import.meta.url);

/** The built-in connectors by provider name (./connectors/index.ts), loaded at the first call. */
export function builtInConnectors(): Readonly<Record<string, Connector>> {
  return (load('./connectors/index.ts') as typeof BuiltInModule).CONNECTORS;
}

const CATALOG = createCatalog(builtInConnectors);

export const findConnector: ConnectorLookup = (provider) => CATALOG.find(provider);

export function listConnectors(): ConnectorSummary[] {
  return CATALOG.list();
}
