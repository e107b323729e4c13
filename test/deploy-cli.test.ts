// switchboard deploy: build, deploy, wait, and the exit status by the outcome, against a real server.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { tempDir } from './helpers.ts';
import { api, databaseUrlFor, startServer } from './process-helpers.ts';
import { onPostgres } from './test-database.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const TOKEN = 'wrkdev-deploytest0123456789abcdef0123456789abcdef';

function deploy(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'src/cli.ts'), 'deploy', ...args], {
      env: { PATH: process.env.PATH, DATA_DIR: tempDir('sb-deploy-cli-'), ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

test('switchboard deploy: 0 when deployed, 1 when the deployment fails (with the reason), 2 when refused', async () => {
  const server = await startServer(tempDir('sb-deploy-'), { SWITCHBOARD_ADMIN_TOKEN: TOKEN });
  const folder = await api(server.baseUrl, 'POST', '/api/folders', TOKEN, { name: 'Pipeline' });
  assert.equal(folder.status, 200);
  const projectId = String(folder.body.project_id);
  const code = {
    number: 0,
    keyword: 'trigger',
    provider: 'workato_webhooks',
    name: 'new_event',
    as: 'hook',
    input: {},
    block: [],
  };
  assert.equal(
    (
      await api(server.baseUrl, 'POST', '/api/recipes', TOKEN, {
        recipe: { name: 'Nightly', folder_id: folder.body.id, code: JSON.stringify(code) },
      })
    ).status,
    200,
  );

  const ok = await deploy(
    ['--project', projectId, '--to', 'test', '--url', server.baseUrl, '--description', 'from CI'],
    { SWITCHBOARD_TOKEN: TOKEN },
  );
  assert.equal(ok.code, 0, ok.stdout + ok.stderr);
  assert.match(ok.stdout, /build \d+ of project \d+ started/);
  assert.match(ok.stdout, /deployment \d+ to test started/);
  assert.match(ok.stdout, /deployed build \d+ to test/);
  const deployments = await api(server.baseUrl, 'GET', `/api/deployments?project_id=${projectId}`, TOKEN);
  assert.equal(deployments.body.items.length, 1);
  assert.equal(deployments.body.items[0].state, 'success');
  assert.equal(deployments.body.items[0].description, 'from CI');

  // A connection prod does not have: the deployment fails, and the command says why.
  const conn = await api(server.baseUrl, 'POST', '/api/connections', TOKEN, {
    name: 'Warehouse',
    provider: 'rest',
    folder_id: folder.body.id,
    input: { base_url: 'http://127.0.0.1:9/', auth_type: 'none' },
  });
  assert.ok(conn.status < 300);
  const failed = await deploy(['--project', projectId, '--to', 'prod', '--url', server.baseUrl, '--token', TOKEN]);
  assert.equal(failed.code, 1, failed.stdout + failed.stderr);
  assert.match(failed.stdout, /the deployment failed: .*no connection named "Warehouse" \(rest\)/);

  const unknown = await deploy(['--project', '999999', '--to', 'test', '--url', server.baseUrl, '--token', TOKEN]);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /answered 404/);
  const badTarget = await deploy([
    '--project',
    projectId,
    '--to',
    'staging',
    '--url',
    server.baseUrl,
    '--token',
    TOKEN,
  ]);
  assert.equal(badTarget.code, 2);
  assert.match(badTarget.stderr, /--to must be test or prod/);
  const noToken = await deploy(['--project', projectId, '--to', 'test', '--url', server.baseUrl]);
  assert.equal(noToken.code, 2);
  assert.match(noToken.stderr, /SWITCHBOARD_TOKEN/);
  assert.ok(!`${ok.stdout}${ok.stderr}${failed.stdout}${failed.stderr}`.includes(TOKEN), 'the token is never printed');
  server.child.kill('SIGTERM');
  await server.exited;
});

function tokenFor(dataDir: string, databaseUrl: string | undefined, env: 'test' | 'prod'): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [path.join(ROOT, 'src/cli.ts'), 'tokens', 'create', '--role', 'Admin', '--env', env, '--name', `ci-${env}`],
      {
        env: {
          PATH: process.env.PATH,
          DATA_DIR: dataDir,
          LOG_LEVEL: 'error',
          ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
        },
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('exit', (code) => (code === 0 ? resolve(stdout.trim()) : reject(new Error(stderr))));
  });
}

