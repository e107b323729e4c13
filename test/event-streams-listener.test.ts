// EVENT_STREAMS_PORT: a second listener serving only the event streams operations (and the health
// checks), from the same app as the main port: one runtime, so a long poll on one port is woken
// by a publish on the other. Real processes: a second listener cannot be reached with inject.
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { before, describe, test } from 'node:test';
import { tempDir } from './helpers.ts';
import { api, freePort, postAcrossShutdown, spawnServe, startServer, type Running } from './process-helpers.ts';

const ADMIN = `es-listener-${'e'.repeat(40)}`;

describe('EVENT_STREAMS_PORT: the event streams listener', () => {
  let server: Running;
  let events: string;
  let main: string;
  let topic: number;
  let oauthToken: string;

  before(async () => {
    const port = await freePort();
    // Advertised addresses of their own (a proxy in front): on the listener, whatever Host a request
    // carries, only the event streams operations answer; it is not the Host header that filters.
    server = await startServer(tempDir('sb-proc-'), {
      SWITCHBOARD_ADMIN_TOKEN: ADMIN,
      EVENT_STREAMS_PORT: String(port),
      PUBLIC_BASE_URL: 'https://admin.example.com',
      PUBLIC_EVENT_STREAMS_URL: 'https://events.example.com',
    });
    assert.equal(server.eventStreamsUrl, `http://127.0.0.1:${port}`, `printed at start:\n${server.output()}`);
    events = server.eventStreamsUrl!;
    main = server.baseUrl;
    const created = await api(main, 'POST', '/api/event_streams/topics', ADMIN, { name: 'Orders' });
    assert.equal(created.status, 200);
    topic = created.body.data.id;
    // An API platform client with an access profile granted the topic; its OAuth token comes from the main port.
    const client = await api(main, 'POST', '/api/api_clients', ADMIN, { name: 'Event partner' });
    assert.equal(client.status, 200);
    const profile = await api(main, 'POST', '/api/api_access_profiles', ADMIN, {
      name: 'Orders feed',
      api_client_id: client.body.id,
      auth_type: 'oauth2',
      publish_topic_ids: [topic],
      consume_topic_ids: [topic],
    });
    assert.equal(profile.status, 200);
    const basic = Buffer.from(`${profile.body.oauth_client_id}:${profile.body.oauth_client_secret}`).toString('base64');
    const token = await tokenRequest(main, basic);
    assert.equal(token.status, 200);
    oauthToken = JSON.parse(token.text).access_token;
  });

  test('publish, batch publish, the legacy path and consume with a developer token', async () => {
    const one = await api(events, 'POST', `/api/v1/topics/${topic}/publish`, ADMIN, { n: 1 });
    assert.equal(one.status, 200);
    assert.match(one.body.message_id, /^[0-9a-f]{16}-[0-9a-f]{16}$/);
    const batch = await api(events, 'POST', `/api/v1/batch/topics/${topic}/publish`, ADMIN, {
      payloads: [{ n: 2 }, { n: 3 }],
    });
    assert.equal(batch.status, 200);
    assert.equal(batch.body.is_partial_error, false);
    assert.equal((await api(events, 'POST', `/api/pubsub/topics/${topic}/publish`, ADMIN, { n: 4 })).status, 200);
    const read = await api(events, 'POST', `/api/v1/topics/${topic}/consume`, ADMIN, {
      after_message_id: one.body.message_id,
    });
    assert.equal(read.status, 200);
    assert.deepEqual(
      read.body.messages.map((m: { payload: unknown }) => m.payload),
      [{ n: 2 }, { n: 3 }, { n: 4 }],
    );
    // The topic's own errors keep their shape on this port.
    const unknown = await api(events, 'POST', '/api/v1/topics/999999/consume', ADMIN, {});
    assert.equal(unknown.status, 404);
    assert.equal(typeof unknown.body.message, 'string');
    assert.deepEqual(await api(events, 'POST', `/api/v1/topics/${topic}/consume`, undefined, {}), {
      status: 401,
      body: { message: 'Unauthorized' },
    });
  });

  test('publish and consume with an OAuth access token', async () => {
    const published = await api(events, 'POST', `/api/v1/topics/${topic}/publish`, oauthToken, { via: 'oauth' });
    assert.equal(published.status, 200);
    const read = await api(events, 'POST', `/api/v1/topics/${topic}/consume`, oauthToken, {});
    assert.equal(read.status, 200);
    assert.deepEqual(read.body.messages.at(-1), {
      message_id: published.body.message_id,
      payload: { via: 'oauth' },
      time: read.body.messages.at(-1).time,
    });
  });

  test('everything else answers 404 {"message":"Not found"}, with or without a token; the health checks answer', async () => {
    const others: Array<[string, string]> = [
      ['GET', '/api/users/me'],
      ['GET', '/api/lookup_tables'],
      ['GET', '/api/event_streams/topics'],
      ['POST', '/api/event_streams/topics'],
      ['GET', '/docs'],
      ['GET', '/api/openapi.json'],
      ['GET', '/metrics'],
      ['GET', '/w1-dev/orders-v1/x'],
      ['GET', `/api/v1/topics/${topic}/consume`],
    ];
    for (const [method, url] of others) {
      for (const token of [ADMIN, undefined]) {
        const res = await api(events, method, url, token, method === 'POST' ? { name: 'not here' } : undefined);
        assert.deepEqual(
          res,
          { status: 404, body: { message: 'Not found' } },
          `${method} ${url} ${token ? 'with' : 'without'} a token`,
        );
      }
    }
    for (const host of ['admin.example.com', new URL(main).host]) {
      const res = await withHost(events, host, '/api/users/me');
      assert.deepEqual(res, { status: 404, text: '{"message":"Not found"}' }, `Host: ${host}`);
    }
    assert.equal(
      (await withHost(main, 'admin.example.com', '/api/users/me')).status,
      200,
      'the same request on the main port',
    );
    const basic = Buffer.from('client:secret').toString('base64');
    const token = await tokenRequest(events, basic);
    assert.equal(token.status, 404);
    assert.deepEqual(JSON.parse(token.text), { message: 'Not found' });
    assert.equal(
      (await api(main, 'GET', '/api/event_streams/topics', ADMIN)).body.data.length,
      1,
      'no topic was created',
    );
    assert.equal((await api(events, 'GET', '/health')).status, 200);
    assert.equal((await api(events, 'GET', '/ready')).status, 200);
  });

  test('the main port keeps serving everything, publish included', async () => {
    assert.equal((await api(main, 'GET', '/api/users/me', ADMIN)).status, 200);
    assert.equal((await api(main, 'GET', '/api/lookup_tables', ADMIN)).status, 200);
    const published = await api(main, 'POST', `/api/v1/topics/${topic}/publish`, ADMIN, { port: 'main' });
    assert.equal(published.status, 200);
    const read = await api(events, 'POST', `/api/v1/topics/${topic}/consume`, ADMIN, {});
    assert.equal(read.body.messages.at(-1).message_id, published.body.message_id, 'one topic, whichever port');
  });

  test('a long poll on the event streams port is woken by a publish on the main port', async () => {
    const last: string = (await api(events, 'POST', `/api/v1/topics/${topic}/consume`, ADMIN, {})).body.messages.at(
      -1,
    ).message_id;
    const waiting = api(events, 'POST', `/api/v1/topics/${topic}/consume`, ADMIN, {
      after_message_id: last,
      timeout_secs: 20,
    });
    await new Promise((r) => setTimeout(r, 300));
    const published = await api(main, 'POST', `/api/v1/topics/${topic}/publish`, ADMIN, { wake: true });
    assert.equal(published.status, 200);
    // A second runtime would never hear of the publish: this poll would end empty after 20 s.
    const woken = await waiting;
    assert.equal(woken.status, 200);
    assert.deepEqual(
      woken.body.messages.map((m: { message_id: string; payload: unknown }) => [m.message_id, m.payload]),
      [[published.body.message_id, { wake: true }]],
    );
  });

  test('SIGTERM ends long polls, finishes a publish in flight on the event streams port and closes both ports', async () => {
    const poll = api(events, 'POST', `/api/v1/topics/${topic}/consume`, ADMIN, {
      after_message_id: await lastId(events, topic),
      timeout_secs: 60,
    });
    await new Promise((r) => setTimeout(r, 200));
    // Headers and half the body, then the signal, then the rest: the publish is in flight.
    const inFlight = postAcrossShutdown(
      server.child,
      `${events}/api/v1/topics/${topic}/publish`,
      ADMIN,
      JSON.stringify({ during: 'shutdown' }),
      5,
    );
    const ended = await poll;
    assert.deepEqual(ended, { status: 200, body: { messages: [] } }, 'the long poll answered at once');
    const published = await inFlight;
    assert.equal(published.status, 200, published.text);
    assert.equal(await server.exited, 0);
    assert.match(server.output(), /shutdown complete/);
    await assert.rejects(fetch(`${events}/health`), 'the event streams port is closed');
    await assert.rejects(fetch(`${main}/health`), 'the main port is closed');
  });
});

