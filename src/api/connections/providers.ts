// Connection providers (contract README, "Connection providers"): any provider key is accepted and
// stored; `rest` (alias `http`) is the built-in HTTP connection, the one connector this server runs.

/** A connector key as packages carry it (`salesforce`, `jira_cloud`, `workato_custom_connector_12`). */
export const PROVIDER_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}$/;

export const REST_PROVIDERS: readonly string[] = ['rest', 'http'];

export function isRestProvider(provider: string): boolean {
  return REST_PROVIDERS.includes(provider.toLowerCase());
}

/** The problem with a provider key, or null. */
export function providerProblem(provider: string | undefined): string | null {
  if (provider === undefined || provider.trim() === '') return "can't be blank";
  if (!PROVIDER_PATTERN.test(provider))
    return 'must be a connector key: letters, digits, underscores, dots or hyphens (at most 100)';
  return null;
}
