// SaaS connectors' named actions through recipe jobs, each beside the HTTP connector (rest
// make_request_v2) sending the same request to the same stand-in in the same run: a Salesforce
// SOQL search (search_sobjects_soql) and a Slack bot message (post_bot_message). Jobs per second,
// each job one webhook event and one step, 200 events posted at a time; the app in this process on
// its embedded database (or `--database postgres`), the stand-ins of test/stand-ins on loopback.
// Part of `npm run bench -- connectors` (`--saas-only` skips the Ruby runtime's part) [--jobs N].
import { parseArgs } from 'node:util';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { prepare } from '../src/prepare.ts';
import { findConnection, saveConnectionAuth } from '../src/api/connections/connections.store.ts';
import { sealAuthState } from '../src/connectors/connections.ts';
import { findFirstWorkspace, findEnvironmentByType } from '../src/workspaces/workspaces.store.ts';
import { startStandIn } from '../test/stand-ins/stand-in.ts';
import { INSTANCE, records, spec as salesforceSpec } from '../test/stand-ins/salesforce.ts';
import { slackBot } from '../test/stand-ins/slack.ts';
import { databaseEnv, recordFigure } from './database.ts';
import { tempDir } from './lib.ts';

const ADMIN = 'bench-saas-connectors-admin-token-0123456789ab';
const TOKEN = 'at-bench-saas-connectors';
const hook = (...p: string[]) =>
  `#{_dp('${JSON.stringify({ pill_type: 'output', provider: 'workato_webhooks', line: 'hook', path: ['payload', ...p] })}')}`;

