// The pipeline a platform team runs: a project built in dev (properties, a lookup table with rows, a
// data table, a custom connector whose action a recipe step runs, a message template, test cases)
// promoted dev → test → prod by `switchboard deploy --run-tests`, the real command line, as a CI
// script chains it (test first, prod only when test passed). Green: each deploy exits 0, names the
// target project, and the test cases pass there with that environment's own values. Then a change
// in dev breaks a test case: the run to test goes red naming the case, and prod stays as it was.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { API_KEY_CONNECTION } from './custom-connector-kit.ts';
import { createTestApp, tempDir, type TestApp } from './helpers.ts';
import { action, log, pill, readJob, webhookTrigger } from './recipes.ts';

const CLI = path.resolve(import.meta.dirname, '../src/cli.ts');
type Env = 'dev' | 'test' | 'prod';

// A connector in the vendor's SDK style: an API key header, a base URL from the connection, and an
// action that posts to the service and returns its answer.
const CONNECTOR_CODE = `{
  title: 'Order desk',
${API_KEY_CONNECTION}
  actions: {
    open_order: {
      title: 'Open order',
      input_fields: lambda { |_| [{ name: 'customer' }] },
      execute: lambda do |_connection, input|
        post('/orders', customer: input['customer'].upcase)
      end
    }
  }
}
`;

const propertyPill = (name: string) =>
  `#{_dp('${JSON.stringify({ pill_type: 'project_property', property_name: name })}')}`;

