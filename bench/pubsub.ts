// npm run bench -- pubsub: event streams throughput and latency, beside a bare Fastify route in
// the same run. Single publishes/s (1 KB messages), messages/s in batches of 100 (1 KB each), and
// publish-to-delivery latency for a long-polling consumer (p50, p99). Real server process,
// embedded SQLite with SQLITE_SYNCHRONOUS=FULL (every acknowledged message is on disk).
import { currentDatabase, recordFigure } from './database.ts';
import path from 'node:path';
import { load, row, startChild, loadOptions } from './lib.ts';
import { startSwitchboard } from './platform.ts';

const MESSAGE = JSON.stringify({ order_id: 'A-1022', status: 'paid', note: 'x'.repeat(1024 - 50) });
const BATCH = JSON.stringify({ payloads: Array.from({ length: 100 }, () => JSON.parse(MESSAGE) as unknown) });

export async function run(options: { seconds: number; connections: number }): Promise<void> {
  const sb = await startSwitchboard();
  const bare = await startChild([path.resolve(import.meta.dirname, 'servers/bare.ts')]);
  try {
    const single = (await sb.api('POST', '/api/event_streams/topics', { name: 'Bench single' })).data.id as number;
    const batched = (await sb.api('POST', '/api/event_streams/topics', { name: 'Bench batch' })).data.id as number;
    const latency = (await sb.api('POST', '/api/event_streams/topics', { name: 'Bench latency' })).data.id as number;
    const headers = { authorization: `Bearer ${sb.token}`, 'content-type': 'application/json' };
    const json = { 'content-type': 'application/json' };
    const publishUrl = `${sb.url}/api/v1/topics/${single}/publish`;
    const batchUrl = `${sb.url}/api/v1/batch/topics/${batched}/publish`;
    const check = await fetch(publishUrl, { method: 'POST', headers, body: MESSAGE });
    if (!check.ok) throw new Error(`publish failed: ${check.status} ${await check.text()}`);
    // The same publishes with an API platform credential: an OAuth access token of a profile granted the topic.
    const client = await sb.api('POST', '/api/api_clients', { name: 'Bench producer' });
    const profile = await sb.api('POST', '/api/api_access_profiles', {
      name: 'Bench producer',
      api_client_id: client.id,
      auth_type: 'oauth2',
      publish_topic_ids: [single],
    });
    const tokenRes = await fetch(`${sb.url}/oauth2/token`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({
        grant_type: 'client_credentials',
        client_id: profile.oauth_client_id,
        client_secret: profile.oauth_client_secret,
      }),
    });
    const oauthHeaders = {
      authorization: `Bearer ${((await tokenRes.json()) as { access_token: string }).access_token}`,
      'content-type': 'application/json',
    };

    const common = { method: 'POST' as const, seconds: options.seconds, connections: options.connections };
    await load({ ...common, url: publishUrl, headers, body: MESSAGE, seconds: 2 });
    await load({ ...common, url: `${bare.url}/publish`, headers: json, body: MESSAGE, seconds: 2 });
    const singles = await load({ ...common, url: publishUrl, headers, body: MESSAGE });
    const oauthSingles = await load({ ...common, url: publishUrl, headers: oauthHeaders, body: MESSAGE });
    const baseline = await load({ ...common, url: `${bare.url}/publish`, headers: json, body: MESSAGE });
    const batches = await load({
      ...common,
      url: batchUrl,
      headers,
      body: BATCH,
      connections: Math.min(options.connections, 8),
    });
    const bareBatches = await load({
      ...common,
      url: `${bare.url}/publish`,
      headers: json,
      body: BATCH,
      connections: Math.min(options.connections, 8),
    });
    const delivery = await deliveryLatency(sb.url, sb.token, latency, Math.max(200, options.seconds * 100));

    console.log(
      `\nevent streams, ${options.connections} keep-alive connections (8 for batches), ${options.seconds} s each, 1 KB messages (LOG_LEVEL=warn, ${currentDatabase() === 'postgres' ? 'PostgreSQL' : 'SQLite, SQLITE_SYNCHRONOUS=FULL'})`,
    );
    console.log(row('POST /api/v1/topics/:id/publish (developer token)', singles));
    console.log(row('POST /api/v1/topics/:id/publish (OAuth token)', oauthSingles));
    console.log(row('bare Fastify route, same body', baseline));
    console.log(row('POST /api/v1/batch/topics/:id/publish (100)', batches));
    console.log(row('bare Fastify route, same batch body', bareBatches));
    console.log(
      `single publishes/s: ${singles.requestsPerSecond.toFixed(0)} with a developer token, ${oauthSingles.requestsPerSecond.toFixed(0)} with an OAuth token (target >= 5000); ratio to the bare route ${(singles.requestsPerSecond / baseline.requestsPerSecond).toFixed(2)} / ${(oauthSingles.requestsPerSecond / baseline.requestsPerSecond).toFixed(2)}`,
    );
    console.log(`messages/s in batches of 100: ${(batches.requestsPerSecond * 100).toFixed(0)} (target >= 50000)`);
    recordFigure('single publishes/s', singles.requestsPerSecond);
    recordFigure('messages/s in batches of 100', batches.requestsPerSecond * 100);
    recordFigure('delivery p99 (ms)', delivery.p99);
    console.log(
      `publish-to-delivery, long-polling consumer, ${delivery.samples} messages: p50 ${delivery.p50.toFixed(2)} ms (target < 5), p99 ${delivery.p99.toFixed(2)} ms (target < 10), max ${delivery.max.toFixed(2)} ms`,
    );
    if ([singles, oauthSingles, batches].some((r) => r.non2xx + r.errors > 0))
      console.log('WARNING: some publishes failed; the figures above are not valid');
  } catch (error) {
    console.error(`the benchmark failed; the server said:\n${sb.output().slice(-4000)}`);
    throw error;
  } finally {
    sb.process.kill('SIGTERM');
    bare.process.kill('SIGTERM');
  }
}

