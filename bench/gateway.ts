// npm run bench -- gateway: calls per second through a proxy collection (OAuth token verified,
// upstream on this machine) beside a bare Fastify proxy route (no auth) to the same upstream.
import path from 'node:path';
import { compareLoads, load, loadOptions, row, startChild } from './lib.ts';
import { setUpOAuthProfile, startSwitchboard } from './platform.ts';

export async function run(options: { seconds: number; connections: number }): Promise<void> {
  const upstream = await startChild([path.resolve(import.meta.dirname, 'servers/upstream.ts')]);
  const sb = await startSwitchboard();
  const bare = await startChild([path.resolve(import.meta.dirname, 'servers/bare.ts')], { UPSTREAM_URL: upstream.url });
  try {
    const { clientId, clientSecret, endpointUrl } = await setUpOAuthProfile(sb, upstream.url);
    const tokenRes = await fetch(`${sb.url}/oauth2/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }) });
    const { access_token: token } = (await tokenRes.json()) as { access_token: string };
    const gatewayUrl = `${sb.url}${new URL(endpointUrl as string).pathname}`;
    const headers = { authorization: `Bearer ${token}` };
    const check = await fetch(gatewayUrl, { headers });
    if (!check.ok) throw new Error(`gateway call failed: ${check.status} ${await check.text()}`);
    await load({ url: gatewayUrl, headers, seconds: 2, connections: options.connections });
    await load({ url: `${bare.url}/proxy/orders/42`, seconds: 2, connections: options.connections });
    const { ours, baseline, roundRatios } = await compareLoads(
      { url: gatewayUrl, headers, seconds: options.seconds, connections: options.connections },
      { url: `${bare.url}/proxy/orders/42`, seconds: options.seconds, connections: options.connections },
    );
    console.log(`\ngateway, proxy collection, ${options.connections} keep-alive connections, ${options.seconds} s each in ${roundRatios.length} alternating rounds (LOG_LEVEL=warn)`);
    console.log(row('GET via gateway (Bearer token verified)', ours));
    console.log(row('bare Fastify proxy route (no auth, undici)', baseline));
    console.log(`ratio: ${(ours.requestsPerSecond / baseline.requestsPerSecond).toFixed(2)} (target >= 0.80); by round: ${roundRatios.map((r) => r.toFixed(2)).join(', ')}`);
  } finally {
    sb.process.kill('SIGTERM');
    bare.process.kill('SIGTERM');
    upstream.process.kill('SIGTERM');
  }
}

export async function main(args: string[]): Promise<void> {
  await run(loadOptions(args));
}
