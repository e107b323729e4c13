import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';
import { manualClock } from '../../time.ts';
import { connectorName } from './custom_connectors.service.ts';

const CODE_V1 = "{\n  title: 'Acme CRM',\n  connection: { fields: [] },\n  actions: {}\n}";
const CODE_V2 = "# Acme CRM connector\n{\n  title: 'Acme CRM',\n  actions: { search: {} }\n}";

const clock = manualClock('2025-01-08T10:11:12.130Z');
let t: TestApp;

before(async () => {
  t = await createTestApp({ clock });
});
after(() => t.close());

async function create(body: Record<string, unknown>, token?: string) {
  return t.call('POST', '/api/custom_connectors', { body, ...(token ? { token } : {}) });
}

async function connectorCount(): Promise<number> {
  return (await t.call('GET', '/api/custom_connectors')).body.result.length;
}

const CONNECTOR_KEYS = [
  'description',
  'id',
  'latest_released_version',
  'latest_released_version_note',
  'name',
  'oem_shared_at',
  'oem_shared_version',
  'released_versions',
  'static_webhook_url',
  'title',
];

describe('POST /api/custom_connectors', () => {
  test('creates a connector with an unreleased first version: {"data": {...}}', async () => {
    const res = await create({ title: 'Acme CRM', code: CODE_V1, description: 'CRM of Acme', note: 'first' });
    assert.equal(res.status, 200, res.text);
    const c = res.body.data;
    assert.deepEqual(Object.keys(c).sort(), CONNECTOR_KEYS);
    assert.equal(c.title, 'Acme CRM');
    assert.equal(c.name, `acme_crm_connector_${c.id}_${Math.floor(clock.now().getTime() / 1000)}`);
    assert.equal(c.description, 'CRM of Acme');
    assert.equal(c.latest_released_version, null);
    assert.equal(c.latest_released_version_note, null);
    assert.deepEqual(c.released_versions, []);
    assert.equal(c.oem_shared_version, null);
    assert.equal(c.oem_shared_at, null);
    assert.equal(c.static_webhook_url, null);
    const code = await t.call('GET', `/api/custom_connectors/${c.id}/code`);
    assert.deepEqual(code.body, { data: { code: CODE_V1 } });
  });

  test('bad input: each a 400 naming the field, and nothing is created', async () => {
    const before = await connectorCount();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ code: CODE_V1 }, 'title'],
      [{ title: '  ', code: CODE_V1 }, 'title'],
      [{ title: 't'.repeat(256), code: CODE_V1 }, 'title'],
      [{ title: 'x' }, 'code'],
      [{ title: 'x', code: '' }, 'code'],
      [{ title: 'x', code: '# only a comment\n' }, 'code'],
      [{ title: 'x', code: 'puts "hello"' }, 'code'],
      [{ title: 'x', code: { title: 'x' } }, 'code'],
      [{ title: 42, code: CODE_V1 }, 'title'],
      [{ title: 'x', code: CODE_V1, note: 'n'.repeat(10_001) }, 'note'],
      [{ title: 'x', code: CODE_V1, description: 5 }, 'description'],
    ];
    for (const [body, field] of cases) {
      const res = await create(body);
      assert.equal(res.status, 400, `${JSON.stringify(body).slice(0, 80)} -> ${res.status} ${res.text.slice(0, 200)}`);
      assert.ok(res.body.errors?.[field], `errors names ${field}: ${res.text.slice(0, 300)}`);
    }
    assert.equal(
      (
        await t.call('POST', '/api/custom_connectors', {
          raw: '{"title":',
          headers: { 'content-type': 'application/json' },
        })
      ).status,
      400,
    );
    assert.equal(
      (
        await t.call('POST', '/api/custom_connectors', {
          raw: 'title=x',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        })
      ).status,
      415,
    );
    const huge = await t.call('POST', '/api/custom_connectors', {
      raw: JSON.stringify({ title: 'big', code: `{${' '.repeat(2 * 1024 * 1024)}}` }),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(huge.status, 413, 'the body limit applies before the 10 MB code limit');
    assert.equal(await connectorCount(), before);
  });

  test('Ruby that does not parse: a 400 naming the line, on create and on update (no version made)', async () => {
    const broken = "{\n  title: 'Broken',\n  test: lambda do |c|\n    get('/a'\n  end\n}\n";
    const refused = await create({ title: 'Broken', code: broken });
    assert.equal(refused.status, 400, refused.text);
    assert.match(refused.body.errors.code[0], /^does not parse: line \d: .*syntax error/, refused.text);
    const made = await create({ title: 'Parses', code: CODE_V1 });
    assert.equal(made.status, 200, made.text);
    const update = await t.call('PUT', `/api/custom_connectors/${made.body.data.id}`, { body: { code: broken } });
    assert.equal(update.status, 400, update.text);
    assert.match(update.body.errors.code[0], /^does not parse: line \d/);
    assert.equal((await t.call('GET', `/api/custom_connectors/${made.body.data.id}/code`)).body.data.code, CODE_V1);
  });

  test('401 and 403 (nothing created)', async () => {
    const before = await connectorCount();
    assert.equal(
      (await t.call('POST', '/api/custom_connectors', { token: null, body: { title: 'x', code: CODE_V1 } })).status,
      401,
    );
    const res = await create({ title: 'x', code: CODE_V1 }, await t.tokenWith('SDK reader', ['connector_sdks:read']));
    assert.equal(res.status, 403);
    assert.match(res.body.message, /connector_sdks:write/);
    assert.equal(await connectorCount(), before);
  });
});

