// Who calls an MCP server and what they may do: the server's own token (every tool), or a
// credential of the API platform (API key, OAuth 2.0 access token, JWT: the gateway's resolver),
// which sees the tools its access profile's collections grant. Then the server's policy: IP
// lists, a rate limit per minute and a quota, counted in the database (every node shares them).
import { timingSafeEqual } from 'node:crypto';
import { BlockList, isIP } from 'node:net';
import type { IncomingHttpHeaders } from 'node:http';
import type { ServiceContext } from '../context.ts';
import type { McpServerRow } from '../db/types.ts';
import { hashTokenBytes } from '../auth/credentials.ts';
import { ipPasses, type AccessResolver, type ProfileState } from '../auth/access.ts';
import { parsePolicy, QUOTA_SECONDS } from '../api/mcp/policy.ts';
import { countMcpCall, deleteEndedMcpWindows, uncountMcpCall } from '../api/mcp/mcp.store.ts';

export type McpCaller = { kind: 'token' } | { kind: 'profile'; profile: ProfileState };

export type CallerOutcome = { ok: true; caller: McpCaller } | { ok: false; status: 401 | 403; message: string };

/** The server's token from `?token=` or `Authorization: Bearer`. */
function serverTokenOf(headers: IncomingHttpHeaders, query: Record<string, unknown>): string | null {
  if (typeof query.token === 'string' && query.token !== '') return query.token;
  const auth = headers.authorization;
  if (typeof auth === 'string' && /^bearer\s+wkmcp-/i.test(auth)) return auth.replace(/^bearer\s+/i, '').trim();
  return null;
}

export async function resolveCaller(
  access: AccessResolver,
  server: McpServerRow,
  request: { headers: IncomingHttpHeaders; query: Record<string, unknown>; ip: string },
): Promise<CallerOutcome> {
  const token = serverTokenOf(request.headers, request.query);
  if (token !== null) {
    const given = hashTokenBytes(token);
    const stored = Buffer.from(server.token_hash, 'hex');
    if (server.auth_type === 'token' && stored.length === given.length && timingSafeEqual(stored, given))
      return { ok: true, caller: { kind: 'token' } };
    return { ok: false, status: 401, message: 'The token is not valid for this MCP server' };
  }
  const { token: _ignored, ...query } = request.query;
  const outcome = await access.resolve({ headers: request.headers, query });
  if (outcome.kind === 'none') return { ok: false, status: 401, message: 'Authentication required' };
  if (outcome.kind === 'invalid') return { ok: false, status: 401, message: 'The credential is not valid' };
  const profile = outcome.profile;
  if (profile.environmentId !== server.environment_id || !profile.usable)
    return { ok: false, status: 401, message: 'The credential is not valid' };
  if (!ipPasses(profile, request.ip)) return { ok: false, status: 403, message: 'IP address not allowed' };
  return { ok: true, caller: { kind: 'profile', profile } };
}

/** Whether the server's IP lists let this address in. */
export function serverIpPasses(server: McpServerRow, address: string): boolean {
  const policy = parsePolicy(server.policy);
  if (policy.ip_allow_list.length === 0 && policy.ip_deny_list.length === 0) return true;
  const plain = address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
  const family = isIP(plain) === 6 ? 'ipv6' : 'ipv4';
  if (isIP(plain) === 0) return policy.ip_allow_list.length === 0;
  if (policy.ip_deny_list.length > 0 && blockList(policy.ip_deny_list).check(plain, family)) return false;
  return policy.ip_allow_list.length === 0 || blockList(policy.ip_allow_list).check(plain, family);
}

function blockList(entries: string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [address = '', prefix] = entry.split('/');
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(prefix), family);
  }
  return list;
}

export type LimitVerdict = { ok: true } | { ok: false; message: string; retryAfter: number };

/** Count one tool call against the server's rate limit and quota; a refused call is not counted. */
export async function admitCall(ctx: ServiceContext, server: McpServerRow): Promise<LimitVerdict> {
  const policy = parsePolicy(server.policy);
  const windows = [
    policy.rate_limits
      ? { kind: 'rate' as const, limit: policy.rate_limits.limit, seconds: 60, message: 'Rate limit exceeded' }
      : null,
    policy.quota_limits
      ? {
          kind: 'quota' as const,
          limit: policy.quota_limits.limit,
          seconds: QUOTA_SECONDS[policy.quota_limits.interval] ?? 30 * 86400,
          message: 'Quota exceeded',
        }
      : null,
  ].filter((w) => w !== null);
  if (windows.length === 0) return { ok: true };
  const now = ctx.clock.now().getTime();
  return ctx.groupCommit.run(async (trx) => {
    const counted: Array<{ count: number; limit: number; reset: number; message: string }> = [];
    for (const w of windows) {
      const size = w.seconds * 1000;
      const start = Math.floor(now / size) * size;
      const count = await countMcpCall(trx, { serverId: server.id, kind: w.kind, windowStart: start });
      await deleteEndedMcpWindows(trx, { serverId: server.id, kind: w.kind, windowStart: start });
      counted.push({ count, limit: w.limit, reset: Math.ceil((start + size - now) / 1000), message: w.message });
    }
    const over = counted.find((c) => c.count > c.limit);
    if (!over) return { ok: true as const };
    for (const w of windows) {
      const size = w.seconds * 1000;
      await uncountMcpCall(trx, { serverId: server.id, kind: w.kind, windowStart: Math.floor(now / size) * size });
    }
    return { ok: false as const, message: over.message, retryAfter: Math.max(1, over.reset) };
  });
}
