// Pagination helpers over a session, for named actions and triggers that read lists: the next
// page from an RFC 8288 Link header (GitHub, Okta, Shopify), a next URL in the body (Salesforce's
// nextRecordsUrl, Graph's @odata.nextLink, Zendesk's next_page), a cursor in the body sent back as a
// parameter (Slack's response_metadata.next_cursor, HubSpot's paging.next.after), or Stripe's
// has_more with the last item's id. Bounded: a page count and an item count, whatever the service says.
import type { ConnectorRequest, ConnectorResponse, ConnectorSession } from '../definition.ts';
import { StepError } from '../step-error.ts';

/** The request of the next page, or null when this was the last. */
export type NextPage = (response: ConnectorResponse, request: ConnectorRequest) => ConnectorRequest | null;

export interface PageLimits {
  /** Pages read at most (default 100). */
  maxPages?: number;
}

/** The value at a path of a JSON body (`['response_metadata', 'next_cursor']`), or undefined. */
export function valueAt(body: unknown, path: readonly string[]): unknown {
  let value = body;
  for (const key of path) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** Each page, first to last. */
export async function* pages(
  session: ConnectorSession,
  first: ConnectorRequest,
  next: NextPage,
  limits: PageLimits = {},
): AsyncGenerator<ConnectorResponse> {
  const maxPages = limits.maxPages ?? 100;
  let request: ConnectorRequest | null = first;
  const seen = new Set<string>();
  for (let page = 0; request !== null && page < maxPages; page++) {
    // A service that hands back the same next page again would loop for ever.
    const key = `${request.url}?${JSON.stringify(request.query ?? {})}`;
    if (seen.has(key))
      throw new StepError('Bad response', `the service gave the same next page twice (${request.url})`);
    seen.add(key);
    const response = await session.request(request);
    yield response;
    request = next(response, request);
  }
}

/** The items of every page (each page's list at `itemsPath`), up to `maxItems` (default 10,000). */
export async function collect(
  session: ConnectorSession,
  first: ConnectorRequest,
  next: NextPage,
  itemsPath: readonly string[],
  limits: PageLimits & { maxItems?: number } = {},
): Promise<unknown[]> {
  const maxItems = limits.maxItems ?? 10_000;
  const out: unknown[] = [];
  for await (const response of pages(session, first, next, limits)) {
    const items = itemsPath.length === 0 ? response.body : valueAt(response.body, itemsPath);
    if (!Array.isArray(items))
      throw new StepError('Bad response', `the answer has no list at ${itemsPath.join('.') || 'its top'}`);
    for (const item of items) {
      if (out.length >= maxItems) return out;
      out.push(item);
    }
    // Enough already: the next page is not asked for.
    if (out.length >= maxItems) return out;
  }
  return out;
}

/** RFC 8288: the `rel="next"` target of the Link header. */
export function linkHeader(): NextPage {
  return (response, request) => {
    const header = response.headers.link;
    if (!header) return null;
    for (const part of header.split(',')) {
      const match = /<([^>]+)>\s*;(.*)$/.exec(part.trim());
      if (match && /\brel="?next"?/i.test(match[2] as string)) {
        const { query: _query, ...rest } = request;
        return { ...rest, url: new URL(match[1] as string, response.url).toString() };
      }
    }
    return null;
  };
}

/** A URL (absolute or relative to the answering one) at a path of the body. */
export function nextUrlInBody(path: readonly string[]): NextPage {
  return (response, request) => {
    const value = valueAt(response.body, path);
    if (typeof value !== 'string' || value === '') return null;
    const { query: _query, ...rest } = request;
    return { ...rest, url: new URL(value, response.url).toString() };
  };
}

/** A cursor at a path of the body, sent back as the query parameter `param`. */
export function cursorInBody(path: readonly string[], param: string): NextPage {
  return (response, request) => {
    const value = valueAt(response.body, path);
    if ((typeof value !== 'string' && typeof value !== 'number') || value === '') return null;
    return { ...request, query: { ...request.query, [param]: String(value) } };
  };
}

/** Stripe's lists: `has_more`, and the last item's id as `starting_after`. */
export function stripeList(): NextPage {
  return (response, request) => {
    const body = response.body as { has_more?: unknown; data?: Array<{ id?: unknown }> } | null;
    const last = body?.data?.at(-1)?.id;
    if (body?.has_more !== true || typeof last !== 'string') return null;
    return { ...request, query: { ...request.query, starting_after: last } };
  };
}
