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

  test('a value opened before opens the same again; another key still refuses it; tampering still fails', () => {
    const sealed = box.seal('token-1');
    assert.equal(box.open(sealed), 'token-1');
    assert.equal(box.open(sealed), 'token-1');
    assert.throws(() => createSecretBox(Buffer.alloc(32, 9)).open(sealed), SecretKeyError);
    const parts = sealed.split('.');
    const tag = Buffer.from(parts[2]!, 'base64url');
    tag[0] = tag[0]! ^ 1;
    assert.throws(() => box.open([parts[0], parts[1], tag.toString('base64url'), parts[3]].join('.')), SecretKeyError);
    // More values than the box keeps opened: each still opens to its own plaintext.
    const many = Array.from({ length: 600 }, (_, i) => [box.seal(`value ${i}`), `value ${i}`] as const);
    for (const [s, plain] of many) assert.equal(box.open(s), plain);
    for (const [s, plain] of many.slice(0, 50)) assert.equal(box.open(s), plain);
    assert.equal(box.open(sealed), 'token-1');
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