describe('PUT /api/custom_connectors/:id', () => {
  test('new code makes a new unreleased version; description alone changes no version', async () => {
    const created = await create({ title: 'Versioned', code: CODE_V1 });
    const id = created.body.data.id;
    const res = await t.call('PUT', `/api/custom_connectors/${id}`, {
      body: { code: CODE_V2, note: 'Adds search action' },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.latest_released_version, null);
    assert.deepEqual((await t.call('GET', `/api/custom_connectors/${id}/code`)).body.data.code, CODE_V2);
    const described = await t.call('PUT', `/api/custom_connectors/${id}`, { body: { description: 'Now described' } });
    assert.equal(described.body.data.description, 'Now described');
    assert.deepEqual((await t.call('GET', `/api/custom_connectors/${id}/code`)).body.data.code, CODE_V2);
  });

  test('errors change nothing: 404, 400 (empty, note without code, bad code, types), 401, 403', async () => {
    const created = await create({ title: 'Stable connector', code: CODE_V1 });
    const id = created.body.data.id;
    assert.equal((await t.call('PUT', '/api/custom_connectors/999999', { body: { code: CODE_V2 } })).status, 404);
    assert.equal(
      (
        await t.call('PUT', `/api/custom_connectors/${id}`, {
          token: await t.tokenFor('Admin', 'test'),
          body: { code: CODE_V2 },
        })
      ).status,
      404,
    );
    assert.equal((await t.call('PUT', '/api/custom_connectors/abc', { body: { code: CODE_V2 } })).status, 400);
    for (const body of [
      undefined,
      {},
      { title: 'only title' },
      { note: 'no code' },
      { code: 'not a hash' },
      { code: 7 },
      { description: [] },
    ]) {
      const res = await t.call('PUT', `/api/custom_connectors/${id}`, body === undefined ? {} : { body });
      assert.equal(res.status, 400, `${JSON.stringify(body)} -> ${res.status} ${res.text}`);
    }
    assert.equal(
      (await t.call('PUT', `/api/custom_connectors/${id}`, { token: null, body: { code: CODE_V2 } })).status,
      401,
    );
    assert.equal(
      (
        await t.call('PUT', `/api/custom_connectors/${id}`, {
          token: await t.tokenWith('SDK reader 2', ['connector_sdks:read']),
          body: { code: CODE_V2 },
        })
      ).status,
      403,
    );
    assert.equal((await t.call('GET', `/api/custom_connectors/${id}/code`)).body.data.code, CODE_V1);
    assert.equal(
      (await t.call('POST', `/api/custom_connectors/${id}/release`)).body.data.latest_released_version,
      1,
      'no version was added',
    );
  });
});

describe('POST /api/custom_connectors/:id/release', () => {
  test('releases the latest version; released_versions newest first; a second release changes nothing', async () => {
    const created = await create({ title: 'Released', code: CODE_V1 });
    const id = created.body.data.id;
    clock.advance(60_000);
    const r1 = await t.call('POST', `/api/custom_connectors/${id}/release`);
    assert.equal(r1.status, 200);
    assert.equal(r1.body.data.latest_released_version, 1);
    assert.deepEqual(r1.body.data.released_versions, [
      {
        version: 1,
        version_note: null,
        created_at: '2025-01-08T10:11:12.130+00:00',
        released_at: '2025-01-08T10:12:12.130+00:00',
      },
    ]);
    await t.call('PUT', `/api/custom_connectors/${id}`, { body: { code: CODE_V2, note: 'v2' } });
    assert.equal(
      (await t.call('PUT', `/api/custom_connectors/${id}`, { body: { code: CODE_V2, note: 'v3' } })).status,
      200,
    );
    clock.advance(60_000);
    const r3 = await t.call('POST', `/api/custom_connectors/${id}/release`);
    assert.equal(r3.body.data.latest_released_version, 3);
    assert.equal(r3.body.data.latest_released_version_note, 'v3');
    assert.deepEqual(
      r3.body.data.released_versions.map((v: { version: number }) => v.version),
      [3, 1],
      'version 2 was never released',
    );
    const again = await t.call('POST', `/api/custom_connectors/${id}/release`, {
      raw: '',
      headers: { 'content-type': 'application/json' },
    });
    assert.deepEqual(again.body, r3.body);
  });

  test('404, 400, 401, 403; nothing released', async () => {
    const created = await create({ title: 'Unreleased', code: CODE_V1 });
    const id = created.body.data.id;
    assert.equal((await t.call('POST', '/api/custom_connectors/999999/release')).status, 404);
    assert.equal(
      (await t.call('POST', `/api/custom_connectors/${id}/release`, { token: await t.tokenFor('Admin', 'prod') }))
        .status,
      404,
    );
    assert.equal((await t.call('POST', '/api/custom_connectors/x/release')).status, 400);
    assert.equal((await t.call('POST', `/api/custom_connectors/${id}/release`, { token: null })).status, 401);
    assert.equal(
      (
        await t.call('POST', `/api/custom_connectors/${id}/release`, {
          token: await t.tokenWith('SDK reader 3', ['connector_sdks:read']),
        })
      ).status,
      403,
    );
    const list = await t.call('GET', '/api/custom_connectors?title=Unreleased');
    assert.equal(list.body.result[0].latest_released_version, null);
  });
});

describe('GET /api/custom_connectors/:id/code', () => {
  test('404 unknown / other workspace, 400 non-numeric, 401, 403', async () => {
    const created = await create({ title: 'Code owner', code: CODE_V1 });
    const id = created.body.data.id;
    assert.equal((await t.call('GET', '/api/custom_connectors/999999/code')).status, 404);
    assert.equal(
      (
        await t.call('GET', `/api/custom_connectors/${id}/code`, {
          token: (await t.newWorkspace('Code Other Co')).adminToken,
        })
      ).status,
      404,
    );
    assert.equal((await t.call('GET', '/api/custom_connectors/abc/code')).status, 400);
    assert.equal((await t.call('GET', `/api/custom_connectors/${id}/code`, { token: null })).status, 401);
    assert.equal(
      (
        await t.call('GET', `/api/custom_connectors/${id}/code`, {
          token: await t.tokenWith('No SDK', ['connections:read']),
        })
      ).status,
      403,
    );
  });
});

describe('GET /api/custom_connectors', () => {
  test('{"result": [...]}: every connector of the environment, title filter case-insensitive, /search the same', async () => {
    await create({ title: 'Zebra Billing', code: CODE_V1 });
    await create({ title: 'zebra crm', code: CODE_V1 });
    const all = await t.call('GET', '/api/custom_connectors');
    assert.equal(all.status, 200);
    assert.ok(all.body.result.length >= 2);
    for (const c of all.body.result) assert.deepEqual(Object.keys(c).sort(), CONNECTOR_KEYS);
    const zebra = await t.call('GET', '/api/custom_connectors?title=ZEBRA');
    assert.deepEqual(
      zebra.body.result.map((c: { title: string }) => c.title),
      ['Zebra Billing', 'zebra crm'],
    );
    const search = await t.call('GET', '/api/custom_connectors/search?title=billing');
    assert.deepEqual(
      search.body.result.map((c: { title: string }) => c.title),
      ['Zebra Billing'],
    );
    assert.deepEqual((await t.call('GET', '/api/custom_connectors?title=no-such-title')).body, { result: [] });
  });

  test('oem_shared: nothing is shared from an Embedded parent on a self-hosted server', async () => {
    await create({ title: 'Own connector', code: CODE_V1 });
    assert.deepEqual((await t.call('GET', '/api/custom_connectors?oem_shared=true')).body, { result: [] });
    assert.equal(
      (await t.call('GET', '/api/custom_connectors?oem_shared=false')).body.result.length,
      await connectorCount(),
    );
    assert.equal((await t.call('GET', '/api/custom_connectors?oem_shared=perhaps')).status, 400);
  });

  test('other environments and workspaces see none; 401; 403', async () => {
    await create({ title: 'Dev connector', code: CODE_V1 });
    assert.deepEqual(
      (await t.call('GET', '/api/custom_connectors', { token: await t.tokenFor('Admin', 'test') })).body,
      { result: [] },
    );
    assert.deepEqual(
      (
        await t.call('GET', '/api/custom_connectors/search', {
          token: (await t.newWorkspace('SDK Other Co')).adminToken,
        })
      ).body,
      { result: [] },
    );
    assert.equal((await t.call('GET', '/api/custom_connectors', { token: null })).status, 401);
    assert.equal(
      (
        await t.call('GET', '/api/custom_connectors', {
          token: await t.tokenWith('No SDK 2', ['workspace_details:read']),
        })
      ).status,
      403,
    );
  });
});

describe('static_webhook_url', () => {
  const WITH_KEYS = `{
  title: 'Hooks',
  webhook_keys: lambda { |params, headers, payload| payload['account'] },
  triggers: {}
}`;
  // Names webhook_keys only in a comment: the description (not the text) decides.
  const MENTIONS_KEYS = "# webhook_keys: none yet\n{\n  title: 'Hooks',\n  triggers: {}\n}";

  test('a source declaring webhook_keys gets PUBLIC_BASE_URL/webhooks/connectors/<id>/event on create, list, update', async () => {
    const created = await create({ title: 'Hooks', code: WITH_KEYS });
    assert.equal(created.status, 200, created.text);
    const id = created.body.data.id as number;
    const url = `${t.ctx.config.publicBaseUrl}/webhooks/connectors/${id}/event`;
    assert.equal(created.body.data.static_webhook_url, url);
    const listed = (await t.call('GET', '/api/custom_connectors?title=hooks')).body.result;
    assert.deepEqual(
      listed.map((c: { id: number; static_webhook_url: string | null }) => [c.id, c.static_webhook_url]),
      [[id, url]],
    );
    // Description alone keeps it; a new source without webhook_keys clears it; adding them back sets it.
    const described = await t.call('PUT', `/api/custom_connectors/${id}`, { body: { description: 'd' } });
    assert.equal(described.body.data.static_webhook_url, url);
    const without = await t.call('PUT', `/api/custom_connectors/${id}`, { body: { code: MENTIONS_KEYS } });
    assert.equal(without.status, 200, without.text);
    assert.equal(without.body.data.static_webhook_url, null);
    const released = await t.call('POST', `/api/custom_connectors/${id}/release`);
    assert.equal(released.body.data.static_webhook_url, null);
    const back = await t.call('PUT', `/api/custom_connectors/${id}`, { body: { code: WITH_KEYS } });
    assert.equal(back.body.data.static_webhook_url, url);
    // A refused update changes nothing.
    const bad = await t.call('PUT', `/api/custom_connectors/${id}`, { body: { code: '{ title: ' } });
    assert.equal(bad.status, 400);
    const after = (await t.call('GET', '/api/custom_connectors?title=hooks')).body.result[0];
    assert.equal(after.static_webhook_url, url);
  });

  test('a source without webhook_keys has none; unknown ids are 404', async () => {
    const created = await create({ title: 'No hooks', code: MENTIONS_KEYS });
    assert.equal(created.body.data.static_webhook_url, null);
    const missing = await t.call('PUT', '/api/custom_connectors/999999', { body: { code: WITH_KEYS } });
    assert.equal(missing.status, 404, missing.text);
  });
});

describe('connectorName', () => {
  test('snake case of the title, the id and the Unix time', () => {
    const at = new Date('2021-07-21T12:46:45Z');
    assert.equal(connectorName('New connector 1', 4771, at), 'new_connector_1_connector_4771_1626871605');
    assert.equal(connectorName('Café — CRM!', 3, at), 'cafe_crm_connector_3_1626871605');
    assert.equal(connectorName('日本', 5, at), 'connector_connector_5_1626871605');
  });
});
