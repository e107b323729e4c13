// POST /api/connections/:id/pick_list (contract 04 §1.8): a released custom connector's pick
// lists read through a connection, against a local stand-in of its API that checks the key.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { API_KEY_CONNECTION, startKeyedApi, type KeyedApi } from '../../../test/custom-connector-kit.ts';
import { releasedConnector, shellConnection } from '../../../test/custom-oauth-kit.ts';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';

// Pick lists in the vendor's documented styles: static, with the connection, with keyword arguments.
const CODE = `{
  title: 'Acme Desk',
${API_KEY_CONNECTION}
  pick_lists: {
    statuses: lambda do
      [['Open', 'open'], ['Closed', 'closed']]
    end,
    owners: lambda do |_connection|
      get('/owners')['owners'].map { |o| [o['name'], o['id']] }
    end,
    fields: lambda do |_connection, object_name:|
      get("/objects/#{object_name}/fields")['fields'].map { |f| [f['label'], f['name'], nil, false] }
    end,
    broken: lambda do |_connection|
      error('no owners today')
    end,
    not_a_list: lambda do |_connection|
      'open, closed'
    end
  },
  actions: {}
}
`;

let t: TestApp;
let api: KeyedApi;
let provider: string;
let good: number;
let wrongKey: number;

before(async () => {
  t = await createTestApp({ env: { OUTBOUND_ALLOW_LOOPBACK: 'true' } });
  api = await startKeyedApi('k-desk', (req, url, res) => {
    if (req.method !== 'GET') return false;
    if (url.pathname === '/owners') {
      res.end(
        JSON.stringify({
          owners: [
            { id: 7, name: 'Ana' },
            { id: 9, name: 'Bo' },
          ],
        }),
      );
      return true;
    }
    const object = /^\/objects\/(\w+)\/fields$/.exec(url.pathname)?.[1];
    if (!object) return false;
    res.end(
      JSON.stringify({
        fields: [
          { label: 'Record ID', name: 'Id' },
          { label: `${object} owner`, name: 'OwnerId' },
        ],
      }),
    );
    return true;
  });
  provider = await releasedConnector(t, CODE, 'Acme Desk');
  good = await shellConnection(t, provider, { base_url: api.url, api_key: 'k-desk' }, 'Desk');
  wrongKey = await shellConnection(t, provider, { base_url: api.url, api_key: 'k-wrong' }, 'Desk (old key)');
});
after(async () => {
  await t?.close();
  await api?.close();
});

const pickList = (id: number | string, body: unknown, options: { token?: string } = {}) =>
  t.call('POST', `/api/connections/${id}/pick_list`, { body, ...options });

describe('POST /api/connections/:id/pick_list', () => {
  test('a static pick list, one read through the connection, and one with arguments', async () => {
    const statuses = await pickList(good, { pick_list_name: 'statuses' });
    assert.equal(statuses.status, 200, statuses.text);
    assert.deepEqual(statuses.body, {
      data: [
        ['Open', 'open'],
        ['Closed', 'closed'],
      ],
    });

    const owners = await pickList(good, { pick_list_name: 'owners' });
    assert.equal(owners.status, 200, owners.text);
    assert.deepEqual(owners.body.data, [
      ['Ana', 7],
      ['Bo', 9],
    ]);
    assert.equal(api.seen.at(-1)?.url, '/owners');
    assert.equal(api.seen.at(-1)?.apiKey, 'k-desk', "the connection's key was applied");

    const fields = await pickList(good, {
      pick_list_name: 'fields',
      pick_list_params: { object_name: 'Invoice__c' },
    });
    assert.equal(fields.status, 200, fields.text);
    assert.deepEqual(fields.body.data, [
      ['Record ID', 'Id', null, false],
      ['Invoice__c owner', 'OwnerId', null, false],
    ]);
    assert.equal(api.seen.at(-1)?.url, '/objects/Invoice__c/fields');
  });

  test('a pick list the connector does not declare, and a connection whose connector has none: 400', async () => {
    const unknown = await pickList(good, { pick_list_name: 'sobject_fields' });
    assert.equal(unknown.status, 400, unknown.text);
    assert.match(unknown.body.message, /^Unknown pick list: the .* connector has no pick list named sobject_fields$/);

    const rest = await t.call('POST', '/api/connections', {
      body: { name: 'Plain HTTP', provider: 'rest', input: { base_url: api.url } },
    });
    assert.equal(rest.status, 200, rest.text);
    const none = await pickList(rest.body.id, { pick_list_name: 'statuses' });
    assert.equal(none.status, 400, none.text);
    assert.match(none.body.message, /the rest connector has no pick list named statuses/);
  });

  test('a lambda that raises, an answer that is not a list, a key the service refuses: 422 naming the connector', async () => {
    const broken = await pickList(good, { pick_list_name: 'broken' });
    assert.equal(broken.status, 422, broken.text);
    assert.match(broken.body.message, /^The pick list broken failed: /);
    assert.match(broken.body.message, /Acme Desk/);
    assert.match(broken.body.message, /no owners today/);

    const text = await pickList(good, { pick_list_name: 'not_a_list' });
    assert.equal(text.status, 422, text.text);
    assert.match(text.body.message, /not a list of \[label, value\] entries/);

    const refused = await pickList(wrongKey, { pick_list_name: 'owners' });
    assert.equal(refused.status, 422, refused.text);
    assert.match(refused.body.message, /401/);
    assert.doesNotMatch(refused.text, /k-wrong/, 'the key is never echoed');

    const missingArgument = await pickList(good, { pick_list_name: 'fields' });
    assert.equal(missingArgument.status, 422, missingArgument.text);
    assert.match(missingArgument.body.message, /object_name/);
  });

  test('bad input: 400, 404, 413, 415, 401, and nothing reaches the service', async () => {
    const seen = api.seen.length;
    for (const body of [
      {},
      { pick_list_name: 7 },
      { pick_list_name: '' },
      { pick_list_name: 'statuses; drop' },
      { pick_list_name: 'statuses', pick_list_params: 'object_name=x' },
      { pick_list_name: 'statuses', extra: true },
    ]) {
      const res = await pickList(good, body);
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
      assert.equal(typeof res.body.message, 'string');
    }
    const malformed = await t.call('POST', `/api/connections/${good}/pick_list`, {
      raw: '{"pick_list_name": ',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(malformed.status, 400, malformed.text);
    const wrongType = await t.call('POST', `/api/connections/${good}/pick_list`, {
      raw: 'pick_list_name=statuses',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(wrongType.status, 415, wrongType.text);
    const huge = await pickList(good, { pick_list_name: 'statuses', pick_list_params: { x: 'y'.repeat(2_000_000) } });
    assert.equal(huge.status, 413, huge.text);
    for (const id of [999_999, 'abc', 0]) {
      const res = await pickList(id, { pick_list_name: 'statuses' });
      assert.equal(res.status, 404, `${String(id)}: ${res.text}`);
    }
    const anonymous = await t.app.inject({
      method: 'POST',
      url: `/api/connections/${good}/pick_list`,
      payload: { pick_list_name: 'statuses' },
    });
    assert.equal(anonymous.statusCode, 401, anonymous.body);
    assert.equal(api.seen.length, seen, 'no request reached the service');
  });
});
