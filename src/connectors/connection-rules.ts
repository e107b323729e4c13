// What the connections service asks of the catalog about a provider's connections: whether the
// catalog knows it, the fields a connection must have, and whether it connects through a redirect.
import { missingFields, usesRedirect } from './auth/kinds.ts';
import { findSaasConnector } from './catalog.ts';
import type { ConnectionDefinition, FieldValues } from './definition.ts';

/** The connection definition of a provider of the catalog, or undefined (unknown, or built-in without one). */
export function connectionDefinitionOf(provider: string): ConnectionDefinition | undefined {
  return findSaasConnector(provider)?.connection;
}

/** What a connection of this provider must have and how it is authorized, for the connections service. */
export function connectionRules(
  provider: string,
  values: FieldValues,
): { known: false } | { known: true; missing: string[]; redirect: boolean } {
  const definition = connectionDefinitionOf(provider);
  if (!definition) return { known: false };
  return { known: true, missing: missingFields(definition, values), redirect: usesRedirect(definition, values) };
}
