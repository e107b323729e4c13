// Secrets management: references to secrets (`NAME` or `store:NAME`, `env:NAME`, `file:NAME`),
// the providers that read them, and the cache of resolved values that
// POST /api/secrets_management/clear_cache empties. Values live in memory only, never in logs.
import fs from 'node:fs/promises';
import path from 'node:path';
import { CONFIG_VARIABLES, type Config } from '../../config.ts';
import type { SecretBox } from '../../crypto/secret-box.ts';
import type { Db } from '../../db/types.ts';
import type { Clock } from '../../time.ts';
import { findSecret, type SecretScope } from './secrets_management.store.ts';

export type { SecretScope } from './secrets_management.store.ts';

export type SecretProviderName = 'store' | 'env' | 'file';

/** Names of the built-in store: what a self-hoster types in a shell and a URL without quoting. */
export const SECRET_NAME_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}$/;
const ENV_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,254}$/;
// No slash and no leading dot: a file name inside SECRETS_DIR, never a path out of it.
const FILE_NAME_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,254}$/;
/** Largest secret a file may hold (certificates and keys fit; a log file does not). */
export const MAX_SECRET_BYTES = 64 * 1024;

export interface SecretReference {
  readonly provider: SecretProviderName;
  readonly name: string;
}

export class SecretResolutionError extends Error {
  override name = 'SecretResolutionError';
  readonly reference: string;
  constructor(reference: string, problem: string) {
    super(`secret ${reference}: ${problem}`);
    this.reference = reference;
  }
}

/** One source of secret values behind one small interface. */
export interface SecretProvider {
  readonly name: SecretProviderName;
  /** Whether resolved values are kept for the cache TTL (sources outside the database). */
  readonly cached: boolean;
  /** Why this provider can never read `name` (turned off, name not allowed); null when it may. */
  refuse(name: string): string | null;
  /** The value, or undefined when there is none. */
  read(db: Db, scope: SecretScope, name: string): Promise<string | undefined>;
}

export interface SecretResolver {
  /** Why a reference can never resolve (syntax, provider off, name not allowed); null when it may. */
  check(reference: string): string | null;
  /** The value of a reference in a workspace environment; throws SecretResolutionError. */
  resolve(db: Db, scope: SecretScope, reference: string): Promise<string>;
  /** Forget the cached values of a workspace; returns how many were dropped. */
  clearCache(workspaceId: number): number;
}

export function parseSecretReference(text: string): SecretReference | { error: string } {
  const colon = text.indexOf(':');
  const prefix = colon === -1 ? 'store' : text.slice(0, colon);
  const name = colon === -1 ? text : text.slice(colon + 1);
  if (prefix !== 'store' && prefix !== 'env' && prefix !== 'file')
    return { error: 'must be NAME, store:NAME, env:NAME or file:NAME' };
  const pattern = prefix === 'env' ? ENV_NAME_PATTERN : prefix === 'file' ? FILE_NAME_PATTERN : SECRET_NAME_PATTERN;
  if (!pattern.test(name)) return { error: `has an invalid ${prefix} secret name` };
  return { provider: prefix, name };
}

export function createSecretResolver(options: {
  providers: readonly SecretProvider[];
  clock: Clock;
  ttlSeconds: number;
}): SecretResolver {
  const byName = new Map(options.providers.map((p) => [p.name, p]));
  const cache = new Map<string, { value: string; expiresAt: number }>();
  const ttlMs = options.ttlSeconds * 1000;

  const locate = (reference: string): { provider: SecretProvider; name: string } | { error: string } => {
    const parsed = parseSecretReference(reference);
    if ('error' in parsed) return parsed;
    const provider = byName.get(parsed.provider);
    if (!provider) return { error: `the ${parsed.provider} provider is not available` };
    const refused = provider.refuse(parsed.name);
    return refused === null ? { provider, name: parsed.name } : { error: refused };
  };

  return {
    check(reference) {
      const found = locate(reference);
      return 'error' in found ? found.error : null;
    },
    async resolve(db, scope, reference) {
      const found = locate(reference);
      if ('error' in found) throw new SecretResolutionError(reference, found.error);
      const { provider, name } = found;
      const key = `${scope.workspaceId}\u0000${scope.environmentId}\u0000${provider.name}:${name}`;
      const now = options.clock.now().getTime();
      const hit = cache.get(key);
      if (hit && hit.expiresAt > now) return hit.value;
      if (hit) cache.delete(key);
      const value = await provider.read(db, scope, name);
      if (value === undefined) throw new SecretResolutionError(reference, 'not found');
      if (provider.cached && ttlMs > 0) cache.set(key, { value, expiresAt: now + ttlMs });
      return value;
    },
    clearCache(workspaceId) {
      const prefix = `${workspaceId}\u0000`;
      let dropped = 0;
      for (const key of cache.keys()) {
        if (key.startsWith(prefix)) {
          cache.delete(key);
          dropped += 1;
        }
      }
      return dropped;
    },
  };
}

