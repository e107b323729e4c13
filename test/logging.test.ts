// Logs are structured JSON with a request id, and never carry a token or a secret.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import { createLogger, lazyChild, redactUrl } from '../src/logger.ts';
import { createTestApp, type TestApp } from './helpers.ts';

let t: TestApp;
const lines: string[] = [];
const sink = new Writable({
  write(chunk, _enc, done) {
    lines.push(...String(chunk).split('\n').filter(Boolean));
    done();
  },
});

before(async () => {
  t = await createTestApp({ logger: createLogger('trace', sink) });
});
after(() => t.close());

test('request logs carry method, url and request id but no token, even when the token is in the URL', async () => {
  const created = await t.call('POST', '/api/developer_api_clients', {
    body: { name: 'logged', api_privilege_group_id: 1, all_folders: true },
  });
  const newToken: string = created.body.result.token.value;
  const regenerated = await t.call('POST', `/api/developer_api_clients/${created.body.result.id}/regenerate`);
  await t.call('GET', `/api/users/me?user_token=${t.adminToken}&x=1`, { token: null });
  await t.call('GET', '/api/users/me', { token: 'wrkdev-guessed-token-value' });
  await t.call('GET', '/api/users/me', { headers: { 'x-user-token': t.adminToken } });

  await new Promise((r) => setImmediate(r));
  const text = lines.join('\n');
  assert.ok(lines.length > 5, 'there are logs to inspect');
  const parsed = lines.map((l) => JSON.parse(l));
  const incoming = parsed.filter((l) => l.req);
  assert.ok(
    incoming.some((l) => l.req.url === '/api/developer_api_clients' && l.reqId),
    'requests are logged with their id',
  );
  assert.ok(incoming.some((l) => l.req.url.includes('user_token=[REDACTED]')));
  for (const secret of [t.adminToken, newToken, regenerated.body.result.token.value, 'wrkdev-guessed-token-value']) {
    assert.ok(!text.includes(secret), 'a token reached the logs');
  }
});

test('redactUrl hides sensitive query values only', () => {
  assert.equal(
    redactUrl('/a?token=abc&page=2&client_secret=s3'),
    '/a?token=[REDACTED]&page=2&client_secret=[REDACTED]',
  );
  assert.equal(redactUrl('/w1-dev/orders-v1/x?api_token=s3cret&q=1'), '/w1-dev/orders-v1/x?api_token=[REDACTED]&q=1');
  assert.equal(redactUrl('/a?page=2'), '/a?page=2');
});

test('a request logger writes its request id and redacts, and makes nothing when its level is off', () => {
  const written: string[] = [];
  const out = new Writable({
    write(chunk, _enc, done) {
      written.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const parent = createLogger('warn', out);
  let children = 0;
  const counted = Object.assign(Object.create(parent), {
    child: (...args: Parameters<typeof parent.child>) => {
      children += 1;
      return parent.child(...args);
    },
  });
  const log = lazyChild(counted, { reqId: 'r-1' }, {});
  log.info({ token: 'hidden' }, 'not at warn');
  log.debug('nor this');
  assert.equal(children, 0, 'no child for lines that are not written');
  assert.equal(written.length, 0);
  assert.equal(log.level, 'warn');
  log.warn({ token: 'sekrit-value', n: 1 }, 'slow upstream %s', 'x');
  log.error('failed');
  assert.equal(children, 1, 'one child, made at the first line written');
  const lines = written.map((l) => JSON.parse(l));
  assert.deepEqual(
    lines.map((l) => [l.reqId, l.msg]),
    [
      ['r-1', 'slow upstream x'],
      ['r-1', 'failed'],
    ],
  );
  assert.equal(lines[0].token, '[REDACTED]');
  assert.equal(lines[0].n, 1);
  // A logger of its own level (a route's logLevel) is made at once with that level.
  const own = lazyChild(parent, { reqId: 'r-2' }, { level: 'debug' });
  own.debug('route debug');
  assert.equal(JSON.parse(written.at(-1) as string).msg, 'route debug');
  const nested = log.child({ step: 2 });
  nested.warn('nested');
  assert.deepEqual([JSON.parse(written.at(-1) as string).reqId, JSON.parse(written.at(-1) as string).step], ['r-1', 2]);
});
