// The SaaS connectors of the catalog, one module per service (contract 22).
import type { Connector } from '../types.ts';

export const SAAS_CONNECTORS: readonly Connector[] = [];
