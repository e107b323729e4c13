// npm run bench -- tests: 200 test cases over 20 recipes in one run request, on the embedded
// database with its default durability (SQLITE_SYNCHRONOUS=FULL), or with `--database postgres`
// on a new PostgreSQL database, the app in this process.
// Each recipe: a webhook trigger, an HTTP step (mocked in every test case), a lookup of a value
// in the trigger's output, two log lines; each test case checks two outputs. It prints the
// seconds from the POST until the run request is completed, and as a baseline measured in the
// same run, the seconds the engine takes for 200 ordinary jobs of the same recipes (no mocks, no
// checks; the HTTP step disabled by a skip) posted to their webhooks. Target: <= 2 s.
import { parseArgs } from 'node:util';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { prepare } from '../src/prepare.ts';
import { databaseEnv, recordFigure } from './database.ts';
import { tempDir } from './lib.ts';

const ADMIN = 'bench-tests-admin-token-0123456789abcdef01234';
const hook = (...p: string[]) =>
  `#{_dp('${JSON.stringify({ pill_type: 'output', provider: 'workato_webhooks', line: 'hook', path: ['payload', ...p] })}')}`;
const rest = (...p: string[]) =>
  `#{_dp('${JSON.stringify({ pill_type: 'output', provider: 'rest', line: 'customer', path: p })}')}`;

function recipeCode(skipHttp: boolean) {
  return {
    number: 0,
    keyword: 'trigger',
    provider: 'workato_webhooks',
    name: 'new_event',
    as: 'hook',
    input: {},
    block: [
      {
        number: 1,
        keyword: 'action',
        provider: 'rest',
        name: 'make_request_v2',
        as: 'customer',
        input: { request: { method: 'GET', url: 'http://127.0.0.1:9/customers' }, response: {} },
        ...(skipHttp ? { skip: true } : {}),
      },
      {
        number: 2,
        keyword: 'action',
        provider: 'logger',
        name: 'log_message',
        as: 'who',
        input: { message: `customer ${rest('body', 'name')}` },
      },
      {
        number: 3,
        keyword: 'action',
        provider: 'logger',
        name: 'log_message',
        as: 'say',
        input: { message: `order ${hook('id')} of ${hook('total')}` },
      },
    ],
  };
}

export async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      recipes: { type: 'string', default: '20' },
      cases: { type: 'string', default: '10' },
      keep: { type: 'boolean', default: false },
    },
  });
  const recipes = Number(values.recipes);
  const perRecipe = Number(values.cases);
  const dataDir = tempDir('switchboard-bench-', { keep: values.keep });
  const config = loadConfig({
    ...(await databaseEnv()),
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'silent',
    SWITCHBOARD_ADMIN_TOKEN: ADMIN,
    OUTBOUND_ALLOW_LOOPBACK: 'true',
    JOB_BACKLOG_PER_RECIPE: '100000',
    JOB_BACKLOG_PER_WORKSPACE: '1000000',
  });
  const logger = createLogger('silent');
  const { database, secretBox } = await prepare(config, logger);
  const app = await buildApp({ config, database, secretBox, logger });
  await app.ready();
  const call = async (method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown) => {
    const res = await app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${ADMIN}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { payload: JSON.stringify(body) } : {}),
    });
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return JSON.parse(res.body) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  };
  try {
    const project = await call('POST', '/api/folders', { name: 'Bench tests' });
    const hooks: string[] = [];
    for (let r = 0; r < recipes; r += 1) {
      const made = await call('POST', '/api/recipes', {
        recipe: { name: `Recipe ${r}`, folder_id: project.id, code: JSON.stringify(recipeCode(false)) },
      });
      for (let c = 0; c < perRecipe; c += 1) {
        await call('POST', `/api/recipes/${made.id}/test_cases`, {
          name: `Case ${c}`,
          trigger_output: { payload: { id: `A-${c}`, total: c } },
          mocks: [{ step: 'customer', output: { status: 200, body: { name: `Ada ${c}` } } }],
          expectations: [
            { step: 'who', output_path: ['message'], equals: `customer Ada ${c}` },
            { step: 'say', output_path: 'message', equals: `order A-${c} of ${c}` },
          ],
        });
      }
      // The baseline's twin: the same steps with the HTTP step skipped, running, behind a webhook.
      const twin = await call('POST', '/api/recipes', {
        recipe: { name: `Twin ${r}`, folder_id: project.id, code: JSON.stringify(recipeCode(true)) },
      });
      await call('PUT', `/api/recipes/${twin.id}/start`);
      hooks.push(new URL((await call('GET', `/api/recipes/${twin.id}`)).webhook_url).pathname);
    }
    const total = recipes * perRecipe;

    // Baseline: the same number of ordinary jobs through the webhooks and the queue.
    const baseStart = process.hrtime.bigint();
    await Promise.all(
      Array.from({ length: total }, (_, i) =>
        app.inject({
          method: 'POST',
          url: hooks[i % hooks.length]!,
          headers: { 'content-type': 'application/json' },
          payload: JSON.stringify({ id: `A-${i}`, total: i }),
        }),
      ),
    );
    for (;;) {
      const row = await database.db
        .selectFrom('jobs')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('status', 'in', ['queued', 'running'])
        .executeTakeFirstOrThrow();
      if (Number(row.n) === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const baseSeconds = Number(process.hrtime.bigint() - baseStart) / 1e9;

    const start = process.hrtime.bigint();
    const started = await call('POST', '/api/test_cases/run_requests', { project_id: project.project_id });
    let run = started.data;
    while (run.status !== 'completed') {
      await new Promise((resolve) => setTimeout(resolve, 5));
      run = (await call('GET', `/api/test_cases/run_requests/${run.id}`)).data;
    }
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    const passed = run.results.filter((r: { status: string }) => r.status === 'succeeded').length;
    process.stdout.write(
      `test cases: ${total} over ${recipes} recipes in one run request\n` +
        `  run request complete in ${seconds.toFixed(2)} s (${(total / seconds).toFixed(0)} test cases/s); ${passed} passed, ${total - passed} failed; coverage ${run.coverage.value}% (target <= 2 s)\n` +
        `  baseline, same run: ${total} ordinary jobs of the same steps through webhooks in ${baseSeconds.toFixed(2)} s (${(total / baseSeconds).toFixed(0)} jobs/s)\n`,
    );
    recordFigure('run request seconds', seconds);
    recordFigure('test cases/s', total / seconds);
    recordFigure('baseline: ordinary jobs seconds', baseSeconds);
    if (passed !== total) process.exitCode = 1;
  } finally {
    await app.close();
    await database.db.destroy();
  }
}
