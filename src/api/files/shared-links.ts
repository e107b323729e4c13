// Shareable links to files (FileStorage's "Generate shareable file link"): a URL that lets whoever
// holds it download a file, upload a new one, or append to one, until it expires (at most 7 days).
// The link carries what it allows (environment, path, scope, expiry) and an HMAC of it under a key
// derived from the secret box's, so nothing is stored and any node checks it; a changed byte, an
// expired link, or one made under another SWITCHBOARD_SECRET_KEY is refused. A link cannot be
// taken back before it expires except by rotating the secret key, so the longest life is bounded.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { AppError } from '../../errors.ts';
import type { ServiceContext } from '../../context.ts';
import type { FileScope } from './files.service.ts';

export const SHARE_SCOPES = ['download', 'upload', 'append'] as const;
export type ShareScope = (typeof SHARE_SCOPES)[number];
/** The vendor's default and longest life of a link, in seconds. */
export const DEFAULT_EXPIRES_IN = 900;
export const MAX_EXPIRES_IN = 604_800;
/** Where a link is served, below the server's public base URL. */
export const SHARED_PATH = '/api/files/shared/';

export interface SharedLink {
  scope: FileScope;
  path: string;
  allows: ShareScope;
  /** Seconds since the epoch. */
  expiresAt: number;
}

interface Claims {
  w: number;
  e: number;
  p: string;
  s: ShareScope;
  x: number;
}

function mac(ctx: ServiceContext, body: string): Buffer {
  return createHmac('sha256', ctx.secretBox.deriveKey('shared-file-links')).update(body).digest();
}

/** The URL of a link: the server's public base URL, the shared path and the signed claims. */
export function shareableLink(ctx: ServiceContext, link: SharedLink): string {
  const claims: Claims = {
    w: link.scope.workspaceId,
    e: link.scope.environmentId,
    p: link.path,
    s: link.allows,
    x: link.expiresAt,
  };
  const body = Buffer.from(JSON.stringify(claims)).toString('base64url');
  const token = `${body}.${mac(ctx, body).toString('base64url')}`;
  return `${ctx.config.publicBaseUrl.replace(/\/+$/, '')}${SHARED_PATH}${token}`;
}

/** What a link's token allows, for the `allows` asked; a link that is not ours, changed or expired is a 404. */
export function checkSharedLink(ctx: ServiceContext, token: string, allows: ShareScope): SharedLink {
  const [body, signature, extra] = token.split('.');
  if (body === undefined || signature === undefined || extra !== undefined) throw new AppError('shared_link_invalid');
  const expected = mac(ctx, body);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new AppError('shared_link_invalid');
  const claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Claims;
  if (claims.x * 1000 <= ctx.clock.now().getTime()) throw new AppError('shared_link_invalid');
  if (claims.s !== allows) throw new AppError('shared_link_scope', { params: { scope: claims.s } });
  return {
    scope: { workspaceId: claims.w, environmentId: claims.e },
    path: claims.p,
    allows: claims.s,
    expiresAt: claims.x,
  };
}