/** The order desk's stand-in: each environment's key answers as that environment; any other is a 401. */
async function startOrderDesk(): Promise<{ server: Server; url: string; keys: string[] }> {
  const keys: string[] = [];
  const read = async (req: IncomingMessage) => {
    let body = '';
    for await (const chunk of req) body += String(chunk);
    return body;
  };
  const server = createServer((req, res) => {
    void read(req).then((body) => {
      const key = String(req.headers['x-api-key'] ?? '');
      keys.push(key);
      res.setHeader('content-type', 'application/json');
      const env = /^key-(dev|test|prod)$/.exec(key)?.[1];
      if (!env) {
        res.statusCode = 401;
        res.end('{"error":"bad key"}');
        return;
      }
      if (req.method === 'GET' && req.url === '/me') {
        res.end('{"id":1}');
        return;
      }
      if (req.method === 'POST' && req.url === '/orders') {
        const { customer } = JSON.parse(body) as { customer: string };
        res.statusCode = 201;
        res.end(JSON.stringify({ id: 7, customer, desk: env }));
        return;
      }
      res.statusCode = 404;
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, keys };
}

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

describe('switchboard deploy --run-tests: a project promoted dev → test → prod', () => {
  let t: TestApp;
  let baseUrl: string;
  let desk: Awaited<ReturnType<typeof startOrderDesk>>;
  const tokens = {} as Record<Env, string>;
  const dev = {} as { folderId: number; projectId: number; recipeId: number; templateId: number; tableId: number };

  before(async () => {
    t = await createTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    desk = await startOrderDesk();
    tokens.dev = t.adminToken;
    tokens.test = await t.tokenFor('Admin', 'test');
    tokens.prod = await t.tokenFor('Admin', 'prod');
  });
  after(async () => {
    await t.close();
    await new Promise((resolve) => desk.server.close(resolve));
  });

  async function call(env: Env, method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown) {
    const reply = await t.call(method, url, { token: tokens[env], ...(body !== undefined ? { body } : {}) });
    assert.ok(reply.status < 300, `${method} ${url} in ${env}: ${reply.status} ${reply.text}`);
    return reply.body;
  }

  /** The CI script: `deploy --to test --run-tests && deploy --to prod --run-tests`, each through the CLI. */
  function deploy(to: 'test' | 'prod', extra: string[] = []): Promise<Ran> {
    return new Promise((resolve) => {
      const args = [CLI, 'deploy', '--project', String(dev.projectId), '--to', to, '--url', baseUrl, '--run-tests'];
      const child = spawn(process.execPath, [...args, ...extra], {
        env: {
          PATH: process.env.PATH,
          DATA_DIR: tempDir('sb-pipeline-cli-'),
          SWITCHBOARD_TOKEN: tokens.dev,
          SWITCHBOARD_TARGET_TOKEN: tokens[to],
        },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('exit', (code) => resolve({ code, stdout, stderr }));
    });
  }

  async function pipeline(extra: string[] = []): Promise<{ test: Ran; prod?: Ran }> {
    const toTest = await deploy('test', extra);
    if (toTest.code !== 0) return { test: toTest };
    return { test: toTest, prod: await deploy('prod', extra) };
  }

  function targetProject(ran: Ran, to: 'test' | 'prod'): number {
    assert.equal(ran.code, 0, ran.stdout + ran.stderr);
    const printed = new RegExp(`deployed build \\d+ to ${to}: project (\\d+)`).exec(ran.stdout);
    assert.ok(printed, ran.stdout);
    assert.match(ran.stdout, new RegExp(`running the test cases of project ${printed[1]} in ${to}`));
    assert.match(ran.stdout, /pass {2}Open an order \/ Renders the order/);
    assert.match(ran.stdout, /pass {2}Open an order \/ Looks the tier up/);
    assert.match(ran.stdout, /2 passed, 0 failed/);
    return Number(printed[1]);
  }

  const projectOf = {} as Record<'test' | 'prod', number>;
  const folderOf = {} as Record<'test' | 'prod', number>;

  /** What an environment holds of its own, read through its API. */
  async function state(env: Env) {
    const projectId = env === 'dev' ? dev.projectId : projectOf[env];
    const props = await call(env, 'GET', `/api/properties?project_id=${projectId}`);
    const tiers = (await call(env, 'GET', '/api/lookup_tables')).find((x: { name: string }) => x.name === 'Tiers');
    const rows = (await call(env, 'GET', `/api/lookup_tables/${tiers.id}/rows`)).map(
      (r: { data: { code: string; label: string } }) => `${r.data.code}=${r.data.label}`,
    );
    const table = (await call(env, 'GET', '/api/data_tables')).data.find(
      (x: { name: string }) => x.name === 'Orders log',
    );
    const records = (await call(env, 'GET', `/api/data_tables/${table.id}/records`)).data.map(
      (r: { data: { Customer: string } }) => r.data.Customer,
    );
    const template = (await call(env, 'GET', '/api/message_templates')).items.find(
      (x: { name: string }) => x.name === 'Order note',
    );
    const connection = (await call(env, 'GET', '/api/connections')).find(
      (c: { name: string }) => c.name === 'Order desk',
    );
    return { props, rows, records, template: template?.body, connection: connection?.authorization_status };
  }

  /** The note the template step rendered for Ada in the last test case job of the target's recipe. */
  async function renderedIn(env: 'test' | 'prod'): Promise<string> {
    const recipes = await call(env, 'GET', `/api/recipes?folder_id=${folderOf[env]}`);
    const recipe = recipes.items.find((r: { name: string }) => r.name === 'Open an order');
    const jobs = await t.ctx.db
      .selectFrom('jobs')
      .select('id')
      .where('recipe_id', '=', recipe.id)
      .orderBy('id', 'desc')
      .limit(2)
      .execute();
    for (const { id } of jobs) {
      const note = (await readJob(t, Number(id))).output(3) as { document?: string } | undefined;
      if (note?.document?.includes('ADA')) return note.document;
    }
    return 'no job rendered the note';
  }

  test('green, then red after a change that breaks a test case; prod keeps what it had', async () => {
    // dev: the project (its colour and icon through the projects API) and its assets.
    Object.assign(dev, await t.createProject('Orders', 'dev'));
    await call('dev', 'PUT', `/api/projects/${dev.projectId}`, { color: 'teal', icon: 'cart' });
    const connector = await call('dev', 'POST', '/api/custom_connectors', {
      title: 'Order desk',
      code: CONNECTOR_CODE,
    });
    await call('dev', 'POST', `/api/custom_connectors/${connector.data.id}/release`);
    const provider = connector.data.name as string;
    const connections: Partial<Record<Env, number>> = {};
    const connect = async (env: Env, providerName: string, folderId: number) => {
      const made = await call(env, 'POST', '/api/connections', {
        name: 'Order desk',
        provider: providerName,
        folder_id: folderId,
        input: { base_url: desk.url, api_key: `key-${env}` },
      });
      assert.equal(made.authorization_status, 'success', JSON.stringify(made));
      connections[env] = made.id;
    };
    await connect('dev', provider, dev.folderId);
    await call('dev', 'POST', '/api/properties', { project_id: dev.projectId, properties: { tier: 'dev-tier' } });
    const tiers = await call('dev', 'POST', '/api/lookup_tables', {
      name: 'Tiers',
      project_id: dev.projectId,
      schema: [{ label: 'code' }, { label: 'label' }],
    });
    await call('dev', 'POST', `/api/lookup_tables/${tiers.id}/rows`, { data: { code: 'T', label: 'Gold-dev' } });
    const table = await call('dev', 'POST', '/api/data_tables', {
      name: 'Orders log',
      folder_id: dev.folderId,
      schema: [{ name: 'Customer', type: 'string' }],
    });
    dev.tableId = table.data.id;
    await call('dev', 'POST', `/api/data_tables/${dev.tableId}/records`, { data: { Customer: 'dev-record' } });
    const template = await call('dev', 'POST', '/api/message_templates', {
      name: 'Order note',
      content_type: 'text',
      body: 'Order for {{customer}} at {{tier}} ({{label}}) from the {{desk}} desk',
    });
    dev.templateId = template.id;
    const code = webhookTrigger([
      action('lookup_table', 'get_entry', 'tier_row', { lookup_table_id: tiers.id, parameters: { col1: 'T' } }),
      action(provider, 'open_order', 'order', { customer: pill('workato_webhooks', 'hook', 'payload', 'name') }),
      action('workato_template', 'create_document', 'note', {
        template_id: String(dev.templateId),
        template_input: {
          customer: pill(provider, 'order', 'customer'),
          desk: pill(provider, 'order', 'desk'),
          tier: propertyPill('tier'),
          label: pill('lookup_table', 'tier_row', 'entry', 'col2'),
        },
      }),
      log('say', pill('workato_template', 'note', 'document')),
    ]);
    const recipe = await call('dev', 'POST', '/api/recipes', {
      recipe: {
        name: 'Open an order',
        folder_id: dev.folderId,
        code: JSON.stringify(code),
        config: [
          { keyword: 'application', provider: 'workato_webhooks', skip_validation: false, account_id: null },
          { keyword: 'application', provider: 'lookup_table', skip_validation: false, account_id: null },
          { keyword: 'application', provider, skip_validation: false, account_id: connections.dev },
          { keyword: 'application', provider: 'workato_template', skip_validation: false, account_id: null },
        ],
      },
    });
    dev.recipeId = recipe.id;
    await call('dev', 'POST', `/api/recipes/${dev.recipeId}/test_cases`, {
      name: 'Renders the order',
      trigger_output: { payload: { name: 'ada' } },
      expectations: [{ step: 'note', output_path: ['document'], contains: 'Order for ADA at ' }],
      allow_external: true,
    });
    await call('dev', 'POST', `/api/recipes/${dev.recipeId}/test_cases`, {
      name: 'Looks the tier up',
      trigger_output: { payload: { name: 'bo' } },
      expectations: [
        { step: 'tier_row', output_path: ['entry', 'col1'], equals: 'T' },
        { step: 'order', output_path: ['customer'], equals: 'BO' },
      ],
      allow_external: true,
    });

    // test and prod, before the first release: the project with its own settings and the order desk
    // connection with that environment's key (a deployment never brings credentials).
    for (const env of ['test', 'prod'] as const) {
      const target = await t.createProject('Orders', env);
      projectOf[env] = target.projectId;
      folderOf[env] = target.folderId;
      await call(env, 'POST', '/api/properties', { project_id: target.projectId, properties: { tier: `${env}-tier` } });
      const own = await call(env, 'POST', '/api/custom_connectors', { title: 'Order desk', code: CONNECTOR_CODE });
      await call(env, 'POST', `/api/custom_connectors/${own.data.id}/release`);
      await connect(env, own.data.name, target.folderId);
    }

    // The first release carries the rows (--include-data): test and prod start from dev's.
    const first = await pipeline(['--include-data']);
    assert.equal(targetProject(first.test, 'test'), projectOf.test);
    assert.equal(targetProject(first.prod!, 'prod'), projectOf.prod);
    for (const env of ['test', 'prod'] as const) {
      assert.deepEqual(await state(env), {
        props: { tier: `${env}-tier` },
        rows: ['T=Gold-dev'],
        records: ['dev-record'],
        template: 'Order for {{customer}} at {{tier}} ({{label}}) from the {{desk}} desk',
        connection: 'success',
      });
      assert.match(
        await renderedIn(env),
        new RegExp(`Order for ADA at ${env}-tier \\(Gold-dev\\) from the ${env} desk`),
      );
    }

    for (const env of ['test', 'prod'] as const) {
      const shown = (await call(env, 'GET', '/api/projects')).find((p: { id: number }) => p.id === projectOf[env]);
      assert.deepEqual([shown.color, shown.icon], ['teal', 'cart'], `${env} shows the project's look`);
    }

    // Each environment's own rows and records; then dev moves on (its own values, a new note).
    for (const env of ['test', 'prod'] as const) {
      const table = (await call(env, 'GET', '/api/lookup_tables')).find((x: { name: string }) => x.name === 'Tiers');
      const [row] = await call(env, 'GET', `/api/lookup_tables/${table.id}/rows`);
      await call(env, 'PUT', `/api/lookup_tables/${table.id}/rows/${row.id}`, { data: { label: `Gold-${env}` } });
      const log = (await call(env, 'GET', '/api/data_tables')).data.find(
        (x: { name: string }) => x.name === 'Orders log',
      );
      await call(env, 'POST', `/api/data_tables/${log.id}/records`, { data: { Customer: `${env}-record` } });
    }
    await call('dev', 'POST', '/api/properties', {
      project_id: dev.projectId,
      properties: { tier: 'dev-tier-2', greeting: 'hi' },
    });
    await call('dev', 'POST', `/api/lookup_tables/${tiers.id}/rows`, { data: { code: 'S', label: 'Silver-dev' } });
    const note = 'Order for {{customer}} at {{tier}} ({{label}}) from the {{desk}} desk.';
    await call('dev', 'PUT', `/api/message_templates/${dev.templateId}`, { body: note });

    // The next release: the change arrives, each environment keeps its own values.
    const second = await pipeline();
    assert.equal(targetProject(second.test, 'test'), projectOf.test);
    assert.equal(targetProject(second.prod!, 'prod'), projectOf.prod);
    const kept = {} as Record<'test' | 'prod', Awaited<ReturnType<typeof state>>>;
    for (const env of ['test', 'prod'] as const) {
      kept[env] = await state(env);
      assert.deepEqual(kept[env], {
        props: { greeting: 'hi', tier: `${env}-tier` },
        rows: [`T=Gold-${env}`],
        records: ['dev-record', `${env}-record`],
        template: note,
        connection: 'success',
      });
      assert.equal(await renderedIn(env), `Order for ADA at ${env}-tier (Gold-${env}) from the ${env} desk.`);
    }
    assert.ok(
      ['dev', 'test', 'prod'].every((env) => desk.keys.includes(`key-${env}`)) &&
        desk.keys.every((key) => /^key-(dev|test|prod)$/.test(key)),
      'each environment called the desk with its own key',
    );

    // A change in dev that breaks a test case: red in test, naming the case; prod is never deployed.
    const deploymentsBefore = (await call('dev', 'GET', `/api/deployments?project_id=${dev.projectId}`)).items;
    const prodRecipe = async () => {
      const list = await call('prod', 'GET', `/api/recipes?folder_id=${folderOf.prod}`);
      const found = list.items.find((r: { name: string }) => r.name === 'Open an order');
      return { version: found.version_no ?? found.version, code: found.code };
    };
    const prodRecipeBefore = await prodRecipe();
    await call('dev', 'PUT', `/api/message_templates/${dev.templateId}`, {
      body: 'Invoice for {{customer}} at {{tier}}',
    });
    const red = await pipeline();
    assert.equal(red.test.code, 1, red.test.stdout + red.test.stderr);
    assert.match(red.test.stdout, new RegExp(`deployed build \\d+ to test: project ${projectOf.test}`));
    assert.match(
      red.test.stdout,
      /FAIL {2}Open an order \/ Renders the order: expected step note output document to contain "Order for ADA at ", got "Invoice for ADA at test-tier"/,
    );
    assert.match(red.test.stdout, /pass {2}Open an order \/ Looks the tier up/);
    assert.match(red.test.stdout, /1 passed, 1 failed/);
    assert.equal(red.prod, undefined);
    const deploymentsAfter = (await call('dev', 'GET', `/api/deployments?project_id=${dev.projectId}`)).items;
    assert.deepEqual(
      deploymentsAfter.map((d: { environment_type: string; state: string }) => `${d.environment_type} ${d.state}`),
      [
        'test success',
        ...deploymentsBefore.map(
          (d: { environment_type: string; state: string }) => `${d.environment_type} ${d.state}`,
        ),
      ],
    );
    assert.equal((await state('test')).template, 'Invoice for {{customer}} at {{tier}}');
    assert.deepEqual(await state('prod'), kept.prod);
    assert.deepEqual(await prodRecipe(), prodRecipeBefore);
    assert.equal(await renderedIn('prod'), 'Order for ADA at prod-tier (Gold-prod) from the prod desk.');
    for (const ran of [first.test, first.prod!, second.test, second.prod!, red.test]) {
      const printed = ran.stdout + ran.stderr;
      assert.ok(!printed.includes(tokens.dev) && !printed.includes(tokens.test) && !printed.includes(tokens.prod));
    }
  });
});
