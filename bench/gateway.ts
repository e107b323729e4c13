// npm run bench -- gateway: calls per second through a proxy collection beside a bare Fastify
// proxy route (no auth) to the same upstream, with two credentials in turn: an OAuth access token
// (verified by HMAC), an RS256 JWT of a v2 JWT client (verified with its PEM public key once, then
// remembered), and an RS256 JWT too long to be remembered (verified on every call).
import { generateKeyPairSync } from 'node:crypto';
import path from 'node:path';
import { jwtVerify, SignJWT } from 'jose';
import { compareLoads, load, loadOptions, row, startChild } from './lib.ts';
import { setUpOAuthProfile, startSwitchboard } from './platform.ts';

export async function run(options: { seconds: number; connections: number }): Promise<void> {
  const upstream = await startChild([path.resolve(import.meta.dirname, 'servers/upstream.ts')]);
  const sb = await startSwitchboard();
  const bare = await startChild([path.resolve(import.meta.dirname, 'servers/bare.ts')], { UPSTREAM_URL: upstream.url });
  try {
    const { clientId, clientSecret, endpointUrl, collectionId } = await setUpOAuthProfile(sb, upstream.url);
    const tokenRes = await fetch(`${sb.url}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
    });
    const { access_token: token } = (await tokenRes.json()) as { access_token: string };
    const gatewayUrl = `${sb.url}${new URL(endpointUrl as string).pathname}`;
    const bareUrl = `${bare.url}/proxy/orders/42`;

    // A v2 JWT client with an RSA public key, one API key, and one RS256 token carrying it (valid an hour).
    const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const jwtClient = await sb.api('POST', '/api/v2/api_clients', {
      name: 'Bench JWT',
      api_collection_ids: [collectionId],
      auth_type: 'jwt',
      jwt_method: 'rsa',
      jwt_secret: pair.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
      required_claims: ['exp'],
    });
    const apiKey = await sb.api('POST', `/api/v2/api_clients/${jwtClient.data.id}/api_keys`, {
      name: 'Bench key',
      active: true,
    });
    const jwt = await new SignJWT({ sub: apiKey.data.auth_token })
      .setProtectedHeader({ alg: 'RS256' })
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(pair.privateKey);

    // The same with a token over 4 KB, which the gateway never remembers: an RS256 verification on every call.
    const bigJwt = await new SignJWT({ sub: apiKey.data.auth_token, pad: 'x'.repeat(3200) })
      .setProtectedHeader({ alg: 'RS256' })
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(pair.privateKey);
    const credentials = [
      {
        label: 'GET via gateway (OAuth Bearer token verified)',
        headers: { authorization: `Bearer ${token}` },
        target: '0.80',
      },
      {
        label: 'GET via gateway (RS256 JWT of a v2 JWT client)',
        headers: { authorization: `Bearer ${jwt}` },
        target: '0.60',
      },
      {
        label: 'GET via gateway (RS256 JWT verified every call)',
        headers: { authorization: `Bearer ${bigJwt}` },
        target: '-',
      },
    ];
    for (const c of credentials) {
      const check = await fetch(gatewayUrl, { headers: c.headers });
      if (!check.ok) throw new Error(`gateway call failed (${c.label}): ${check.status} ${await check.text()}`);
    }
    for (const c of credentials)
      await load({ url: gatewayUrl, headers: c.headers, seconds: 2, connections: options.connections });
    await load({ url: bareUrl, seconds: 2, connections: options.connections });
    console.log(
      `\ngateway, proxy collection, ${options.connections} keep-alive connections, ${options.seconds} s each in 4 alternating rounds per credential (LOG_LEVEL=warn)`,
    );
    for (const c of credentials) {
      const { ours, baseline, roundRatios } = await compareLoads(
        { url: gatewayUrl, headers: c.headers, seconds: options.seconds, connections: options.connections },
        { url: bareUrl, seconds: options.seconds, connections: options.connections },
      );
      console.log(row(c.label, ours));
      console.log(row('bare Fastify proxy route (no auth, undici)', baseline));
      console.log(
        `ratio: ${(ours.requestsPerSecond / baseline.requestsPerSecond).toFixed(2)} (${c.target === '-' ? 'no target: what a verification costs' : `target >= ${c.target}`}); by round: ${roundRatios.map((r) => r.toFixed(2)).join(', ')}`,
      );
    }

    // What a token seen for the first time costs: one RS256 verification (the gateway remembers a
    // verified token until its key changes, so repeat calls skip it), measured here in-process.
    const distinct = await Promise.all(
      Array.from({ length: 500 }, (_, n) =>
        new SignJWT({ sub: apiKey.data.auth_token, n })
          .setProtectedHeader({ alg: 'RS256' })
          .setExpirationTime('1h')
          .sign(pair.privateKey),
      ),
    );
    for (const t of distinct.slice(0, 50)) await jwtVerify(t, pair.publicKey, { algorithms: ['RS256'] });
    const started = process.hrtime.bigint();
    for (const t of distinct) await jwtVerify(t, pair.publicKey, { algorithms: ['RS256'] });
    const micros = Number(process.hrtime.bigint() - started) / 1000 / distinct.length;
    console.log(
      `an RS256 verification of a token not seen before (jose, RSA 2048, in-process): ${micros.toFixed(1)} µs`,
    );
  } finally {
    sb.process.kill('SIGTERM');
    bare.process.kill('SIGTERM');
    upstream.process.kill('SIGTERM');
  }
}

export async function main(args: string[]): Promise<void> {
  await run(loadOptions(args));
}
