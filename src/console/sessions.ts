// Console sign-in: a developer API token is exchanged for a session. The browser holds only a
// random session id (in an HttpOnly cookie); the database holds its hash and the hash of the
// token, so the token itself never reaches the page, the browser's storage or the logs. Every
// request re-reads what the token grants, exactly as the management API does: a token that was
// regenerated or deleted ends its sessions at once, and a role change applies on the next page.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ServiceContext } from '../context.ts';
import { AppError } from '../errors.ts';
import { toStored } from '../time.ts';
import { authenticate, authenticateTokenHash, hashToken, ipAllowed, type AuthContext } from '../auth/credentials.ts';
import { deleteEndedSessions, deleteSession, findLiveSession, insertSession } from './sessions.store.ts';

export interface ConsoleSession {
  /** The cookie's value, known only to the browser and this request. */
  readonly id: string;
  readonly auth: AuthContext;
  readonly expiresAt: string;
}

const MAX_TOKEN_LENGTH = 512;

function sessionHash(id: string): string {
  return createHash('sha256').update(id).digest('hex');
}

/** Open a session for a developer API token; refused (401/403) as the API would refuse the token. */
export async function signIn(ctx: ServiceContext, token: string, ip: string): Promise<ConsoleSession> {
  const trimmed = token.trim();
  if (trimmed === '' || trimmed.length > MAX_TOKEN_LENGTH) throw new AppError('console_token_invalid');
  const auth = await authenticate(ctx.db, ctx.clock, trimmed);
  if (auth === null) throw new AppError('console_token_invalid');
  if (!ipAllowed(auth.ipAllowList, ip)) throw new AppError('ip_not_allowed');
  const now = ctx.clock.now();
  const id = randomBytes(32).toString('base64url');
  const expiresAt = toStored(new Date(now.getTime() + ctx.config.consoleSessionHours * 3600_000));
  await deleteEndedSessions(ctx.db, toStored(now));
  await insertSession(ctx.db, {
    session_hash: sessionHash(id),
    client_id: auth.clientId,
    token_hash: hashToken(trimmed),
    created_at: toStored(now),
    expires_at: expiresAt,
  });
  return { id, auth, expiresAt };
}

/** The live session a cookie names, with what its token grants now; null when there is none. */
export async function resumeSession(ctx: ServiceContext, id: string, ip: string): Promise<ConsoleSession | null> {
  if (id === '' || id.length > 100) return null;
  const hash = sessionHash(id);
  const row = await findLiveSession(ctx.db, hash, toStored(ctx.clock.now()));
  if (!row) return null;
  const auth = await authenticateTokenHash(ctx.db, ctx.clock, row.token_hash);
  if (auth === null || auth.clientId !== Number(row.client_id)) {
    await deleteSession(ctx.db, hash);
    return null;
  }
  if (!ipAllowed(auth.ipAllowList, ip)) return null;
  return { id, auth, expiresAt: row.expires_at };
}

export async function signOut(ctx: ServiceContext, id: string): Promise<void> {
  if (id === '' || id.length > 100) return;
  await deleteSession(ctx.db, sessionHash(id));
}

/** The CSRF token of a session: an HMAC of its id, so nothing more is stored and it ends with the session. */
export function csrfTokenOf(key: Buffer, sessionId: string): string {
  return createHmac('sha256', key).update(`console-csrf:${sessionId}`).digest('base64url');
}

export function csrfTokenMatches(key: Buffer, sessionId: string, given: unknown): boolean {
  if (typeof given !== 'string' || given.length > 100) return false;
  const expected = Buffer.from(csrfTokenOf(key, sessionId));
  const actual = Buffer.from(given);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
