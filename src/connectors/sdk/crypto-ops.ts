// The cryptography of the SDK's helpers (`hmac_sha256`, `rsa_sha256`, `aes_gcm_encrypt`,
// `jwt_encode`...), done by Node's crypto in the worker. Ruby's own OpenSSL is not part of the
// interpreter's snapshot: its random generator would start from the same state in every call.
// Every value crosses as base64; a bad key or input is an error message, never an exception.
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  createPrivateKey,
  createPublicKey,
  pbkdf2Sync,
  sign,
  verify,
  type CipherGCMTypes,
} from 'node:crypto';

const DIGESTS = new Set(['md5', 'sha1', 'sha256', 'sha384', 'sha512']);

type Result = { value: string } | { ok: boolean } | { error: string };

const b = (value: unknown): Buffer => Buffer.from(typeof value === 'string' ? value : '', 'base64');
const text = (value: unknown): string => (typeof value === 'string' ? value : '');

function digestName(value: unknown): string {
  const name = text(value).toLowerCase().replace('-', '');
  if (!DIGESTS.has(name)) throw new Error(`unknown digest ${text(value)}`);
  return name;
}

function keyOf(pem: string, kind: 'private' | 'public') {
  // A private key also serves where a public one is expected (verifying with one's own key).
  if (kind === 'private') return createPrivateKey(pem);
  try {
    return createPublicKey(pem);
  } catch {
    return createPublicKey(createPrivateKey(pem));
  }
}

export function cryptoOperation(op: Record<string, unknown>): Result {
  try {
    switch (op.kind) {
      case 'hmac':
        return { value: createHmac(digestName(op.digest), b(op.key)).update(b(op.data)).digest('base64') };
      case 'digest':
        return { value: createHash(digestName(op.digest)).update(b(op.data)).digest('base64') };
      case 'sign': {
        // RSA (PKCS#1 v1.5) or ECDSA; ECDSA signatures as JWS wants them (r || s).
        const key = keyOf(text(op.key), 'private');
        const dsaEncoding = key.asymmetricKeyType === 'ec' ? 'ieee-p1363' : undefined;
        return {
          value: sign(digestName(op.digest), b(op.data), dsaEncoding ? { key, dsaEncoding } : key).toString('base64'),
        };
      }
      case 'verify': {
        const key = keyOf(text(op.key), 'public');
        const dsaEncoding = key.asymmetricKeyType === 'ec' ? 'ieee-p1363' : undefined;
        return {
          ok: verify(digestName(op.digest), b(op.data), dsaEncoding ? { key, dsaEncoding } : key, b(op.signature)),
        };
      }
      case 'cipher':
        return { value: cipher(op, true) };
      case 'decipher':
        return { value: cipher(op, false) };
      case 'pbkdf2':
        return {
          value: pbkdf2Sync(
            b(op.password),
            b(op.salt),
            Math.min(Number(op.iterations) || 1, 10_000_000),
            Math.min(Number(op.length) || 32, 1024),
            digestName(op.digest),
          ).toString('base64'),
        };
      default:
        return { error: `unknown operation ${String(op.kind)}` };
    }
  } catch (error) {
    return { error: (error as Error).message };
  }
}

function cipher(op: Record<string, unknown>, encrypt: boolean): string {
  const key = b(op.key);
  const mode = text(op.mode);
  if (![16, 24, 32].includes(key.length)) throw new Error('the key must be 128, 192 or 256 bits long');
  const algorithm = `aes-${key.length * 8}-${mode}`;
  if (mode === 'cbc') {
    const iv = b(op.iv);
    const c = encrypt ? createCipheriv(algorithm, key, iv) : createDecipheriv(algorithm, key, iv);
    return Buffer.concat([c.update(b(op.data)), c.final()]).toString('base64');
  }
  if (mode === 'gcm') {
    const name = algorithm as CipherGCMTypes;
    const iv = b(op.iv);
    const aad = b(op.aad);
    if (encrypt) {
      const c = createCipheriv(name, key, iv);
      if (aad.length) c.setAAD(aad);
      const out = Buffer.concat([c.update(b(op.data)), c.final()]);
      return Buffer.concat([out, c.getAuthTag()]).toString('base64');
    }
    const c = createDecipheriv(name, key, iv);
    if (aad.length) c.setAAD(aad);
    c.setAuthTag(b(op.tag));
    return Buffer.concat([c.update(b(op.data)), c.final()]).toString('base64');
  }
  throw new Error(`unknown cipher mode ${mode}`);
}
