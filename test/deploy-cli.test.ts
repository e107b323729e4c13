// switchboard deploy: build, deploy, wait, and the exit status by the outcome, against a real server.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { tempDir } from './helpers.ts';
import { api, startServer } from './process-helpers.ts';

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