/**
 * One consumer long-polls after its last message id; one publisher sends a message every few
 * milliseconds. Latency: from just before the publish request is sent to the moment the
 * consumer's reply holding that message has arrived.
 */
async function deliveryLatency(base: string, token: string, topicId: number, count: number) {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const sentAt = new Map<number, number>();
  const latencies: number[] = [];
  let cursor: string | undefined;
  let stop = false;
  let failed: unknown;
  const consumer = (async () => {
    while (!stop && latencies.length < count) {
      const res = await fetch(`${base}/api/v1/topics/${topicId}/consume`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ timeout_secs: 5, ...(cursor ? { after_message_id: cursor } : {}) }),
      });
      const body = (await res.json()) as { messages: Array<{ message_id: string; payload: { k: number } }> };
      const now = performance.now();
      for (const m of body.messages) {
        const sent = sentAt.get(m.payload.k);
        if (sent !== undefined) latencies.push(now - sent);
        cursor = m.message_id;
      }
    }
  })().catch((error: unknown) => {
    failed = error;
  });
  await new Promise((r) => setTimeout(r, 200));
  for (let k = 0; k < count; k++) {
    sentAt.set(k, performance.now());
    const res = await fetch(`${base}/api/v1/topics/${topicId}/publish`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ k, note: 'x'.repeat(1000) }),
    });
    await res.arrayBuffer();
    // Let the consumer come back to its long poll before the next message.
    await new Promise((r) => setTimeout(r, 5));
  }
  const deadline = Date.now() + 10_000;
  while (latencies.length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  stop = true;
  await Promise.race([consumer, new Promise((r) => setTimeout(r, 6000))]);
  if (failed !== undefined) throw failed;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? Number.NaN;
  return { samples: latencies.length, p50: at(0.5), p99: at(0.99), max: latencies.at(-1) ?? Number.NaN };
}

export async function main(args: string[]): Promise<void> {
  await run(loadOptions(args));
}
