// Access tokens: HS256 JWTs whose verified claims are remembered by exact text.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { ACCESS_TOKEN_TTL_SECONDS, AUDIENCE, claimsJson, createAccessTokenSigner } from './access-token.ts';

const now = new Date('2026-06-01T09:00:00.000Z');
const later = (seconds: number) => new Date(now.getTime() + seconds * 1000);

describe('access tokens', () => {
  test('a token verifies (again from memory) until it expires', () => {
    const signer = createAccessTokenSigner(randomBytes(32));
    const token = signer.sign({ profileId: 7, generation: 2, issuer: 'http://sb.test', now });
    const claims = signer.verify(token, now);
    assert.equal(claims?.apid, 7);
    assert.equal(claims?.gen, 2);
    assert.equal(claims?.exp, Math.floor(now.getTime() / 1000) + ACCESS_TOKEN_TTL_SECONDS);
    assert.deepEqual(signer.verify(token, later(ACCESS_TOKEN_TTL_SECONDS - 1)), claims);
    assert.equal(signer.verify(token, later(ACCESS_TOKEN_TTL_SECONDS)), null);
  });

  test('a remembered token does not open a look-alike: changed signature, changed claims, other key', () => {
    const signer = createAccessTokenSigner(randomBytes(32));
    const token = signer.sign({ profileId: 7, generation: 2, issuer: 'http://sb.test', now });
    assert.ok(signer.verify(token, now));
    const [header, body, signature] = token.split('.') as [string, string, string];
    const flipped = `${signature.slice(0, -2)}${signature.at(-2) === 'A' ? 'B' : 'A'}${signature.at(-1)}`;
    assert.equal(signer.verify(`${header}.${body}.${flipped}`, now), null);
    const forgedClaims = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(body, 'base64url').toString()), apid: 8 }),
    ).toString('base64url');
    assert.equal(signer.verify(`${header}.${forgedClaims}.${signature}`, now), null);
    assert.equal(createAccessTokenSigner(randomBytes(32)).verify(token, now), null, 'another server key');
    const claims = signer.verify(token, now);
    assert.ok(claims && Object.isFrozen(claims), 'the remembered claims cannot be changed by a caller');
  });

  test('only the canonical spelling of the signature passes, not other spellings of its bytes', () => {
    const signer = createAccessTokenSigner(randomBytes(32));
    const token = signer.sign({ profileId: 7, generation: 2, issuer: 'http://sb.test', now });
    const [header, body, signature] = token.split('.') as [string, string, string];
    // 32 bytes take 43 base64url characters; the last one carries two unused bits.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const sibling = `${signature.slice(0, -1)}${alphabet[alphabet.indexOf(signature.at(-1) as string) ^ 1]}`;
    assert.deepEqual(
      Buffer.from(sibling, 'base64url'),
      Buffer.from(signature, 'base64url'),
      'the same bytes when decoded',
    );
    for (const spelling of [sibling, `${signature}=`, `${signature.slice(0, 20)}\u0141${signature.slice(21)}`]) {
      assert.equal(signer.verify(`${header}.${body}.${spelling}`, now), null, spelling);
    }
    assert.ok(signer.verify(token, now));
  });

  test('claimsJson writes what JSON.stringify writes, issuers that need escaping included', () => {
    for (const issuer of [
      'http://sb.test',
      'https://auth.example.com/a "quoted" path\\',
      'http://ünïcode.test/\u2028',
      'https://b.test',
    ]) {
      const expected = JSON.stringify({
        iss: issuer,
        aud: AUDIENCE,
        sub: 'ap:12',
        apid: 12,
        gen: 3,
        iat: 1_790_000_000,
        exp: 1_790_000_000 + ACCESS_TOKEN_TTL_SECONDS,
        jti: 'AbC-_9.z1',
      });
      assert.equal(claimsJson(issuer, 12, 3, 1_790_000_000, 'AbC-_9.z1'), expected, issuer);
      assert.deepEqual(JSON.parse(claimsJson(issuer, 12, 3, 1_790_000_000, 'AbC-_9.z1')).iss, issuer);
    }
  });
});
