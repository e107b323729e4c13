// Credentials of access profiles and v2 API keys (one kind of row): issuing tokens and OAuth
// secrets (shown once, stored as SHA-256 hashes and a masked form), and checking the settings a
// JWT or OIDC credential is verified with at the gateway.
import { createPublicKey, randomBytes } from 'node:crypto';
import type { ServiceContext } from '../../context.ts';
import type { ApiAccessProfileRow, ApiAuthType, JwtMethod } from '../../db/types.ts';
import { hashToken, parseIpAllowList } from '../../auth/credentials.ts';

export const AUTH_TYPES: readonly ApiAuthType[] = ['token', 'oauth2', 'jwt', 'oidc'];
export const JWT_METHODS: readonly JwtMethod[] = ['hmac', 'rsa', 'ecdsa'];

export type FieldErrors = Record<string, string[]>;

export interface Issued {
  columns: Pick<ApiAccessProfileRow, 'secret_hash' | 'oauth_client_id' | 'oauth_secret_hash' | 'token_mask'>;
  /** `secret`: the auth token (token, jwt and oidc: the access profile key); `oauth_client_secret`: oauth2. */
  shown: { secret?: string; oauth_client_secret?: string };
}

/** What v2 lists show instead of a token: its first 8 characters, an ellipsis, its last 4. */
export function maskToken(token: string): string {
  return `${token.slice(0, 8)}…${token.slice(-4)}`;
}

/** Fresh credentials for an auth type; the oauth client id is kept across refreshes. */
export function issueCredentials(authType: ApiAuthType, keepClientId: string | null): Issued {
  const secret = randomBytes(32).toString('hex');
  if (authType === 'oauth2') {
    return {
      columns: {
        secret_hash: null,
        oauth_client_id: keepClientId ?? `oauth-${randomBytes(12).toString('hex')}`,
        oauth_secret_hash: hashToken(secret),
        token_mask: maskToken(secret),
      },
      shown: { oauth_client_secret: secret },
    };
  }
  return {
    columns: {
      secret_hash: hashToken(secret),
      oauth_client_id: null,
      oauth_secret_hash: null,
      token_mask: maskToken(secret),
    },
    shown: { secret },
  };
}

export function checkAuthType(
  value: string | undefined,
  errors: FieldErrors,
  required: boolean,
): ApiAuthType | undefined {
  if (value === undefined) {
    if (required) errors.auth_type = ['is required'];
    return undefined;
  }
  if (!(AUTH_TYPES as readonly string[]).includes(value)) {
    errors.auth_type = [`must be one of ${AUTH_TYPES.join(', ')}`];
    return undefined;
  }
  return value as ApiAuthType;
}

export function checkIpList(
  value: string[] | string | undefined,
  field: string,
  errors: FieldErrors,
): string[] | undefined {
  if (value === undefined) return undefined;
  const parsed = parseIpAllowList(value);
  if ('invalid' in parsed) {
    errors[field] = [`has entries that are not IP addresses or CIDR ranges: ${parsed.invalid.slice(0, 5).join(', ')}`];
    return undefined;
  }
  return parsed.value === '' ? [] : parsed.value.split(',');
}

export interface VerificationInput {
  jwt_method?: string;
  jwt_secret?: string;
  oidc_issuer?: string;
  oidc_jwks_uri?: string;
}

/** How a JWT or OIDC credential's signature is checked: the columns of a profile (or of a v2 client). */
export interface VerificationColumns {
  jwt_method: JwtMethod | null;
  jwt_secret_sealed: string | null;
  oidc_issuer: string | null;
  oidc_jwks_uri: string | null;
}

const NONE: VerificationColumns = { jwt_method: null, jwt_secret_sealed: null, oidc_issuer: null, oidc_jwks_uri: null };

/** Whether an update touches how signatures are checked (then `checkVerification` runs again). */
export function touchesVerification(input: VerificationInput): boolean {
  return (
    input.jwt_method !== undefined ||
    input.jwt_secret !== undefined ||
    input.oidc_issuer !== undefined ||
    input.oidc_jwks_uri !== undefined
  );
}

/**
 * The verification settings for an auth type, checked. jwt: `hmac` with a secret of 32+ bytes, or
 * `rsa` / `ecdsa` with a PEM public key of that type or a JWKS URL (`oidc_jwks_uri`); oidc: an
 * issuer (keys from its discovery document) or a JWKS URL, one of the two. On an update, what the
 * input leaves out is taken from `current` when the auth type stays the same.
 */