describe('EVENT_STREAMS_PORT refused at start', () => {
  test('a value that is not a port, or PORT itself: a clear message, exit 2, no stack trace', async () => {
    // Other values (0, 70000...) are covered by test/config.test.ts.
    const cases = [
      [{ EVENT_STREAMS_PORT: 'events' }, /^switchboard: EVENT_STREAMS_PORT must be a whole number\n$/],
      [{ PORT: '4100', EVENT_STREAMS_PORT: '4100' }, /^switchboard: EVENT_STREAMS_PORT must differ from PORT/],
    ] as const;
    await Promise.all(
      cases.map(async ([env, message]) => {
        const { code, err } = await serve({ PORT: '0', ...env });
        assert.equal(code, 2, err);
        assert.match(err, message);
      }),
    );
  });

  test('a port already in use (EVENT_STREAMS_PORT or PORT): a clear message, exit 1, no stack trace', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as net.AddressInfo;
    try {
      const cases = [
        ['EVENT_STREAMS_PORT', { PORT: '0', EVENT_STREAMS_PORT: String(port) }],
        ['PORT', { PORT: String(port) }],
      ] as const;
      await Promise.all(
        cases.map(async ([setting, env]) => {
          const { code, err } = await serve({ ...env, SWITCHBOARD_ADMIN_TOKEN: ADMIN });
          assert.equal(code, 1, err);
          assert.match(
            err,
            new RegExp(
              `^switchboard: cannot listen \\(${setting}\\): port ${port} is already in use on 127\\.0\\.0\\.1\\n$`,
            ),
          );
        }),
      );
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});

async function serve(env: Record<string, string>): Promise<{ code: number | null; err: string }> {
  const child = spawnServe({ DATA_DIR: tempDir('sb-proc-'), HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env }, [
    'ignore',
    'ignore',
    'pipe',
  ]);
  let err = '';
  child.stderr!.on('data', (d) => {
    err += d;
  });
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { code, err };
}

function tokenRequest(base: string, basic: string): Promise<{ status: number; text: string }> {
  return fetch(`${base}/oauth2/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
  }).then(async (res) => ({ status: res.status, text: await res.text() }));
}

/** GET with a Host header of one's choosing (fetch does not allow one). */
function withHost(base: string, host: string, url: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${url}`, { headers: { host, authorization: `Bearer ${ADMIN}` } }, (res) => {
      let text = '';
      res.on('data', (d) => {
        text += d;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function lastId(base: string, topic: number): Promise<string> {
  return (await api(base, 'POST', `/api/v1/topics/${topic}/consume`, ADMIN, {})).body.messages.at(-1).message_id;
}
