// Signing keys of identity providers for JWT and OIDC credentials (contract 03 §9.3): JWKS
// documents and OIDC discovery documents fetched over HTTP, each kept for its lifetime
// (Cache-Control max-age, else 10 minutes, within 1 minute and 1 day), fetched again on a kid
// that is not in the set at most once per `minRefreshMs` per URL, and kept past their lifetime
// (up to `maxStaleMs`) while the provider does not answer. A fetch is bounded in time and size
// (64 KB, D-limits); anything unusable reads as "no keys", which the gateway answers with 401.
import { createLocalJWKSet, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import type { Clock } from '../time.ts';
import type { OutboundPolicy } from '../outbound/policy.ts';
import { undici } from '../outbound/undici.ts';

export interface KeySet {
  keys: JSONWebKeySet;
  getKey: JWTVerifyGetKey;
}

export interface KeySetCacheOptions {
  clock: Clock;
  /**
   * The outbound policy, whose dispatcher (made at the first fetch) checks identity providers' URLs
   * like any request made for a user.
   */
  outbound: Pick<OutboundPolicy, 'dispatcher'>;
  fetchTimeoutMs?: number;
  maxBytes?: number;
  minRefreshMs?: number;
  defaultTtlMs?: number;
  minTtlMs?: number;
  maxTtlMs?: number;
  maxStaleMs?: number;
  maxEntries?: number;
}

export type KeySetCache = ReturnType<typeof createKeySetCache>;

interface Entry<T> {
  value: T | null;
  expiresAt: number;
  lastFetch: number;
  pending: Promise<T | null> | undefined;
}

const MAX_KEYS = 100;

export function createKeySetCache(options: KeySetCacheOptions) {
  const clock = options.clock;
  const fetchTimeoutMs = options.fetchTimeoutMs ?? 5000;
  const maxBytes = options.maxBytes ?? 64 * 1024;
  const minRefreshMs = options.minRefreshMs ?? 30_000;
  const defaultTtlMs = options.defaultTtlMs ?? 10 * 60_000;
  const minTtlMs = options.minTtlMs ?? 60_000;
  const maxTtlMs = options.maxTtlMs ?? 24 * 3600_000;
  const maxStaleMs = options.maxStaleMs ?? 3600_000;
  const maxEntries = options.maxEntries ?? 1000;
  const keySets = new Map<string, Entry<KeySet>>();
  const discovered = new Map<string, Entry<string>>();
  let fetches = 0;

  async function fetchJson(url: string): Promise<{ json: unknown; ttlMs: number } | null> {
    fetches += 1;
    try {
      const res = await undici().request(url, {
        dispatcher: options.outbound.dispatcher,
        signal: AbortSignal.timeout(fetchTimeoutMs),
        headers: { accept: 'application/json' },
        headersTimeout: fetchTimeoutMs,
        bodyTimeout: fetchTimeoutMs,
      });
      if (res.statusCode < 200 || res.statusCode >= 300 || Number(res.headers['content-length'] ?? 0) > maxBytes) {
        await res.body.dump().catch(() => undefined);
        return null;
      }
      const chunks: Uint8Array[] = [];
      let size = 0;
      for await (const chunk of res.body) {
        size += (chunk as Uint8Array).byteLength;
        // Leaving the loop ends the body.
        if (size > maxBytes) return null;
        chunks.push(chunk as Uint8Array);
      }
      const json: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const cacheControl = res.headers['cache-control'];
      const maxAge = /(?:^|,)\s*max-age=(\d{1,9})/i.exec(typeof cacheControl === 'string' ? cacheControl : '');
      const ttlMs = maxAge ? Math.min(maxTtlMs, Math.max(minTtlMs, Number(maxAge[1]) * 1000)) : defaultTtlMs;
      return { json, ttlMs };
    } catch {
      return null;
    }
  }

  async function cached<T>(
    map: Map<string, Entry<T>>,
    url: string,
    parse: (json: unknown) => T | null,
    refresh: boolean,
  ): Promise<T | null> {
    const now = clock.now().getTime();
    let entry = map.get(url);
    if (entry?.pending) return entry.pending;
    const fresh = entry !== undefined && entry.value !== null && now < entry.expiresAt;
    const mayFetch = entry === undefined || now - entry.lastFetch >= minRefreshMs;
    if ((fresh && !refresh) || !mayFetch) {
      return entry && entry.value !== null && now < entry.expiresAt + maxStaleMs ? entry.value : null;
    }
    if (!entry) {
      if (map.size >= maxEntries) map.clear();
      entry = { value: null, expiresAt: 0, lastFetch: now, pending: undefined };
      map.set(url, entry);
    }
    const target = entry;
    target.lastFetch = now;
    target.pending = (async () => {
      const fetched = await fetchJson(url);
      const parsed = fetched ? parse(fetched.json) : null;
      const at = clock.now().getTime();
      if (fetched && parsed !== null) {
        target.value = parsed;
        target.expiresAt = at + fetched.ttlMs;
      }
      target.pending = undefined;
      return target.value !== null && at < target.expiresAt + maxStaleMs ? target.value : null;
    })();
    return target.pending;
  }

  return {
    /** The key set at this URL; `refresh` asks for a new copy (an unknown kid), granted at a bounded rate. */
    keySet(url: string, opts: { refresh?: boolean } = {}): Promise<KeySet | null> {
      return cached(keySets, url, parseKeySet, opts.refresh === true);
    },
    /** The JWKS URL an OIDC issuer publishes in its discovery document (whose `issuer` must be the same). */
    jwksUriOf(issuer: string): Promise<string | null> {
      const base = issuer.replace(/\/+$/, '');
      return cached(
        discovered,
        `${base}/.well-known/openid-configuration`,
        (json) => {
          if (typeof json !== 'object' || json === null) return null;
          const doc = json as { issuer?: unknown; jwks_uri?: unknown };
          if (typeof doc.issuer !== 'string' || doc.issuer.replace(/\/+$/, '') !== base) return null;
          if (typeof doc.jwks_uri !== 'string' || !/^https?:\/\//.test(doc.jwks_uri)) return null;
          return doc.jwks_uri;
        },
        false,
      );
    },
    /** How many fetches were made (tests and the benchmark read it). */
    fetchCount: () => fetches,
  };
}

function parseKeySet(json: unknown): KeySet | null {
  if (typeof json !== 'object' || json === null || !Array.isArray((json as { keys?: unknown }).keys)) return null;
  const keys = (json as { keys: unknown[] }).keys
    .filter((k) => typeof k === 'object' && k !== null && typeof (k as { kty?: unknown }).kty === 'string')
    .slice(0, MAX_KEYS);
  if (keys.length === 0) return null;
  const set = { keys } as JSONWebKeySet;
  try {
    return { keys: set, getKey: createLocalJWKSet(set) };
  } catch {
    return null;
  }
}