export function checkVerification(
  ctx: Pick<ServiceContext, 'secretBox'>,
  authType: ApiAuthType,
  input: VerificationInput,
  errors: FieldErrors,
  current?: VerificationColumns & { auth_type: ApiAuthType | null },
): VerificationColumns | undefined {
  const keep = current && current.auth_type === authType ? current : undefined;
  if (authType === 'token' || authType === 'oauth2') return NONE;
  if (authType === 'oidc') {
    const issuer = input.oidc_issuer?.trim() || undefined;
    const jwksUri = input.oidc_jwks_uri?.trim() || undefined;
    if (issuer !== undefined && jwksUri !== undefined) {
      errors.oidc_issuer = ['give either oidc_issuer or oidc_jwks_uri, not both'];
      return undefined;
    }
    if (issuer === undefined && jwksUri === undefined) {
      if (keep && (keep.oidc_issuer || keep.oidc_jwks_uri))
        return { ...NONE, oidc_issuer: keep.oidc_issuer, oidc_jwks_uri: keep.oidc_jwks_uri };
      errors.oidc_issuer = ['is required for an oidc client (or give oidc_jwks_uri)'];
      return undefined;
    }
    const field = issuer !== undefined ? 'oidc_issuer' : 'oidc_jwks_uri';
    if (!isHttpUrl(issuer ?? jwksUri ?? '')) {
      errors[field] = ['must be an http or https URL'];
      return undefined;
    }
    return { ...NONE, oidc_issuer: issuer ?? null, oidc_jwks_uri: jwksUri ?? null };
  }

  const method = input.jwt_method ?? keep?.jwt_method ?? undefined;
  if (method === undefined || !(JWT_METHODS as readonly string[]).includes(method)) {
    errors.jwt_method = [`must be one of ${JWT_METHODS.join(', ')} for a jwt client`];
    return undefined;
  }
  const jwtMethod = method as JwtMethod;
  const secret = input.jwt_secret?.trim() ? input.jwt_secret : undefined;
  const jwksUri = input.oidc_jwks_uri?.trim() || undefined;
  const sameMethod = keep !== undefined && keep.jwt_method === jwtMethod;
  if (jwtMethod === 'hmac') {
    if (jwksUri !== undefined) {
      errors.oidc_jwks_uri = ['is for rsa and ecdsa keys; hmac takes jwt_secret'];
      return undefined;
    }
    if (secret === undefined) {
      if (sameMethod && keep.jwt_secret_sealed)
        return { ...NONE, jwt_method: jwtMethod, jwt_secret_sealed: keep.jwt_secret_sealed };
      errors.jwt_secret = ['is required for a jwt client with hmac'];
      return undefined;
    }
    if (Buffer.byteLength(secret) < 32) {
      errors.jwt_secret = ['must be at least 32 bytes for HMAC'];
      return undefined;
    }
    return { ...NONE, jwt_method: jwtMethod, jwt_secret_sealed: ctx.secretBox.seal(secret) };
  }
  if (secret !== undefined && jwksUri !== undefined) {
    errors.jwt_secret = ['give either jwt_secret (a PEM public key) or oidc_jwks_uri, not both'];
    return undefined;
  }
  if (jwksUri !== undefined) {
    if (!isHttpUrl(jwksUri)) {
      errors.oidc_jwks_uri = ['must be an http or https URL'];
      return undefined;
    }
    return { ...NONE, jwt_method: jwtMethod, oidc_jwks_uri: jwksUri };
  }
  if (secret === undefined) {
    if (sameMethod && (keep.jwt_secret_sealed || keep.oidc_jwks_uri))
      return {
        ...NONE,
        jwt_method: jwtMethod,
        jwt_secret_sealed: keep.jwt_secret_sealed,
        oidc_jwks_uri: keep.oidc_jwks_uri,
      };
    errors.jwt_secret = [`is required for a jwt client with ${jwtMethod}: a PEM public key (or give oidc_jwks_uri)`];
    return undefined;
  }
  const keyType = publicKeyType(secret);
  const wanted = jwtMethod === 'rsa' ? 'rsa' : 'ec';
  if (keyType !== wanted) {
    errors.jwt_secret = [`must be ${jwtMethod === 'rsa' ? 'an RSA' : 'an EC'} public key in PEM form`];
    return undefined;
  }
  return { ...NONE, jwt_method: jwtMethod, jwt_secret_sealed: ctx.secretBox.seal(secret) };
}

function publicKeyType(pem: string): string | undefined {
  if (!/-----BEGIN [A-Z ]*PUBLIC KEY-----/.test(pem)) return undefined;
  try {
    return createPublicKey(pem).asymmetricKeyType;
  } catch {
    return undefined;
  }
}

function isHttpUrl(value: string): boolean {
  if (value.length > 2000) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.username === '' && url.password === '';
  } catch {
    return false;
  }
}