test('switchboard deploy --run-tests: carries the test cases, runs them in the target, exits 1 when one fails', async () => {
  const dataDir = tempDir('sb-deploy-tests-');
  const server = await startServer(dataDir, { SWITCHBOARD_ADMIN_TOKEN: TOKEN });
  const testToken = await tokenFor(dataDir, onPostgres ? await databaseUrlFor(dataDir) : undefined, 'test');
  const folder = await api(server.baseUrl, 'POST', '/api/folders', TOKEN, { name: 'Greetings CI' });
  const projectId = String(folder.body.project_id);
  const pill = `#{_dp('${JSON.stringify({ pill_type: 'output', provider: 'workato_webhooks', line: 'hook', path: ['payload', 'who'] })}')}`;
  const code = (greeting: string) =>
    JSON.stringify({
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
          provider: 'logger',
          name: 'log_message',
          as: 'say',
          input: { message: `${greeting} ${pill}` },
        },
      ],
    });
  const recipe = await api(server.baseUrl, 'POST', '/api/recipes', TOKEN, {
    recipe: { name: 'Greeter', folder_id: folder.body.id, code: code('hello') },
  });
  assert.equal(recipe.status, 200);
  const testCase = await api(server.baseUrl, 'POST', `/api/recipes/${recipe.body.id}/test_cases`, TOKEN, {
    name: 'Greets Ada',
    trigger_output: { payload: { who: 'Ada' } },
    expectations: [{ step: 'say', output_path: ['message'], equals: 'hello Ada' }],
  });
  assert.equal(testCase.status, 200);

  // Deployed without tests: the command names the target project, which has no test case.
  const plain = await deploy(['--project', projectId, '--to', 'test', '--url', server.baseUrl, '--token', TOKEN]);
  assert.equal(plain.code, 0, plain.stdout + plain.stderr);
  const target = /deployed build \d+ to test: project (\d+)/.exec(plain.stdout);
  assert.ok(target, plain.stdout);
  const targetProject = target[1]!;
  assert.notEqual(targetProject, projectId);
  const deployments = await api(server.baseUrl, 'GET', `/api/deployments?project_id=${projectId}`, TOKEN);
  assert.equal(deployments.body.items[0].target_project_id, targetProject);
  const none = await api(server.baseUrl, 'POST', '/api/test_cases/run_requests', testToken, {
    project_id: targetProject,
  });
  assert.equal(none.body.data.results.length, 0);

  // --run-tests: the build carries the test case, which runs in test and passes.
  const green = await deploy([
    '--project',
    projectId,
    '--to',
    'test',
    '--url',
    server.baseUrl,
    '--token',
    TOKEN,
    '--target-token',
    testToken,
    '--run-tests',
  ]);
  assert.equal(green.code, 0, green.stdout + green.stderr);
  assert.match(green.stdout, new RegExp(`running the test cases of project ${targetProject} in test`));
  assert.match(green.stdout, /pass {2}Greeter \/ Greets Ada/);
  assert.match(green.stdout, /1 passed, 0 failed/);

  // A change in dev that breaks the test case: deployed, the run fails, the command exits 1.
  assert.equal(
    (
      await api(server.baseUrl, 'PUT', `/api/recipes/${recipe.body.id}`, TOKEN, {
        recipe: { code: code('goodbye') },
      })
    ).status,
    200,
  );
  const red = await deploy(['--project', projectId, '--to', 'test', '--url', server.baseUrl, '--run-tests'], {
    SWITCHBOARD_TOKEN: TOKEN,
    SWITCHBOARD_TARGET_TOKEN: testToken,
  });
  assert.equal(red.code, 1, red.stdout + red.stderr);
  assert.match(red.stdout, /deployed build \d+ to test/);
  assert.match(
    red.stdout,
    /FAIL {2}Greeter \/ Greets Ada: expected step say output message to equal "hello Ada", got "goodbye Ada"/,
  );
  assert.match(red.stdout, /0 passed, 1 failed/);

  // No token for the target: refused before anything is built.
  const before = await api(server.baseUrl, 'GET', `/api/deployments?project_id=${projectId}`, TOKEN);
  const noTarget = await deploy([
    '--project',
    projectId,
    '--to',
    'prod',
    '--url',
    server.baseUrl,
    '--token',
    TOKEN,
    '--run-tests',
  ]);
  assert.equal(noTarget.code, 2);
  assert.match(noTarget.stderr, /SWITCHBOARD_TARGET_TOKEN/);
  const after = await api(server.baseUrl, 'GET', `/api/deployments?project_id=${projectId}`, TOKEN);
  assert.deepEqual(after.body, before.body);
  const printed = `${plain.stdout}${green.stdout}${red.stdout}${noTarget.stdout}${noTarget.stderr}`;
  assert.ok(!printed.includes(TOKEN) && !printed.includes(testToken), 'no token is printed');
  server.child.kill('SIGTERM');
  await server.exited;
});
