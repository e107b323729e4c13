// The proxy target of each connection (base URL and credential headers), kept for a few seconds
// so that a gateway call does not read and decrypt the connection each time. Dropped at once when
// a connection, a secret or the secrets cache changes in this process; the short lifetime bounds
// what another process (the CLI's `secrets set`) can leave stale.
import type { Notifier } from '../notifier.ts';
import type { Clock } from '../time.ts';
import type { Upstream } from './proxy.ts';

export const UPSTREAM_CACHE_MS = 5_000;

export function cachedUpstreams<Scope extends { workspaceId: number; environmentId: number }>(
  resolve: (scope: Scope, connectionId: number) => Promise<Upstream>,
  deps: { clock: Clock; notifier: Notifier },
): (scope: Scope, connectionId: number) => Promise<Upstream> {
  const cache = new Map<string, { at: number; upstream: Upstream }>();
  deps.notifier.subscribe('connections.changed', ({ workspaceId }) => {
    for (const key of cache.keys()) if (key.startsWith(`${workspaceId}:`)) cache.delete(key);
  });
  deps.notifier.subscribe('everything.changed', () => cache.clear());
  return async (scope, connectionId) => {
    const key = `${scope.workspaceId}:${scope.environmentId}:${connectionId}`;
    const now = deps.clock.now().getTime();
    const hit = cache.get(key);
    if (hit && now - hit.at < UPSTREAM_CACHE_MS) return hit.upstream;
    const upstream = await resolve(scope, connectionId);
    if (cache.size > 10_000) cache.clear();
    cache.set(key, { at: now, upstream });
    return upstream;
  };
}
