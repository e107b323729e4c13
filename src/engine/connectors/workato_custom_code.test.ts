// Ruby code steps (workato_custom_code) through real jobs: the code's last hash is the step's output,
// `input` holds code_input.data with indifferent access, the SDK's methods are at hand (requests go
// to a local stand-in), an error names its line, time and memory are bounded while the server keeps
// answering, and nothing one workspace's step leaves is seen by another's.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';
import { action, dp, fire, log, numbered, readJob, webhookRecipe } from '../../../test/recipes.ts';

let t: TestApp;
let api: Server;
let apiUrl = '';
const seen: Array<{ method: string; url: string; body: string; auth: string | undefined }> = [];

before(async () => {
  t = await createTestApp({ engine: { limits: { codeTimeoutMs: 8000, codeMemoryBytes: 64 * 1024 * 1024 } } });
  // A local stand-in the code calls: GET /rates/EUR answers a JSON object, POST /echo its body.
  api = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({ method: req.method ?? '', url: req.url ?? '', body, auth: req.headers.authorization });
      res.setHeader('content-type', 'application/json');
      if (req.url === '/rates/EUR') res.end(JSON.stringify({ base: 'EUR', rates: { USD: 1.1, GBP: 0.85 } }));
      else if (req.url === '/echo') res.end(body);
      else {
        res.statusCode = 404;
        res.end(JSON.stringify({ message: 'no such rate' }));
      }
    });
  });
  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
  apiUrl = `http://127.0.0.1:${(api.address() as { port: number }).port}`;
  // The first Ruby step of a process may wait for the interpreter to load: one step here, with a
  // longer wait than fire's, so the tests time only their own.
  const { path } = await webhookRecipe(t, [rb('warm', '{}')]);
  await t.app.inject({ method: 'POST', url: path, payload: {} });
  await t.engine.idle(120_000);
});
after(async () => {
  await t.close();
  api.closeAllConnections();
  await new Promise<void>((resolve) => api.close(() => resolve()));
});

const rb = (as: string, code: string, data: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) =>
  action('workato_custom_code', 'invoke_custom_ruby_code', as, {
    name: as,
    code,
    code_input: { data, ...(extra.schema ? { schema: extra.schema } : {}) },
    ...(extra.output ? { code_output_schema_json: extra.output } : {}),
  });

async function runRb(code: string, data: Record<string, unknown> = {}) {
  const { path } = await webhookRecipe(t, [rb('r', code, data)]);
  return fire(t, path, {});
}

