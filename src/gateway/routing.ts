// The gateway's routing table: <api-prefix>/<collection-slug>/<endpoint path>, per environment,
// read from the database once and dropped whenever collections or endpoints change.
import type { ServiceContext } from '../context.ts';
import type { ApiCollectionRow } from '../db/types.ts';
import { routingTable } from '../api/api_endpoints/api_endpoints.store.ts';
import {
  findEnvironmentByApiPrefix,
  listEnvironmentCollections,
} from '../api/api_collections/api_collections.store.ts';

export interface RoutedEndpoint {
  id: number;
  method: string;
  segments: string[];
  active: boolean;
  flowId: number | null;
  /** Requests are checked against the recipe's request schema first. */
  validateRequest: boolean;
}

export interface RoutedCollection {
  row: ApiCollectionRow;
  /** Most specific first: literal segments beat {param} segments. */
  endpoints: RoutedEndpoint[];
}

export interface EnvironmentRoutes {
  environmentId: number;
  workspaceId: number;
  collections: Map<string, RoutedCollection>;
}

export interface Match {
  env: EnvironmentRoutes;
  collection: RoutedCollection;
  endpoint: RoutedEndpoint;
  /** The request path below the collection, as sent (e.g. orders/42). */
  subPath: string;
  params: Record<string, string>;
}

/** Environments remembered by API prefix, unknown prefixes included (as null): a bound against a flood of made-up ones. */
const MAX_REMEMBERED_PREFIXES = 10_000;

export function createRouter(ctx: ServiceContext) {
  const cache = new Map<string, Promise<EnvironmentRoutes | null>>();
  ctx.notifier.subscribe('api_routes.changed', () => cache.clear());
  ctx.notifier.subscribe('everything.changed', () => cache.clear());

  async function load(prefix: string): Promise<EnvironmentRoutes | null> {
    const env = await findEnvironmentByApiPrefix(ctx.db, prefix);
    if (!env) return null;
    const collections = new Map<string, RoutedCollection>();
    const rows = await listEnvironmentCollections(ctx.db, env.id);
    for (const row of rows) collections.set(row.slug, { row, endpoints: [] });
    for (const e of await routingTable(ctx.db, env.id)) {
      collections.get(e.slug)?.endpoints.push({
        id: e.id,
        method: e.method,
        segments: e.path.split('/'),
        active: e.active === 1,
        flowId: e.flow_id,
        validateRequest: e.validate_request === 1,
      });
    }
    for (const c of collections.values()) c.endpoints.sort((a, b) => specificity(b.segments) - specificity(a.segments));
    return { environmentId: env.id, workspaceId: env.workspace_id, collections };
  }

  return {
    async match(method: string, path: string): Promise<Match | null> {
      const parts = path.split('/').filter((p) => p !== '');
      const [prefix, slug, ...rest] = parts;
      if (!prefix || !slug) return null;
      let entry = cache.get(prefix);
      if (!entry) {
        if (cache.size >= MAX_REMEMBERED_PREFIXES) cache.clear();
        entry = load(prefix);
        cache.set(prefix, entry);
        entry.catch(() => cache.delete(prefix));
      }
      const env = await entry;
      const collection = env?.collections.get(slug);
      if (!env || !collection) return null;
      const wanted = method === 'HEAD' ? 'GET' : method;
      for (const endpoint of collection.endpoints) {
        if (endpoint.method !== wanted || endpoint.segments.length !== rest.length) continue;
        const params: Record<string, string> = {};
        let ok = true;
        for (let i = 0; i < rest.length && ok; i++) {
          const seg = endpoint.segments[i] as string;
          const actual = rest[i] as string;
          if (seg.startsWith('{')) params[seg.slice(1, -1)] = safeDecode(actual);
          else ok = seg === actual;
        }
        if (ok) return { env, collection, endpoint, subPath: rest.join('/'), params };
      }
      return null;
    },
  };
}

function specificity(segments: string[]): number {
  // Earlier literal segments weigh more: 'orders/recent' beats 'orders/{id}' beats '{kind}/{id}'.
  return segments.reduce((score, seg, i) => score + (seg.startsWith('{') ? 0 : 2 ** (16 - Math.min(i, 16))), 0);
}

/** A path segment percent-decoded (as sent when it is not valid percent-encoding). */
export function safeDecode(segment: string): string {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
