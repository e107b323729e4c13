import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { hmacSha256Base64url } from './hmac.ts';

test('hmacSha256Base64url gives the MAC of createHmac for keys and messages of every size and alphabet', () => {
  const messages = [
    '',
    'a',
    'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0',
    'x'.repeat(1024),
    'y'.repeat(5000),
    'Łódź ünïcödé 🎉 '.repeat(40),
    '\u0000\uffff',
    '\ud800 lone surrogate',
  ];
  for (const keyLength of [0, 1, 32, 63, 64, 65, 200]) {
    const key = randomBytes(keyLength);
    const mac = hmacSha256Base64url(key);
    for (const message of [...messages, ...messages.slice().reverse()]) {
      assert.equal(
        mac(message),
        createHmac('sha256', key).update(message).digest('base64url'),
        `key ${keyLength}, message ${message.length}`,
      );
    }
  }
});

test('a look-alike message with other characters (not the same UTF-8 bytes) gets another MAC', () => {
  const mac = hmacSha256Base64url(randomBytes(32));
  assert.notEqual(mac('A.b'), mac('\u0141.b'), 'Ł must not be truncated to A');
});
