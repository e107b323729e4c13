// The custom connectors recipes name, per environment: the provider a step names (the connector's
// name, or an alias an import recorded) found in the database, its latest released version
// described by the Ruby runtime once and kept as a Connector (src/connectors/custom.ts). The
// compiler looks them up synchronously, so what a recipe names is loaded before it compiles:
// when it starts, when its trigger is armed, and before each job (a new release is then used).
import type { ServiceContext } from '../context.ts';
import type { Connector } from '../connectors/types.ts';
import { loadCustomConnector, type LoadedCustomConnector } from '../connectors/custom.ts';
import { findConnector } from './catalog.ts';

/** Provider names a recipe's code spells (`"provider": "..."`). */
function providersIn(code: string): Set<string> {
  const out = new Set<string>();
  for (const match of code.matchAll(/"provider"\s*:\s*"([^"\\]{1,200})"/g)) out.add(match[1]!);
  return out;
}

export class CustomConnectors {
  readonly #ctx: ServiceContext;
  readonly #entries = new Map<string, LoadedCustomConnector>();
  /** Bumped when an environment's entries change: compiled recipes of it are compiled again. */
  readonly #stamps = new Map<number, number>();

  constructor(ctx: ServiceContext) {
    this.#ctx = ctx;
  }

  find(environmentId: number, provider: string): Connector | undefined {
    return this.#entries.get(`${environmentId}:${provider}`)?.connector;
  }

  stamp(environmentId: number): number {
    return this.#stamps.get(environmentId) ?? 0;
  }

  /**
   * Loads the released custom connectors a recipe's code names. A connector whose source does not
   * describe (it does not parse) stays unknown: the compiler then says the provider is invalid.
   */
  async load(environmentId: number, workspaceId: number, code: string): Promise<void> {
    for (const provider of providersIn(code)) {
      if (findConnector(provider)) continue;
      const key = `${environmentId}:${provider}`;
      const known = this.#entries.get(key);
      const loaded = await loadCustomConnector(this.#ctx, environmentId, workspaceId, provider, known);
      if (loaded === known) continue;
      if (!loaded) this.#forget(environmentId, key);
      else {
        this.#entries.set(key, loaded);
        this.#stamps.set(environmentId, this.stamp(environmentId) + 1);
      }
    }
  }

  #forget(environmentId: number, key: string): void {
    this.#entries.delete(key);
    this.#stamps.set(environmentId, this.stamp(environmentId) + 1);
  }
}
