import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, test } from 'node:test';
import { tempDir } from './helpers.ts';
import { createSecretBox, loadOrCreateSecretKey, parseSecretKey, SecretKeyError } from '../src/crypto/secret-box.ts';

describe('secret box (AES-256-GCM)', () => {
  const box = createSecretBox(Buffer.alloc(32, 7));

  test('seals and opens; the same plaintext seals differently each time', () => {
    const a = box.seal('p@ss wörd');
    const b = box.seal('p@ss wörd');
    assert.notEqual(a, b);
    assert.ok(!a.includes('p@ss'));
    assert.equal(box.open(a), 'p@ss wörd');
  });

  test('detects tampering and a wrong key', () => {
    const sealed = box.seal('secret');
    const parts = sealed.split('.');
    const flipped = Buffer.from(parts[3]!, 'base64url');
    flipped[0] = flipped[0]! ^ 1;
    assert.throws(
      () => box.open([parts[0], parts[1], parts[2], flipped.toString('base64url')].join('.')),
      SecretKeyError,
    );
    assert.throws(() => createSecretBox(Buffer.alloc(32, 8)).open(sealed), SecretKeyError);
    assert.throws(() => box.open('garbage'), SecretKeyError);
  });
});

describe('loadOrCreateSecretKey', () => {
  test('generates a key once into DATA_DIR with mode 0600, then reuses it', () => {
    const dir = tempDir('sb-key-');
    const first = loadOrCreateSecretKey({ secretKey: undefined, dataDir: dir });
    assert.equal(first.source, 'generated');
    assert.equal(fs.statSync(first.file!).mode & 0o777, 0o600);
    const second = loadOrCreateSecretKey({ secretKey: undefined, dataDir: dir });
    assert.equal(second.source, 'file');
    assert.ok(second.key.equals(first.key));
  });

  test('SWITCHBOARD_SECRET_KEY wins: hex or base64 of 32 bytes; anything else is refused', () => {
    const hex = 'ab'.repeat(32);
    assert.ok(loadOrCreateSecretKey({ secretKey: hex, dataDir: '/nonexistent' }).key.equals(Buffer.from(hex, 'hex')));
    assert.equal(parseSecretKey(Buffer.alloc(32, 1).toString('base64')).length, 32);
    assert.throws(() => parseSecretKey('too-short'), SecretKeyError);
  });
});
