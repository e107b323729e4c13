// Connection providers (contract README, "Connection providers"): any provider key is accepted and
// stored; `rest` (alias `http`) is the built-in HTTP connection; `openai_compatible` is a model
// reached through the OpenAI-compatible Chat Completions API (AI steps and Genies use it).

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

/** The model connection: `base_url` (…/v1), `api_key` (optional for a local server), `model`. */
export const MODEL_PROVIDER = 'openai_compatible';

export function isModelProvider(provider: string): boolean {
  return provider.toLowerCase() === MODEL_PROVIDER;
}

/**
 * Whether a connection's test reaches the service: the built-in HTTP and model connections only
 * check that their fields are complete, so their `success` says nothing of the host.
 */
export function isTestedAgainstService(provider: string): boolean {
  return !isRestProvider(provider) && !isModelProvider(provider);
}
