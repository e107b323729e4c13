// The catalog the engine compiles and validates steps against: its built-in connectors
// (./connectors/) and every SaaS service of src/connectors/saas/. The management API lists it
// through the RecipeRuntime that buildApp passes down (`GET /api/integrations`).
import { createCatalog, type ConnectorLookup, type ConnectorSummary } from '../connectors/catalog.ts';
import { CONNECTORS } from './connectors/index.ts';

const CATALOG = createCatalog(CONNECTORS);

export const findConnector: ConnectorLookup = (provider) => CATALOG.find(provider);

export function listConnectors(): ConnectorSummary[] {
  return CATALOG.list();
}
