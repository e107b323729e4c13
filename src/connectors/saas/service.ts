// A SaaS service as the catalog holds it: its connection definition, and the named actions and
// triggers written beside it, made into a `Connector` with the custom action every SaaS connector
// has (`__adhoc_http_action`).
import { adhocAction, ADHOC_ACTION } from '../adhoc.ts';
import type { ConnectionDefinition } from '../definition.ts';
import type { ActionDef, Connector, TriggerDef } from '../types.ts';

export interface SaasService {
  /** As the vendor's exports spell it. */
  provider: string;
  title: string;
  description?: string;
  categories?: readonly string[];
  connection: ConnectionDefinition;
  /** Named actions (contract 22 §3), each using `stepSession(sc, connector)` for its requests. */
  actions?: Readonly<Record<string, ActionDef>>;
  triggers?: Readonly<Record<string, TriggerDef>>;
}

export function saasConnector(service: SaasService): Connector {
  const connector: Connector = {
    provider: service.provider,
    title: service.title,
    ...(service.description !== undefined ? { description: service.description } : {}),
    ...(service.categories !== undefined ? { categories: service.categories } : {}),
    connection: service.connection,
    needsConnection: true,
    reachesOutside: true,
    triggers: { ...service.triggers },
    actions: { [ADHOC_ACTION]: adhocAction(() => connector), ...service.actions },
  };
  return connector;
}
