// npm run bench -- token: tokens issued per second (Basic + form) by POST /oauth2/token, beside
// a bare Fastify route answering trivial JSON under the same load, in the same run.
import { recordFigure } from './database.ts';
import path from 'node:path';
import { compareLoads, load, loadOptions, row, startChild } from './lib.ts';
import { setUpOAuthProfile, startSwitchboard } from './platform.ts';

export async function run(options: { seconds: number; connections: number }): Promise<void> {
  const sb = await startSwitchboard();
  const bare = await startChild([path.resolve(import.meta.dirname, 'servers/bare.ts')]);
  try {
    const { clientId, clientSecret } = await setUpOAuthProfile(sb);
    const headers = {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
    };
    const body = 'grant_type=client_credentials';
    await load({
      url: `${sb.url}/oauth2/token`,
      method: 'POST',
      headers,
      body,
      seconds: 2,
      connections: options.connections,
    });
    await load({
      url: `${bare.url}/token`,
      method: 'POST',
      headers,
      body,
      seconds: 2,
      connections: options.connections,
    });
    const { ours, baseline, roundRatios } = await compareLoads(
      {
        url: `${sb.url}/oauth2/token`,
        method: 'POST',
        headers,
        body,
        seconds: options.seconds,
        connections: options.connections,
      },
      {
        url: `${bare.url}/token`,
        method: 'POST',
        headers,
        body,
        seconds: options.seconds,
        connections: options.connections,
      },
    );
    console.log(
      `\ntoken endpoint, ${options.connections} keep-alive connections, ${options.seconds} s each in ${roundRatios.length} alternating rounds (LOG_LEVEL=warn)`,
    );
    console.log(row('POST /oauth2/token (Basic + form)', ours));
    console.log(row('bare Fastify route, trivial JSON', baseline));
    console.log(
      `ratio: ${(ours.requestsPerSecond / baseline.requestsPerSecond).toFixed(2)} (target >= 0.50); by round: ${roundRatios.map((r) => r.toFixed(2)).join(', ')}`,
    );
    recordFigure('tokens/s', ours.requestsPerSecond);
  } finally {
    sb.process.kill('SIGTERM');
    bare.process.kill('SIGTERM');
  }
}

export async function main(args: string[]): Promise<void> {
  await run(loadOptions(args));
}