/** The built-in store: values sealed with the secret box in the `secrets` table, read fresh each time. */
export function builtInStoreProvider(secretBox: SecretBox): SecretProvider {
  return {
    name: 'store',
    cached: false,
    refuse: () => null,
    async read(db, scope, name) {
      const row = await findSecret(db, scope, name);
      if (row === undefined) return undefined;
      try {
        return secretBox.open(row.value_sealed);
      } catch {
        throw new SecretResolutionError(name, 'does not open with this SWITCHBOARD_SECRET_KEY');
      }
    },
  };
}

/** Environment variables, from the snapshot taken by loadConfig, only those under the allowed prefix. */
export function environmentProvider(variables: ReadonlyMap<string, string>, prefix: string): SecretProvider {
  return {
    name: 'env',
    cached: true,
    refuse(name) {
      if (!name.startsWith(prefix))
        return `only environment variables starting with ${prefix} can be used (SECRETS_ENV_PREFIX)`;
      // SWITCHBOARD_SECRET_KEY starts with the default prefix, yet is the server's own key.
      if (CONFIG_VARIABLES.includes(name)) return `${name} is a setting of the server, never a secret of a connection`;
      return null;
    },
    read: async (_db, _scope, name) => variables.get(name),
  };
}

/** Files in one directory (Docker and Kubernetes secrets); one trailing newline is dropped. */
export function fileProvider(directory: string | undefined): SecretProvider {
  return {
    name: 'file',
    cached: true,
    refuse: () => (directory === undefined ? 'file secrets are off (set SECRETS_DIR)' : null),
    async read(_db, _scope, name) {
      const root = directory as string;
      const reference = `file:${name}`;
      let real: string;
      let realRoot: string;
      try {
        realRoot = await fs.realpath(root);
        real = await fs.realpath(path.join(root, name));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw new SecretResolutionError(reference, 'cannot be read');
      }
      // A symbolic link may point elsewhere: only what really lies inside the directory is served.
      if (!real.startsWith(realRoot + path.sep)) throw new SecretResolutionError(reference, 'is outside SECRETS_DIR');
      let content: Buffer;
      try {
        const stat = await fs.stat(real);
        if (!stat.isFile()) throw new SecretResolutionError(reference, 'is not a file');
        if (stat.size > MAX_SECRET_BYTES)
          throw new SecretResolutionError(reference, `is larger than ${MAX_SECRET_BYTES} bytes`);
        content = await fs.readFile(real);
      } catch (error) {
        if (error instanceof SecretResolutionError) throw error;
        throw new SecretResolutionError(reference, 'cannot be read');
      }
      return content.toString('utf8').replace(/\r?\n$/, '');
    },
  };
}

/** The resolver a server, the CLI or a test uses: all three providers, as configured. */
export function secretResolverFor(
  config: Pick<Config, 'secretsCacheTtlSeconds' | 'secretsEnvPrefix' | 'secretsEnvironment' | 'secretsDir'>,
  clock: Clock,
  secretBox: SecretBox,
): SecretResolver {
  return createSecretResolver({
    providers: [
      builtInStoreProvider(secretBox),
      environmentProvider(config.secretsEnvironment, config.secretsEnvPrefix),
      fileProvider(config.secretsDir),
    ],
    clock,
    ttlSeconds: config.secretsCacheTtlSeconds,
  });
}
