// The secret box: authenticated encryption (AES-256-GCM) of credentials at rest, under the
// key from SWITCHBOARD_SECRET_KEY or, when unset, a key generated once into DATA_DIR (0600).
// Opening is asked for on every step that uses a connection (its row is read each time, so a change
// made on any node is seen at once): a sealed value already opened is answered from a small bounded
// map keyed by the sealed text itself. A sealed text opens to one plaintext under one key, so the map
// needs no invalidation; a changed credential is a new sealed text (a fresh IV each seal).
import { createCipheriv, createDecipheriv, createSecretKey, hkdfSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export interface SecretBox {
  seal(plaintext: string): string;
  open(sealed: string): string;
  /** A 32-byte key for one purpose (e.g. signing access tokens), derived from the master key by HKDF. */
  deriveKey(purpose: string): Buffer;
}

const VERSION = 'v1';
/** Opened values kept (least recently used dropped first), and the longest sealed text kept. */
const OPENED_KEPT = 512;
const OPENED_MAX_CHARS = 16 * 1024;
export const KEY_FILE = 'secret.key';

export class SecretKeyError extends Error {
  override name = 'SecretKeyError';
}

/** Sealed form: `v1.<iv>.<tag>.<ciphertext>`, each part base64url. */
export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new SecretKeyError('the secret key must be 32 bytes');
  // A KeyObject made once: a Buffer key is imported again by every cipher.
  const keyObject = createSecretKey(key);
  const opened = new Map<string, string>();
  return {
    seal(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', keyObject, iv);
      const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [
        VERSION,
        iv.toString('base64url'),
        cipher.getAuthTag().toString('base64url'),
        data.toString('base64url'),
      ].join('.');
    },
    open(sealed) {
      const known = opened.get(sealed);
      if (known !== undefined) {
        opened.delete(sealed);
        opened.set(sealed, known);
        return known;
      }
      const plaintext = openWith(sealed);
      if (sealed.length <= OPENED_MAX_CHARS) {
        opened.set(sealed, plaintext);
        if (opened.size > OPENED_KEPT) opened.delete(opened.keys().next().value!);
      }
      return plaintext;
    },
    deriveKey(purpose) {
      return Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), `switchboard:${purpose}`, 32));
    },
  };

  function openWith(sealed: string): string {
    const [version, iv, tag, data] = sealed.split('.');
    if (version !== VERSION || iv === undefined || tag === undefined || data === undefined)
      throw new SecretKeyError('not a sealed value');
    const decipher = createDecipheriv('aes-256-gcm', keyObject, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    try {
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretKeyError('the sealed value does not open with this key (wrong SWITCHBOARD_SECRET_KEY?)');
    }
  }
}

/** 64 hex characters or base64 of 32 bytes. */
export function parseSecretKey(text: string): Buffer {
  const trimmed = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, 'hex');
  const decoded = Buffer.from(trimmed, 'base64');
  if (decoded.length === 32 && /^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed)) return decoded;
  throw new SecretKeyError(
    'SWITCHBOARD_SECRET_KEY must be 32 bytes: 64 hex characters or base64 (openssl rand -hex 32)',
  );
}

/** The configured key, else the one in DATA_DIR, else a new one written there with mode 0600. */
export function loadOrCreateSecretKey(options: { secretKey: string | undefined; dataDir: string }): {
  key: Buffer;
  source: 'environment' | 'file' | 'generated';
  file?: string;
} {
  if (options.secretKey !== undefined) return { key: parseSecretKey(options.secretKey), source: 'environment' };
  const file = path.join(options.dataDir, KEY_FILE);
  fs.mkdirSync(options.dataDir, { recursive: true });
  try {
    // 'wx': create only if absent, so two processes starting at once never overwrite each other.
    const key = randomBytes(32);
    fs.writeFileSync(file, key.toString('hex') + '\n', { mode: 0o600, flag: 'wx' });
    return { key, source: 'generated', file };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return { key: parseSecretKey(fs.readFileSync(file, 'utf8')), source: 'file', file };
}