export async function saasConnectorsBench(argv: string[]): Promise<void> {
  const { values } = parseArgs({ args: argv, options: { jobs: { type: 'string', default: '2000' } }, strict: false });
  const jobs = Math.max(2, Math.round(Number(values.jobs) / 2) * 2);
  const salesforce = await startStandIn(salesforceSpec);
  const slack = await startStandIn(slackBot.spec);
  // The connections hold a token the stand-ins issued, as after the OAuth 2.0 redirect.
  salesforce.accessTokens.add(TOKEN);
  slack.accessTokens.add(TOKEN);
  records(salesforce, 'Contact').push({ Id: '003000000000001AAA', LastName: 'Silva', Email: 'ana@example.com' });
  const config = loadConfig({
    ...(await databaseEnv()),
    DATA_DIR: tempDir('switchboard-bench-saas-'),
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'silent',
    SWITCHBOARD_ADMIN_TOKEN: ADMIN,
    JOB_BACKLOG_PER_RECIPE: '1000000',
    JOB_BACKLOG_PER_WORKSPACE: '1000000',
    OUTBOUND_ALLOW_LOOPBACK: 'true',
    CONNECTOR_ORIGINS: JSON.stringify({ ...salesforce.origins(), ...slack.origins() }),
  });
  const logger = createLogger('silent');
  const { database, secretBox } = await prepare(config, logger);
  const app = await buildApp({ config, database, secretBox, logger });
  await app.ready();
  const db = database.db;
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
    const workspace = await findFirstWorkspace(db);
    const environment = workspace && (await findEnvironmentByType(db, workspace.id, 'dev'));
    if (!workspace || !environment) throw new Error('no workspace');
    const scope = { workspaceId: workspace.id, environmentId: environment.id };
    const connect = async (provider: string, extra: Record<string, string>) => {
      const made = await call('POST', '/api/connections', { name: provider, provider, input: {} });
      const row = await findConnection(db, scope, made.id as number);
      if (!row) throw new Error(`connection ${provider} not found`);
      await saveConnectionAuth(db, scope, row.id, {
        auth_sealed: sealAuthState(secretBox, { accessToken: TOKEN, tokenType: 'Bearer', extra }),
        authorization_status: 'success',
      });
      return row.id;
    };
    const salesforceId = await connect('salesforce', { instance_url: INSTANCE });
    const slackId = await connect('slack_bot', {});
    const configOf = (provider: string | null, id: number | null) =>
      JSON.stringify([
        { keyword: 'application', provider: 'workato_webhooks', account_id: null },
        ...(provider ? [{ keyword: 'application', provider, account_id: id }] : []),
      ]);
    const started = async (step: Record<string, unknown>, recipeConfig: string): Promise<string> => {
      const code = {
        number: 0,
        keyword: 'trigger',
        provider: 'workato_webhooks',
        name: 'new_event',
        as: 'hook',
        input: {},
        block: [{ number: 1, keyword: 'action', as: 'step', ...step }],
      };
      const made = await call('POST', '/api/recipes', {
        recipe: { name: `Bench ${Math.random()}`, code: JSON.stringify(code), config: recipeConfig, concurrency: 5 },
      });
      await call('PUT', `/api/recipes/${made.id}/start`);
      return new URL((await call('GET', `/api/recipes/${made.id}`)).webhook_url).pathname;
    };
    /** Posts `count` events and waits for every job to end; seconds taken. Any failed job stops the run. */
    const drive = async (path: string, count: number): Promise<number> => {
      const start = process.hrtime.bigint();
      for (let i = 0; i < count; i += 200)
        await Promise.all(
          Array.from({ length: Math.min(200, count - i) }, (_, k) =>
            app.inject({
              method: 'POST',
              url: path,
              headers: { 'content-type': 'application/json' },
              payload: JSON.stringify({ email: 'ana@example.com', n: i + k }),
            }),
          ),
        );
      for (;;) {
        const row = await db
          .selectFrom('jobs')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('status', 'in', ['queued', 'running'])
          .executeTakeFirstOrThrow();
        if (Number(row.n) === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      const failed = await db.selectFrom('jobs').select(['error']).where('status', '=', 'failed').executeTakeFirst();
      if (failed) throw new Error(`a job failed: ${failed.error}`);
      return Number(process.hrtime.bigint() - start) / 1e9;
    };
    const soql = `SELECT Id, Email FROM Contact WHERE Email = '${hook('email')}' LIMIT 1`;
    const search = await started(
      {
        provider: 'salesforce',
        name: 'search_sobjects_soql',
        input: { sobject_name: 'Contact', query: `Email = '${hook('email')}'`, field_list: 'Id, Email', limit: '1' },
      },
      configOf('salesforce', salesforceId),
    );
    const searchHttp = await started(
      {
        provider: 'rest',
        name: 'make_request_v2',
        input: {
          request: {
            method: 'GET',
            url: `${salesforce.url}/services/data/v60.0/query`,
            query: { q: soql },
            headers: { Authorization: `Bearer ${TOKEN}` },
          },
        },
      },
      configOf(null, null),
    );
    const post = await started(
      { provider: 'slack_bot', name: 'post_bot_message', input: { channel: 'C0BENCH', text: `Event ${hook('n')}` } },
      configOf('slack_bot', slackId),
    );
    const postHttp = await started(
      {
        provider: 'rest',
        name: 'make_request_v2',
        input: {
          request: {
            method: 'POST',
            url: `${slack.url}/api/chat.postMessage`,
            headers: { Authorization: `Bearer ${TOKEN}` },
            content_type: 'json',
            body: { channel: 'C0BENCH', text: `Event ${hook('n')}` },
          },
        },
      },
      configOf(null, null),
    );
    // Warm both paths (the connections' sessions, the code's compiled forms), then measure.
    for (const path of [search, searchHttp, post, postHttp]) await drive(path, 200);
    const rate = (s: number) => jobs / s;
    const rows: Array<[string, number, number]> = [];
    for (const [label, saas, http] of [
      ['Salesforce search_sobjects_soql', search, searchHttp],
      ['Slack post_bot_message', post, postHttp],
    ] as const) {
      // Two halves in turn, the order swapped, so a change in the machine's load falls on both.
      let httpSeconds = await drive(http, jobs / 2);
      let saasSeconds = await drive(saas, jobs / 2);
      saasSeconds += await drive(saas, jobs / 2);
      httpSeconds += await drive(http, jobs / 2);
      rows.push([label, rate(saasSeconds), rate(httpSeconds)]);
    }
    for (const [label, saas, http] of rows) {
      console.log(
        `${label} (${jobs} jobs): ${saas.toFixed(0)} jobs/s | HTTP connector, the same request: ${http.toFixed(0)} jobs/s | ratio ${(saas / http).toFixed(2)} (goal >= 0.8)`,
      );
      recordFigure(`${label} jobs/s`, saas);
      recordFigure(`${label}: HTTP connector jobs/s`, http);
    }
  } finally {
    await app.close();
    await database.db.destroy();
    await salesforce.close();
    await slack.close();
  }
}