describe('workato_custom_code invoke_custom_ruby_code', () => {
  test('input with indifferent access, typed by the schema; the last hash is the output, shaped by the output schema; later steps read it', async () => {
    const code = [
      'items = input[:items]',
      "total = items.sum { |i| i['price'] * i[:qty] }",
      '{',
      '  total: total,',
      '  greeting: "hi #{input[\'who\']}",',
      '  count_class: input[:count].class.name,',
      "  marker: '#{not a pill}',",
      '  extra: 1',
      '}',
    ].join('\n');
    const schema = JSON.stringify([
      { name: 'who', type: 'string' },
      { name: 'count', type: 'integer' },
      {
        name: 'items',
        type: 'array',
        of: 'object',
        properties: [
          { name: 'price', type: 'number' },
          { name: 'qty', type: 'integer' },
        ],
      },
    ]);
    const output = JSON.stringify([
      { name: 'total', type: 'number' },
      { name: 'greeting', type: 'string' },
      { name: 'count_class', type: 'string' },
      { name: 'marker', type: 'string' },
      { name: 'missing', type: 'string' },
    ]);
    const { path } = await webhookRecipe(t, [
      rb(
        'calc',
        code,
        {
          items: `=${dp('workato_webhooks', 'hook', 'payload', 'items')}`,
          who: `#{${dp('workato_webhooks', 'hook', 'payload', 'who')}}`,
          count: '3',
        },
        { schema, output },
      ),
      log('say', `total #{${dp('workato_custom_code', 'calc', 'output', 'total')}}`),
    ]);
    const job = await fire(t, path, {
      who: 'Ada',
      items: [
        { price: 2.5, qty: '2' },
        { price: 10, qty: 1 },
      ],
    });
    assert.equal(job.status, 'succeeded', JSON.stringify(job.lines));
    assert.deepEqual(job.output(1), {
      output: { total: 15, greeting: 'hi Ada', count_class: 'Integer', marker: '#{not a pill}', missing: null },
    });
    assert.deepEqual(job.output(2), { message: 'total 15' });
  });

  test("the SDK's methods: core extensions, workato helpers, parse_json, and requests sent to the service", async () => {
    const code = [
      'rates = get("#{input[\'base\']}/rates/EUR")',
      "echo = post(\"#{input['base']}/echo\", order: input['order']).headers('Authorization' => 'Bearer t0k')",
      '{',
      "  usd: rates['rates']['USD'],",
      "  echoed: echo['order'],",
      "  title: 'monthly report'.titleize,",
      "  blank: ''.blank?,",
      "  present: input['order'].present?,",
      "  doc: parse_json('{\"n\": 2}')['n'],",
      "  sha: 'abc'.encode_sha256.encode_hex[0, 12],",
      "  when: '2024-02-28'.to_date.next_day(2).to_s,",
      '  csv: workato.csv.parse("a,b\\n1,2", headers: true).map { |row| row[\'b\'] }',
      '}',
    ].join('\n');
    const job = await runRb(code, { base: apiUrl, order: { id: 7, lines: 2 } });
    assert.equal(job.status, 'succeeded', JSON.stringify(job.lines));
    assert.deepEqual(job.output(1), {
      output: {
        usd: 1.1,
        echoed: { id: 7, lines: 2 },
        title: 'Monthly Report',
        blank: true,
        present: true,
        doc: 2,
        sha: 'ba7816bf8f01',
        when: '2024-03-01',
        csv: ['2'],
      },
    });
    const echo = seen.find((r) => r.url === '/echo');
    assert.ok(echo, 'the POST reached the service');
    assert.equal(echo.method, 'POST');
    assert.deepEqual(JSON.parse(echo.body), { order: { id: 7, lines: 2 } });
    assert.equal(echo.auth, 'Bearer t0k');
  });

  test("the code's requests go through the outbound policy: a link-local (cloud metadata) address is refused", async () => {
    const job = await runRb('r = get("http://169.254.169.254/latest/meta-data/")\n{ reached: r["ami-id"] }');
    assert.equal(job.status, 'failed');
    assert.match(job.error ?? '', /169\.254\.169\.254|link-local/);
  });

  test('a request with a client certificate goes through the outbound policy too: a link-local address is refused', async () => {
    const job = await runRb(
      [
        'cert = "-----BEGIN CERTIFICATE-----\\nMIIB\\n-----END CERTIFICATE-----"',
        'key = "-----BEGIN PRIVATE KEY-----\\nMIIE\\n-----END PRIVATE KEY-----"',
        'r = get("https://169.254.169.254/latest/meta-data/").tls_client_cert(certificate: cert, key: key)',
        '{ reached: r["ami-id"] }',
      ].join('\n'),
    );
    assert.equal(job.status, 'failed');
    assert.match(job.error ?? '', /169\.254\.169\.254.*link-local/);
  });

  test("account_property and lookup read the recipe's environment", async () => {
    const property = await t.call('POST', '/api/properties', { body: { properties: { region: 'eu-west' } } });
    assert.equal(property.status, 200, property.text);
    const table = await t.call('POST', '/api/lookup_tables', {
      body: { name: 'Countries', schema: [{ label: 'code' }, { label: 'name' }] },
    });
    assert.equal(table.status, 200, table.text);
    const row = await t.call('POST', `/api/lookup_tables/${table.body.id}/rows`, {
      body: { data: { code: 'FR', name: 'France' } },
    });
    assert.equal(row.status, 200, row.text);
    const job = await runRb(
      "{ region: account_property('region'), none: account_property('nope'), country: lookup('Countries', 'code' => input['code'])['name'] }",
      { code: 'FR' },
    );
    assert.equal(job.status, 'succeeded', JSON.stringify(job.lines));
    assert.deepEqual(job.output(1), { output: { region: 'eu-west', none: null, country: 'France' } });
  });

  test('an error names its line; memory, recursion, a loop, a value that is not a hash: the step fails with the reason; the server answers meanwhile and the next step runs', async () => {
    const cases: Array<[string, RegExp]> = [
      ["x = 1\ny = 2\nraise ArgumentError, 'bad order'", /^Code error: line 3: .*bad order/],
      [
        "total = 0\ninput['items'].each { |i| total += i }\n{ total: total }",
        /^Code error: line 2: .*NoMethodError.*each/,
      ],
      ["error('the order has no lines')", /^Code error: line 1: .*the order has no lines/],
      ['{ a: 1', /^Code error: .*(syntax|unexpected|expected)/i],
      ["big = 'x' * 300_000_000\n{ size: big.size }", /^Code error: .*(memory|NoMemoryError)/i],
      ['def f(n) = f(n + 1)\nf(0)', /^Code error: .*(stack|SystemStackError|too deep)/i],
      ["['a']", /^Code error: the code must end with a hash \(its last value was an Array\)/],
      ['42', /^Code error: the code must end with a hash \(its last value was an Integer\)/],
    ];
    for (const [code, reason] of cases) {
      const job = await runRb(code, { items: 5 });
      assert.equal(job.status, 'failed', code);
      assert.match(job.error ?? '', reason, `${code}: ${job.error}`);
    }
    const slow = await webhookRecipe(t, [rb('loop', 'loop { }')]);
    const pending = fire(t, slow.path, {});
    const health = await t.app.inject({ method: 'GET', url: '/health' });
    assert.equal(health.statusCode, 200);
    const looped = await pending;
    assert.equal(looped.status, 'failed');
    assert.match(looped.error ?? '', /^Timeout: /);
    const next = await runRb("{ n: input['n'] * 2 }", { n: 21 });
    assert.deepEqual(next.output(1), { output: { n: 42 } });
  });

  test("a step never sees what another workspace's step left: globals, constants, patched core classes", async () => {
    const leave = [
      "$secret = 'acme-' + input['tag']",
      "SECRET = 'constant'",
      "String.class_eval { def shout = upcase + '!' }",
      "{ left: $secret, shout: 'hi'.shout }",
    ].join('\n');
    const look = [
      "{ global: $secret, constant: defined?(SECRET) ? SECRET : nil, patched: ''.respond_to?(:shout) }",
    ].join('\n');
    const first = await runRb(leave, { tag: 'x1' });
    assert.equal(first.status, 'succeeded', first.error ?? '');
    assert.deepEqual(first.output(1), { output: { left: 'acme-x1', shout: 'HI!' } });
    // Another recipe of the same workspace starts clean too (isolation is per workspace and recipe).
    const sameWorkspace = await runRb(look);
    assert.deepEqual(sameWorkspace.output(1), { output: { global: null, constant: null, patched: false } });
    // Another workspace's recipe.
    const other = await t.newWorkspace('Other Co');
    const created = await t.call('POST', '/api/recipes', {
      token: other.adminToken,
      body: {
        recipe: {
          name: 'Other look',
          code: JSON.stringify(
            numbered({
              keyword: 'trigger',
              provider: 'workato_webhooks',
              name: 'new_event',
              as: 'hook',
              input: { webhook_suffix: 'event' },
              block: [rb('r', look)],
            }),
          ),
        },
      },
    });
    assert.equal(created.status, 200, created.text);
    const started = await t.call('PUT', `/api/recipes/${created.body.id}/start`, { token: other.adminToken });
    assert.equal(started.status, 200, started.text);
    const recipe = await t.call('GET', `/api/recipes/${created.body.id}`, { token: other.adminToken });
    const res = await t.app.inject({
      method: 'POST',
      url: new URL(recipe.body.webhook_url as string).pathname,
      payload: {},
    });
    assert.equal(res.statusCode, 200, res.body);
    await t.engine.idle();
    const job = await t.ctx.db
      .selectFrom('jobs')
      .select('id')
      .where('recipe_id', '=', created.body.id as number)
      .executeTakeFirstOrThrow();
    const ran = await readJob(t, job.id);
    assert.equal(ran.status, 'succeeded', JSON.stringify(ran.lines));
    assert.deepEqual(ran.output(1), { output: { global: null, constant: null, patched: false } });
  });

  test('bad step input: code that is not text or too long, a schema that is not JSON, data that is not an object', async () => {
    const notText = await webhookRecipe(t, [
      action('workato_custom_code', 'invoke_custom_ruby_code', 'r', { code: 123, code_input: { data: {} } }),
    ]);
    const job = await fire(t, notText.path, {});
    assert.equal(job.status, 'failed');
    assert.match(job.error ?? '', /Bad request: code must be the Ruby source/);
    const long = await runRb(`# ${'x'.repeat(1024 * 1024)}\n{}`);
    assert.equal(long.status, 'failed');
    assert.match(long.error ?? '', /Bad request: code is longer than 1048576 characters/);
    const badSchema = await webhookRecipe(t, [rb('r', '{}', {}, { schema: '[{not json' })]);
    const second = await fire(t, badSchema.path, {});
    assert.equal(second.status, 'failed');
    assert.match(second.error ?? '', /Bad request: code_input.schema must be a JSON list of fields/);
    const listData = await webhookRecipe(t, [
      action('workato_custom_code', 'invoke_custom_ruby_code', 'r', { code: '{}', code_input: { data: '=[1, 2]' } }),
    ]);
    const third = await fire(t, listData.path, {});
    assert.equal(third.status, 'failed');
    assert.match(third.error ?? '', /Bad request: code_input.data must be an object of fields/);
  });
});
