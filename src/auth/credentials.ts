// API tokens of developer API clients and what a valid one grants: the caller's workspace,
// environment, privileges, project scope and IP allow list.
import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { BlockList, isIP } from 'node:net';
import type { Db, EnvironmentType } from '../db/types.ts';
import { toStored, type Clock } from '../time.ts';
import type { Notifier } from '../notifier.ts';
import { rolePrivileges } from '../api/developer_api_client_roles/developer_api_client_roles.store.ts';
import type { Privilege } from './privileges.ts';
import {
  findCredentialByTokenHash,
  folderIdsOf,
  touchLastUsed,
} from '../api/developer_api_clients/developer_api_clients.store.ts';

export interface AuthContext {
  readonly clientId: number;
  readonly workspaceId: number;
  readonly environmentId: number;
  readonly environmentType: EnvironmentType;
  readonly privileges: ReadonlySet<Privilege>;
  readonly allFolders: boolean;
  /** Project folder ids in scope when allFolders is false. */
  readonly folderIds: readonly number[];
  readonly ipAllowList: string;
}

/** `wrk<env>-` and 64 hex characters: recognisable by secret scanners (contract 02 §1.2). */
export function generateToken(environment: EnvironmentType): string {
  return `wrk${environment}-${randomBytes(32).toString('hex')}`;
}

export function hashToken(token: string): string {
  return hash('sha256', token, 'hex');
}

/**
 * The same digest as hashToken, as bytes (for timingSafeEqual without a hex round trip). Made
 * from a 'binary' (latin1) string, one character per byte: a one-shot hash that returns a Buffer costs
 * about twice as much (a native Buffer is slow to make).
 */
export function hashTokenBytes(token: string): Buffer {
  return Buffer.from(hash('sha256', token, 'binary'), 'latin1');
}

/** How often last_used_at is written at most, so that reads do not each cost a write. */
const LAST_USED_RESOLUTION_MS = 60_000;

export async function authenticate(db: Db, clock: Clock, token: string): Promise<AuthContext | null> {
  if (token.length === 0 || token.length > 512) return null;
  return authenticateTokenHash(db, clock, hashToken(token));
}

/** What a token grants, known by its hash (the web console keeps the hash of the token a session was opened with). */
export async function authenticateTokenHash(db: Db, clock: Clock, hash: string): Promise<AuthContext | null> {
  if (!/^[0-9a-f]{64}$/.test(hash)) return null;
  const row = await findCredentialByTokenHash(db, hash);
  // The lookup is by hash through a unique index; the comparison is still made in constant time.
  if (!row || !timingSafeEqual(Buffer.from(row.token_hash, 'hex'), Buffer.from(hash, 'hex'))) return null;
  const now = clock.now();
  if (row.last_used_at === null || now.getTime() - new Date(row.last_used_at).getTime() >= LAST_USED_RESOLUTION_MS) {
    await touchLastUsed(db, row.id, toStored(now));
  }
  return {
    clientId: row.id,
    workspaceId: row.workspace_id,
    environmentId: row.environment_id,
    environmentType: row.environment_type,
    privileges: new Set(rolePrivileges(row)),
    allFolders: row.all_folders === 1,
    folderIds: row.all_folders === 1 ? [] : folderIdsOf(row),
    ipAllowList: row.ip_allow_list,
  };
}

/**
 * authenticate() with the answers kept in memory, so an authenticated call needs no database
 * read. Any change to any client of a workspace (token, role, scope, deletion) empties the
 * cache through the notifier, so revocation still takes effect on the very next request.
 * One cache per app: keyed by the app's notifier.
 */
export function authenticateCached(
  ctx: { db: Db; clock: Clock; notifier: Notifier },
  token: string,
): Promise<AuthContext | null> {
  let cache = CACHES.get(ctx.notifier);
  if (!cache) {
    const entries = new Map<string, { auth: AuthContext; touchedAt: number }>();
    ctx.notifier.subscribe('developer_api_clients.changed', () => entries.clear());
    ctx.notifier.subscribe('everything.changed', () => entries.clear());
    cache = entries;
    CACHES.set(ctx.notifier, cache);
  }
  return lookup(cache, ctx, token);
}

const CACHES = new WeakMap<Notifier, Map<string, { auth: AuthContext; touchedAt: number }>>();
const MAX_CACHED_CREDENTIALS = 10_000;

async function lookup(
  cache: Map<string, { auth: AuthContext; touchedAt: number }>,
  ctx: { db: Db; clock: Clock },
  token: string,
): Promise<AuthContext | null> {
  if (token.length === 0 || token.length > 512) return null;
  const hash = hashToken(token);
  const hit = cache.get(hash);
  const now = ctx.clock.now().getTime();
  if (hit) {
    if (now - hit.touchedAt >= LAST_USED_RESOLUTION_MS) {
      hit.touchedAt = now;
      await touchLastUsed(ctx.db, hit.auth.clientId, toStored(new Date(now)));
    }
    return hit.auth;
  }
  const auth = await authenticate(ctx.db, ctx.clock, token);
  // Unknown tokens are not remembered: guesses must not fill memory.
  if (auth) {
    if (cache.size >= MAX_CACHED_CREDENTIALS) cache.clear();
    cache.set(hash, { auth, touchedAt: now });
  }
  return auth;
}

/** Whether a project (by its folder id) is in the caller's scope (contract 02 §3). */
export function projectInScope(auth: Pick<AuthContext, 'allFolders' | 'folderIds'>, projectFolderId: number): boolean {
  return auth.allFolders || auth.folderIds.includes(projectFolderId);
}

/**
 * Parse an IP allow list given as an array or a comma/whitespace-separated string.
 * Returns the normalised comma-separated form, or the entries that are not addresses/CIDRs.
 */
export function parseIpAllowList(input: string | readonly string[]): { value: string } | { invalid: string[] } {
  const entries = (typeof input === 'string' ? input.split(/[\s,]+/) : input.flatMap((s) => s.split(/[\s,]+/)))
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const invalid = entries.filter((entry) => toRule(entry) === null);
  if (invalid.length > 0) return { invalid };
  return { value: [...new Set(entries)].join(',') };
}

export function ipAllowed(allowList: string, address: string): boolean {
  if (allowList === '') return true;
  const list = new BlockList();
  for (const entry of allowList.split(',')) {
    const rule = toRule(entry);
    if (rule === null) continue;
    if (rule.prefix === undefined) list.addAddress(rule.address, rule.family);
    else list.addSubnet(rule.address, rule.prefix, rule.family);
  }
  const plain = address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
  const family = isIP(plain) === 6 ? 'ipv6' : 'ipv4';
  return isIP(plain) !== 0 && list.check(plain, family);
}

function toRule(entry: string): { address: string; prefix?: number; family: 'ipv4' | 'ipv6' } | null {
  const [address = '', prefixText, extra] = entry.split('/');
  if (extra !== undefined) return null;
  const version = isIP(address);
  if (version === 0) return null;
  const family = version === 4 ? 'ipv4' : 'ipv6';
  if (prefixText === undefined) return { address, family };
  if (!/^\d{1,3}$/.test(prefixText)) return null;
  const prefix = Number(prefixText);
  if (prefix > (version === 4 ? 32 : 128)) return null;
  return { address, prefix, family };
}

/** Project folder ids a caller may see, or null when every project is in scope. */
export function scopeOf(auth: Pick<AuthContext, 'allFolders' | 'folderIds'>): readonly number[] | null {
  return auth.allFolders ? null : auth.folderIds;
}
